package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndText(t *testing.T) {
	in := "a\tb\nc\x1b[2J\r\u202e\u2028\x07\u009b\x9b[2J"
	if got, want := Line(in), `a\tb\nc\x1b[2J\r\u202e\u2028\a\u009b\x9b[2J`; got != want {
		t.Errorf("Line: %q, want %q", got, want)
	}
	if got, want := Text(in), "a\tb\nc"+`\x1b[2J\r\u202e\u2028\a\u009b\x9b[2J`; got != want {
		t.Errorf("Text: %q, want %q", got, want)
	}
	if s := "plain text, ünïcödé"; Line(s) != s || Text(s) != s {
		t.Error("plain text changed")
	}
}

func FuzzSafe(f *testing.F) {
	f.Add("a\x1b]52;c;x\x07b\n\tc\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		if l := Line(s); strings.IndexFunc(l, Unsafe) >= 0 || !utf8.ValidString(l) {
			t.Errorf("Line left %q", l)
		}
		if x := Text(s); strings.IndexFunc(x, func(r rune) bool { return Unsafe(r) && r != '\n' && r != '\t' }) >= 0 || !utf8.ValidString(x) {
			t.Errorf("Text left %q", x)
		}
	})
}
