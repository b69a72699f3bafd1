package plugin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// MaxHandlersPerEvent is how many handlers one event runs (SPEC L10).
	MaxHandlersPerEvent = 10
	// DefaultDispatchTimeout is the deadline of one dispatch (SPEC L11).
	DefaultDispatchTimeout = 60 * time.Second
)

// Layer places a handler in the dispatch order. Layers run in the order
// below; within a layer, handlers run in registration order. A layer orders,
// it never outvotes: a deny from a later layer beats an allow from an earlier
// one, and the other way round (SPEC L8).
type Layer uint8

const (
	LayerManaged Layer = iota // policy set for the whole machine or organisation
	LayerConfig               // the permission rules of the host's config
	LayerUser                 // the user's own hooks
	LayerProject              // the project's hooks
	LayerPlugin               // plugins; the default
	numLayers
)

var layerNames = [numLayers]string{"managed", "config", "user", "project", "plugin"}

func (l Layer) String() string {
	if l < numLayers {
		return layerNames[l]
	}
	return fmt.Sprintf("layer(%d)", uint8(l))
}

// MarshalText writes the layer's name.
func (l Layer) MarshalText() ([]byte, error) {
	if l >= numLayers {
		return nil, fmt.Errorf("plugin: unknown layer %d", uint8(l))
	}
	return []byte(layerNames[l]), nil
}

// UnmarshalText reads a layer's name.
func (l *Layer) UnmarshalText(b []byte) error {
	for i, n := range layerNames {
		if string(b) == n {
			*l = Layer(i)
			return nil
		}
	}
	return fmt.Errorf("plugin: unknown layer %q (valid: managed, config, user, project, plugin)", b)
}

// Dispatcher is the one place where lifecycle events are fired. Its zero
// value is ready to use, with the defaults of NewDispatcher.
//
// # Lifecycle of one dispatch
//
//  1. Dispatch checks the payload's event and copies the payload: the fields
//     the event does not carry are cleared (SPEC L6) and ToolOutput is cut to
//     MaxToolOutputBytes on a UTF-8 boundary, recorded in
//     Extra[ExtraToolOutputTruncated] (SPEC L4). The caller's payload is never
//     modified.
//  2. One deadline is set for the whole dispatch: the Dispatcher's timeout
//     (DefaultDispatchTimeout unless WithTimeout says otherwise), or the
//     caller's own deadline when that is earlier (SPEC L11).
//  3. The handlers of the event run one after another, in layer order, then
//     registration order, on a goroutine of a shared pool, with a context
//     that ends at that deadline. Only the first MaxHandlersPerEvent in that
//     order run; the others are left out, with a warning logged when they are
//     registered (SPEC L10).
//  4. Dispatch waits until every handler has returned or the deadline has
//     passed, whichever comes first. A handler still running at the deadline
//     is abandoned (logged, never waited for) and the ones after it do not
//     run: Dispatch returns on time with what the others decided.
//  5. The votes are merged into one HookResult, and a Report says what
//     happened to each handler.
//
// # Merge
//
// The strongest vote wins: deny > defer > ask > allow (SPEC L8). A handler
// that returns (nil, nil), or a result with an empty Decision, abstains; an
// abstention is not a vote. If every handler abstains, or none is
// registered, the result is DecisionDefer with Report.Votes == 0: no hook
// decided and the host's own policy decides. An explicit defer vote ranks as
// SPEC L8 says, above ask and allow, and also means "the host's policy
// decides"; Report.Votes tells the two apart. Message is the messages of the
// handlers that voted the winning decision, in dispatch order, joined with
// "; ". Data is the Data maps of every handler that returned a result, merged
// in dispatch order, later keys winning, except DataAdditionalContext, whose
// strings are joined.
//
// # Isolation
//
// A handler that returns an error, panics, returns an unknown decision, or
// is abandoned at the deadline is logged with its source and its vote is
// dropped, unless it was registered with FailClosed: then that failure counts
// as a deny, and so does not running at all because an earlier handler used
// up the deadline. Nothing a handler does can fail Dispatch.
//
// # What a handler may change
//
// Every handler gets its own copy of the HookPayload struct, so assigning to
// its fields (even Extra itself) changes nothing for anyone else. Extra is a
// map, and copying it for every handler would cost an allocation per
// handler; instead each dispatch makes one copy that handlers share, checks
// after each handler that the copy still holds exactly the caller's keys and
// values, and gives the next handler a fresh copy only if it does not. Values
// nested inside Extra (a map under a key) are shared with the caller and must
// be treated as read-only. A payload, and its Extra, must not be used after
// the handler returns.
type Dispatcher struct {
	timeout time.Duration
	logger  *slog.Logger

	mu     sync.Mutex // serialises Register; Dispatch reads chains lock-free
	seq    uint64
	chains [len(events)]atomic.Pointer[chain]
}

