// Package jsrt is Podcode's embedded JavaScript engine: one goja runtime per
// plugin, owned by one goroutine that runs its jobs one at a time, as an event
// loop does, with the web and Node APIs plugins may use.
//
// # The loop
//
// Everything that touches a runtime runs as a job on its loop goroutine: a
// call from the host (Call, Do), a timer callback, the settlement of a fetch
// or a file read. Between jobs the loop drains goja's promise jobs, so a hook
// that awaits a timer or a fetch does not hold up other calls into the same
// plugin meanwhile: they interleave at await points.
//
// # Limits
//
//  1. No job may run JavaScript for longer than Options.JobLimit (5 s by
//     default, SPEC H8's figure) without returning to the loop. A watchdog
//     interrupts such a job (`while(true){}`, before or after an await);
//     the call it belonged to fails with a *SpinError, and the runtime is
//     repaired (see repairer) and keeps serving later calls with its state.
//  2. A caller waits for a call only as long as its context allows. A call
//     whose context ends is abandoned: its promise is left to settle on its
//     own and its result ignored (SPEC H8).
//  3. Unhandled promise rejections and errors in timer callbacks are logged
//     with the runtime's name, cut and rate-limited as console lines are
//     (LogError); they never end the loop.
//  4. With Options.MemoryLimit, a job that grows the heap past the limit is
//     stopped like a spin (*MemoryError), and a runtime that retains more
//     than the limit is stopped for good (*OverBudgetError; Options.OnStop
//     is told, its calls fail with that error, its objects become garbage).
//     Builtins whose one allocation the script sizes refuse one past the
//     limit. memory.go says how each is measured and why.
//  5. A runtime holds at most Options.MaxTimers timers (DefaultMaxTimers);
//     timers sit in a heap, each firing is one job queued behind the jobs
//     already waiting, so no number of due timers starves the host's calls.
//  6. What a runtime has outside JavaScript, where 4 cannot see it, is
//     bounded by count (hostio.go): MaxFetches requests, MaxFileReads file
//     reads and MaxFileOps other file operations run at once, at most
//     MaxWaitingOps of each wait; readFile reads only regular files, of at
//     most half the memory limit, writeFile only regular files and readdir
//     only folders, none waiting on a FIFO; console lines are cut at
//     ConsoleLineChars and rate-limited. An export makes at most
//     MaxExportBytes of strings. Close runs the queued jobs for one job
//     limit in all and drops the rest.
package jsrt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// DefaultJobLimit is how long one job may run JavaScript without yielding.
const DefaultJobLimit = 5 * time.Second

// Options configure a Runtime.
type Options struct {
	Name     string       // the plugin id, or its path while the id is unknown: on every log line
	Logger   *slog.Logger // where console.* and runtime problems go
	JobLimit time.Duration
	Env      map[string]string // process.env
	Cwd      string            // process.cwd()
	Fetch    FetchOptions
	// Exec decides whether and how the plugin's processes run
	// (child_process, Bun's $); nil: the runtime starts none.
	Exec Exec
	// MaxTimers is how many timers the runtime may hold at once
	// (DefaultMaxTimers if zero); past it, setTimeout and setInterval throw.
	MaxTimers int
	// MemoryLimit is the runtime's memory budget in bytes (0: none); see
	// memory.go for how it is kept.
	MemoryLimit int64
	// OnStop, if set, is called once, on a goroutine of its own, when the
	// runtime stops itself (err is an *OverBudgetError); not on Close.
	OnStop func(err error)
}

// SpinError is the error of a call whose JavaScript ran longer than the job
// limit without yielding, and was stopped.
type SpinError struct{ Limit time.Duration }

func (e *SpinError) Error() string {
	return fmt.Sprintf("JavaScript ran for more than %s without yielding and was stopped", e.Limit)
}

// ErrClosed is returned for calls into a closed runtime.
var ErrClosed = errors.New("jsrt: runtime closed")

