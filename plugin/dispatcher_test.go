package plugin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// covers L8: layers order handlers, they never outvote.
func TestLayersOrderButNeverOutvote(t *testing.T) {
	d, _ := newTestDispatcher(t)
	var order []string
	var mu sync.Mutex
	rec := func(name string, dec HookDecision) HookHandler {
		return func(context.Context, *HookPayload) (*HookResult, error) {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return &HookResult{Decision: dec, Message: name}, nil
		}
	}
	// Registered out of layer order on purpose.
	mustRegister(t, d, HookPreToolUse, rec("plugin-1", DecisionAllow))
	mustRegister(t, d, HookPreToolUse, rec("project-deny", DecisionDeny), WithLayer(LayerProject))
	mustRegister(t, d, HookPreToolUse, rec("managed-allow", DecisionAllow), WithLayer(LayerManaged))
	mustRegister(t, d, HookPreToolUse, rec("user", DecisionAsk), WithLayer(LayerUser))
	mustRegister(t, d, HookPreToolUse, rec("plugin-2", DecisionAllow))
	mustRegister(t, d, HookPreToolUse, rec("managed-2", DecisionAllow), WithLayer(LayerManaged))

	res, err := d.Dispatch(context.Background(), &HookPayload{Event: HookPreToolUse, ToolName: "bash"})
	if err != nil {
		t.Fatal(err)
	}
	want := "managed-allow managed-2 user project-deny plugin-1 plugin-2"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if res.Decision != DecisionDeny || res.Message != "project-deny" {
		t.Errorf("a project deny must beat a managed allow: %+v", res)
	}
	var sources []string
	for _, h := range d.Handlers(HookPreToolUse) {
		sources = append(sources, h.Source)
	}
	if len(sources) != 6 || !strings.Contains(sources[0], "func") {
		t.Errorf("Handlers() = %v; default sources should name the function", sources)
	}
}

// covers L10
func TestHandlerLimit(t *testing.T) {
	d, logs := newTestDispatcher(t)
	ran := map[string]bool{}
	var mu sync.Mutex
	h := func(name string) HookHandler {
		return func(context.Context, *HookPayload) (*HookResult, error) {
			mu.Lock()
			ran[name] = true
			mu.Unlock()
			return &HookResult{Decision: DecisionAllow}, nil
		}
	}
	for i := 1; i <= 11; i++ {
		mustRegister(t, d, HookSessionStart, h(fmt.Sprintf("p%d", i)), WithSource(fmt.Sprintf("p%d", i)))
	}
	line, ok := logs.Find("WARN", "left out", "event=SessionStart", "source=p11")
	if !ok {
		t.Fatalf("no warning naming the event and the 11th handler; logs: %q", logs.Lines())
	}
	if !strings.Contains(line, "limit=10") {
		t.Errorf("warning should state the limit: %s", line)
	}
	// Counted in dispatch order: a managed handler registered last runs first
	// and pushes the last plugin handler out.
	mustRegister(t, d, HookSessionStart, h("managed"), WithSource("managed"), WithLayer(LayerManaged))
	if _, ok := logs.Find("left out", "source=p10"); !ok {
		t.Errorf("p10 pushed out without a warning; logs: %q", logs.Lines())
	}
	rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: HookSessionStart})
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 10 || !ran["managed"] || ran["p10"] || ran["p11"] {
		t.Errorf("ran %v", ran)
	}
	if len(rep.Handlers) != 12 {
		t.Fatalf("report has %d handlers, want all 12", len(rep.Handlers))
	}
	for i, want := range []string{"managed", "p1"} {
		if rep.Handlers[i].Source != want {
			t.Errorf("report[%d] = %s, want %s", i, rep.Handlers[i].Source, want)
		}
	}
	for _, h := range rep.Handlers[10:] {
		if h.Outcome != OutcomeLeftOut {
			t.Errorf("%s: outcome %q, want left_out", h.Source, h.Outcome)
		}
	}
	infos := d.Handlers(HookSessionStart)
	if !infos[10].LeftOut || !infos[11].LeftOut || infos[9].LeftOut {
		t.Errorf("Handlers() left-out flags wrong: %+v", infos)
	}
}

// blocker is a handler that ignores its context until release is closed.
func blocker(release <-chan struct{}, started chan<- struct{}) HookHandler {
	return func(context.Context, *HookPayload) (*HookResult, error) {
		if started != nil {
			close(started)
		}
		<-release
		return &HookResult{Decision: DecisionAllow}, nil
	}
}

