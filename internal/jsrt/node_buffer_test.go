package jsrt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// withRequire gives the runtime's scripts a global require of the Node
// modules, as a bundled plugin has.
func withRequire(t testing.TB, r *Runtime) {
	t.Helper()
	if err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		return vm.Set("require", func(call goja.FunctionCall) goja.Value {
			v, ok, err := r.Builtin(call.Argument(0).String())
			if err != nil {
				panic(vm.NewGoError(err))
			}
			if !ok {
				panic(vm.NewTypeError("no module " + call.Argument(0).String()))
			}
			return v
		})
	}); err != nil {
		t.Fatal(err)
	}
}

// refusedScript evaluates src in a fresh job and says how it ended:
// "RangeError: …" when it threw one, "ok" when it did not throw.
const refusedScript = `
	function refused(src) {
		try { (0, eval)(src); return "ok"; } catch (e) { return e.name + ": " + e.message; }
	}`

// checkRefused runs each case in r (see refusedScript) and wants a
// RangeError whose message starts with want.
func checkRefused(t *testing.T, r *Runtime, cases [][2]string) {
	t.Helper()
	ctx := context.Background()
	for _, c := range cases {
		v, err := callGlobal(r, ctx, "refused", c[0])
		if err != nil || !strings.HasPrefix(fmt.Sprint(v), "RangeError: "+c[1]) {
			t.Errorf("%s: %v %v, want RangeError: %s…", c[0], v, err, c[1])
		}
	}
}

// A Buffer whose size the script chooses is refused past the memory
// budget before it is made, whether JavaScript or Go would allocate it,
// and the runtime goes on working.
func TestBufferAllocationsPastTheBudgetAreRefused(t *testing.T) {
	r, _ := newRT(t, refusedScript, withMemory(16))
	withRequire(t, r)
	checkRefused(t, r, [][2]string{
		{`Buffer.alloc(64 << 20)`, "Buffer.alloc would allocate 64 MiB, more than this plugin's memory budget of 16 MiB"},
		{`Buffer.alloc(2 ** 32, "x")`, "Buffer.alloc would allocate 4096 MiB"},
		{`Buffer.allocUnsafe(64 << 20)`, "Buffer.allocUnsafe would allocate 64 MiB"},
		{`Buffer.allocUnsafeSlow(64 << 20)`, "Buffer.allocUnsafeSlow would allocate 64 MiB"},
		{`require("buffer").SlowBuffer(64 << 20)`, "SlowBuffer would allocate 64 MiB"},
		{`Buffer(64 << 20)`, "Buffer.alloc would allocate 64 MiB"},
		{`Buffer.concat([Buffer.alloc(1)], 2 ** 32)`, "Buffer.concat would allocate 4096 MiB"},
		{`Buffer.from({ length: 2 ** 30 })`, "Buffer.from would allocate 1024 MiB"},
		// a string within the budget whose bytes are not
		{`Buffer.from("€".repeat(6e6))`, "encoding a string as utf8 would allocate 18 MiB"},
		{`Buffer.alloc(4).fill("€".repeat(6e6))`, "encoding a string as utf8 would allocate 18 MiB"},
		// bytes within the budget whose string is not
		{`Buffer.alloc(9 << 20).toString("hex")`, "decoding 9 MiB as hex would allocate 18 MiB"},
		{`Buffer.alloc(9 << 20, 0xe9).toString("latin1")`, "decoding 9 MiB as latin1 would allocate 18 MiB"},
		{`Buffer.alloc(9 << 20, 0xe9).toString()`, "decoding 9 MiB as utf8 would allocate 18 MiB"},
		{`Buffer.alloc(2 << 20).toJSON()`, "Array.from would allocate 32 MiB"},
	})
	v, err := r.Call(context.Background(), func(vm *goja.Runtime) (goja.Value, error) {
		return vm.RunString(`[Buffer.from("still here").toString("base64"), Buffer.alloc(1 << 20, "ab").length, Buffer.alloc(3 << 20).toString("hex").length].join(" ")`)
	}, nil)
	if want := "c3RpbGwgaGVyZQ== 1048576 6291456"; err != nil || fmt.Sprint(v) != want {
		t.Errorf("after the refusals: %v %v, want %s", v, err, want)
	}
}

// The encodings of a runtime without a budget are not bounded by one.
func TestBufferWithoutABudget(t *testing.T) {
	r, _ := newRT(t, "")
	withRequire(t, r)
	v, err := r.Call(context.Background(), func(vm *goja.Runtime) (goja.Value, error) {
		return vm.RunString(`String(Buffer.from("€".repeat(1e6)).toString("hex").length)`)
	}, nil)
	if err != nil || fmt.Sprint(v) != "6000000" {
		t.Errorf("got %v %v", v, err)
	}
}

// base64Reference decodes as Node's lenient decoder is documented to: the
// characters of either alphabet up to the first '=', others skipped, a
// last lone character dropped.
func base64Reference(s string) []byte {
	var clean []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			break
		}
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			clean = append(clean, c)
		case c == '-':
			clean = append(clean, '+')
		case c == '_':
			clean = append(clean, '/')
		}
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	out, err := base64.RawStdEncoding.DecodeString(string(clean))
	if err != nil {
		panic(err)
	}
	return out
}