// Runtime is one JavaScript runtime and its event loop.
type Runtime struct {
	opts Options
	logp atomic.Pointer[slog.Logger]
	name atomic.Pointer[string] // SetName's, once called
	vm   *goja.Runtime          // loop goroutine only
	rep  *repairer
	noop goja.Callable
	// within calls withinBody, withinCall (startCall); starting, startV
	// and startErr pass its call and results. Loop goroutine only.
	within     goja.Callable
	withinBody goja.Value
	starting   *pendingCall
	attributed bool // AttributeCalls was called
	startV     goja.Value
	startErr   error

	qmu      sync.Mutex
	queue    []job
	draining bool // the loop runs its last jobs: enqueue refuses
	wake     chan struct{}
	closed   chan struct{}
	once     sync.Once
	exited   chan struct{}

	wmu     sync.Mutex // guards running, began, spun and armed against the watchdog
	running uint64     // the job on the loop, 0 between jobs
	began   time.Time  // when the running job began
	spun    bool       // the watchdog interrupted the running job
	memErr  error      // … because it grew the heap past the memory limit
	seq     uint64
	dog     *time.Timer // armed while jobs run; see watch
	armed   bool        // dog will fire: a job that begins need not arm it
	jobMem  jobMemory

	interrupted atomic.Bool // the running job was interrupted: long host functions give up
	// stopCtx ends when the runtime stops (Close, or stopping itself):
	// what it started off the loop gives up then.
	stopCtx    context.Context
	stopCancel context.CancelFunc
	ret        retention
	stopErr    atomic.Pointer[error] // why the runtime stopped itself

	// Loop goroutine only.
	callCtx   context.Context           // the context of the host call whose own code runs (see CallContext), nil otherwise
	underWay  map[*pendingCall]struct{} // calls started and not settled, of an attributed runtime (CallContexts)
	overflow  bool                      // underWay reached maxUnderWay: calls went untracked (CallContexts)
	rejected  []*goja.Promise
	timers    map[int64]*jsTimer // by id
	theap     timerHeap          // the same timers, the next due first
	nextTimer int64
	host      hostState
	kept      map[*goja.Object]int // values the host holds; see Keep

	clock      *time.Timer // armed for the earliest timer; see setTimer
	fireQueued atomic.Bool // a fireDue job is queued: the clock need not fire
}

