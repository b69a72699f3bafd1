package jsrt

import (
	"testing"
	"unicode/utf16"
)

// Each maximal ill-formed subsequence is one U+FFFD, as the Encoding
// Standard's decoder makes it (TextDecoder's and Buffer's).
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
		if got := string(utf16.Decode(decodeUTF8([]byte(in)))); got != want {
			t.Errorf("decodeUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}
