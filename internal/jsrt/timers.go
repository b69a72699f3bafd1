package jsrt

import (
	"container/heap"
	"time"

	"github.com/dop251/goja"
)

// DefaultMaxTimers is how many timers (setTimeout and setInterval not yet
// run or cleared) one runtime may hold: past it, setTimeout throws.
const DefaultMaxTimers = 10_000

// jsTimer is one setTimeout or setInterval.
type jsTimer struct {
	id    int64 // also the order it was set in
	fn    goja.Callable
	cb    goja.Value    // fn as an object, for the memory accounting
	every time.Duration // 0 for a one-shot timer
	due   time.Time     // when it fires next
	index int           // its place in the runtime's timerHeap
}

// timerHeap orders the pending timers by when they are due and, for the
// same time, by the order they were set in (as the HTML spec orders
// timers: one never runs before another set earlier with the same or a
// shorter delay). Loop goroutine only.
type timerHeap struct {
	items []*jsTimer
	steps int // comparisons made, for the tests' count of work
}

func (h *timerHeap) Len() int { return len(h.items) }
func (h *timerHeap) Less(i, j int) bool {
	h.steps++
	a, b := h.items[i], h.items[j]
	return a.due.Before(b.due) || a.due.Equal(b.due) && a.id < b.id
}
func (h *timerHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index, h.items[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*jsTimer)
	t.index = len(h.items)
	h.items = append(h.items, t)
}
func (h *timerHeap) Pop() any {
	n := len(h.items) - 1
	t := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	t.index = -1
	return t
}

func (r *Runtime) maxTimers() int {
	if r.opts.MaxTimers > 0 {
		return r.opts.MaxTimers
	}
	return DefaultMaxTimers
}

// setTimer schedules fn; it returns the timer's id, or 0 when the runtime
// already holds its most timers (the prelude turns that into a RangeError).
//
// Timers cost O(log n) each: they sit in one heap, and one Go timer (clock)
// is armed for the earliest. The clock's expiry queues one fireDue job;
// fireDue runs exactly one due callback, so that each has the job limit to
// itself and is repaired after on its own, and queues itself again behind
// the jobs already waiting while more are due: host calls are never starved
// by timers, however many are due (setInterval(0) by the thousand).
//
// JavaScript calls it as setTimer(fn, ms, repeat).
func (r *Runtime) setTimer(call goja.FunctionCall) goja.Value {
	cb := call.Argument(0)
	fn, ok := goja.AssertFunction(cb)
	if !ok {
		panic(r.vm.NewTypeError("setTimer: not a function"))
	}
	return r.vm.ToValue(r.addTimer(fn, cb, call.Argument(1).ToFloat(), call.Argument(2).ToBoolean()))
}

func (r *Runtime) addTimer(fn goja.Callable, cb goja.Value, ms float64, repeat bool) int64 {
	if len(r.timers) >= r.maxTimers() {
		return 0
	}
	d := time.Duration(max(ms, 0) * float64(time.Millisecond))
	r.nextTimer++
	t := &jsTimer{id: r.nextTimer, fn: fn, cb: cb, due: time.Now().Add(d)}
	if repeat {
		t.every = max(d, time.Millisecond)
	}
	r.timers[t.id] = t
	heap.Push(&r.theap, t)
	if t.index == 0 {
		r.armClock()
	}
	return t.id
}

func (r *Runtime) clearTimer(id int64) {
	if t := r.timers[id]; t != nil {
		delete(r.timers, id)
		heap.Remove(&r.theap, t.index)
		// The clock may now be early for the next timer: its firing then
		// finds nothing due and re-arms itself.
	}
}

// armClock arms the clock for the earliest timer, unless a fireDue job is
// already queued (it re-arms the clock when it runs). Loop goroutine only.
func (r *Runtime) armClock() {
	if r.fireQueued.Load() {
		return
	}
	if r.theap.Len() == 0 {
		r.clock.Stop()
		return
	}
	r.clock.Reset(max(time.Until(r.theap.items[0].due), 0))
}

// clockFired runs on the clock's goroutine: it queues fireDue once.
func (r *Runtime) clockFired() {
	if r.fireQueued.CompareAndSwap(false, true) {
		if !r.enqueue(r.fireDue) {
			r.fireQueued.Store(false)
		}
	}
}

// fireDue runs the callback of the timer due first, if one is due.
func (r *Runtime) fireDue() {
	r.fireQueued.Store(false)
	if r.theap.Len() == 0 {
		return
	}
	now := time.Now()
	t := r.theap.items[0]
	if t.due.After(now) {
		r.armClock()
		return
	}
	if t.every == 0 {
		delete(r.timers, t.id)
		heap.Pop(&r.theap)
	} else {
		t.due = now.Add(t.every)
		heap.Fix(&r.theap, 0)
	}
	if r.theap.Len() > 0 && !r.theap.items[0].due.After(now) {
		r.fireQueued.Store(true)
		if !r.enqueue(r.fireDue) {
			r.fireQueued.Store(false)
		}
	} else {
		r.armClock()
	}
	if _, err := t.fn(goja.Undefined()); err != nil {
		r.LogError("plugin: timer callback threw", err)
	}
}

// stopTimers forgets every timer when the loop stops.
func (r *Runtime) stopTimers() {
	r.clock.Stop()
	clear(r.timers)
	clear(r.theap.items)
	r.theap.items = nil
}
