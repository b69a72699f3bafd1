package cron

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/plugin"
)

// t0 is when every test's clock starts: half a minute into 10:02.
var t0 = time.Date(2026, 3, 2, 10, 2, 30, 0, time.UTC)

func at(hour, minute int) time.Time { return time.Date(2026, 3, 2, hour, minute, 0, 0, time.UTC) }

// firing is what a CronFired handler saw: the clock when it ran, and the payload.
type firing struct {
	now time.Time
	p   plugin.HookPayload
}

// runCall is one call of Options.Run.
type runCall struct {
	ctx context.Context
	job config.CronJob
	p   *plugin.HookPayload
}

// harness is a Scheduler on a fake clock with a real Dispatcher. A CronFired
// handler records every dispatch; Run sends each call on runs and then does
// what the test's run function does.
type harness struct {
	clk   *fakeClock
	logs  *logRecorder
	hooks *plugin.Dispatcher
	s     *Scheduler
	runs  chan runCall
	calls atomic.Int32

	mu    sync.Mutex
	fired []firing
}

type setup struct {
	jobs     []config.CronJob
	run      RunFunc // after the call is recorded; nil returns nil
	location *time.Location
	hooks    func(d *plugin.Dispatcher) // registers the test's handlers
	noStart  bool
	claim    func(ctx context.Context, job string, at time.Time) (bool, error)
	start    time.Time // the clock's first time; zero means t0
}

func newHarness(t *testing.T, su setup) *harness {
	t.Helper()
	h := &harness{
		clk:   newFakeClock(cmp.Or(su.start, t0)),
		logs:  newLogRecorder(),
		hooks: plugin.NewDispatcher(plugin.WithLogger(slog.New(slog.DiscardHandler))),
		runs:  make(chan runCall, 100),
	}
	record := func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		c := *p
		c.Extra = maps.Clone(p.Extra) // the Dispatcher reuses the map once the handler returns
		h.fired = append(h.fired, firing{now: h.clk.Now(), p: c})
		return nil, nil // abstain
	}
	if err := h.hooks.Register(plugin.HookCronFired, record, plugin.WithSource("recorder")); err != nil {
		t.Fatal(err)
	}
	if su.hooks != nil {
		su.hooks(h.hooks)
	}
	run := func(ctx context.Context, job config.CronJob, p *plugin.HookPayload) error {
		h.calls.Add(1)
		h.runs <- runCall{ctx: ctx, job: job, p: p}
		if su.run != nil {
			return su.run(ctx, job, p)
		}
		return nil
	}
	loc := su.location
	if loc == nil {
		loc = time.UTC
	}
	s, err := New(su.jobs, Options{Hooks: h.hooks, Run: run, Clock: h.clk, Log: slog.New(h.logs), Location: loc, Claim: su.claim})
	if err != nil {
		t.Fatal(err)
	}
	h.s = s
	t.Cleanup(s.Stop)
	if !su.noStart {
		s.Start(t.Context())
	}
	return h
}

func mustRegister(t *testing.T, d *plugin.Dispatcher, h plugin.HookHandler, opts ...plugin.RegisterOption) {
	t.Helper()
	if err := d.Register(plugin.HookCronFired, h, opts...); err != nil {
		t.Fatal(err)
	}
}

// nextRun waits for the next call of Run.
func (h *harness) nextRun(t *testing.T) runCall {
	t.Helper()
	select {
	case r := <-h.runs:
		return r
	case <-time.After(waitLimit):
		h.logs.dump(t)
		t.Fatal("Run was not called")
		return runCall{}
	}
}

// finished waits until n runs have returned and the scheduler has marked
// them finished: the next tick of the job is no overlap.
func (h *harness) finished(t *testing.T, n int) {
	t.Helper()
	h.logs.wait(t, "cron: run finished", n)
}

func (h *harness) firings() []firing {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]firing(nil), h.fired...)
}

func scheduledAt(p *plugin.HookPayload) string {
	s, _ := p.Extra[ExtraScheduledAt].(string)
	return s
}