// New starts a runtime and its loop.
func New(opts Options) (*Runtime, error) {
	if opts.JobLimit <= 0 {
		opts.JobLimit = DefaultJobLimit
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MemoryLimit > 0 {
		opts.MemoryLimit = capLimit(opts.MemoryLimit, opts.Logger)
	}
	vm := goja.New()
	vm.SetFieldNameMapper(goja.TagFieldNameMapper("json", true))
	vm.SetMaxCallStackSize(4096)
	rep, err := newRepairer(vm)
	if err != nil {
		return nil, err
	}
	r := &Runtime{
		opts: opts, vm: vm, rep: rep,
		wake: make(chan struct{}, 1), closed: make(chan struct{}), exited: make(chan struct{}),
		timers: map[int64]*jsTimer{}, kept: map[*goja.Object]int{},
	}
	r.logp.Store(opts.Logger.With("plugin", opts.Name))
	r.stopCtx, r.stopCancel = context.WithCancel(context.Background())
	r.dog = time.AfterFunc(time.Hour, r.watch)
	r.dog.Stop()
	r.clock = time.AfterFunc(time.Hour, r.clockFired)
	r.clock.Stop()
	vm.SetPromiseRejectionTracker(func(p *goja.Promise, op goja.PromiseRejectionOperation) {
		if op == goja.PromiseRejectionReject {
			r.rejected = append(r.rejected, p)
			return
		}
		r.markHandled(p)
	})
	noop, err := vm.RunString("(function () {})")
	if err != nil {
		return nil, err
	}
	r.noop, _ = goja.AssertFunction(noop)
	within, err := vm.RunString("(function (body) { return body() })")
	if err != nil {
		return nil, err
	}
	r.within, _ = goja.AssertFunction(within)
	r.withinBody = vm.ToValue(r.withinCall)
	if err := r.installGlobals(); err != nil {
		return nil, fmt.Errorf("jsrt: installing globals: %w", err)
	}
	if opts.MemoryLimit > 0 {
		watchMemory(r)
	}
	go r.loop()
	return r, nil
}

// SetName renames the runtime in logs, once its plugin id is known.
func (r *Runtime) SetName(name string) {
	r.name.Store(&name)
	r.logp.Store(r.opts.Logger.With("plugin", name))
}

// Name is the runtime's name: the plugin id once known (SetName).
func (r *Runtime) Name() string {
	if n := r.name.Load(); n != nil {
		return *n
	}
	return r.opts.Name
}

// Log is the runtime's logger, with its name.
func (r *Runtime) Log() *slog.Logger { return r.logp.Load() }

// Close stops the loop. The jobs already queued still run (a bus event a
// plugin was sent is delivered), each under the watchdog, for one job limit
// in all: those not begun by then are dropped (with a warning that counts
// them), so Close returns within two job limits. Then pending timers never
// fire, and calls still waiting, on a promise or in the queue, fail with
// ErrClosed.
func (r *Runtime) Close() {
	r.once.Do(func() { close(r.closed); r.stopCancel() })
	<-r.exited
}

// closing reports whether Close was called (or the runtime stopped itself).
func (r *Runtime) closing() bool {
	select {
	case <-r.closed:
		return true
	default:
		return false
	}
}

// job is what the loop runs: a function (funcJob), or a host call
// (*pendingCall), which runs itself and so costs no closure.
type job interface{ run() }

type funcJob func()

func (f funcJob) run() { f() }

// enqueue hands fn to the loop; false when the runtime is closed.
func (r *Runtime) enqueue(fn func()) bool { return r.enqueueJob(funcJob(fn)) }

// enqueueJob hands j to the loop; false when the runtime is closed.
func (r *Runtime) enqueueJob(j job) bool {
	select {
	case <-r.closed:
		return false
	default:
	}
	r.qmu.Lock()
	if r.draining {
		r.qmu.Unlock()
		return false
	}
	r.queue = append(r.queue, j)
	r.qmu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return true
}

func (r *Runtime) loop() {
	defer close(r.exited)
	defer r.finish()
	busy := false // a job ran since the loop last waited
	for {
		if r.closing() { // also when jobs are still queued: see drainQueue
			r.drainQueue()
			return
		}
		fn := r.next()
		if fn == nil {
			busy = false
			select {
			case <-r.wake:
				continue
			case <-r.closed:
				continue // the check above drains and stops
			}
		}
		if busy {
			// A loop that always finds a job waiting never blocks, so the Go
			// scheduler lets it keep its thread for a whole time slice
			// (10 ms) while the callers it answered, and the loops of the
			// plugins they call next, wait to run: some sessions are served
			// in a convoy, others starve. Yielding between jobs when more
			// are waiting makes the loops and their callers take turns.
			// With 20 sessions through five plugins on two cores
			// (BenchmarkBeforePipeline5Sessions20) the p99 of a pipeline
			// fell from 60 to 27 ms and of a hook from 24 to 14 ms, the mean
			// unchanged; the median, which the convoy kept at 0.12 ms, rose
			// to 3.8 ms. A loop that waits between jobs (the usual case: a
			// loop not saturated) never yields here.
			runtime.Gosched()
		}
		busy = true
		r.runJob(fn)
	}
}

// drainQueue, as the loop stops, runs the jobs queued by then for one job
// limit in all, and drops the rest: each may spin for the whole limit, and
// a plugin may have queued any number (a bus event per listener), so
// running them all could hold up Close without end. From here enqueue
// refuses. The callers of the host calls dropped get ErrClosed.
func (r *Runtime) drainQueue() {
	r.qmu.Lock()
	r.draining = true
	r.qmu.Unlock()
	end := time.Now().Add(r.opts.JobLimit)
	for fn := r.next(); fn != nil; fn = r.next() {
		if !time.Now().Before(end) {
			r.qmu.Lock()
			dropped := len(r.queue) + 1
			r.queue = nil
			r.qmu.Unlock()
			r.Log().Warn("plugin: jobs still queued when its runtime closed were dropped", "dropped", dropped, "after", r.opts.JobLimit.String())
			return
		}
		r.runJob(fn)
	}
}

// next pops the oldest queued job, or returns nil.
func (r *Runtime) next() job {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if len(r.queue) == 0 {
		return nil
	}
	fn := r.queue[0]
	r.queue[0] = nil
	if len(r.queue) == 1 {
		r.queue = r.queue[:0] // keep the array: the next enqueue need not allocate one
	} else {
		r.queue = r.queue[1:]
	}
	return fn
}

// runJob runs fn under the watchdog, then repairs the runtime if fn was
// interrupted or unwound abnormally, and reports unhandled rejections. A
// job stopped for growing the heap is followed by a measurement of what the
// runtime still retains.
func (r *Runtime) runJob(j job) {
	r.wmu.Lock()
	r.seq++
	seq := r.seq
	r.running = seq
	r.began = time.Now()
	if !r.armed {
		r.armed = true
		r.dog.Reset(r.firstCheck())
	}
	r.wmu.Unlock()

	r.protect(j.run)
	r.protect(r.reportRejections) // a rejection's value may have a throwing getter: under the watchdog too

	r.wmu.Lock()
	r.running = 0
	spun, memErr := r.spun, r.memErr
	r.spun, r.memErr = false, nil
	watched := r.jobMem.seq == seq // the watchdog looked at its memory: a long job
	r.wmu.Unlock()
	// From here no interrupt can reach this runtime until the next job.
	if spun || r.rep.dirty() {
		r.rep.repair()
	}
	r.vm.ClearInterrupt()
	r.interrupted.Store(false)
	if memErr != nil {
		r.Log().Warn("plugin: a job grew the heap past the memory budget and was stopped", "error", memErr.Error())
		r.checkRetained()
	} else if watched {
		r.afterLongJob()
	}
}

// finish, as the loop ends, forgets the timers and requests, and lets go
// of the runtime's objects (the runtime may live on in its owner's data,
// its objects should not); a runtime that stopped itself tells its owner.
func (r *Runtime) finish() {
	r.stopCancel()
	r.dog.Stop()
	r.stopTimers()
	r.stopFetches()
	r.closeFiles()
	r.stopProcesses()
	if r.opts.MemoryLimit > 0 {
		unwatchMemory(r)
	}
	// every goja value the runtime holds keeps the whole VM alive
	r.vm, r.rep, r.noop, r.host, r.rejected, r.kept = nil, nil, nil, hostState{}, nil, nil
	r.within, r.withinBody, r.underWay = nil, nil, nil
	if err := r.Err(); err != nil && r.opts.OnStop != nil {
		go r.opts.OnStop(err)
	}
}

// protect runs fn, turning a panic into a log line; the caller repairs the
// runtime afterwards if the panic left it dirty.
func (r *Runtime) protect(fn func()) {
	defer func() {
		if v := recover(); v != nil {
			r.Log().Error("jsrt: a job panicked", "panic", panicText(v), "stack", string(debug.Stack()))
		}
	}()
	fn()
}

// panicText renders a recovered value without calling into a runtime.
func panicText(v any) string {
	if ex, ok := v.(*goja.Exception); ok {
		return describe(ex.Value())
	}
	return fmt.Sprint(v)
}

// watch is the watchdog: it stops the running job if that job has run for
// the job limit, or (with a memory limit, every memCheckEvery) has grown
// the heap past it.
//
// One timer serves every job, and it is not re-armed for each: a job that
// begins while it is armed (for an earlier job, so due sooner) leaves it
// be, and a firing that finds the running job younger than its first check
// (firstCheck) arms it again for the rest; a firing between jobs leaves it
// disarmed until the next job. A hook call is thus not charged two timer
// operations, and each job is still first looked at firstCheck after it
// began. The check of when the running job began (under wmu, which runJob
// also holds to begin and end a job) keeps a firing meant for one job from
// hitting the next.
func (r *Runtime) watch() {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if r.running == 0 || r.spun {
		r.armed = false
		return
	}
	ran := time.Since(r.began)
	if first := r.firstCheck(); ran < first && r.jobMem.seq != r.running {
		r.dog.Reset(first - ran) // early for this job: its first look is later
		return
	}
	var err error
	switch {
	case ran >= r.opts.JobLimit:
		err = &SpinError{Limit: r.opts.JobLimit}
	case r.opts.MemoryLimit > 0:
		if err = r.checkJobMemory(); err != nil {
			r.memErr = err
		} else {
			r.dog.Reset(min(memCheckEvery, r.opts.JobLimit-ran))
		}
	}
	if err != nil {
		r.spun = true
		r.armed = false
		r.vm.Interrupt(err)
		r.interrupted.Store(true) // after: a host function that sees it returns into an interrupted VM
	}
}

func (r *Runtime) reportRejections() {
	for _, p := range r.rejected {
		r.logThrown("plugin: unhandled promise rejection", p.Result())
	}
	r.rejected = r.rejected[:0]
}

// unshowable stands for a thrown value whose rendering threw in turn.
const unshowable = "(a thrown value that cannot be shown)"

// describe renders a thrown JavaScript value: an Error's stack, else its
// string form.
func describe(v goja.Value) (s string) {
	// A thrown value can be anything, with getters and toString that throw
	// in turn: never let that escape (the job's repair cleans the runtime).
	defer func() {
		if recover() != nil {
			s = unshowable
		}
	}()
	return described(v).String()
}

// described is what describe renders of v; it may throw (a getter).
func described(v goja.Value) goja.Value {
	if v == nil {
		return goja.Undefined()
	}
	if o, ok := v.(*goja.Object); ok {
		if s := o.Get("stack"); s != nil && !goja.IsUndefined(s) {
			return s
		}
	}
	return v
}

// Error turns an error from a goja call into one for the host: a *SpinError
// for an interrupt by the watchdog, a *ThrowError (with the stack) for an
// exception, the error itself otherwise. Call and Do apply it already.
func Error(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		switch v := ie.Value().(type) {
		case *SpinError:
			return v
		case *MemoryError:
			return v
		}
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return &ThrowError{Message: describe(ex.Value())}
	}
	return err
}

