package plugin

import (
	"context"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// run is the working state of one dispatch. The dispatching goroutine (the
// caller) fills it, hands it to a pool goroutine (the worker), and waits for
// the worker's signal on finished, for the deadline, or for its own context.
//
// Ownership: the worker alone writes copies, slots and data; the caller
// reads only the slots the worker published. The handshake is state: the
// worker starts handler i by moving it from 2i to 2i+1 and publishes its
// slot by moving it on to 2i+2, both by compare-and-swap; the caller, done
// waiting, sets the closed bit and keeps the value it replaced. A swap that
// fails means the caller closed the run: the worker starts nothing more and
// publishes nothing more, so a handler reported as skipped never runs, and
// one that returns after being abandoned never races with the report.
//
// A run whose handlers all finished is cleared and reused (runPool); an
// abandoned run stays with its worker and is left to the garbage collector.
type run struct {
	d     *Dispatcher
	chain *chain
	ctx   *hookCtx
	t0    time.Duration // when the dispatch started, as a clock() reading
	end   time.Duration // when the last handler returned; published by state

	base  HookPayload    // normalized
	extra []kv           // base.Extra's entries: the reference for the Extra check
	work  map[string]any // the copy of base.Extra the handlers share
	spare map[string]any // the map work uses while no handler has written to it
	// state is 2*done + running (+ closed): done handlers have finished and
	// their slots are published; running is 1 while handler done runs;
	// closed is set once by the caller when it stops waiting.
	state atomic.Int32

	finished chan struct{} // buffered: the worker's last act on a complete run, or the deadline
	timer    *time.Timer   // runs expire at the deadline; reused with the run

	copies [MaxHandlersPerEvent]HookPayload
	slots  [MaxHandlersPerEvent]HandlerRun
	data   [MaxHandlersPerEvent]map[string]any
}

var runPool = sync.Pool{New: func() any { return &run{finished: make(chan struct{}, 1)} }}

// release clears what the run references and returns it to the pool.
func (r *run) release(n int) {
	clear(r.copies[:n])
	clear(r.slots[:n])
	clear(r.data[:n])
	clear(r.extra)
	r.d, r.chain, r.ctx, r.base, r.work, r.extra = nil, nil, nil, HookPayload{}, nil, r.extra[:0]
	r.state.Store(0)
	runPool.Put(r)
}

// exec runs the handlers from index from on, and signals the caller when
// all of them have finished.
func (r *run) exec(from int) {
	prev := clock()
	for i := from; i < len(r.chain.run); i++ {
		if !r.state.CompareAndSwap(int32(2*i), int32(2*i+1)) {
			return // the caller closed the run: start nothing more
		}
		var ok bool
		if prev, ok = r.step(i, prev); !ok {
			return
		}
	}
	r.signal()
}

// closedBit marks a run the caller stopped waiting for.
const closedBit = 1 << 30

// epoch anchors clock. Durations are measured as clock() offsets because
// time.Since reads only the monotonic clock, half the cost of time.Now, and a
// dispatch reads it once per handler.
var epoch = time.Now()

func clock() time.Duration { return time.Since(epoch) }

// signal wakes the caller. One wake-up is enough, so it never blocks: the
// worker and expire may both signal.
func (r *run) signal() {
	select {
	case r.finished <- struct{}{}:
	default:
	}
}

// expire runs at the dispatch deadline, on a goroutine of its own.
func (r *run) expire() {
	r.ctx.cancel(context.DeadlineExceeded)
	r.signal()
}

type kv struct {
	k string
	v any
}

// shareExtra records base.Extra's entries and fills the copy handlers
// share. The copy is the run's own map, reused with the run, so an untouched
// Extra costs no allocation.
func (r *run) shareExtra() {
	if r.base.Extra == nil {
		return
	}
	for k, v := range r.base.Extra {
		r.extra = append(r.extra, kv{k, v})
	}
	if r.spare == nil {
		r.spare = make(map[string]any, len(r.extra))
	}
	r.fillWork(r.spare)
}

// fillWork makes m, emptied and refilled from r.extra, the shared copy.
func (r *run) fillWork(m map[string]any) {
	clear(m)
	for _, e := range r.extra {
		m[e.k] = e.v
	}
	r.work = m
}

// workChanged reports whether a handler wrote to the shared copy of Extra:
// a key added or removed, or a value replaced (see sameValue).
func (r *run) workChanged() bool {
	if len(r.work) != len(r.extra) {
		return true
	}
	for _, e := range r.extra {
		if v, ok := r.work[e.k]; !ok || !sameValue(v, e.v) {
			return true
		}
	}
	return false
}

// step runs handler i and publishes its slot. prev and the time returned
// are clock() readings; ok is false when the caller closed the run meanwhile.
func (r *run) step(i int, prev time.Duration) (time.Duration, bool) {
	if m := r.chain.run[i].matcher; m != nil && r.base.Event.IsToolEvent() && !matchesTool(m, &r.base) {
		return r.record(i, nil, nil, unmatched{}, prev)
	}
	p := &r.copies[i]
	*p = r.base
	p.Extra = r.work
	res, err, pv := r.call(i, p, prev)
	return r.record(i, res, err, pv, prev)
}

// unmatched stands for a handler whose matcher did not match the tool.
type unmatched struct{}

// goexit stands for a handler that called runtime.Goexit.
type goexit struct{}

func (goexit) String() string { return "handler called runtime.Goexit" }

type panicked struct {
	value any
	stack []byte
}

// call runs handler i, turning a panic into pv. A handler that calls
// runtime.Goexit ends this goroutine: its slot is recorded as a panic and the
// rest of the chain carries on on a new goroutine.
//
//lint:ignore ST1008 the recovered panic value comes after the handler's own results
func (r *run) call(i int, p *HookPayload, prev time.Duration) (res *HookResult, err error, pv any) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if v := recover(); v != nil {
			pv = panicked{value: v, stack: debug.Stack()}
			return
		}
		if _, ok := r.record(i, nil, nil, goexit{}, prev); ok {
			go r.exec(i + 1)
		}
	}()
	res, err = r.chain.run[i].h(r.ctx, p)
	returned = true
	return res, err, nil
}

