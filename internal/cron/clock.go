package cron

import "time"

// Clock is the scheduler's source of time. The system's clock is the
// default; tests give a fake one that they advance by hand.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the time on its channel once d
	// has passed (at once when d <= 0).
	NewTimer(d time.Duration) Timer
}

// Timer is one timer of a Clock.
type Timer interface {
	// C is the channel the time is sent on when the timer fires. It has a
	// buffer of one, so a timer fires whether or not anyone receives.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it did.
	Stop() bool
}

// systemClock is the system's clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }
