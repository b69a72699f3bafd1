package chat

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Shorten never splits a rune, and keeps what fits.
func TestShorten(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"fix the\n  build", 60, "fix the build"},
		{"abcdef", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is two bytes: cut before it
		{"日本語", 4, "日…"},
		{"日本語", 0, "…"},
	}
	for _, c := range cases {
		if got := Shorten(c.in, c.n); got != c.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	long := strings.Repeat("é", 100)
	for n := range 50 {
		if got := Shorten(long, n); !utf8.ValidString(got) || len(got) > n+len("…") {
			t.Fatalf("Shorten(…, %d) = %q", n, got)
		}
	}
}
