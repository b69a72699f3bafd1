// Package safetext makes text from elsewhere (a model, a tool's output, a
// plugin, a project's file) safe to write to a terminal: a control
// character, a bidirectional override, a line separator or a byte that is
// not UTF-8 is shown as its Go escape ("\x1b", "\u202e", "\x9b"), so that
// no such text can move the cursor, rewrite what is shown, set the
// clipboard or hide a part of a line.
package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s on one line: every control character escaped, new lines too.
func Line(s string) string { return escape(s, false) }

// Text is s with its lines and tabs kept, every other control character
// escaped.
func Text(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	bad := func(r rune) bool { return Unsafe(r) && !(lines && (r == '\n' || r == '\t')) }
	if !strings.ContainsFunc(s, func(r rune) bool { return bad(r) || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			// Not UTF-8: a byte a terminal could take for C1's CSI.
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case bad(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Unsafe reports whether r is one of the characters Line and Text escape.
func Unsafe(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}
