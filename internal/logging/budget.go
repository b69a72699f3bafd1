package logging

import "time"

// LineBudget bounds how many lines one source (a plugin's console, a
// process's stderr) writes to the log: Burst lines at once, then PerSecond
// a second on average (a token bucket). Its owner serialises the calls.
type LineBudget struct {
	Burst, PerSecond float64

	tokens float64
	last   time.Time // when tokens was last refilled
	held   int       // lines held back since the last one let through
}

// Allow says whether a line may be logged at now; when it may, held is how
// many lines were held back since the last one that was.
func (b *LineBudget) Allow(now time.Time) (ok bool, held int) {
	if b.last.IsZero() {
		b.tokens = b.Burst
	} else {
		b.tokens = min(b.Burst, b.tokens+now.Sub(b.last).Seconds()*b.PerSecond)
	}
	b.last = now
	if b.tokens < 1 {
		b.held++
		return false, 0
	}
	b.tokens--
	held, b.held = b.held, 0
	return true, held
}

// TakeHeld returns how many lines were held back since the last one let
// through, and forgets them: for the count a source reports when it ends.
func (b *LineBudget) TakeHeld() int {
	held := b.held
	b.held = 0
	return held
}