// ThrowError is JavaScript code throwing (or a promise rejecting).
type ThrowError struct{ Message string }

func (e *ThrowError) Error() string { return e.Message }

// Post queues fn to run on the loop and returns at once; false when the
// runtime is closed. fn reports its own errors. Promise jobs fn starts run
// when it returns.
func (r *Runtime) Post(fn func(vm *goja.Runtime)) bool {
	return r.enqueue(func() {
		fn(r.vm)
		r.drain()
	})
}

// Do runs fn on the loop and waits for it.
func (r *Runtime) Do(ctx context.Context, fn func(vm *goja.Runtime) error) error {
	_, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
		return nil, fn(vm)
	}, nil)
	return err
}

var typePromise = reflect.TypeFor[*goja.Promise]()

// ErrTimeout is returned by CallWithin for a call that did not settle in
// time; it matches context.DeadlineExceeded with errors.Is.
var ErrTimeout = fmt.Errorf("jsrt: the call did not settle in time: %w", context.DeadlineExceeded)

// Call runs start on the loop. When start returns a promise, Call waits for
// it to settle; finish (on the loop) turns the settled value into the
// result, by default Export. Call returns when that is done, when ctx ends
// (the call is abandoned and its result ignored), or when the runtime
// closes.
func (r *Runtime) Call(ctx context.Context, start func(vm *goja.Runtime) (goja.Value, error), finish func(vm *goja.Runtime, v goja.Value) (any, error)) (any, error) {
	return r.CallWithin(ctx, 0, start, finish)
}

