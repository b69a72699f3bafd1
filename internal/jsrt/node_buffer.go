package jsrt

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// The Go half of node:buffer: the encodings (a string to bytes and back,
// as Node encodes and decodes them), and the operations over a buffer's
// bytes that would be slow one byte at a time in JavaScript (fill,
// indexOf, compare, copy, concat, swap). node/buffer.js checks the
// arguments, with Node's errors, before it calls one of these, and passes
// byte views (typed arrays, ArrayBuffers) only.
//
// Allocations the script sizes are refused past the memory budget before
// they are made: the bytes a string encodes to, a concatenation, the
// string a buffer decodes to.

// The encodings, numbered as node/buffer.js numbers them.
const (
	encUTF8 = iota
	encUCS2
	encLatin1
	encASCII
	encBase64
	encBase64URL
	encHex
)

var encNames = [...]string{"utf8", "utf16le", "latin1", "ascii", "base64", "base64url", "hex"}

// kStringMaxLength is the longest string Node (V8) makes.
const kStringMaxLength = 1<<29 - 24

func init() {
	nodeHosts["buffer"] = bufferHost
	nodeHosts["internal/budget"] = budgetHost
}

// budgetHost gives the modules of node/ the memory budget, for the
// allocations they size themselves (node/internal.budget.js), and its
// refusal (budgetError).
func budgetHost(r *Runtime) (*goja.Object, error) {
	h := r.vm.NewObject()
	h.Set("limit", r.opts.MemoryLimit)
	h.Set("refuse", r.budgetError)
	return h, nil
}

func bufferHost(r *Runtime) (*goja.Object, error) {
	h := r.vm.NewObject()
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { h.Set(name, fn) }
	set("encode", r.bufEncode)
	set("byteLength", r.bufByteLength)
	set("decode", r.bufDecode)
	set("write", r.bufWrite)
	set("fill", r.bufFill)
	set("indexOf", r.bufIndexOf)
	set("compare", func(c goja.FunctionCall) goja.Value {
		// compare(a, aStart, aEnd, b, bStart, bEnd)
		a := r.viewRange(c.Argument(0), c.Argument(1), c.Argument(2))
		b := r.viewRange(c.Argument(3), c.Argument(4), c.Argument(5))
		return r.vm.ToValue(bytes.Compare(a, b))
	})
	set("copy", func(c goja.FunctionCall) goja.Value {
		// copy(src, srcStart, srcEnd, dst, dstStart): as many bytes as
		// fit, overlapping or not
		src := r.viewRange(c.Argument(0), c.Argument(1), c.Argument(2))
		dst := r.viewBytes(c.Argument(3))
		at := int(c.Argument(4).ToInteger())
		if at < 0 || at > len(dst) {
			panic(r.vm.NewTypeError("buffer: copy out of range"))
		}
		return r.vm.ToValue(copy(dst[at:], src))
	})
	set("concat", r.bufConcat)
	set("swap", func(c goja.FunctionCall) goja.Value {
		b, size := r.viewBytes(c.Argument(0)), int(c.Argument(1).ToInteger())
		for i := 0; i+size <= len(b); i += size {
			for j, k := i, i+size-1; j < k; j, k = j+1, k-1 {
				b[j], b[k] = b[k], b[j]
			}
		}
		return goja.Undefined()
	})
	set("isUtf8", func(c goja.FunctionCall) goja.Value { return r.vm.ToValue(utf8.Valid(r.viewBytes(c.Argument(0)))) })
	set("isAscii", func(c goja.FunctionCall) goja.Value {
		for _, b := range r.viewBytes(c.Argument(0)) {
			if b >= utf8.RuneSelf {
				return r.vm.ToValue(false)
			}
		}
		return r.vm.ToValue(true)
	})
	return h, nil
}

var (
	arrayBufferType = reflect.TypeOf(goja.ArrayBuffer{})
	// asciiStringType is goja's type of a string all ASCII, whose Go
	// text String() returns without a copy.
	asciiStringType = reflect.TypeOf(goja.StringFromUTF16([]uint16{'a'}))
)

// viewBytes is the memory of a typed array, DataView or ArrayBuffer,
// shared: writes reach the JavaScript value.
func (r *Runtime) viewBytes(v goja.Value) []byte {
	if o, ok := v.(*goja.Object); ok {
		t := o.ExportType()
		if t == arrayBufferType {
			return o.Export().(goja.ArrayBuffer).Bytes()
		}
		if t != nil && t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Interface {
			var b []byte
			if err := r.vm.ExportTo(o, &b); err == nil {
				return b
			}
		}
	}
	panic(r.vm.NewTypeError("buffer: expected a typed array or an ArrayBuffer, not " + v.String()))
}

