package jsrt

import "github.com/dlclark/regexp2/v2"

// A regular expression that goja cannot hand to Go's regexp (one with a
// backreference or a lookaround) runs in regexp2, which backtracks and
// never looks at the runtime's interrupt flag: `/^(a+)+(?=x)\1$/` over 40
// characters holds the loop for hours, however often the watchdog fires.
// regexp2 gives up on a match after its MatchTimeout, which every
// expression takes from DefaultMatchTimeout when it is compiled: set here,
// before any runtime exists, to the default job limit. A match that gives
// up reads as no match, but only after its job has run for the job limit,
// so the watchdog has already interrupted it and the job ends at its next
// instruction with a *SpinError; nothing uses the answer.
func init() {
	regexp2.DefaultMatchTimeout = DefaultJobLimit
}