// timers are reused by CallWithin: a hook call is too frequent for a
// context.WithTimeout (four allocations and a timer) each time.
var timers sync.Pool

// CallWithin is Call that also gives up after d (when d > 0) with
// ErrTimeout, abandoning the call like an ended ctx.
func (r *Runtime) CallWithin(ctx context.Context, d time.Duration, start func(vm *goja.Runtime) (goja.Value, error), finish func(vm *goja.Runtime, v goja.Value) (any, error)) (any, error) {
	if finish == nil {
		finish = Export
	}
	c := &pendingCall{done: make(chan struct{}), r: r, ctx: ctx, start: start, finish: finish}
	if !r.enqueueJob(c) {
		return nil, r.closedErr()
	}
	var expired <-chan time.Time
	if d > 0 {
		t, _ := timers.Get().(*time.Timer)
		if t == nil {
			t = time.NewTimer(d)
		} else {
			t.Reset(d)
		}
		defer func() {
			t.Stop() // since Go 1.23 no stale tick can be received after Stop
			timers.Put(t)
		}()
		expired = t.C
	}
	select {
	case <-c.done:
		return c.val, c.err
	case <-ctx.Done():
		c.abandoned.Store(true)
		return nil, ctx.Err()
	case <-expired:
		c.abandoned.Store(true)
		return nil, ErrTimeout
	case <-r.exited:
		return nil, r.closedErr()
	}
}