// viewRange is viewBytes(v)[start:end], start and end checked.
func (r *Runtime) viewRange(v, start, end goja.Value) []byte {
	b := r.viewBytes(v)
	s, e := int(start.ToInteger()), int(end.ToInteger())
	if s < 0 || e > len(b) || s > e {
		panic(r.vm.NewTypeError("buffer: range out of bounds"))
	}
	return b[s:e]
}

// jsString is a string argument: its Go text when it is all ASCII (had
// without a copy), else the string to read code units from.
func jsString(v goja.Value) (ascii string, s goja.String, isASCII bool) {
	if reflect.TypeOf(v) == asciiStringType {
		return v.String(), nil, true
	}
	s, ok := v.(goja.String)
	if !ok {
		return v.String(), nil, false // not reached: the JavaScript half passes strings
	}
	return "", s, false
}

// budgetError is the RangeError of an allocation of n bytes past the
// memory budget, worded as the prelude words its own.
func (r *Runtime) budgetError(what string, n int64) *goja.Object {
	return r.RangeError(what + " would allocate " + mib(n) + ", more than this plugin's memory budget of " + mib(r.opts.MemoryLimit))
}

// checkBudget throws budgetError when n bytes are more than the budget.
func (r *Runtime) checkBudget(what string, n int64) {
	if r.opts.MemoryLimit > 0 && n > r.opts.MemoryLimit {
		panic(r.budgetError(what, n))
	}
}

// utf8Size is how many bytes v takes as UTF-8: a lone surrogate as
// U+FFFD, three bytes, as V8 encodes it.
func utf8Size(s goja.String) int {
	n, l := 0, s.Length()
	for i := 0; i < l; i++ {
		c := s.CharAt(i)
		switch {
		case c < 0x80:
			n++
		case c < 0x800:
			n += 2
		case utf16.IsSurrogate(rune(c)) && c < 0xDC00 && i+1 < l && isLowSurrogate(s.CharAt(i+1)):
			n += 4
			i++
		default:
			n += 3
		}
	}
	return n
}

func isLowSurrogate(c uint16) bool { return c >= 0xDC00 && c <= 0xDFFF }

// putUTF8 writes s as UTF-8 into dst, whole characters only, and returns
// how many bytes it wrote.
func putUTF8(dst []byte, s goja.String) int {
	n, l := 0, s.Length()
	for i := 0; i < l; i++ {
		c := rune(s.CharAt(i))
		if c < 0x80 {
			if n >= len(dst) {
				break
			}
			dst[n] = byte(c)
			n++
			continue
		}
		next := i
		if c >= 0xD800 && c < 0xDC00 && i+1 < l && isLowSurrogate(s.CharAt(i+1)) {
			c = utf16.DecodeRune(c, rune(s.CharAt(i+1)))
			next++
		} else if utf16.IsSurrogate(c) {
			c = utf8.RuneError
		}
		if utf8.RuneLen(c) > len(dst)-n {
			break
		}
		n += utf8.EncodeRune(dst[n:], c)
		i = next
	}
	return n
}

// base64Size is the length Node gives a base64 string's bytes: three
// quarters of its characters, less up to two trailing '='. It is the
// most the string can decode to (whitespace and other characters not of
// the alphabet are skipped).
func base64Size(n int, at func(int) uint16) int {
	if n > 0 && at(n-1) == '=' {
		n--
		if n > 0 && at(n-1) == '=' {
			n--
		}
	}
	return n * 3 >> 2
}