// covers L1: CronFired fires at the moment of each tick of the schedule,
// and at no other moment.
func TestFiresAtTheMinutesOfTheSchedule(t *testing.T) {
	h := newHarness(t, setup{jobs: []config.CronJob{{Name: "every5", Schedule: "*/5 * * * *", Prompt: "check the build"}}})

	h.clk.advanceTo(t, at(10, 5))
	r := h.nextRun(t)
	if got, want := scheduledAt(r.p), "2026-03-02T10:05:00Z"; got != want {
		t.Errorf("first run scheduled_at = %q, want %q", got, want)
	}
	h.finished(t, 1)
	h.clk.advanceTo(t, at(10, 7))
	h.clk.advanceTo(t, at(10, 10))
	r = h.nextRun(t)
	if got, want := scheduledAt(r.p), "2026-03-02T10:10:00Z"; got != want {
		t.Errorf("second run scheduled_at = %q, want %q", got, want)
	}
	h.s.Stop() // waits for every tick: what was recorded is final

	fired := h.firings()
	want := []time.Time{at(10, 5), at(10, 10)}
	if len(fired) != len(want) {
		t.Fatalf("CronFired fired %d times, want %d (at 10:05 and 10:10): %v", len(fired), len(want), fired)
	}
	for i, f := range fired {
		if !f.now.Equal(want[i]) {
			t.Errorf("CronFired #%d fired at %s, want %s", i, f.now.Format(time.TimeOnly), want[i].Format(time.TimeOnly))
		}
	}
	if n := h.calls.Load(); n != 2 {
		t.Errorf("Run called %d times, want 2", n)
	}
}

// covers L1: the moment is read in Options.Location.
func TestScheduleReadInLocation(t *testing.T) {
	plus2 := time.FixedZone("UTC+2", 2*60*60)
	h := newHarness(t, setup{
		jobs:     []config.CronJob{{Name: "lunch", Schedule: "0 13 * * *", Prompt: "lunch report"}},
		location: plus2,
	})
	h.clk.advanceTo(t, at(11, 0)) // 13:00 at UTC+2; it is 12:02:30 there at the start
	r := h.nextRun(t)
	if got, want := scheduledAt(r.p), "2026-03-02T13:00:00+02:00"; got != want {
		t.Errorf("scheduled_at = %q, want %q", got, want)
	}
	h.s.Stop()
	fired := h.firings()
	if len(fired) != 1 || !fired[0].now.Equal(at(11, 0)) {
		t.Errorf("CronFired fired %v, want once at 11:00 UTC", fired)
	}
}

func TestPayload(t *testing.T) {
	jobs := []config.CronJob{
		{Name: "hourly", Schedule: "0 * * * *", Prompt: "tidy the inbox", Session: "ses_123"},
		{Name: "also-hourly", Schedule: "@hourly", Prompt: "new session each time"},
	}
	h := newHarness(t, setup{jobs: jobs})
	h.clk.advanceTo(t, at(11, 0))
	got := map[string]runCall{}
	for range 2 {
		r := h.nextRun(t)
		got[r.job.Name] = r
	}
	h.s.Stop()

	for _, job := range jobs {
		r, ok := got[job.Name]
		if !ok {
			t.Fatalf("job %q did not run", job.Name)
		}
		if r.job != job {
			t.Errorf("Run got job %+v, want %+v", r.job, job)
		}
		p := r.p
		if p.Event != plugin.HookCronFired || p.Channel != "cron" || p.SessionID != job.Session || p.ToolName != "" {
			t.Errorf("payload %+v: want event CronFired, channel cron, session %q", p, job.Session)
		}
		want := map[string]any{"job": job.Name, "schedule": job.Schedule, "scheduled_at": "2026-03-02T11:00:00Z", "prompt": job.Prompt}
		if len(p.Extra) != len(want) {
			t.Errorf("extra = %v, want %v", p.Extra, want)
		}
		for k, v := range want {
			if p.Extra[k] != v {
				t.Errorf("job %q: extra[%q] = %v, want %v", job.Name, k, p.Extra[k], v)
			}
		}
	}
	// What the handlers saw is what Run got.
	fired := h.firings()
	if len(fired) != 2 {
		t.Fatalf("CronFired fired %d times, want 2", len(fired))
	}
	for _, f := range fired {
		r := got[f.p.Extra["job"].(string)]
		if f.p.Channel != r.p.Channel || f.p.SessionID != r.p.SessionID || scheduledAt(&f.p) != scheduledAt(r.p) {
			t.Errorf("handler saw %+v, Run got %+v", f.p, *r.p)
		}
	}
}