// chain is an immutable snapshot of one event's handlers in dispatch order.
type chain struct {
	run     []*entry // the first MaxHandlersPerEvent
	leftOut []*entry // the rest (SPEC L10)
}

type entry struct {
	event      HookEvent
	h          HookHandler
	source     string
	layer      Layer
	failClosed bool
	matcher    *regexp.Regexp
	seq        uint64
}

// DispatcherOption configures a Dispatcher.
type DispatcherOption func(*Dispatcher)

// WithTimeout sets the deadline of each dispatch (SPEC L11); zero or less
// keeps DefaultDispatchTimeout.
func WithTimeout(d time.Duration) DispatcherOption {
	return func(x *Dispatcher) { x.timeout = d }
}

// WithLogger sets where the Dispatcher logs handler failures, abandoned
// handlers and left-out handlers; the default is slog.Default().
func WithLogger(l *slog.Logger) DispatcherOption {
	return func(x *Dispatcher) { x.logger = l }
}

// NewDispatcher returns a Dispatcher with no handlers.
func NewDispatcher(opts ...DispatcherOption) *Dispatcher {
	d := &Dispatcher{}
	for _, o := range opts {
		o(d)
	}
	return d
}

func (d *Dispatcher) log() *slog.Logger {
	if d.logger != nil {
		return d.logger
	}
	return slog.Default()
}

func (d *Dispatcher) deadline() time.Duration {
	if d.timeout > 0 {
		return d.timeout
	}
	return DefaultDispatchTimeout
}

// RegisterOption configures one registration.
type RegisterOption func(*entry)

// WithLayer places the handler in layer l (LayerPlugin by default).
func WithLayer(l Layer) RegisterOption { return func(e *entry) { e.layer = l } }

// WithSource names the handler in logs and reports: a plugin id, a file, a
// command line. By default it is the handler's function name and position.
func WithSource(s string) RegisterOption { return func(e *entry) { e.source = s } }

// WithMatcher limits the handler to tool calls whose tool name matches m
// (for instance ^(bash|write)$), or whose other name does (ExtraToolAlias:
// ^mcp__memory__ for the tools of the MCP server memory), on the tool events (PreToolUse, PostToolUse,
// PostToolUseFailure); on other events it always runs. A handler that does
// not match is reported as not matched and casts no vote.
func WithMatcher(m *regexp.Regexp) RegisterOption { return func(e *entry) { e.matcher = m } }

// FailClosed makes a failure of this handler count as a deny: an error, a
// panic, an unknown decision, being abandoned at the deadline, or not running
// because the deadline passed first. Guards on PreToolUse want this, so that
// a crashed guard cannot let the guarded tool run.
func FailClosed() RegisterOption { return func(e *entry) { e.failClosed = true } }