// record fills slot i from what handler i did, logs a failure, gives the
// next handler a fresh copy of Extra if this one wrote to it, and publishes
// the slot; ok is false when the caller closed the run first.
func (r *run) record(i int, res *HookResult, err error, pv any, prev time.Duration) (time.Duration, bool) {
	e := r.chain.run[i]
	now := clock()
	s := &r.slots[i]
	*s = HandlerRun{Source: e.source, Layer: e.layer, FailClosed: e.failClosed, Duration: now - prev, Start: prev - r.t0}
	switch {
	case pv == unmatched{}:
		s.Outcome = OutcomeNotMatched
	case pv != nil:
		s.Outcome = OutcomePanic
		attrs := []any{"event", string(e.event), "source", e.source, "layer", e.layer.String()}
		if p, ok := pv.(panicked); ok {
			s.Error = fmt.Sprintf("panic: %v", p.value)
			attrs = append(attrs, "panic", fmt.Sprint(p.value), "stack", string(p.stack))
		} else {
			s.Error = fmt.Sprint(pv)
			attrs = append(attrs, "panic", s.Error)
		}
		r.d.log().Error("plugin: hook handler panicked", attrs...)
	case err != nil:
		s.Outcome, s.Error = OutcomeError, errorText(err)
	case res == nil:
		s.Outcome = OutcomeAbstained
	case res.Decision == "":
		s.Outcome = OutcomeAbstained
		r.data[i] = res.Data
	case !res.Decision.Valid():
		s.Outcome = OutcomeError
		s.Error = fmt.Sprintf("unknown decision %q (valid: allow, deny, ask, defer)", res.Decision)
	default:
		s.Outcome = OutcomeVoted
		s.Decision, s.Message = res.Decision, res.Message
		r.data[i] = res.Data
	}
	if s.Outcome == OutcomeError {
		r.d.log().Warn("plugin: hook handler failed", "event", string(e.event), "source", e.source,
			"layer", e.layer.String(), "error", s.Error)
	}
	if s.FailClosed && (s.Outcome == OutcomeError || s.Outcome == OutcomePanic) {
		failClosed(s)
	}
	if r.work != nil && i+1 < len(r.chain.run) && r.workChanged() {
		// A handler wrote to Extra. It may still hold the map, so the next
		// handler gets a new one, which is never reused.
		r.spare = nil
		r.fillWork(make(map[string]any, len(r.extra)))
	}
	if i+1 == len(r.chain.run) {
		r.end = now
	}
	return now, r.state.CompareAndSwap(int32(2*i+1), int32(2*i+2))
}

// errorText is err's message; a handler's error must not be able to crash
// the worker (a typed nil pointer in an error interface panics in Error).
func errorText(err error) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("%T (its Error method panicked: %v)", err, v)
		}
	}()
	return err.Error()
}