// base64Values maps a character to its value in either alphabet (Node
// reads both, whichever it is given); 0xff: not of the alphabet.
var base64Values = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = byte(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// decodeBase64 decodes as Node does, leniently: characters outside both
// alphabets are skipped, the first '=' ends the input, a last group of
// two or three characters gives one or two bytes (of one, none). It
// writes at most len(dst) bytes and returns how many it wrote. Each
// character is read by its low byte, as Node reads a two-byte string.
func decodeBase64(dst []byte, n int, at func(int) uint16) int {
	out := 0
	var acc uint32
	k := 0
	for i := 0; i < n && out < len(dst); i++ {
		c := byte(at(i))
		if c == '=' {
			break
		}
		v := base64Values[c]
		if v == 0xff {
			continue
		}
		acc = acc<<6 | uint32(v)
		k++
		if k == 4 {
			for _, b := range [3]byte{byte(acc >> 16), byte(acc >> 8), byte(acc)} {
				if out < len(dst) {
					dst[out] = b
					out++
				}
			}
			acc, k = 0, 0
		}
	}
	switch k {
	case 2:
		if out < len(dst) {
			dst[out] = byte(acc >> 4)
			out++
		}
	case 3:
		for _, b := range [2]byte{byte(acc >> 10), byte(acc >> 2)} {
			if out < len(dst) {
				dst[out] = b
				out++
			}
		}
	}
	return out
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeHex decodes pairs of hex digits into dst until the first pair that
// is not one (or dst is full), as Node does, and returns the bytes written;
// a character is read by its low byte, as for base64.
func decodeHex(dst []byte, n int, at func(int) uint16) int {
	out := 0
	for i := 0; i+1 < n && out < len(dst); i += 2 {
		hi, ok1 := unhex(byte(at(i)))
		lo, ok2 := unhex(byte(at(i + 1)))
		if !ok1 || !ok2 {
			break
		}
		dst[out] = hi<<4 | lo
		out++
	}
	return out
}

// charReader returns a string's code units one at a time.
func charReader(ascii string, s goja.String, isASCII bool) (int, func(int) uint16) {
	if isASCII {
		return len(ascii), func(i int) uint16 { return uint16(ascii[i]) }
	}
	return s.Length(), s.CharAt
}

// encodedSize is the size of a string encoded as enc: exact but for
// base64, whose size is its most (see base64Size).
func encodedSize(ascii string, s goja.String, isASCII bool, enc int) int {
	n, at := charReader(ascii, s, isASCII)
	switch enc {
	case encUTF8:
		if isASCII {
			return n
		}
		return utf8Size(s)
	case encUCS2:
		return 2 * n
	case encBase64, encBase64URL:
		return base64Size(n, at)
	case encHex:
		return n / 2
	}
	return n
}

// encodeInto writes a string encoded as enc into dst, at most len(dst)
// bytes and only whole characters (UTF-8) or code units (UTF-16), and
// returns how many bytes it wrote.
func encodeInto(dst []byte, ascii string, s goja.String, isASCII bool, enc int) int {
	n, at := charReader(ascii, s, isASCII)
	switch enc {
	case encUTF8:
		if isASCII {
			return copy(dst, ascii)
		}
		return putUTF8(dst, s)
	case encUCS2:
		k := min(n, len(dst)/2)
		for i := 0; i < k; i++ {
			c := at(i)
			dst[2*i], dst[2*i+1] = byte(c), byte(c>>8)
		}
		return 2 * k
	case encLatin1, encASCII:
		if isASCII {
			return copy(dst, ascii)
		}
		k := min(n, len(dst))
		for i := 0; i < k; i++ {
			dst[i] = byte(at(i))
		}
		return k
	case encBase64, encBase64URL:
		return decodeBase64(dst, n, at)
	case encHex:
		return decodeHex(dst, n, at)
	}
	return 0
}

// encodeString is the bytes of a string argument encoded as enc, refused
// past the memory budget before they are made.
func (r *Runtime) encodeString(v goja.Value, enc int) []byte {
	ascii, s, isASCII := jsString(v)
	size := encodedSize(ascii, s, isASCII, enc)
	r.checkBudget("encoding a string as "+encNames[enc], int64(size))
	b := make([]byte, size)
	return b[:encodeInto(b, ascii, s, isASCII, enc)]
}

// bufEncode(string, enc) → ArrayBuffer
func (r *Runtime) bufEncode(c goja.FunctionCall) goja.Value {
	return r.vm.ToValue(r.vm.NewArrayBuffer(r.encodeString(c.Argument(0), int(c.Argument(1).ToInteger()))))
}

// bufByteLength(string, enc) → the byte length Node reports.
func (r *Runtime) bufByteLength(c goja.FunctionCall) goja.Value {
	ascii, s, isASCII := jsString(c.Argument(0))
	return r.vm.ToValue(encodedSize(ascii, s, isASCII, int(c.Argument(1).ToInteger())))
}

// bufWrite(view, string, enc, offset, length) → bytes written
func (r *Runtime) bufWrite(c goja.FunctionCall) goja.Value {
	b := r.viewBytes(c.Argument(0))
	ascii, s, isASCII := jsString(c.Argument(1))
	off, n := int(c.Argument(3).ToInteger()), int(c.Argument(4).ToInteger())
	if off < 0 || n < 0 || off > len(b) || n > len(b)-off {
		panic(r.vm.NewTypeError("buffer: write out of range"))
	}
	return r.vm.ToValue(encodeInto(b[off:off+n], ascii, s, isASCII, int(c.Argument(2).ToInteger())))
}

// bufDecode(view, enc, start, end) → string; end -1: the view's end
func (r *Runtime) bufDecode(c goja.FunctionCall) goja.Value {
	b := r.viewBytes(c.Argument(0))
	start, end := int(c.Argument(2).ToInteger()), int(c.Argument(3).ToInteger())
	if end == -1 {
		end = len(b)
	}
	if start < 0 || end > len(b) || start > end {
		panic(r.vm.NewTypeError("buffer: decode out of range"))
	}
	return r.decodeBytes(b[start:end], int(c.Argument(1).ToInteger()))
}

// decodeBytes is b decoded as enc into a string, refused when the string
// would pass Node's longest or the memory budget (two bytes a character
// but for ASCII results).
func (r *Runtime) decodeBytes(b []byte, enc int) goja.Value {
	chars, wide := len(b), true
	switch enc {
	case encUCS2:
		chars = len(b) / 2
	case encBase64:
		chars, wide = base64.StdEncoding.EncodedLen(len(b)), false
	case encBase64URL:
		chars, wide = base64.RawURLEncoding.EncodedLen(len(b)), false
	case encHex:
		chars, wide = 2*len(b), false
	case encASCII:
		wide = false
	}
	if chars > kStringMaxLength {
		panic(r.stringTooLong())
	}
	cost := int64(chars)
	if wide {
		cost *= 2
	}
	r.checkBudget("decoding "+mib(int64(len(b)))+" as "+encNames[enc], cost)
	switch enc {
	case encUTF8:
		if utf8.Valid(b) {
			return r.vm.ToValue(string(b))
		}
		return goja.StringFromUTF16(decodeUTF8(b))
	case encUCS2:
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		return goja.StringFromUTF16(u)
	case encLatin1:
		for _, x := range b {
			if x >= utf8.RuneSelf {
				u := make([]uint16, len(b))
				for i, x := range b {
					u[i] = uint16(x)
				}
				return goja.StringFromUTF16(u)
			}
		}
		return r.vm.ToValue(string(b))
	case encASCII:
		out := make([]byte, len(b))
		for i, x := range b {
			out[i] = x & 0x7f
		}
		return r.vm.ToValue(bytesString(out))
	case encBase64:
		return r.vm.ToValue(base64.StdEncoding.EncodeToString(b))
	case encBase64URL:
		return r.vm.ToValue(base64.RawURLEncoding.EncodeToString(b))
	case encHex:
		return r.vm.ToValue(hex.EncodeToString(b))
	}
	panic(r.vm.NewTypeError("buffer: no encoding"))
}

// stringTooLong is Node's error for a string past kStringMaxLength.
func (r *Runtime) stringTooLong() *goja.Object {
	e := r.vm.NewGoError(errString("Cannot create a string longer than 0x1fffffe8 characters"))
	e.Set("code", "ERR_STRING_TOO_LONG")
	return e
}

type errString string

func (e errString) Error() string { return string(e) }

// decodeUTF8 decodes b as the WHATWG decoder (and V8) do: each maximal
// invalid subsequence becomes one U+FFFD.
func decodeUTF8(b []byte) []uint16 {
	out := make([]uint16, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, uint16(c))
			i++
			continue
		}
		var need int
		var cp rune
		lo, hi := byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need, cp = 1, rune(c&0x1F)
		case c >= 0xE0 && c <= 0xEF:
			need, cp = 2, rune(c&0x0F)
			if c == 0xE0 {
				lo = 0xA0
			} else if c == 0xED {
				hi = 0x9F
			}
		case c >= 0xF0 && c <= 0xF4:
			need, cp = 3, rune(c&0x07)
			if c == 0xF0 {
				lo = 0x90
			} else if c == 0xF4 {
				hi = 0x8F
			}
		default:
			out = append(out, 0xFFFD)
			i++
			continue
		}
		j := i + 1
		for ; need > 0; need-- {
			if j >= len(b) || b[j] < lo || b[j] > hi {
				break
			}
			cp = cp<<6 | rune(b[j]&0x3F)
			lo, hi = 0x80, 0xBF
			j++
		}
		i = j // an invalid byte after a lead is read again, as a lead
		if need > 0 {
			out = append(out, 0xFFFD)
			continue
		}
		if cp >= 0x10000 {
			r1, r2 := utf16.EncodeRune(cp)
			out = append(out, uint16(r1), uint16(r2))
		} else {
			out = append(out, uint16(cp))
		}
	}
	return out
}