// Register adds h to the handlers of event. It fails for an event that is
// not one of the lifecycle events, a nil handler, or an unknown layer.
// Registering is safe while other goroutines dispatch; a dispatch already
// under way keeps the handlers it started with.
func (d *Dispatcher) Register(event HookEvent, h HookHandler, opts ...RegisterOption) error {
	idx := eventIndex(event)
	if idx < 0 {
		_, err := ParseHookEvent(string(event))
		return fmt.Errorf("plugin: register: %w", err)
	}
	if h == nil {
		return fmt.Errorf("plugin: register %s: nil handler", event)
	}
	e := &entry{event: event, h: h, layer: LayerPlugin}
	for _, o := range opts {
		o(e)
	}
	if e.layer >= numLayers {
		return fmt.Errorf("plugin: register %s: unknown layer %d", event, uint8(e.layer))
	}
	if e.source == "" {
		e.source = funcSource(h)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	e.seq = d.seq
	old := d.chains[idx].Load()
	var all []*entry
	if old != nil {
		all = append(append(all, old.run...), old.leftOut...)
	}
	all = append(all, e)
	slices.SortStableFunc(all, func(a, b *entry) int {
		if a.layer != b.layer {
			return int(a.layer) - int(b.layer)
		}
		return int(a.seq - b.seq)
	})
	next := &chain{run: all}
	if len(all) > MaxHandlersPerEvent {
		next.run, next.leftOut = all[:MaxHandlersPerEvent:MaxHandlersPerEvent], all[MaxHandlersPerEvent:]
	}
	d.chains[idx].Store(next)
	for _, x := range next.leftOut {
		if old == nil || !slices.Contains(old.leftOut, x) {
			d.log().Warn("plugin: too many handlers for one event; handler left out",
				"event", string(event), "source", x.source, "layer", x.layer.String(),
				"limit", MaxHandlersPerEvent)
		}
	}
	return nil
}

// HandlerInfo describes one registered handler.
type HandlerInfo struct {
	Event      HookEvent `json:"event"`
	Source     string    `json:"source"`
	Layer      Layer     `json:"layer"`
	FailClosed bool      `json:"fail_closed,omitempty"`
	Matcher    string    `json:"matcher,omitempty"`  // the tool names it is limited to
	LeftOut    bool      `json:"left_out,omitempty"` // beyond MaxHandlersPerEvent: never runs
}

// Handlers lists the handlers registered for event, in dispatch order.
func (d *Dispatcher) Handlers(event HookEvent) []HandlerInfo {
	idx := eventIndex(event)
	if idx < 0 {
		return nil
	}
	c := d.chains[idx].Load()
	if c == nil {
		return nil
	}
	out := make([]HandlerInfo, 0, len(c.run)+len(c.leftOut))
	for _, e := range c.run {
		out = append(out, e.info(false))
	}
	for _, e := range c.leftOut {
		out = append(out, e.info(true))
	}
	return out
}

func (e *entry) info(leftOut bool) HandlerInfo {
	info := HandlerInfo{Event: e.event, Source: e.source, Layer: e.layer, FailClosed: e.failClosed, LeftOut: leftOut}
	if e.matcher != nil {
		info.Matcher = e.matcher.String()
	}
	return info
}

// funcSource names a handler by its function and position, e.g.
// "main.main.func1 (guard.go:42)".
func funcSource(h HookHandler) string {
	pc := reflect.ValueOf(h).Pointer()
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return "handler"
	}
	file, line := fn.FileLine(pc)
	for i := len(file) - 1; i >= 0; i-- {
		if file[i] == '/' {
			file = file[i+1:]
			break
		}
	}
	return fmt.Sprintf("%s (%s:%d)", fn.Name(), file, line)
}

// Dispatch runs the handlers of p.Event and returns their merged result (see
// Dispatcher). It returns an error only when p is nil or names no lifecycle
// event, or when ctx ends before the handlers are done; in that last case it
// also returns what the handlers that finished decided.
func (d *Dispatcher) Dispatch(ctx context.Context, p *HookPayload) (*HookResult, error) {
	var rep Report
	if err := d.dispatch(ctx, p, &rep, false); rep.Event == "" {
		return nil, err
	} else {
		return &rep.Result, err
	}
}

