package jsrt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"plain é 😀":        "plain é 😀",
		"\xE2\x82":         "\uFFFD",
		"\xC3\xC3":         "\uFFFD\uFFFD",
		"\xE2\x82\xE2\x82": "\uFFFD\uFFFD",
		"\xFFA":            "\uFFFDA",
		"\xED\xA0\x80":     "\uFFFD\uFFFD\uFFFD", // a surrogate
		"\xF0\x9F\x98":     "\uFFFD",
		"\xF4\x90\x80\x80": "\uFFFD\uFFFD\uFFFD\uFFFD",
		"\xE0\x80\x80":     "\uFFFD\uFFFD\uFFFD",
		"a\xC3":            "a\uFFFD",
	} {
		if got := decodeUTF8([]byte(in)); got != want {
			t.Errorf("decodeUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever the bytes, the text is valid UTF-8, valid input comes back as
// it was, and no byte gives more than one replacement.
func FuzzDecodeUTF8(f *testing.F) {
	for _, s := range []string{"", "abc", "\xE2\x82", "\xF0\x9F\x98\x80\xFF", "\xED\xA0\x80x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := decodeUTF8(b)
		if !utf8.ValidString(s) {
			t.Fatalf("decodeUTF8(%q) = %q, not valid UTF-8", b, s)
		}
		if utf8.Valid(b) && s != string(b) {
			t.Fatalf("decodeUTF8(%q) = %q, changed valid input", b, s)
		}
		if n := strings.Count(s, "\uFFFD") - strings.Count(string(b), "\uFFFD"); n > len(b) {
			t.Fatalf("decodeUTF8(%q) = %q: %d replacements", b, s, n)
		}
	})
}
