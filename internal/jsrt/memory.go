package jsrt

import (
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// The memory budget (Options.MemoryLimit).
//
// goja has no allocation limit and no per-runtime accounting: every runtime
// allocates from the one Go heap. The budget is kept three ways, each for
// a shape of runaway growth the others cannot see:
//
//  1. A job that grows the heap (`while (true) a.push(…)`). While a job
//     runs longer than memCheckEvery, the watchdog samples the Go heap
//     (runtime/metrics, under a microsecond). Its baseline is the heap's
//     objects when the job was first seen running, which is at least what
//     was live then, and each collection that completes since lowers it to
//     the live heap it measured when that is less; the live heap a later
//     collection measures, less the baseline, is a lower bound of what was
//     retained meanwhile. Past the limit the job is interrupted
//     (*MemoryError), like a spin, and the runtime keeps serving. Garbage
//     must not be taken for growth, nor growth for baseline: at the first
//     look, a heap of more than a quarter of the limit gets a collection at
//     once (at most one a second in the process), so that the baseline
//     comes down before the job has grown much; and when the heap's
//     objects alone pass the limit and no collection came since, one is
//     forced, at most once per cycle. Jobs of other
//     runtimes that run at the same time share the blame: a job is charged
//     with everything the process retained while it ran.
//  2. A runtime that keeps what its calls allocate (a module-level array
//     growing a little per call). After each garbage collection, once the
//     live heap is past a runtime's limit and has grown by a quarter of it
//     since that runtime was last measured, every runtime that ran a job
//     since is measured, on its loop between jobs, by walking what it
//     retains (see sizer); so is a runtime whose job was just interrupted
//     for memory. Past the limit, the runtime is stopped for good
//     (*OverBudgetError): its loop ends, its calls fail with that error, its
//     objects become garbage, and Options.OnStop is told. Stopping rather
//     than restarting: the state that outgrew the budget is the plugin's own
//     and would grow again, and a plugin's server() runs once (SPEC P5).
//  3. One allocation the size of which the script chooses ('x'.repeat(n),
//     padStart, new Array(n), an ArrayBuffer or typed array, join): Go cannot
//     recover from a failed allocation, so the prelude refuses, with a
//     RangeError, any that would exceed the limit on its own, and join
//     counts as it goes.
//
// Behind all three, the first runtime with a limit sets the garbage
// collector's soft memory limit (debug.SetMemoryLimit) below the process's
// address-space or cgroup limit, when there is one and GOMEMLIMIT is not
// set (see memoryBackstop), so that the collector works harder before the
// process runs out rather than after; and no runtime's limit is more than
// half that soft limit (capLimit): a budget the process cannot afford
// protects nothing.

// memCheckEvery is how often the watchdog samples the heap while a job runs.
const memCheckEvery = 10 * time.Millisecond

// MemoryError is the error of a call whose job grew the heap by more than
// the runtime's memory limit while it ran, and was stopped.
type MemoryError struct{ Limit, Grew int64 }

func (e *MemoryError) Error() string {
	return fmt.Sprintf("JavaScript grew the heap by %s while it ran, more than the plugin's memory budget of %s, and was stopped", mib(e.Grew), mib(e.Limit))
}

// OverBudgetError is why a runtime stopped itself: what it retained was
// measured past its memory limit. Held is where the measurement stopped
// counting, just past the limit: a lower bound.
type OverBudgetError struct{ Limit, Held int64 }

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("the plugin was stopped: it held more than its memory budget of %s", mib(e.Limit))
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", (n+1<<20-1)>>20) }

// heapSample is what the heap looked like at one moment.
type heapSample struct {
	objects uint64 // bytes in heap objects, live or not yet swept: at least the live heap
	live    uint64 // bytes the last completed collection found live
	cycles  uint64 // collections completed
}

type heapReader []metrics.Sample

func newHeapReader() heapReader {
	return heapReader{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
}

func (h heapReader) read() heapSample {
	metrics.Read(h)
	return heapSample{objects: h[0].Value.Uint64(), live: h[1].Value.Uint64(), cycles: h[2].Value.Uint64()}
}

// jobMemory is the watchdog's account of the running job (under wmu).
type jobMemory struct {
	seq    uint64 // the job it is about
	base   uint64 // heap objects when the job was first seen running
	cycles uint64 // collections completed then
	forced uint64 // collections completed when a collection was last forced for this job, plus one
	heap   heapReader
}

// retention is a runtime's account between jobs.
type retention struct {
	measuredLive atomic.Uint64 // the live heap when last measured (lowered as the heap shrinks)
	measuredSeq  uint64        // the job count then (under wmu)
	queued       atomic.Bool   // a measurement is queued
}

// firstCheck is when the watchdog first looks at a job.
func (r *Runtime) firstCheck() time.Duration {
	if r.opts.MemoryLimit > 0 {
		return min(memCheckEvery, r.opts.JobLimit)
	}
	return r.opts.JobLimit
}

// checkJobMemory is the watchdog's look at the running job's growth; a
// non-nil error means stop it. Under wmu.
func (r *Runtime) checkJobMemory() error {
	j := &r.jobMem
	if j.heap == nil {
		j.heap = newHeapReader()
	}
	h := j.heap.read()
	limit := uint64(r.opts.MemoryLimit)
	if j.seq != r.running {
		j.seq, j.base, j.cycles, j.forced = r.running, h.objects, h.cycles, 0
		// The baseline is high by whatever garbage the heap held: with
		// more than a quarter of the limit in the heap, a collection now
		// brings it down to the live heap while the job has grown little
		// (waiting for the next natural one would count what the job grew
		// until then as the baseline, and a job that allocates slowly
		// would run into its time limit first).
		if h.objects > limit/4 && earlyGC.allow(time.Now()) {
			forceGC()
		}
		return nil
	}
	if h.cycles > j.cycles {
		// A collection completed: what it found live is exact. Past the
		// baseline by more than the limit, the job goes; below it, it is
		// the better baseline (the job began amid garbage).
		if h.live > j.base+limit {
			return &MemoryError{Limit: r.opts.MemoryLimit, Grew: int64(h.live - j.base)}
		}
		j.base, j.cycles = min(j.base, h.live), h.cycles
	}
	if h.objects > j.base+limit && j.forced != h.cycles+1 {
		j.forced = h.cycles + 1
		forceGC()
	}
	return nil
}

// afterLongJob, at the end of a job the watchdog looked at, forces a
// collection if the job grew the heap by a quarter of the limit: its
// afterGC then measures the runtimes that may have kept it, rather than
// waiting for the heap to double. Loop goroutine only.
func (r *Runtime) afterLongJob() {
	r.wmu.Lock()
	j := &r.jobMem
	grew := j.heap.read().objects > j.base+uint64(r.opts.MemoryLimit)/4
	r.wmu.Unlock()
	if grew {
		forceGC()
	}
}

// forcing is how many collections were asked for since the goroutine that
// runs them last started one: 0 when none runs.
var forcing atomic.Int32

// earlyGC bounds the collections forced at a job's first look to one a
// second in the process: jobs that run past memCheckEvery beside a
// large heap could otherwise force one each.
var earlyGC = gcLimiter{every: time.Second}

type gcLimiter struct {
	every time.Duration
	last  atomic.Int64 // unix nanoseconds of the last one allowed
}

func (l *gcLimiter) allow(now time.Time) bool {
	last := l.last.Load()
	return now.UnixNano()-last >= int64(l.every) && l.last.CompareAndSwap(last, now.UnixNano())
}

// forceGC starts a collection that begins after this call: at once, or,
// when a collection forced here still runs, right after it (a collection
// already under way may have begun before what the caller wants it to
// see). Requests that come while one waits share it.
func forceGC() {
	if forcing.Add(1) != 1 {
		return
	}
	go func() {
		for {
			n := forcing.Load()
			runtime.GC()
			if forcing.Add(-n) == 0 {
				return
			}
		}
	}()
}

// Keep tells the memory accounting that the host holds v (a hook function,
// the object of a plugin's hooks, a listener) outside JavaScript, where the
// accounting cannot see it; the returned function forgets it. Loop
// goroutine only.
func (r *Runtime) Keep(v goja.Value) (forget func()) {
	o, ok := v.(*goja.Object)
	if !ok {
		return func() {}
	}
	r.kept[o]++
	return func() {
		if r.kept[o]--; r.kept[o] <= 0 {
			delete(r.kept, o)
		}
	}
}

// measure estimates what the runtime retains, stopping early once past
// the limit. Loop goroutine only, between jobs.
func (r *Runtime) measure(limit int64) (held int64, within bool) {
	s := sizer{limit: limit}
	defer s.seen.release()
	within = r.sizeInto(&s)
	return s.total, within
}

// sizeInto adds what the runtime retains to s: goja's runtime (its global
// object, scopes, stacks and job queue) and what the host holds for it.
func (r *Runtime) sizeInto(s *sizer) bool {
	return s.add(reflect.ValueOf(r.vm)) && s.add(reflect.ValueOf(r.kept)) &&
		s.add(reflect.ValueOf(r.timers)) && s.add(reflect.ValueOf(r.host.node))
}

// checkRetained measures the runtime and stops it if it is over its limit.
// Loop goroutine only, between jobs.
func (r *Runtime) checkRetained() {
	r.ret.measuredLive.Store(memWatch.live.Load())
	r.wmu.Lock()
	r.ret.measuredSeq = r.seq
	r.wmu.Unlock()
	held, within := r.measure(r.opts.MemoryLimit)
	if !within {
		r.stop(&OverBudgetError{Limit: r.opts.MemoryLimit, Held: held})
	}
}

// afterGC queues a measurement of r when the heap's growth since r was
// last measured could have put it over its limit, and r ran since.
func (r *Runtime) afterGC(live uint64) {
	limit := uint64(r.opts.MemoryLimit)
	last := r.ret.measuredLive.Load()
	if live < last {
		r.ret.measuredLive.Store(live)
		return
	}
	if live < limit || live-last < limit/4 {
		return
	}
	r.wmu.Lock()
	ran := r.seq != r.ret.measuredSeq
	r.wmu.Unlock()
	if ran && r.ret.queued.CompareAndSwap(false, true) {
		if !r.enqueue(func() { r.ret.queued.Store(false); r.checkRetained() }) {
			r.ret.queued.Store(false)
		}
	}
}

// memWatch follows the garbage collector for every runtime with a limit.
var memWatch struct {
	mu       sync.Mutex
	runtimes map[*Runtime]struct{}
	armed    bool // a sentinel waits for the next collection
	live     atomic.Uint64
	heap     heapReader // under mu
	once     sync.Once
}

// gcSentinel is garbage the collector finds at every cycle, whose finalizer
// then runs afterGC and sets the next one. 32 bytes: finalizers of tiny
// allocations (under 16 bytes, packed together) may never run.
type gcSentinel struct{ _ [32]byte }

func watchMemory(r *Runtime) {
	memWatch.mu.Lock()
	defer memWatch.mu.Unlock()
	if memWatch.runtimes == nil {
		memWatch.runtimes = map[*Runtime]struct{}{}
		memWatch.heap = newHeapReader()
	}
	memWatch.runtimes[r] = struct{}{}
	h := memWatch.heap.read()
	memWatch.live.Store(h.live)
	r.ret.measuredLive.Store(h.live)
	if !memWatch.armed {
		memWatch.armed = true
		runtime.SetFinalizer(&gcSentinel{}, afterGC)
	}
}

func unwatchMemory(r *Runtime) {
	memWatch.mu.Lock()
	delete(memWatch.runtimes, r)
	memWatch.mu.Unlock()
}

// afterGC runs on the finalizer goroutine after each collection while any
// runtime has a limit.
func afterGC(*gcSentinel) {
	memWatch.mu.Lock()
	defer memWatch.mu.Unlock()
	if len(memWatch.runtimes) == 0 {
		memWatch.armed = false
		return
	}
	live := memWatch.heap.read().live
	memWatch.live.Store(live)
	for r := range memWatch.runtimes {
		r.afterGC(live)
	}
	runtime.SetFinalizer(&gcSentinel{}, afterGC)
}

// capLimit is the memory limit a runtime gets for the one it asks: at most
// half the collector's soft limit (the backstop, or GOMEMLIMIT), since a
// budget the process cannot afford protects nothing (under a 2 GiB
// address-space limit, a Go server has about 300 MiB to grow into).
func capLimit(limit int64, log *slog.Logger) int64 {
	memWatch.once.Do(setMemoryBackstop)
	soft := debug.SetMemoryLimit(-1)
	if soft == math.MaxInt64 || limit <= soft/2 {
		return limit
	}
	capWarning.Do(func() {
		log.Warn("plugin: memory budgets are capped at half the process's memory limit", "budget_mib", limit>>20, "cap_mib", soft/2>>20, "soft_limit_mib", soft>>20)
	})
	return soft / 2
}

var capWarning sync.Once

// setMemoryBackstop sets the collector's soft limit below the process's
// hard one, unless GOMEMLIMIT (or a program) set one already.
func setMemoryBackstop() {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return
	}
	if soft := memoryBackstop(); soft > 0 {
		debug.SetMemoryLimit(soft)
	}
}

// stop ends the runtime for good with err: queued jobs are dropped, the
// loop ends, and calls fail with err. Loop goroutine only.
func (r *Runtime) stop(err error) {
	r.stopErr.Store(&err)
	r.Log().Error("plugin: stopped: it held more than its memory budget; its hooks and tools no longer run", "error", err.Error())
	r.qmu.Lock()
	r.draining = true
	clear(r.queue)
	r.queue = nil
	r.qmu.Unlock()
	r.once.Do(func() { close(r.closed) })
}

// Err is why the runtime stopped itself (an *OverBudgetError), or nil.
func (r *Runtime) Err() error {
	if p := r.stopErr.Load(); p != nil {
		return *p
	}
	return nil
}

// closedErr is the error of a call into a runtime that no longer runs.
func (r *Runtime) closedErr() error {
	if err := r.Err(); err != nil {
		return err
	}
	return ErrClosed
}

// hostJoin is Array.prototype.join: the same result as goja's, element by
// element, but it counts the result as it goes and refuses one past the
// memory limit (the result is one allocation the script sizes: a million
// references to one long string), and it gives up when the watchdog
// interrupts the job (goja looks at interrupts only between instructions,
// and its own join over a sparse array of length 2**28 runs for minutes).
func (r *Runtime) hostJoin(call goja.FunctionCall) goja.Value {
	vm := r.vm
	o := call.This.ToObject(vm)
	if slices.Contains(r.host.joining, o) {
		return emptyString // a cycle: an array that holds itself joins as "", as in goja, V8 and SpiderMonkey
	}
	r.host.joining = append(r.host.joining, o)
	defer func() { r.host.joining = r.host.joining[:len(r.host.joining)-1] }()
	n := o.Get("length").ToInteger()
	sep := asciiComma
	if a := call.Argument(0); !goja.IsUndefined(a) {
		sep = r.toString(a)
	}
	if n <= 0 {
		return emptyString
	}
	var maxLen int64 = math.MaxInt64
	if r.opts.MemoryLimit > 0 {
		maxLen = r.opts.MemoryLimit / 2 // two bytes a character, at most
	}
	total := (n - 1) * int64(sep.Length())
	if n-1 > 0 && total/(n-1) != int64(sep.Length()) || total > maxLen {
		panic(r.tooBig("Array.prototype.join", total))
	}
	parts := make([]goja.String, 0, min(n, 1024))
	for i := int64(0); i < n; i++ {
		if i&1023 == 1023 && r.interrupted.Load() {
			return emptyString // the VM unwinds with the interrupt at its next instruction
		}
		e := o.Get(indexName(i))
		if e == nil || goja.IsUndefined(e) || goja.IsNull(e) {
			parts = append(parts, nil)
			continue
		}
		s := r.toString(e)
		if total += int64(s.Length()); total > maxLen {
			panic(r.tooBig("Array.prototype.join", total))
		}
		parts = append(parts, s)
	}
	var b goja.StringBuilder
	b.Grow(int(total))
	for i, s := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		if s != nil {
			b.WriteString(s)
		}
	}
	return b.String()
}