// covers L11
func TestDeadlineAbandonsHandler(t *testing.T) {
	// The deadline must leave "asker" time to run even on a loaded machine:
	// with 50ms a worker scheduled late found it passed, "asker" was
	// skipped, and the receive from sawDeadline below blocked for ever.
	d, logs := newTestDispatcher(t, WithTimeout(time.Second))
	release := make(chan struct{})
	defer close(release)
	sawDeadline := make(chan bool, 1)
	mustRegister(t, d, HookPreToolUse, func(ctx context.Context, _ *HookPayload) (*HookResult, error) {
		_, ok := ctx.Deadline()
		sawDeadline <- ok
		return &HookResult{Decision: DecisionAsk, Message: "first"}, nil
	}, WithSource("asker"))
	mustRegister(t, d, HookPreToolUse, blocker(release, nil), WithSource("hung"))
	mustRegister(t, d, HookPreToolUse, DenyHook("never runs"), WithSource("after"))

	// Dispatch must return while "hung" is still blocked: release is closed
	// only when the test ends, so a Dispatch that waited would never return.
	rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse})
	if err != nil {
		t.Fatalf("a deadline of the Dispatcher's own is not an error: %v", err)
	}
	select {
	case ok := <-sawDeadline:
		if !ok {
			t.Error("handler context has no deadline")
		}
	default: // never block on a handler that may not have run
		t.Fatalf("asker did not run before the deadline: %+v", rep.Handlers)
	}
	if rep.Result.Decision != DecisionAsk || rep.Result.Message != "first" {
		t.Errorf("result %+v, want what the finished handler decided", rep.Result)
	}
	outcomes := []Outcome{OutcomeVoted, OutcomeTimedOut, OutcomeSkipped}
	for i, h := range rep.Handlers {
		if h.Outcome != outcomes[i] {
			t.Errorf("%s: outcome %q, want %q", h.Source, h.Outcome, outcomes[i])
		}
	}
	if rep.Handlers[1].Duration <= 0 {
		t.Error("the abandoned handler has no duration")
	}
	if _, ok := logs.Find("WARN", "abandoned", "source=hung", "event=PreToolUse"); !ok {
		t.Errorf("no log naming the abandoned handler: %q", logs.Lines())
	}
}

// covers L11
func TestDeadlineDefaultAndOption(t *testing.T) {
	if DefaultDispatchTimeout != 60*time.Second {
		t.Errorf("DefaultDispatchTimeout = %v", DefaultDispatchTimeout)
	}
	var deadlines []time.Duration
	probe := func(ctx context.Context, _ *HookPayload) (*HookResult, error) {
		dl, _ := ctx.Deadline()
		deadlines = append(deadlines, time.Until(dl))
		return nil, nil
	}
	for _, d := range []*Dispatcher{NewDispatcher(), {}, NewDispatcher(WithTimeout(2 * time.Second)), NewDispatcher(WithTimeout(-1))} {
		mustRegister(t, d, HookPostCompact, probe)
		if _, err := d.Dispatch(context.Background(), &HookPayload{Event: HookPostCompact}); err != nil {
			t.Fatal(err)
		}
	}
	within := func(got, want time.Duration) bool { return got <= want && got > want-10*time.Second }
	if !within(deadlines[0], time.Minute) || !within(deadlines[1], time.Minute) || !within(deadlines[3], time.Minute) {
		t.Errorf("default deadlines %v, want about 60s", deadlines)
	}
	if deadlines[2] > 2*time.Second || deadlines[2] <= 0 {
		t.Errorf("WithTimeout(2s) deadline %v", deadlines[2])
	}
	// The caller's earlier deadline wins.
	d := NewDispatcher()
	mustRegister(t, d, HookPostCompact, probe)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	d.Dispatch(ctx, &HookPayload{Event: HookPostCompact})
	if got := deadlines[len(deadlines)-1]; got > time.Second {
		t.Errorf("deadline %v exceeds the caller's", got)
	}
}

// covers L11: handlers that honour their context end at the deadline.
func TestDeadlineCancelsContext(t *testing.T) {
	d, _ := newTestDispatcher(t, WithTimeout(200*time.Millisecond))
	errc := make(chan error, 1)
	mustRegister(t, d, HookPreToolUse, func(ctx context.Context, _ *HookPayload) (*HookResult, error) {
		<-ctx.Done()
		errc <- ctx.Err()
		return nil, ctx.Err()
	})
	rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse})
	if err != nil {
		t.Fatal(err)
	}
	// A handler its worker had not started by the deadline is skipped and
	// never runs: then nothing is sent on errc, and a plain receive hangs.
	if rep.Handlers[0].Outcome == OutcomeSkipped {
		t.Skip("the handler did not start before the deadline (overloaded machine)")
	}
	if got := <-errc; !errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("handler ctx.Err() = %v", got)
	}
	if rep.Result.Decision != DecisionDefer || rep.Votes != 0 {
		t.Errorf("result %+v", rep.Result)
	}
}

