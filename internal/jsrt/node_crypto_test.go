package jsrt

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// What crypto makes at a size the script chooses (random bytes, a derived
// key, scrypt's memory) is refused past the memory budget before it is
// made, and the runtime goes on working.
func TestCryptoAllocationsPastTheBudgetAreRefused(t *testing.T) {
	r, _ := newRT(t, refusedScript, withMemory(16))
	withRequire(t, r)
	checkRefused(t, r, [][2]string{
		{`require("crypto").randomBytes(64 << 20)`, "randomBytes would allocate 64 MiB, more than this plugin's memory budget of 16 MiB"},
		{`require("crypto").randomBytes(64 << 20, () => {})`, "randomBytes would allocate 64 MiB"},
		{`require("crypto").pbkdf2Sync("p", "s", 1, 64 << 20, "sha256")`, "pbkdf2 would allocate 64 MiB"},
		{`require("crypto").pbkdf2("p", "s", 1, 64 << 20, "sha256", () => {})`, "pbkdf2 would allocate 64 MiB"},
		{`require("crypto").scryptSync("p", "s", 16, { N: 2 ** 16, r: 8, maxmem: 2 ** 30 })`, "scrypt would allocate 65 MiB"},
		{`require("crypto").scryptSync("p", "s", 64 << 20, { N: 16, r: 1, p: 1 })`, "scrypt would allocate 64 MiB"},
	})
	v, err := r.Call(context.Background(), func(vm *goja.Runtime) (goja.Value, error) {
		return vm.RunString(`const c = require("crypto"); [c.randomBytes(1 << 20).length, c.createHash("sha1").update("ok").digest("hex")].join(" ")`)
	}, nil)
	if want := "1048576 7a85f4764bbd6daf1c3545efbbf0f279a6dc0beb"; err != nil || fmt.Sprint(v) != want {
		t.Errorf("after the refusals: %v %v, want %s", v, err, want)
	}
}

// A PBKDF2 whose iteration count would hold the loop for minutes gives up
// when the watchdog interrupts the job, and the runtime goes on.
func TestPBKDF2IsInterrupted(t *testing.T) {
	r, _ := newRT(t, "", spinLimit)
	withRequire(t, r)
	start := time.Now()
	_, err := r.Call(context.Background(), func(vm *goja.Runtime) (goja.Value, error) {
		return vm.RunString(`require("crypto").pbkdf2Sync("p", "s", 2 ** 31 - 1, 32, "sha512")`)
	}, nil)
	var spin *SpinError
	if !errors.As(err, &spin) {
		t.Fatalf("got %v, want a SpinError", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call ended after %s", d)
	}
	v, err := r.Call(context.Background(), func(vm *goja.Runtime) (goja.Value, error) {
		return vm.RunString(`require("crypto").pbkdf2Sync("p", "s", 1, 4, "sha1").toString("hex")`)
	}, nil)
	if err != nil || fmt.Sprint(v) != "843c87e7" {
		t.Errorf("after the interrupt: %v %v", v, err)
	}
}

// The streaming GCM seals and opens as Go's AEAD does, whatever the IV
// length, the AAD and where the data is cut.
func FuzzGCMStream(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte("nonce-twelve"), []byte("aad"), []byte("the plaintext, longer than a block"), uint8(5), uint8(3))
	f.Add(make([]byte, 32), []byte{1}, []byte{}, []byte{}, uint8(0), uint8(0))
	f.Add(make([]byte, 24), bytes.Repeat([]byte{7}, 60), bytes.Repeat([]byte{1}, 17), bytes.Repeat([]byte{2}, 33), uint8(16), uint8(1))
	f.Fuzz(func(t *testing.T, key, iv, aad, plain []byte, cut, aadCut uint8) {
		if n := len(key); n != 16 && n != 24 && n != 32 || len(iv) == 0 || len(iv) > 128 {
			return
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := cipher.NewGCMWithNonceSize(block, len(iv))
		if err != nil {
			return
		}
		sealed := ref.Seal(nil, iv, plain, aad)
		wantCT, wantTag := sealed[:len(plain)], sealed[len(plain):]
		split := func(b []byte, at uint8) ([]byte, []byte) {
			i := min(int(at), len(b))
			return b[:i], b[i:]
		}
		a1, a2 := split(aad, aadCut)
		p1, p2 := split(plain, cut)
		enc := newGCMStream(block, iv)
		enc.addAAD(a1)
		enc.addAAD(a2)
		ct := append(enc.update(p1, false), enc.update(p2, false)...)
		if !bytes.Equal(ct, wantCT) {
			t.Fatalf("ciphertext %x, want %x", ct, wantCT)
		}
		if tag := enc.sum(); !bytes.Equal(tag, wantTag) {
			t.Fatalf("tag %x, want %x", tag, wantTag)
		}
		dec := newGCMStream(block, iv)
		dec.addAAD(aad)
		c1, c2 := split(ct, cut)
		pt := append(dec.update(c1, true), dec.update(c2, true)...)
		if !bytes.Equal(pt, plain) || !bytes.Equal(dec.sum(), wantTag) {
			t.Fatalf("decryption: %x", pt)
		}
		if dec.addAAD([]byte("late")) {
			t.Fatal("AAD accepted after the data")
		}
	})
}

// pbkdf2Key is crypto/pbkdf2's.
func TestPBKDF2MatchesTheStandardLibrary(t *testing.T) {
	for _, c := range []struct {
		iter, keyLen int
		alg          string
	}{{1, 20, "sha1"}, {2, 20, "sha1"}, {4096, 32, "sha256"}, {3, 100, "sha512"}, {1, 0, "md5"}, {1025, 33, "sha3-256"}} {
		got, err := pbkdf2Key(hashAlgs[c.alg], []byte("password"), []byte("salt"), c.iter, c.keyLen, func() bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		want := stdPBKDF2(t, c.alg, c.iter, c.keyLen)
		if !bytes.Equal(got, want) {
			t.Errorf("%+v: %x, want %x", c, got, want)
		}
	}
	if _, err := pbkdf2Key(hashAlgs["sha1"], nil, nil, 5000, 20, func() bool { return true }); err == nil {
		t.Error("stop did not stop it")
	}
}

func stdPBKDF2(t *testing.T, alg string, iter, keyLen int) []byte {
	t.Helper()
	if keyLen == 0 {
		return []byte{}
	}
	k, err := pbkdf2.Key(hashAlgs[alg], "password", []byte("salt"), iter, keyLen)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
