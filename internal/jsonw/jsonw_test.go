package jsonw

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// What AppendString writes decodes to the string encoding/json decodes
// from its own output: escapes, control characters, invalid UTF-8.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "line\nfeed\r\ttab\x00\x1f", "<html>&amp;", "\xff\xfeinvalid", "é ü 日本 🎉", "\u2028\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if !utf8.Valid(out) {
			t.Errorf("AppendString(%q) = %q, not UTF-8", s, out)
		}
		if n := QuotedLen(s); n != len(out) {
			t.Errorf("QuotedLen(%q) = %d, AppendString wrote %d bytes", s, n, len(out))
		}
		if bs := AppendBytes(nil, []byte(s)); string(bs) != string(out) {
			t.Errorf("AppendBytes(%q) = %s, AppendString %s", s, bs, out)
		}
		var got string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("AppendString(%q) = %s, not JSON: %v", s, out, err)
		}
		ref, _ := json.Marshal(s)
		var want string
		json.Unmarshal(ref, &want)
		if got != want {
			t.Errorf("AppendString(%q) decodes to %q, encoding/json's to %q", s, got, want)
		}
	})
}