func TestCallerCancellation(t *testing.T) {
	d, _ := newTestDispatcher(t)
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	mustRegister(t, d, HookUserPromptSubmit, AllowHook(), WithSource("ok"))
	mustRegister(t, d, HookUserPromptSubmit, blocker(release, started), WithSource("hung"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	rep, err := d.DispatchReport(ctx, &HookPayload{Event: HookUserPromptSubmit})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "UserPromptSubmit") {
		t.Fatalf("err = %v, want context.Canceled naming the event", err)
	}
	if rep.Result.Decision != DecisionAllow || rep.Handlers[1].Outcome != OutcomeCanceled {
		t.Errorf("report %+v", rep)
	}

	// A context that is already done runs nothing.
	ran := false
	d2, _ := newTestDispatcher(t)
	mustRegister(t, d2, HookSessionEnd, func(context.Context, *HookPayload) (*HookResult, error) { ran = true; return nil, nil })
	mustRegister(t, d2, HookSessionEnd, DenyHook("guard"), FailClosed(), WithSource("guard"))
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	rep, err = d2.DispatchReport(done, &HookPayload{Event: HookSessionEnd})
	if !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("err = %v, ran = %v", err, ran)
	}
	if rep.Handlers[0].Outcome != OutcomeSkipped || rep.Result.Decision != DecisionDeny {
		t.Errorf("a fail-closed guard that did not run must deny: %+v", rep)
	}
}

func TestIsolation(t *testing.T) {
	d, logs := newTestDispatcher(t)
	mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
		return nil, errors.New("lookup failed")
	}, WithSource("erring"))
	mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
		panic("kaboom")
	}, WithSource("panicking"))
	mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
		return &HookResult{Decision: "block"}, nil
	}, WithSource("confused"))
	mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
		runtime.Goexit()
		return nil, nil
	}, WithSource("exiting"))
	mustRegister(t, d, HookPreToolUse, vote(DecisionAllow, "fine"), WithSource("healthy"))

	rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse, ToolName: "bash"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result.Decision != DecisionAllow || rep.Votes != 1 {
		t.Errorf("failing handlers must lose their vote: %+v", rep.Result)
	}
	want := []Outcome{OutcomeError, OutcomePanic, OutcomeError, OutcomePanic, OutcomeVoted}
	for i, h := range rep.Handlers {
		if h.Outcome != want[i] || (i < 4 && h.Error == "") {
			t.Errorf("%s: outcome %q error %q, want %q", h.Source, h.Outcome, h.Error, want[i])
		}
	}
	for _, parts := range [][]string{
		{"WARN", "failed", "source=erring", "lookup failed"},
		{"ERROR", "panicked", "source=panicking", "kaboom", "stack="},
		{"WARN", "failed", "source=confused", `"block"`},
		{"ERROR", "panicked", "source=exiting", "Goexit"},
	} {
		if _, ok := logs.Find(parts...); !ok {
			t.Errorf("no log line with %q; logs: %q", parts, logs.Lines())
		}
	}
}

