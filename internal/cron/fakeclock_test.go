package cron

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"
)

// waitLimit bounds every wait of a test for the scheduler. Nothing waits for
// it to pass: it only turns a hang into a failure that says what was awaited.
const waitLimit = 30 * time.Second

// fakeClock is a Clock whose time moves only when the test says. Its timers
// fire when the clock is set past them, never on their own, and the test
// can wait until the scheduler has a timer pending: then the scheduler has
// finished handling everything up to the current time and is waiting.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	changed chan struct{} // closed and replaced whenever timers changes
}

type fakeTimer struct {
	clk *fakeClock
	at  time.Time
	c   chan time.Time
}

func newFakeClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, changed: make(chan struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{clk: c, at: c.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	c.notify()
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	c := t.clk
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	c.notify()
	return true
}

// notify wakes the waiters of waitTimer; c.mu is held.
func (c *fakeClock) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// set moves the clock to now and fires the timers due by then.
func (c *fakeClock) set(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(now) {
			kept = append(kept, t)
			continue
		}
		t.c <- now
	}
	clear(c.timers[len(kept):])
	c.timers = kept
	c.notify()
}

// pending returns the earliest pending timer's time, if there is one.
func (c *fakeClock) pending() (time.Time, bool, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false, c.changed
	}
	at := c.timers[0].at
	for _, t := range c.timers[1:] {
		if t.at.Before(at) {
			at = t.at
		}
	}
	return at, true, nil
}

// waitTimer waits until a timer is pending and returns when it is due.
func (c *fakeClock) waitTimer(t testing.TB) time.Time {
	t.Helper()
	limit := time.NewTimer(waitLimit)
	defer limit.Stop()
	for {
		at, ok, changed := c.pending()
		if ok {
			return at
		}
		select {
		case <-changed:
		case <-limit.C:
			t.Fatalf("the scheduler set no timer (clock at %s)", c.Now().Format(time.TimeOnly))
		}
	}
}

// advanceTo moves the clock to target one timer at a time, letting the
// scheduler handle each wake-up before the next. It returns once the
// scheduler waits for a time after target: every tick up to target has been
// fired (its goroutine started).
func (c *fakeClock) advanceTo(t testing.TB, target time.Time) {
	t.Helper()
	for {
		at := c.waitTimer(t)
		if at.After(target) {
			c.set(target)
			return
		}
		c.set(at)
	}
}

// logRecorder is a slog.Handler that keeps every record and lets a test wait
// for a message.
type logRecorder struct {
	mu      sync.Mutex
	recs    []slog.Record
	changed chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{changed: make(chan struct{})} }

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r.Clone())
	close(l.changed)
	l.changed = make(chan struct{})
	return nil
}

func (l *logRecorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &withAttrs{l: l, attrs: as}
}

func (l *logRecorder) WithGroup(string) slog.Handler { return l }

// withAttrs adds the attributes of Logger.With to each record.
type withAttrs struct {
	l     *logRecorder
	attrs []slog.Attr
}

func (w *withAttrs) Enabled(context.Context, slog.Level) bool { return true }
func (w *withAttrs) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(w.attrs...)
	return w.l.Handle(ctx, r)
}
func (w *withAttrs) WithAttrs(as []slog.Attr) slog.Handler {
	return &withAttrs{l: w.l, attrs: append(slices.Clip(w.attrs), as...)}
}
func (w *withAttrs) WithGroup(string) slog.Handler { return w }

// logLine is one record, flattened.
type logLine struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (l *logRecorder) lines(msg string) []logLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logLine
	for _, r := range l.recs {
		if r.Message != msg {
			continue
		}
		line := logLine{level: r.Level, msg: r.Message, attrs: map[string]string{}}
		r.Attrs(func(a slog.Attr) bool {
			line.attrs[a.Key] = a.Value.String()
			return true
		})
		out = append(out, line)
	}
	return out
}

// dump logs every record, for a test that failed.
func (l *logRecorder) dump(t testing.TB) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs {
		line := r.Level.String() + " " + r.Message
		r.Attrs(func(a slog.Attr) bool {
			line += " " + a.String()
			return true
		})
		t.Log(line)
	}
}

// wait waits until n records with message msg have been logged, and returns
// them.
func (l *logRecorder) wait(t testing.TB, msg string, n int) []logLine {
	t.Helper()
	limit := time.NewTimer(waitLimit)
	defer limit.Stop()
	for {
		l.mu.Lock()
		changed := l.changed
		l.mu.Unlock()
		if got := l.lines(msg); len(got) >= n {
			return got
		}
		select {
		case <-changed:
		case <-limit.C:
			l.dump(t)
			t.Fatalf("waited for %d log lines %q; got %d", n, msg, len(l.lines(msg)))
		}
	}
}