func TestDenySkipsTheRun(t *testing.T) {
	h := newHarness(t, setup{
		jobs: []config.CronJob{{Name: "minutely", Schedule: "* * * * *", Prompt: "p"}},
		hooks: func(d *plugin.Dispatcher) {
			mustRegister(t, d, plugin.DenyHook("quiet hours"), plugin.WithSource("quiet"))
		},
	})
	h.clk.advanceTo(t, at(10, 3))
	h.clk.advanceTo(t, at(10, 4))
	lines := h.logs.wait(t, "cron: CronFired denied the run", 2)
	h.s.Stop()

	if n := h.calls.Load(); n != 0 {
		t.Errorf("Run called %d times after deny", n)
	}
	for i, l := range lines {
		if l.level != slog.LevelInfo || l.attrs["job"] != "minutely" || l.attrs["message"] != "quiet hours" {
			t.Errorf("log line %d = %+v, want Info with job minutely and message %q", i, l, "quiet hours")
		}
	}
	if len(h.firings()) != 2 {
		t.Errorf("CronFired fired %d times, want 2", len(h.firings()))
	}
}

func TestAskSkipsTheRun(t *testing.T) {
	ask := func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		return &plugin.HookResult{Decision: plugin.DecisionAsk, Message: "are you sure?"}, nil
	}
	h := newHarness(t, setup{
		jobs:  []config.CronJob{{Name: "minutely", Schedule: "* * * * *", Prompt: "p"}},
		hooks: func(d *plugin.Dispatcher) { mustRegister(t, d, ask) },
	})
	h.clk.advanceTo(t, at(10, 3))
	l := h.logs.wait(t, "cron: CronFired asked for confirmation, and nobody can answer at a tick; run skipped", 1)[0]
	h.s.Stop()
	if n := h.calls.Load(); n != 0 {
		t.Errorf("Run called %d times after ask", n)
	}
	if l.attrs["job"] != "minutely" || l.attrs["message"] != "are you sure?" {
		t.Errorf("log line %+v", l)
	}
}

func TestAllowAndDeferRun(t *testing.T) {
	h := newHarness(t, setup{
		jobs: []config.CronJob{{Name: "minutely", Schedule: "* * * * *", Prompt: "p"}},
		hooks: func(d *plugin.Dispatcher) {
			mustRegister(t, d, plugin.AllowHook())
			mustRegister(t, d, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
				return &plugin.HookResult{Decision: plugin.DecisionDefer}, nil
			})
		},
	})
	h.clk.advanceTo(t, at(10, 3))
	h.nextRun(t)
}