func TestFailClosed(t *testing.T) {
	// "allow", "guard-error" and "guard-panic" (a stack trace, logged) must
	// all finish before the deadline: 50ms is too little on a loaded machine.
	d, _ := newTestDispatcher(t, WithTimeout(time.Second))
	release := make(chan struct{})
	defer close(release)
	mustRegister(t, d, HookPreToolUse, AllowHook(), WithSource("allow"))
	mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
		return nil, errors.New("policy server down")
	}, WithSource("guard-error"), FailClosed())
	mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
		panic("nil map")
	}, WithSource("guard-panic"), FailClosed())
	mustRegister(t, d, HookPreToolUse, blocker(release, nil), WithSource("guard-hung"), FailClosed())
	mustRegister(t, d, HookPreToolUse, AllowHook(), WithSource("guard-late"), FailClosed())
	mustRegister(t, d, HookPreToolUse, AllowHook(), WithSource("open-late"))

	rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result.Decision != DecisionDeny {
		t.Fatalf("decision %q, want deny", rep.Result.Decision)
	}
	for _, part := range []string{"guard-error", "policy server down", "guard-panic", "nil map", "guard-hung", "deadline", "guard-late"} {
		if !strings.Contains(rep.Result.Message, part) {
			t.Errorf("message %q lacks %q", rep.Result.Message, part)
		}
	}
	want := map[string]struct {
		o Outcome
		d HookDecision
	}{
		"allow": {OutcomeVoted, DecisionAllow}, "guard-error": {OutcomeError, DecisionDeny},
		"guard-panic": {OutcomePanic, DecisionDeny}, "guard-hung": {OutcomeTimedOut, DecisionDeny},
		"guard-late": {OutcomeSkipped, DecisionDeny}, "open-late": {OutcomeSkipped, ""},
	}
	for _, h := range rep.Handlers {
		if w := want[h.Source]; h.Outcome != w.o || h.Decision != w.d {
			t.Errorf("%s: %q/%q, want %q/%q", h.Source, h.Outcome, h.Decision, w.o, w.d)
		}
	}
}

// One handler cannot change what the next one sees, nor what the caller holds.
func TestHandlersGetTheirOwnPayload(t *testing.T) {
	d, _ := newTestDispatcher(t)
	nested := map[string]any{"input": 1}
	extra := map[string]any{"model": "m", "usage": nested}
	caller := &HookPayload{Event: HookPreToolUse, ToolName: "bash", ToolInput: "{}", SessionID: "s", Extra: extra}
	var seen []HookPayload
	var seenExtra []map[string]any
	snapshot := func(p *HookPayload) {
		cp := map[string]any{}
		for k, v := range p.Extra {
			cp[k] = v
		}
		seen, seenExtra = append(seen, *p), append(seenExtra, cp)
	}
	mustRegister(t, d, HookPreToolUse, func(_ context.Context, p *HookPayload) (*HookResult, error) {
		snapshot(p)
		p.ToolName, p.SessionID = "rm", "other"
		p.Extra["model"] = "hijacked"
		p.Extra["added"] = true
		delete(p.Extra, "usage")
		return nil, nil
	})
	mustRegister(t, d, HookPreToolUse, func(_ context.Context, p *HookPayload) (*HookResult, error) {
		snapshot(p)
		p.Extra = map[string]any{"replaced": true}
		return nil, nil
	})
	mustRegister(t, d, HookPreToolUse, func(_ context.Context, p *HookPayload) (*HookResult, error) {
		snapshot(p)
		p.Extra["model"] = "m2" // same key count, new value
		return nil, nil
	})
	mustRegister(t, d, HookPreToolUse, func(_ context.Context, p *HookPayload) (*HookResult, error) {
		snapshot(p)
		return nil, nil
	})
	for round := 0; round < 3; round++ { // pooled state must not leak between dispatches
		seen, seenExtra = nil, nil
		if _, err := d.Dispatch(context.Background(), caller); err != nil {
			t.Fatal(err)
		}
		for i, p := range seen {
			if p.ToolName != "bash" || p.SessionID != "s" {
				t.Errorf("round %d handler %d saw %q/%q", round, i, p.ToolName, p.SessionID)
			}
			if e := seenExtra[i]; len(e) != 2 || e["model"] != "m" || e["usage"] == nil {
				t.Errorf("round %d handler %d saw Extra %v", round, i, e)
			}
		}
	}
	if caller.ToolName != "bash" || len(extra) != 2 || extra["model"] != "m" || nested["input"] != 1 {
		t.Errorf("the caller's payload changed: %+v %v", caller, extra)
	}
}

func TestRegisterErrors(t *testing.T) {
	d := NewDispatcher()
	err := d.Register("PreToolUsed", AllowHook())
	if err == nil || !strings.Contains(err.Error(), `"PreToolUsed"`) {
		t.Errorf("unknown event: %v", err)
	}
	if err := d.Register(HookPreToolUse, nil); err == nil {
		t.Error("nil handler accepted")
	}
	if err := d.Register(HookPreToolUse, AllowHook(), WithLayer(Layer(9))); err == nil {
		t.Error("unknown layer accepted")
	}
	if _, err := d.Dispatch(context.Background(), nil); !errors.Is(err, ErrNilPayload) {
		t.Errorf("nil payload: %v", err)
	}
	if res, err := d.Dispatch(context.Background(), &HookPayload{Event: "Nope"}); err == nil || res != nil {
		t.Errorf("unknown event dispatched: %v, %v", res, err)
	}
	if rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: "Nope"}); err == nil || rep != nil {
		t.Errorf("unknown event reported: %v, %v", rep, err)
	}
}