// pattern is a string, in encoding enc, or a view's bytes (copied: the
// view may be the buffer searched or filled).
func (r *Runtime) pattern(v goja.Value, enc goja.Value) []byte {
	if _, ok := v.(goja.String); ok {
		return r.encodeString(v, int(enc.ToInteger()))
	}
	return bytes.Clone(r.viewBytes(v))
}

// bufFill(view, value, enc, start, end) → 0, or -1 when value encodes to
// no bytes (Node's invalid value).
func (r *Runtime) bufFill(c goja.FunctionCall) goja.Value {
	b := r.viewBytes(c.Argument(0))
	p := r.pattern(c.Argument(1), c.Argument(2))
	start, end := int(c.Argument(3).ToInteger()), int(c.Argument(4).ToInteger())
	if start < 0 || end > len(b) || start > end {
		panic(r.vm.NewTypeError("buffer: fill out of range"))
	}
	if len(p) == 0 {
		return r.vm.ToValue(-1)
	}
	dst := b[start:end]
	n := copy(dst, p)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n]) // doubling: log(n) copies
	}
	return r.vm.ToValue(0)
}

// bufIndexOf(haystack, needle, enc, offset, forward) → the index of the
// first (last) match at or after (before) offset, or -1; needle is a
// number (a byte), a string in enc, or a view. Offsets follow Node: a
// negative one counts from the end, an empty needle matches at the offset
// clamped, UTF-16 needles match only at even offsets.
func (r *Runtime) bufIndexOf(c goja.FunctionCall) goja.Value {
	h := r.viewBytes(c.Argument(0))
	nv, enc, forward := c.Argument(1), int(c.Argument(2).ToInteger()), c.Argument(4).ToBoolean()
	off := c.Argument(3).ToFloat()
	var needle []byte
	switch nv.(type) {
	case goja.String, *goja.Object:
		needle = r.pattern(nv, c.Argument(2))
	default: // a number: one byte
		needle = []byte{byte(nv.ToInteger())}
		enc = encLatin1
	}
	return r.vm.ToValue(indexOf(h, needle, int64(off), forward, enc == encUCS2))
}