func FuzzBufferBase64Decode(f *testing.F) {
	for _, s := range []string{"", "QQ", "QQ==", "aGVsbG8gd29ybGQ=", " aGVs\nbG8= ", "-_-_", "Q=Q=", "!!!", "Zm9vYmFy===", "a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at := func(i int) uint16 { return uint16(s[i]) }
		size := base64Size(len(s), at)
		dst := make([]byte, size)
		n := decodeBase64(dst, len(s), at)
		if n > size {
			t.Fatalf("%q: wrote %d bytes into %d", s, n, size)
		}
		if want := base64Reference(s); !bytes.Equal(dst[:n], want) {
			t.Fatalf("%q: decoded %x, want %x", s, dst[:n], want)
		}
		if std, err := base64.StdEncoding.DecodeString(s); err == nil && !bytes.Equal(dst[:n], std) {
			t.Fatalf("%q: decoded %x, the standard decoder %x", s, dst[:n], std)
		}
		short := make([]byte, n/2) // a destination too small: filled, not passed
		if m := decodeBase64(short, len(s), at); m != len(short) || !bytes.Equal(short, dst[:m]) {
			t.Fatalf("%q: into %d bytes: %d %x", s, len(short), m, short)
		}
	})
}

func FuzzBufferHexDecode(f *testing.F) {
	for _, s := range []string{"", "ab", "abc", "zz12", "12zz", "0g", "DEADbeef"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at := func(i int) uint16 { return uint16(s[i]) }
		dst := make([]byte, len(s)/2)
		n := decodeHex(dst, len(s), at)
		valid := 0 // the longest prefix of whole pairs of hex digits
		for valid+1 < len(s) {
			if _, err := hex.DecodeString(s[valid : valid+2]); err != nil {
				break
			}
			valid += 2
		}
		want, _ := hex.DecodeString(s[:valid])
		if !bytes.Equal(dst[:n], want) {
			t.Fatalf("%q: decoded %x, want %x", s, dst[:n], want)
		}
	})
}

func FuzzBufferUTF8Decode(f *testing.F) {
	for _, b := range [][]byte{{}, []byte("héllo"), {0xe2, 0x82, 0x41}, {0xf0, 0x9f, 0x98}, {0xed, 0xa0, 0x80}, {0xff, 0xc0, 0x80}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := decodeUTF8(b)
		if len(out) > len(b) {
			t.Fatalf("%x: %d code units from %d bytes", b, len(out), len(b))
		}
		s := string(utf16.Decode(out))
		if utf8.Valid(b) && s != string(b) {
			t.Fatalf("%x: valid input decoded as %q", b, s)
		}
		for i := 0; i < len(out); i++ { // no lone surrogate
			switch c := out[i]; {
			case c >= 0xD800 && c < 0xDC00:
				if i+1 >= len(out) || out[i+1] < 0xDC00 || out[i+1] > 0xDFFF {
					t.Fatalf("%x: lone high surrogate at %d", b, i)
				}
				i++
			case c >= 0xDC00 && c <= 0xDFFF:
				t.Fatalf("%x: lone low surrogate at %d", b, i)
			}
		}
		// each valid character survives, in order: dropping the
		// replacement characters leaves what Go's decoder keeps
		var kept, goKept []rune
		for _, r := range s {
			if r != utf8.RuneError {
				kept = append(kept, r)
			}
		}
		for _, r := range string(b) {
			if r != utf8.RuneError {
				goKept = append(goKept, r)
			}
		}
		if string(kept) != string(goKept) {
			t.Fatalf("%x: kept %q, Go's decoder %q", b, string(kept), string(goKept))
		}
	})
}

// indexOfReference searches as Node documents it, one position at a time.
func indexOfReference(h, needle []byte, off int64, forward bool) int64 {
	n, l := int64(len(h)), int64(len(needle))
	if off < 0 {
		off += n
	}
	if l == 0 {
		return max(0, min(off, n))
	}
	match := func(i int64) bool { return i >= 0 && i+l <= n && bytes.Equal(h[i:i+l], needle) }
	if forward {
		for i := max(off, 0); i+l <= n; i++ {
			if match(i) {
				return i
			}
		}
		return -1
	}
	for i := min(off, n-1); i >= 0; i-- {
		if match(i) {
			return i
		}
	}
	return -1
}

func FuzzBufferIndexOf(f *testing.F) {
	f.Add([]byte("abcabcabc"), []byte("bc"), int64(2), true)
	f.Add([]byte("abcabcabc"), []byte("bc"), int64(-4), false)
	f.Add([]byte("abc"), []byte(""), int64(40), true)
	f.Fuzz(func(t *testing.T, h, needle []byte, off int64, forward bool) {
		off %= 1 << 20
		got := indexOf(h, needle, off, forward, false)
		if want := indexOfReference(h, needle, off, forward); got != want {
			t.Fatalf("indexOf(%q, %q, %d, %v) = %d, want %d", h, needle, off, forward, got, want)
		}
	})
}