// toString is JavaScript's String(v) as a goja.String: UTF-16, so that a
// lone surrogate survives (v.String() would replace it).
func (r *Runtime) toString(v goja.Value) goja.String {
	if s, ok := v.(goja.String); ok {
		return s // already one: ToString would box it again
	}
	if _, isSym := v.(*goja.Symbol); isSym {
		panic(r.vm.NewTypeError("Cannot convert a Symbol value to a string"))
	}
	v = v.ToString()
	if s, ok := v.(goja.String); ok {
		return s
	}
	return r.vm.ToValue(v.String()).(goja.String) // numbers and booleans: ASCII
}

// indexNames are the property names of the first indexes, made once: a
// join formats no number for them.
var indexNames = func() []string {
	names := make([]string, 4096)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}()

func indexName(i int64) string {
	if i < int64(len(indexNames)) {
		return indexNames[i]
	}
	return strconv.FormatInt(i, 10)
}

var (
	asciiComma  = goja.StringFromUTF16([]uint16{','})
	emptyString = goja.StringFromUTF16(nil)
)

// tooBig is the RangeError of a string of n characters, past the memory
// limit (or past any length, when n overflowed).
func (r *Runtime) tooBig(what string, n int64) *goja.Object {
	msg := what + ": invalid string length"
	if r.opts.MemoryLimit > 0 && n > 0 {
		msg = fmt.Sprintf("%s would allocate %s, more than this plugin's memory budget of %s", what, mib(2*n), mib(r.opts.MemoryLimit))
	}
	return r.RangeError(msg)
}