func indexOf(h, needle []byte, off int64, forward, ucs2 bool) int64 {
	hl, nl := int64(len(h)), int64(len(needle))
	// where the search starts (forward) or the last start it looks at
	var at int64
	switch {
	case off < 0 && off+hl >= 0:
		at = hl + off
	case off < 0 && (forward || nl == 0):
		at = 0
	case off < 0:
		return -1
	case off+nl <= hl:
		at = off
	case nl == 0:
		at = hl
	case forward:
		return -1
	default:
		at = hl - 1
	}
	if nl == 0 {
		return at
	}
	if hl == 0 || nl > hl {
		return -1
	}
	if ucs2 {
		if hl < 2 || nl < 2 {
			return -1
		}
		nl &^= 1
		needle = needle[:nl]
		at &^= 1
		if forward {
			for i := at; i+nl <= hl; i += 2 {
				if bytes.Equal(h[i:i+nl], needle) {
					return i
				}
			}
			return -1
		}
		for i := min(at, (hl-nl)&^1); i >= 0; i -= 2 {
			if bytes.Equal(h[i:i+nl], needle) {
				return i
			}
		}
		return -1
	}
	if forward {
		if i := bytes.Index(h[at:], needle); i >= 0 {
			return at + int64(i)
		}
		return -1
	}
	return int64(bytes.LastIndex(h[:min(at+nl, hl)], needle))
}

// bufConcat(list, total) → ArrayBuffer of total bytes: the views of list
// one after the other, cut at total, zeros after them.
func (r *Runtime) bufConcat(c goja.FunctionCall) goja.Value {
	total := c.Argument(1).ToInteger()
	r.checkBudget("Buffer.concat", total)
	list := c.Argument(0).ToObject(r.vm)
	n := int(list.Get("length").ToInteger())
	out := make([]byte, total)
	pos := 0
	for i := 0; i < n && pos < len(out); i++ {
		pos += copy(out[pos:], r.viewBytes(list.Get(strconv.Itoa(i))))
	}
	return r.vm.ToValue(r.vm.NewArrayBuffer(out))
}