func TestLayerText(t *testing.T) {
	for l := LayerManaged; l < numLayers; l++ {
		b, err := l.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Layer
		if err := back.UnmarshalText(b); err != nil || back != l || l.String() != string(b) {
			t.Errorf("layer %d: %q, %v", l, b, err)
		}
	}
	var l Layer
	if err := l.UnmarshalText([]byte("global")); err == nil {
		t.Error("unknown layer name accepted")
	}
}

// Many goroutines dispatch while others register: run with -race.
func TestConcurrentDispatchAndRegister(t *testing.T) {
	d, _ := newTestDispatcher(t)
	mustRegister(t, d, HookPreToolUse, func(_ context.Context, p *HookPayload) (*HookResult, error) {
		if p.Extra["n"] == nil {
			return nil, errors.New("lost Extra")
		}
		return &HookResult{Decision: DecisionAllow, Data: map[string]any{"tool": p.ToolName}}, nil
	})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				tool := fmt.Sprintf("t%d-%d", g, i)
				res, err := d.Dispatch(context.Background(), &HookPayload{Event: HookPreToolUse, ToolName: tool, Extra: map[string]any{"n": i}})
				if err != nil || res.Decision == DecisionDefer || res.Data["tool"] != tool {
					errs <- fmt.Errorf("dispatch %s: %+v, %v", tool, res, err)
					return
				}
			}
		}(g)
	}
	for i := 0; i < 8; i++ {
		mustRegister(t, d, HookPreToolUse, AllowHook())
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg } // panics on a nil *nilErr

// A handler returning a typed nil error (a non-nil interface whose Error
// panics) is an error of that handler, not a crash of the host.
func TestTypedNilErrorIsIsolated(t *testing.T) {
	d, logs := newTestDispatcher(t)
	mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
		var e *nilErr
		return nil, e
	}, WithSource("typed-nil"), FailClosed())
	res, err := d.Dispatch(context.Background(), &HookPayload{Event: HookPreToolUse})
	if err != nil || res.Decision != DecisionDeny || !strings.Contains(res.Message, "nilErr") {
		t.Errorf("%+v %v", res, err)
	}
	if _, ok := logs.Find("failed", "source=typed-nil"); !ok {
		t.Errorf("not logged: %q", logs.Lines())
	}
}

// A handler reported as skipped never runs afterwards, however the
// deadline and the worker race.
func TestSkippedHandlerNeverRuns(t *testing.T) {
	for i := 0; i < 2000; i++ {
		d, _ := newTestDispatcher(t, WithTimeout(time.Nanosecond))
		var mu sync.Mutex
		started := false
		mustRegister(t, d, HookPreToolUse, func(context.Context, *HookPayload) (*HookResult, error) {
			mu.Lock()
			started = true
			mu.Unlock()
			return nil, nil
		})
		rep, _ := d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse})
		if rep.Handlers[0].Outcome != OutcomeSkipped {
			continue
		}
		time.Sleep(200 * time.Microsecond) // time for a worker that would still start
		mu.Lock()
		s := started
		mu.Unlock()
		if s {
			t.Fatalf("iteration %d: a handler reported as skipped ran", i)
		}
	}
}

func TestMatcher(t *testing.T) {
	d, _ := newTestDispatcher(t)
	mustRegister(t, d, HookPreToolUse, DenyHook("no shell"), WithSource("shell-guard"), WithMatcher(regexp.MustCompile(`^(bash|sh)$`)))
	mustRegister(t, d, HookSessionStart, AllowHook(), WithMatcher(regexp.MustCompile(`^never$`)))
	rep, _ := d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse, ToolName: "bash"})
	if rep.Result.Decision != DecisionDeny {
		t.Errorf("bash: %+v", rep.Result)
	}
	rep, _ = d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse, ToolName: "bashful"})
	if rep.Result.Decision != DecisionDefer || rep.Handlers[0].Outcome != OutcomeNotMatched {
		t.Errorf("bashful: %+v", rep)
	}
	rep, _ = d.DispatchReport(context.Background(), &HookPayload{Event: HookSessionStart})
	if rep.Result.Decision != DecisionAllow {
		t.Errorf("a matcher does not apply to non-tool events: %+v", rep)
	}
	if info := d.Handlers(HookPreToolUse); info[0].Matcher != `^(bash|sh)$` {
		t.Errorf("info %+v", info)
	}
}