func TestOverlappingTickIsSkipped(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	var first atomic.Bool
	h := newHarness(t, setup{
		jobs: []config.CronJob{{Name: "slow", Schedule: "* * * * *", Prompt: "a long job"}},
		run: func(ctx context.Context, _ config.CronJob, _ *plugin.HookPayload) error {
			if first.CompareAndSwap(false, true) {
				close(started)
				select {
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		},
	})
	h.clk.advanceTo(t, at(10, 3))
	r1 := h.nextRun(t)
	<-started

	// 10:04 and 10:05 come while the 10:03 run is still going.
	h.clk.advanceTo(t, at(10, 4))
	h.clk.advanceTo(t, at(10, 5))
	skipped := h.logs.wait(t, "cron: the previous run is still going; tick skipped", 2)
	ticks := map[string]bool{} // each tick has its goroutine: either may log first
	for _, l := range skipped {
		if l.attrs["job"] != "slow" {
			t.Errorf("skip line %+v, want job slow", l)
		}
		ticks[l.attrs["scheduled_at"]] = true
	}
	if !ticks[at(10, 4).String()] || !ticks[at(10, 5).String()] {
		t.Errorf("skipped ticks %v, want 10:04 and 10:05", ticks)
	}

	close(release)
	h.logs.wait(t, "cron: run finished", 1)
	h.clk.advanceTo(t, at(10, 6))
	r2 := h.nextRun(t)
	h.s.Stop()

	if scheduledAt(r1.p) != "2026-03-02T10:03:00Z" || scheduledAt(r2.p) != "2026-03-02T10:06:00Z" {
		t.Errorf("runs at %s and %s, want 10:03 and 10:06", scheduledAt(r1.p), scheduledAt(r2.p))
	}
	if n := h.calls.Load(); n != 2 {
		t.Errorf("Run called %d times, want 2 (the skipped ticks are not stacked)", n)
	}
	// CronFired was dispatched for every tick, the skipped ones too.
	if n := len(h.firings()); n != 4 {
		t.Errorf("CronFired fired %d times, want 4", n)
	}
}

func TestOtherJobsDoNotWait(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, setup{
		jobs: []config.CronJob{
			{Name: "slow", Schedule: "* * * * *", Prompt: "p"},
			{Name: "quick", Schedule: "* * * * *", Prompt: "p"},
		},
		run: func(ctx context.Context, job config.CronJob, _ *plugin.HookPayload) error {
			if job.Name == "slow" {
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return nil
		},
	})
	h.clk.advanceTo(t, at(10, 3))
	h.finished(t, 1) // quick's run; slow's goes on
	h.clk.advanceTo(t, at(10, 4))
	counts := map[string]int{}
	for range 3 { // slow once, quick at 10:03 and 10:04
		counts[h.nextRun(t).job.Name]++
	}
	if counts["slow"] != 1 || counts["quick"] != 2 {
		t.Errorf("runs %v, want slow 1 and quick 2", counts)
	}
}

func TestMissedTicksAreNotReplayed(t *testing.T) {
	h := newHarness(t, setup{jobs: []config.CronJob{{Name: "every5", Schedule: "*/5 * * * *", Prompt: "p"}}})

	// The loop never sleeps more than a minute, so it notices a jump soon.
	if wake := h.clk.waitTimer(t); wake.Sub(t0) > time.Minute {
		t.Errorf("the loop sleeps until %s, more than a minute", wake.Format(time.TimeOnly))
	}
	// The machine sleeps from 10:02:30 to 13:01: 10:05 ... 13:00 pass unseen.
	h.clk.set(at(13, 1))
	r := h.nextRun(t)
	if got := scheduledAt(r.p); got != "2026-03-02T10:05:00Z" {
		t.Errorf("the late tick's scheduled_at = %q, want the first missed tick", got)
	}
	late := h.logs.wait(t, "cron: the tick is late (the machine slept or the clock jumped); it fires once, missed ticks are not replayed", 1)
	if late[0].attrs["job"] != "every5" {
		t.Errorf("late line %+v", late[0])
	}
	h.finished(t, 1)
	h.clk.advanceTo(t, at(13, 5))
	r = h.nextRun(t)
	if got := scheduledAt(r.p); got != "2026-03-02T13:05:00Z" {
		t.Errorf("the next tick's scheduled_at = %q, want 13:05", got)
	}
	h.s.Stop()
	if n := h.calls.Load(); n != 2 {
		t.Errorf("Run called %d times, want 2 (once for the missed ticks, once at 13:05)", n)
	}
}

func TestClockSetBackFiresNothingTwice(t *testing.T) {
	h := newHarness(t, setup{jobs: []config.CronJob{{Name: "every5", Schedule: "*/5 * * * *", Prompt: "p"}}})
	h.clk.advanceTo(t, at(10, 5))
	h.nextRun(t)
	h.finished(t, 1)
	h.clk.advanceTo(t, time.Date(2026, 3, 2, 10, 5, 30, 0, time.UTC))
	h.clk.set(at(10, 1)) // the clock is corrected back four and a half minutes
	h.clk.advanceTo(t, at(10, 9))
	h.clk.advanceTo(t, at(10, 10))
	r := h.nextRun(t)
	h.s.Stop()
	if got := scheduledAt(r.p); got != "2026-03-02T10:10:00Z" {
		t.Errorf("second run scheduled_at = %q, want 10:10 (10:05 not again)", got)
	}
	if n := h.calls.Load(); n != 2 {
		t.Errorf("Run called %d times, want 2", n)
	}
}

func TestRunErrorIsLogged(t *testing.T) {
	var n atomic.Int32
	h := newHarness(t, setup{
		jobs: []config.CronJob{{Name: "flaky", Schedule: "* * * * *", Prompt: "p"}},
		run: func(context.Context, config.CronJob, *plugin.HookPayload) error {
			if n.Add(1) == 1 {
				return errors.New("the model is offline")
			}
			panic("a bug in the turn")
		},
	})
	h.clk.advanceTo(t, at(10, 3))
	h.logs.wait(t, "cron: run failed", 1)
	h.clk.advanceTo(t, at(10, 4)) // a panic is a failed run, and the job goes on
	lines := h.logs.wait(t, "cron: run failed", 2)
	h.clk.advanceTo(t, at(10, 5))
	h.nextRun(t)
	h.nextRun(t)
	h.nextRun(t)

	if l := lines[0]; l.level != slog.LevelWarn || l.attrs["job"] != "flaky" || l.attrs["error"] != "the model is offline" {
		t.Errorf("log line %+v, want Warn with job flaky and the error", l)
	}
	if l := lines[1]; l.attrs["job"] != "flaky" || !strings.Contains(l.attrs["error"], "run panicked: a bug in the turn") {
		t.Errorf("log line %+v, want the panic", l)
	}
}

func TestStopEndsTheLoopAndCancelsTheRun(t *testing.T) {
	h := newHarness(t, setup{
		jobs: []config.CronJob{{Name: "long", Schedule: "* * * * *", Prompt: "p"}},
		run: func(ctx context.Context, _ config.CronJob, _ *plugin.HookPayload) error {
			<-ctx.Done()
			return ctx.Err()
		},
	})
	h.clk.advanceTo(t, at(10, 3))
	h.nextRun(t)
	h.s.Stop() // returns only once the run has seen its context end and returned

	h.logs.wait(t, "cron: run stopped", 1)
	if _, ok, _ := h.clk.pending(); ok {
		t.Error("a timer is still pending after Stop")
	}
	h.clk.set(at(12, 0))
	h.s.Start(t.Context()) // a stopped Scheduler does not start again
	h.s.Stop()
	if n := h.calls.Load(); n != 1 {
		t.Errorf("Run called %d times, want 1", n)
	}
	if _, ok, _ := h.clk.pending(); ok {
		t.Error("Start after Stop set a timer")
	}
}

func TestStopDuringCronFired(t *testing.T) {
	inHandler := make(chan struct{})
	h := newHarness(t, setup{
		jobs: []config.CronJob{{Name: "j", Schedule: "* * * * *", Prompt: "p"}},
		hooks: func(d *plugin.Dispatcher) {
			mustRegister(t, d, func(ctx context.Context, _ *plugin.HookPayload) (*plugin.HookResult, error) {
				close(inHandler)
				<-ctx.Done()
				return nil, ctx.Err()
			})
		},
	})
	h.clk.advanceTo(t, at(10, 3))
	<-inHandler
	h.s.Stop() // waits for the tick: what it logged is there
	// Whether the dispatch saw the context end, or its handler returned first,
	// is a race; either way the tick is skipped.
	if n := len(h.logs.lines("cron: stopped during CronFired; tick skipped")) + len(h.logs.lines("cron: stopped before the run; tick skipped")); n != 1 {
		h.logs.dump(t)
		t.Errorf("%d lines say the tick was skipped for the stop, want 1", n)
	}
	if n := h.calls.Load(); n != 0 {
		t.Errorf("Run called %d times after Stop", n)
	}
}

func TestContextEndsTheLoop(t *testing.T) {
	h := newHarness(t, setup{jobs: []config.CronJob{{Name: "j", Schedule: "* * * * *", Prompt: "p"}}, noStart: true})
	ctx, cancel := context.WithCancel(t.Context())
	h.s.Start(ctx)
	h.s.Start(ctx) // a second Start does nothing
	h.clk.waitTimer(t)
	cancel()
	h.s.Stop() // waits for the loop, which has ended with ctx
	if _, ok, _ := h.clk.pending(); ok {
		t.Error("a timer is still pending after the context ended")
	}
}

func TestStopWithoutStart(t *testing.T) {
	s, err := New(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	s.Stop()
}

func TestNoDispatcherRunsEveryTick(t *testing.T) {
	clk := newFakeClock(t0)
	ran := make(chan string, 1)
	run := func(_ context.Context, job config.CronJob, p *plugin.HookPayload) error {
		ran <- scheduledAt(p)
		return nil
	}
	s, err := New([]config.CronJob{{Name: "j", Schedule: "3 10 * * *", Prompt: "p"}},
		Options{Run: run, Clock: clk, Log: slog.New(slog.DiscardHandler), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(t.Context())
	defer s.Stop()
	clk.advanceTo(t, at(10, 3))
	select {
	case got := <-ran:
		if got != "2026-03-02T10:03:00Z" {
			t.Errorf("scheduled_at = %q", got)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run was not called")
	}
}

func TestNoJobs(t *testing.T) {
	clk := newFakeClock(t0)
	s, err := New(nil, Options{Clock: clk, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(t.Context())
	s.Stop()
}

func TestNewErrors(t *testing.T) {
	run := func(context.Context, config.CronJob, *plugin.HookPayload) error { return nil }
	for _, tc := range []struct {
		jobs []config.CronJob
		want string
	}{
		{[]config.CronJob{{Name: "nightly", Schedule: "61 * * * *", Prompt: "p"}}, `cron: job "nightly": schedule "61 * * * *": `},
		{[]config.CronJob{{Name: "ok", Schedule: "0 3 * * *", Prompt: "p"}, {Name: "short", Schedule: "* * *", Prompt: "p"}}, `cron: job "short": schedule "* * *": `},
		{[]config.CronJob{{Name: "seconds", Schedule: "0 0 3 * * *", Prompt: "p"}}, `cron: job "seconds": schedule "0 0 3 * * *": `},
		{[]config.CronJob{{Name: "interval", Schedule: "@every 1s", Prompt: "p"}}, `cron: job "interval": schedule "@every 1s": @every is an interval`},
		{[]config.CronJob{{Name: "zone", Schedule: "TZ=UTC", Prompt: "p"}}, `cron: job "zone": schedule "TZ=UTC": a schedule cannot name a time zone`},
		{[]config.CronJob{{Name: "feb30", Schedule: "0 0 30 2 *", Prompt: "p"}}, `cron: job "feb30": schedule "0 0 30 2 *": it never fires`},
		{[]config.CronJob{{Name: "empty", Schedule: "", Prompt: "p"}}, `cron: job "empty": schedule "": `},
		{[]config.CronJob{{Name: "a", Schedule: "@daily"}, {Name: "a", Schedule: "@daily"}}, `cron: two jobs are named "a"`},
		{[]config.CronJob{{Name: " ", Schedule: "@daily"}}, `cron: job 0 has no name`},
	} {
		_, err := New(tc.jobs, Options{Run: run})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error starting %q", tc.jobs, err, tc.want)
		}
	}
	if _, err := New([]config.CronJob{{Name: "x", Schedule: "@daily"}}, Options{}); err == nil || err.Error() != "cron: Options.Run is nil" {
		t.Errorf("New without Run = %v", err)
	}
	for _, ok := range []string{"*/5 * * * *", "0 9 * * 1-5", "@hourly", "@daily", "@weekly", "@monthly", "@yearly", "0 0 29 2 *", "30 4 1,15 * mon"} {
		if _, err := New([]config.CronJob{{Name: "x", Schedule: ok, Prompt: "p"}}, Options{Run: run}); err != nil {
			t.Errorf("New with schedule %q: %v", ok, err)
		}
	}
}

// covers L1: with several nodes, each tick fires (CronFired and the run)
// on the one node that claims it; a claim that fails skips the tick.
func TestClaimedTickFiresOnOneNode(t *testing.T) {
	var mu sync.Mutex
	claimed := map[string]bool{}
	claim := func(_ context.Context, job string, at time.Time) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		k := job + "@" + at.UTC().Format(time.RFC3339)
		if claimed[k] {
			return false, nil
		}
		claimed[k] = true
		return true, nil
	}
	jobs := []config.CronJob{{Name: "every5", Schedule: "*/5 * * * *", Prompt: "check the build"}}
	a := newHarness(t, setup{jobs: jobs, claim: claim})
	b := newHarness(t, setup{jobs: jobs, claim: claim})
	for _, m := range []int{5, 10, 15} {
		a.clk.advanceTo(t, at(10, m))
		b.clk.advanceTo(t, at(10, m))
		// Both nodes have passed the tick once one of them has run it and
		// the other has logged that it is not its own.
		for _, msg := range []string{"cron: run finished", "cron: another node fires this tick"} {
			deadline := time.Now().Add(waitLimit)
			for len(a.logs.lines(msg))+len(b.logs.lines(msg)) < m/5 {
				if time.Now().After(deadline) {
					a.logs.dump(t)
					b.logs.dump(t)
					t.Fatalf("tick 10:%02d: waited for %d lines %q across the nodes", m, m/5, msg)
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
	a.s.Stop()
	b.s.Stop()
	if n := a.calls.Load() + b.calls.Load(); n != 3 {
		t.Errorf("three ticks on two nodes ran %d times, want 3", n)
	}
	if n := len(a.firings()) + len(b.firings()); n != 3 {
		t.Errorf("CronFired fired %d times across the nodes, want 3", n)
	}

	failing := newHarness(t, setup{jobs: jobs, claim: func(context.Context, string, time.Time) (bool, error) {
		return false, errors.New("database unreachable")
	}})
	failing.clk.advanceTo(t, at(10, 5))
	failing.logs.wait(t, "cron: claiming the tick among the nodes failed; tick skipped", 1)
	failing.s.Stop()
	if n := failing.calls.Load(); n != 0 || len(failing.firings()) != 0 {
		t.Errorf("a failed claim ran %d times and fired %d times", n, len(failing.firings()))
	}
}

// newYork loads the zone whose clocks go back at 02:00 on 2026-11-01, to
// 01:00: the clock times from 01:00 to 02:00 happen twice that night.
func newYork(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	return loc
}

// waitFirings waits until CronFired has been dispatched n times: the ticks'
// goroutines may still be on their way when advanceTo returns.
func (h *harness) waitFirings(t *testing.T, n int) {
	t.Helper()
	limit := time.Now().Add(waitLimit)
	for len(h.firings()) < n {
		if time.Now().After(limit) {
			t.Fatalf("CronFired was dispatched %d times, want %d", len(h.firings()), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// firedAt returns the scheduled_at of each CronFired of each job, in the
// order of the instants (the ticks' goroutines dispatch in any order).
func (h *harness) firedAt() map[string][]string {
	out := map[string][]string{}
	for _, f := range h.firings() {
		name, _ := f.p.Extra[ExtraJob].(string)
		out[name] = append(out[name], scheduledAt(&f.p))
	}
	instant := func(s string) time.Time {
		t, _ := time.Parse(time.RFC3339, s)
		return t
	}
	for _, ticks := range out {
		slices.SortFunc(ticks, func(a, b string) int { return instant(a).Compare(instant(b)) })
	}
	return out
}

func TestClockSetBackRunsAFixedTimeJobOnce(t *testing.T) {
	ny := newYork(t)
	h := newHarness(t, setup{
		jobs: []config.CronJob{
			{Name: "daily", Schedule: "30 1 * * *", Prompt: "p"},
			{Name: "twice", Schedule: "0,30 1 * * *", Prompt: "p"},
			{Name: "hourly", Schedule: "0 * * * *", Prompt: "p"},
		},
		location: ny,
		start:    time.Date(2026, 11, 1, 0, 50, 0, 0, ny), // 00:50 EDT
	})
	// To 01:00 of the next night, through both passes of 01:00-02:00.
	h.clk.advanceTo(t, time.Date(2026, 11, 2, 1, 0, 0, 0, ny))
	h.waitFirings(t, 1+3+26)
	h.s.Stop()
	got := h.firedAt()

	want := map[string][]string{
		"daily": {"2026-11-01T01:30:00-04:00"},
		"twice": {"2026-11-01T01:00:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-02T01:00:00-05:00"},
	}
	for name, w := range want {
		if !slices.Equal(got[name], w) {
			t.Errorf("%s fired at %q, want %q", name, got[name], w)
		}
	}
	// Each pass of the repeated hour is an hour of its own for an hourly job.
	hourly := got["hourly"]
	if len(hourly) < 3 || !slices.Equal(hourly[:3], []string{"2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00", "2026-11-01T02:00:00-05:00"}) {
		t.Errorf("hourly fired at %q, want 01:00 EDT, 01:00 EST, 02:00 EST first", hourly)
	}
	if len(hourly) != 26 {
		t.Errorf("hourly fired %d times, want 26 (the night has 25 hours, and 01:00 closes it)", len(hourly))
	}
}

func TestStartInTheRepeatedHourSkipsAClockTimeAlreadyPast(t *testing.T) {
	ny := newYork(t)
	h := newHarness(t, setup{
		jobs: []config.CronJob{
			{Name: "daily", Schedule: "30 1 * * *", Prompt: "p"},
			{Name: "hourly", Schedule: "@hourly", Prompt: "p"},
		},
		location: ny,
		// 01:10 EST: 01:30 EDT was an hour ago, maybe fired by another node.
		start: time.Date(2026, 11, 1, 6, 10, 0, 0, time.UTC),
	})
	h.clk.advanceTo(t, time.Date(2026, 11, 1, 2, 0, 0, 0, ny))
	h.waitFirings(t, 1)
	h.s.Stop()
	got := h.firedAt()
	if len(got["daily"]) != 0 {
		t.Errorf("daily fired at %q in the second pass of 01:00-02:00, want not at all", got["daily"])
	}
	if w := []string{"2026-11-01T02:00:00-05:00"}; !slices.Equal(got["hourly"], w) {
		t.Errorf("hourly fired at %q, want %q", got["hourly"], w)
	}
}

func TestByInstant(t *testing.T) {
	for spec, want := range map[string]bool{
		"0 * * * *":      true,
		"@hourly":        true,
		"*/15 1 * * *":   true,
		"0 */2 * * *":    true,
		"5/10 1 * * *":   true,
		"0 ? * * *":      true,
		"30 1 * * *":     false,
		"0,30 1-3 * * *": false,
		"@daily":         false,
		"@midnight":      false,
	} {
		if got := byInstant(spec); got != want {
			t.Errorf("byInstant(%q) = %v, want %v", spec, got, want)
		}
	}
}