// failClosed turns the failure recorded in s into a deny.
func failClosed(s *HandlerRun) {
	s.Decision = DecisionDeny
	what := s.Error
	switch s.Outcome {
	case OutcomeTimedOut:
		what = "it did not answer before the dispatch deadline"
	case OutcomeCanceled:
		what = "the dispatch was canceled while it ran"
	case OutcomeSkipped:
		what = "it did not run before the dispatch deadline"
	}
	s.Message = fmt.Sprintf("hook %s failed closed: %s", s.Source, what)
}

// unfinished describes the handlers from index n on, which did not finish:
// the one running when the caller stopped waiting (if any) is logged as
// abandoned, the others never started. It runs on the caller's goroutine.
func (r *run) unfinished(n int, running, canceled bool) []HandlerRun {
	run := r.chain.run
	if n >= len(run) {
		return nil
	}
	out := make([]HandlerRun, 0, len(run)-n)
	var spent time.Duration
	for i := 0; i < n; i++ {
		spent += r.slots[i].Duration
	}
	stopped := clock() - r.t0 // where the handlers that never ran are placed
	for i := n; i < len(run); i++ {
		e := run[i]
		h := HandlerRun{Source: e.source, Layer: e.layer, FailClosed: e.failClosed, Outcome: OutcomeSkipped, Start: stopped}
		if i == n && running {
			h.Outcome, h.Duration, h.Start = OutcomeTimedOut, stopped-spent, spent
			if canceled {
				h.Outcome = OutcomeCanceled
			}
			r.d.log().Warn("plugin: hook handler abandoned at the dispatch deadline",
				"event", string(e.event), "source", e.source, "layer", e.layer.String(),
				"outcome", string(h.Outcome), "waited", h.Duration.String())
		}
		if e.failClosed {
			failClosed(&h)
		}
		out = append(out, h)
	}
	return out
}

// merge fills res from the handlers' runs, in dispatch order, and the
// Data of the finished ones (see the Merge section of Dispatcher). It
// returns how many votes were counted.
func merge(res *HookResult, data []map[string]any, runs ...[]HandlerRun) int {
	votes := 0
	best := HookDecision("")
	for _, hs := range runs {
		for i := range hs {
			if d := hs[i].Decision; d != "" {
				votes++
				if d.rank() > best.rank() {
					best = d
				}
			}
		}
	}
	if best == "" {
		best = DecisionDefer
	}
	res.Decision = best
	var sb strings.Builder
	for _, hs := range runs {
		for i := range hs {
			h := &hs[i]
			if h.Decision != best || h.Message == "" {
				continue
			}
			if res.Message == "" {
				res.Message = h.Message
				continue
			}
			if sb.Len() == 0 {
				sb.WriteString(res.Message)
			}
			sb.WriteString("; ")
			sb.WriteString(h.Message)
		}
	}
	if sb.Len() > 0 {
		res.Message = sb.String()
	}
	for _, m := range data {
		for k, v := range m {
			if k == DataAdditionalContext {
				s, ok := v.(string)
				if !ok || s == "" {
					continue // only text adds to the context
				}
				if prev, _ := res.Data[k].(string); prev != "" {
					v = prev + "\n\n" + s
				}
			}
			if res.Data == nil {
				res.Data = make(map[string]any, len(m))
			}
			res.Data[k] = v
		}
	}
	return votes
}

// The worker pool. Dispatch hands a run to a parked worker when there is
// one, and starts a goroutine otherwise; after a run a worker parks again,
// unless maxIdleWorkers are parked already. One hand-off per dispatch, not
// one goroutine per handler, is what lets Dispatch return at the deadline
// while a handler ignores its context, at a fraction of a goroutine's cost.
var (
	jobs        = make(chan *run)
	idleWorkers atomic.Int32
)

const maxIdleWorkers = 16

func submit(r *run) {
	select {
	case jobs <- r:
	default:
		go worker(r)
	}
}

func worker(r *run) {
	for {
		r.exec(0)
		if idleWorkers.Add(1) > maxIdleWorkers {
			idleWorkers.Add(-1)
			return
		}
		r = <-jobs
		idleWorkers.Add(-1)
	}
}

// matchesTool tests a handler's matcher against the tool's name and, when
// it has one, its other name (ExtraToolAlias: an MCP tool's
// mcp__<server>__<tool>).
func matchesTool(m *regexp.Regexp, p *HookPayload) bool {
	if m.MatchString(p.ToolName) {
		return true
	}
	a, _ := p.Extra[ExtraToolAlias].(string)
	return a != "" && m.MatchString(a)
}