// DispatchReport is Dispatch with the run summary: the merged result and, for
// every handler of the event, what it did and for how long.
func (d *Dispatcher) DispatchReport(ctx context.Context, p *HookPayload) (*Report, error) {
	rep := new(Report)
	if err := d.dispatch(ctx, p, rep, true); rep.Event == "" {
		return nil, err
	} else {
		return rep, err
	}
}

// ErrNilPayload is returned by Dispatch for a nil payload.
var ErrNilPayload = errors.New("plugin: dispatch: nil payload")

// dispatch is steps 1 to 5 of the Dispatcher's lifecycle. It leaves
// rep.Event empty when the payload was refused.
func (d *Dispatcher) dispatch(ctx context.Context, p *HookPayload, rep *Report, withRuns bool) error {
	if p == nil {
		return ErrNilPayload
	}
	idx := eventIndex(p.Event)
	if idx < 0 {
		_, err := ParseHookEvent(string(p.Event))
		return fmt.Errorf("plugin: dispatch: %w", err)
	}
	rep.Event = p.Event
	c := d.chains[idx].Load()
	if c == nil {
		rep.Result.Decision = DecisionDefer
		return nil
	}

	t0 := clock()
	rep.Start = epoch.Add(t0)
	wait := d.deadline()
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl))
	}
	r := runPool.Get().(*run)
	r.d, r.chain, r.t0 = d, c, t0
	r.ctx = &hookCtx{parent: ctx, deadline: epoch.Add(t0 + wait)}
	var st int32 // the run's state once the wait is over
	pooled := false
	if err := ctx.Err(); err != nil {
		r.ctx.cancel(err)
	} else {
		normalize(&r.base, p)
		r.shareExtra()
		if r.timer == nil {
			r.timer = time.AfterFunc(wait, r.expire)
		} else {
			r.timer.Reset(wait)
		}
		submit(r)
		signaled := true
		if done := ctx.Done(); done == nil {
			<-r.finished
		} else {
			select {
			case <-r.finished:
			case <-done:
				signaled = false
				r.ctx.cancel(ctx.Err())
			}
		}
		stopped := r.timer.Stop()  // false: expire ran or is running, and may still touch r
		st = r.state.Or(closedBit) // close the run: the worker starts and publishes nothing more
		if int(st/2) == len(c.run) {
			r.ctx.cancel(context.Canceled)
			pooled = stopped
			if pooled && !signaled {
				<-r.finished // the worker's one signal must not wake the run's next use
			}
		} else {
			r.ctx.cancel(context.DeadlineExceeded) // a no-op when expire or ctx canceled it first
		}
	}

	n := int(st / 2)
	var tail []HandlerRun
	var err error
	if n < len(c.run) {
		canceled := ctx.Err() != nil
		tail = r.unfinished(n, st&1 == 1, canceled)
		if canceled {
			err = fmt.Errorf("plugin: dispatch %s: %w", p.Event, ctx.Err())
		}
	}
	rep.Votes = merge(&rep.Result, r.data[:n], r.slots[:n], tail)
	if withRuns {
		rep.Handlers = make([]HandlerRun, 0, n+len(tail)+len(c.leftOut))
		rep.Handlers = append(append(rep.Handlers, r.slots[:n]...), tail...)
		end := clock() - t0
		for _, e := range c.leftOut {
			rep.Handlers = append(rep.Handlers, HandlerRun{Source: e.source, Layer: e.layer, FailClosed: e.failClosed, Outcome: OutcomeLeftOut, Start: end})
		}
	}
	if n == len(c.run) {
		rep.Duration = r.end - t0
	} else {
		rep.Duration = clock() - t0
	}
	if pooled {
		r.release(n)
	}
	return err
}
