package jsplugin

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds on what a plugin's bus listeners may hold outside its runtime.
const (
	// MaxPendingEvents is how many bus events may wait for one plugin's
	// loop. The bus hands an event to every listener on the publisher's
	// goroutine and never waits; a plugin whose loop is behind (a listener
	// or a hook that takes long, a burst of text deltas) would otherwise
	// queue events, and the data they carry, without end. Past it, events
	// for that plugin are dropped and counted.
	MaxPendingEvents = 1000
	// MaxSubscriptions is how many bus subscriptions one plugin may hold
	// at once; past it, subscribe throws a RangeError. Every event is
	// offered to every subscription on the publisher's goroutine.
	MaxSubscriptions = 1000
	// dropReportEvery is how often, at most, a plugin's dropped events
	// are logged while they are being dropped.
	dropReportEvery = 10 * time.Second
)

// eventQueue counts the bus events waiting for one plugin's loop and the
// ones dropped because too many waited. Safe for concurrent use: events
// are taken on the publishers' goroutines, done on the loop.
type eventQueue struct {
	pending atomic.Int64
	mu      sync.Mutex
	dropped int64     // since the last report
	total   int64     // since the plugin started
	last    time.Time // when dropped events were last reported
	first   string    // the type of the first event dropped since the last report
}

// take reserves a place for one more event; false when MaxPendingEvents
// already wait.
func (q *eventQueue) take() bool {
	if q.pending.Add(1) > MaxPendingEvents {
		q.pending.Add(-1)
		return false
	}
	return true
}

// done frees the place of an event that was delivered (or never will be);
// when the queue empties after drops, the drops not yet reported are.
func (q *eventQueue) done(log *slog.Logger) {
	if q.pending.Add(-1) == 0 {
		q.report(log, "plugin: its loop caught up; bus events dropped while it was behind", true)
	}
}

// drop counts an event of type typ that found the queue full, and reports
// the drops at most every dropReportEvery (the first one at once).
func (q *eventQueue) drop(log *slog.Logger, typ string) {
	q.mu.Lock()
	q.dropped++
	q.total++
	if q.dropped == 1 {
		q.first = typ
	}
	q.mu.Unlock()
	q.report(log, "plugin: its loop is behind; bus events for its listeners are dropped", false)
}

// report logs the drops not yet reported: always when caughtUp (once per
// time the queue overflowed and emptied again), else at most every
// dropReportEvery.
func (q *eventQueue) report(log *slog.Logger, msg string, caughtUp bool) {
	q.mu.Lock()
	if q.dropped == 0 || !caughtUp && time.Since(q.last) < dropReportEvery {
		q.mu.Unlock()
		return
	}
	n, total, first := q.dropped, q.total, q.first
	q.dropped, q.last = 0, time.Now()
	q.mu.Unlock()
	log.Warn(msg, "dropped", n, "dropped_total", total, "first_dropped", first, "max_pending", MaxPendingEvents)
}