// pendingCall is a host call: the job that starts it, then its outcome,
// settled once, on the loop; the caller reads it after done.
type pendingCall struct {
	r         *Runtime
	ctx       context.Context
	start     func(vm *goja.Runtime) (goja.Value, error)
	finish    func(vm *goja.Runtime, v goja.Value) (any, error)
	done      chan struct{}
	settled   bool
	val       any
	err       error
	abandoned atomic.Bool // the caller stopped waiting
}

// run starts the call on the loop.
func (c *pendingCall) run() {
	defer c.settleOnPanic()
	if c.abandoned.Load() || c.ctx.Err() != nil {
		c.settle(nil, c.ctx.Err()) // the caller left before the call started: do not start it
		return
	}
	v, err := c.r.startCall(c)
	if err != nil {
		c.settle(nil, Error(err))
		return
	}
	c.r.await(v, c, c.finish)
}

// startCall runs c.start with CallContext set to c's context for what
// c's code does before it awaits. goja runs the promise jobs waiting when
// the outermost call into it returns: a continuation of another call,
// resolved meanwhile, would run with this call's context. So c.start runs
// inside a JavaScript function (r.within, whose frame makes c's calls
// nested: a native function's would not), and the context is gone by the
// time the jobs run.
//
// The wrapper costs a hook call about 1 µs and two allocations (+14 % on
// HookRoundTrip), so only a runtime that starts what is attributed to a
// call (a process, an in-process request: AttributeCalls) pays it; the
// others set the context around c.start, as attribution does not matter
// for them.
func (r *Runtime) startCall(c *pendingCall) (goja.Value, error) {
	if !r.attributed {
		r.callCtx = c.ctx
		defer func() { r.callCtx = nil }()
		return c.start(r.vm)
	}
	if r.underWay == nil {
		r.underWay = map[*pendingCall]struct{}{}
	}
	if len(r.underWay) < maxUnderWay {
		r.underWay[c] = struct{}{}
	} else {
		r.overflow = true
	}
	r.starting = c
	defer func() { r.starting, r.callCtx, r.startV, r.startErr = nil, nil, nil, nil }()
	if _, err := r.within(goja.Undefined(), r.withinBody); err != nil {
		return nil, err
	}
	return r.startV, r.startErr
}

// withinCall is the body of r.within: it starts r.starting.
func (r *Runtime) withinCall(goja.FunctionCall) goja.Value {
	c := r.starting
	r.callCtx = c.ctx
	r.startV, r.startErr = c.start(r.vm)
	r.callCtx = nil
	return goja.Undefined()
}

// AttributeCalls makes CallContext exact from now on for this runtime (see
// startCall), for a host function whose work is attributed to the call
// that asked for it. Loop goroutine only.
func (r *Runtime) AttributeCalls() { r.attributed = true }

// maxUnderWay bounds the calls an attributed runtime tracks. A call stays
// tracked until its promise settles, even when its caller stopped waiting
// (its code may still run); past the bound, CallContexts can no longer
// tell whose code runs after an await.
const maxUnderWay = 4096

// ErrUntracked is CallContexts' error once a runtime started more calls
// that never settled than it tracks.
var ErrUntracked = errors.New("the plugin has more calls under way than are tracked (promises that never settle): what it does after an await belongs to no call it can name")

