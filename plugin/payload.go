package plugin

import (
	"unicode/utf8"
	"unsafe"
)

// truncateToolOutput cuts s to at most MaxToolOutputBytes bytes. The cut
// never splits a UTF-8 sequence: it backs off to the start of the rune that
// would straddle the limit (at most utf8.UTFMax-1 bytes, so invalid input
// still gets a cut). It is idempotent, and reports whether it cut.
func truncateToolOutput(s string) (string, bool) {
	if len(s) <= MaxToolOutputBytes {
		return s, false
	}
	cut := MaxToolOutputBytes
	for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); back++ {
		cut--
	}
	return s[:cut], true
}

// normalize writes into dst the payload that handlers of p.Event see: a
// shallow copy of p with the fields the event does not carry cleared (SPEC L6)
// and ToolOutput truncated (SPEC L4). p itself is never modified; when the
// truncation has to be recorded in Extra, dst gets a new map.
func normalize(dst, p *HookPayload) {
	*dst = *p
	if !p.Event.IsToolEvent() {
		dst.ToolName, dst.ToolInput, dst.ToolElapsedMs = "", "", 0
	}
	if p.Event != HookPostToolUse {
		dst.ToolOutput = ""
		return
	}
	out, cut := truncateToolOutput(p.ToolOutput)
	if !cut {
		return
	}
	dst.ToolOutput = out
	extra := make(map[string]any, len(p.Extra)+2)
	for k, v := range p.Extra {
		extra[k] = v
	}
	extra[ExtraToolOutputTruncated] = true
	extra[ExtraToolOutputBytes] = len(p.ToolOutput)
	dst.Extra = extra
}

// sameValue reports whether a and b are the same interface value: the same
// dynamic type and the same data word. Unlike ==, it never panics on
// uncomparable types (maps, slices), and it is sound for the purpose here:
// the shared copy of Extra (run.fillWork) holds interface values copied word
// for word, so an untouched entry is always the same, and an entry that
// compares the same holds the very value it held before, whatever a handler
// wrote.
func sameValue(a, b any) bool {
	return *(*[2]unsafe.Pointer)(unsafe.Pointer(&a)) == *(*[2]unsafe.Pointer)(unsafe.Pointer(&b))
}
