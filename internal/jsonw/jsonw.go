// Package jsonw writes JSON without reflection, for the hot paths that
// write the same shapes over and over (a hook step's record, a model
// request's history). What it writes decodes as encoding/json's output of
// the same value does; it does not escape <, > and &, which JSON does not
// require.
package jsonw

import (
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 as U+FFFD, everything else as it is.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendBytes is AppendString for text held as bytes (a tool call's
// arguments), without copying them into a string first: AppendString
// reads its argument and keeps nothing of it.
func AppendBytes(b, p []byte) []byte {
	return AppendString(b, unsafe.String(unsafe.SliceData(p), len(p)))
}

// escapeExtra is what AppendString adds to an ASCII byte: 1 for \x, 5
// for \u00xx; 0 for the rest (and for the bytes of valid UTF-8).
var escapeExtra = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 5
	}
	for _, c := range []byte{'"', '\\', '\n', '\r', '\t'} {
		t[c] = 1
	}
	return t
}()

// QuotedLen is len(AppendString(nil, s)), counted without writing: what a
// writer that keeps only the start of a long string still owes.
func QuotedLen(s string) int {
	n := 2 + len(s) // then what escapes add
	if utf8.ValidString(s) {
		for i := 0; i < len(s); i++ {
			n += int(escapeExtra[s[i]])
		}
		return n
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			n += int(escapeExtra[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 5 // one byte becomes \ufffd
		}
		i += size
	}
	return n
}