// CallContexts is, while a host call's own code runs, its context alone
// (exact: see CallContext); otherwise the contexts of the calls under way
// (started, their promises not settled), one of which, or a timer or an
// event, runs the code now (a continuation after an await): the caller
// decides what they have in common (a tenant); none is code of no call.
// Contexts are without their cancel. Tracked once AttributeCalls was
// called; loop goroutine only.
func (r *Runtime) CallContexts() (ctxs []context.Context, exact bool, err error) {
	if r.callCtx != nil {
		return []context.Context{context.WithoutCancel(r.callCtx)}, true, nil
	}
	if r.overflow {
		return nil, false, ErrUntracked
	}
	for c := range r.underWay {
		ctxs = append(ctxs, context.WithoutCancel(c.ctx))
	}
	return ctxs, false, nil
}

// CallContext is the context of the host call whose own code runs now
// (before it awaited anything), without its cancel, or Background when
// the code running is not a call's (a timer, a bus event, a continuation
// after an await): what a plugin starts there is the call's (its scope,
// a tenant's). Loop goroutine only.
func (r *Runtime) CallContext() context.Context {
	if r.callCtx != nil {
		return context.WithoutCancel(r.callCtx)
	}
	return context.Background()
}

// settleOnPanic, deferred, settles c with an error if a panic passes, then
// lets the panic go on (to the job's recovery, or back into JavaScript as
// the exception it is), so that no caller waits for a call that died.
func (c *pendingCall) settleOnPanic() {
	if v := recover(); v != nil {
		c.settle(nil, fmt.Errorf("jsrt: the call failed: %s", panicText(v)))
		panic(v)
	}
}

// conclude settles c with what finish makes of v, the call's value.
func (c *pendingCall) conclude(vm *goja.Runtime, finish func(*goja.Runtime, goja.Value) (any, error), v goja.Value) {
	defer c.settleOnPanic()
	if c.abandoned.Load() {
		c.settle(nil, ErrTimeout) // nobody waits: do not convert, and finish has no effect
		return
	}
	res, err := finish(vm, v)
	c.settle(res, err)
}

func (c *pendingCall) settle(v any, err error) {
	if c.settled {
		return
	}
	c.settled, c.val, c.err = true, v, err
	delete(c.r.underWay, c)
	close(c.done)
}

// await settles c with v, or with what v settles to if it is a promise.
func (r *Runtime) await(v goja.Value, c *pendingCall, finish func(*goja.Runtime, goja.Value) (any, error)) {
	obj, isObj := v.(*goja.Object)
	if !isObj || obj.ExportType() != typePromise {
		c.conclude(r.vm, finish, v)
		return
	}
	p := obj.Export().(*goja.Promise)
	switch p.State() {
	case goja.PromiseStateFulfilled:
		c.conclude(r.vm, finish, p.Result())
		return
	case goja.PromiseStateRejected:
		r.markHandled(p)
		c.settle(nil, &ThrowError{Message: describe(p.Result())})
		return
	}
	then, _ := goja.AssertFunction(obj.Get("then"))
	onFulfilled := r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		c.conclude(r.vm, finish, call.Argument(0))
		return goja.Undefined()
	})
	onRejected := r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		defer c.settleOnPanic()
		c.settle(nil, &ThrowError{Message: describe(call.Argument(0))})
		return goja.Undefined()
	})
	if _, err := then(obj, onFulfilled, onRejected); err != nil {
		c.settle(nil, Error(err))
	}
}

// markHandled forgets a rejection that was handled after all: by a
// handler JavaScript attached later, or by the host itself.
func (r *Runtime) markHandled(p *goja.Promise) {
	for i, q := range r.rejected {
		if q == p {
			r.rejected = append(r.rejected[:i], r.rejected[i+1:]...)
			return
		}
	}
}

// drain runs the promise jobs queued by Go code that resolved a promise
// outside of a JavaScript call: goja runs them when a call returns.
func (r *Runtime) drain() {
	if _, err := r.noop(goja.Undefined()); err != nil {
		r.Log().Warn("jsrt: running promise jobs failed", "error", Error(err).Error())
	}
}
