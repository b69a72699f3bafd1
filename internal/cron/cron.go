// Package cron runs the config's cron jobs: at each tick of a job's schedule
// it fires the CronFired lifecycle event and, unless a handler refuses, runs
// the job's prompt as a turn on the channel "cron".
//
//	"cron": [{"name": "nightly", "schedule": "0 3 * * *", "prompt": "Summarise yesterday's commits", "session": "ses_..."}]
//
// # Lifecycle of a job
//
//  1. Parsed at boot: New parses every schedule with the standard five-field
//     parser (minute hour day-of-month month day-of-week; the descriptors
//     @yearly, @monthly, @weekly, @daily, @midnight and @hourly are accepted
//     too). A schedule that does not parse, that is an @every interval, that
//     names its own time zone, or that never fires fails New with an error
//     naming the job and the schedule.
//  2. Scheduled: Start computes each job's next tick from the current time,
//     in Options.Location, and logs it.
//  3. At each tick, CronFired is dispatched on the lifecycle Dispatcher with
//     the payload {event: CronFired, channel: "cron", session_id: the job's
//     session, extra: {job, schedule, scheduled_at (RFC 3339), prompt}}, at
//     the moment of the tick (SPEC L1). Every job due at that moment gets its
//     own goroutine, so a slow handler of one job delays no other job.
//  4. Run or skipped: a deny skips the run; so does an ask, since nobody can
//     answer a question at a tick (a turn with nobody to ask refuses, too);
//     so does a dispatch that fails, and a run of the same job still going
//     (see Overlap). Every skip is logged with the job's name. Otherwise
//     (allow, defer, or no handler at all) Options.Run runs the prompt as a
//     turn on channel "cron", on that goroutine, and an error it returns is
//     logged with the job's name.
//
// # Overlap
//
// A job has at most one run at a time on a scheduler (a node of many
// claims each tick, not the job: docs/deploy.md says where two nodes' runs
// can overlap). A tick that comes while the previous run of the same job
// has not returned is dropped, not stacked: the job runs
// again at its first tick after the run returned. Different jobs never wait
// for each other. CronFired is still dispatched for the dropped tick, before
// the overlap is checked: handlers see every tick.
//
// # Missed ticks
//
// The scheduler re-reads the wall clock at least once a minute, so a jump of
// the clock (a laptop that slept, a corrected clock) is noticed within a
// minute. When it finds that one or more ticks of a job passed unseen, it
// fires the job once, with scheduled_at the first tick it missed, logs that
// the tick is late, and computes the next tick from the current time: missed
// ticks are never replayed as a backlog. A clock set back fires nothing
// twice: the next tick computed before the jump still stands.
//
// # Clocks set back for daylight saving time
//
// Where Options.Location sets its clocks back, an hour of clock times
// happens twice. A job at fixed clock times fires in the first pass only: a
// tick whose clock time already happened that day is skipped, so "30 1 * * *"
// runs once at 01:30 on the night the clocks go back, not once per pass (the
// two passes are different instants, so Options.Claim would not stop the
// second). A job whose minute or hour field is a wildcard or a step ("*",
// "?", "*/15", "5/10"; @hourly too) runs by the instant instead, as cron
// does: "0 * * * *" fires at 01:00 of both passes, an hour apart, since each
// is an hour of its own. On the night the clocks go forward, a clock time
// that does not happen that night (02:30 in New York) is not run that day.
//
// # Stopping
//
// Stop, or the end of the context given to Start, stops the ticking and
// cancels the context of the CronFired dispatches and runs under way; Stop
// then waits until all of them have returned.
package cron

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	robfig "github.com/robfig/cron/v3"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/plugin"
)

// Channel is the HookPayload.Channel of CronFired and of the turns a job runs.
const Channel = "cron"

// Keys of HookPayload.Extra on CronFired.
const (
	ExtraJob         = "job"          // the job's name
	ExtraSchedule    = "schedule"     // the job's schedule, as written in the config
	ExtraScheduledAt = "scheduled_at" // the tick, RFC 3339 in Options.Location
	ExtraPrompt      = "prompt"       // the prompt the run is asked
)

// maxSleep bounds one wait of the loop, so that a jump of the wall clock is
// noticed within it (a timer counts monotonic time, which on some systems
// stands still while the machine sleeps). It is also the lateness from which
// a tick is logged as late.
const maxSleep = time.Minute

// RunFunc runs job's prompt as one turn and returns when the turn has ended:
// on channel payload.Channel ("cron"), in session payload.SessionID (the
// job's session; a new session when it is empty). payload is the CronFired
// payload that was dispatched; it is the RunFunc's to keep. ctx ends when the
// scheduler stops.
type RunFunc func(ctx context.Context, job config.CronJob, payload *plugin.HookPayload) error

// Options configure a Scheduler.
type Options struct {
	// Hooks is the lifecycle Dispatcher on which CronFired is fired. Nil
	// means a Dispatcher with no handlers: every tick runs.
	Hooks *plugin.Dispatcher
	// Run runs a job's turn; see RunFunc. Required when there are jobs. The
	// scheduler calls it on a goroutine of its own for each run.
	Run RunFunc
	// Clock is the source of time; nil means the system's clock.
	Clock Clock
	// Log receives the scheduler's lines; nil means slog.Default().
	Log *slog.Logger
	// Location is the time zone schedules are read in; nil means time.Local.
	Location *time.Location
	// Claim, when set, decides which of several nodes fires a tick: it is
	// called at each tick before anything else and must return true for
	// exactly one caller per job and tick across the nodes (the store's
	// ClaimTick). A tick not claimed here is skipped silently; a claim
	// that fails is logged and skips the tick. Nil: every tick is this
	// node's.
	Claim func(ctx context.Context, job string, at time.Time) (bool, error)
}

// Scheduler fires the cron jobs. Create it with New, run it with Start and
// end it with Stop.
type Scheduler struct {
	jobs  []*job
	hooks *plugin.Dispatcher
	run   RunFunc
	claim func(ctx context.Context, job string, at time.Time) (bool, error)
	clock Clock
	log   *slog.Logger
	loc   *time.Location

	mu      sync.Mutex
	started bool
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{} // closed when the loop has returned

	ticks sync.WaitGroup // the goroutines of ticks: dispatch, then run
}

type job struct {
	cfg       config.CronJob
	sched     robfig.Schedule
	byInstant bool        // fires in both passes of an hour the clock repeats
	running   atomic.Bool // a run of this job is under way
}

// New parses the jobs' schedules. It fails, naming the job and its
// schedule, when a schedule does not parse or never fires; and when a job
// has no name, two jobs share a name, or there are jobs and no Options.Run.
func New(jobs []config.CronJob, o Options) (*Scheduler, error) {
	s := &Scheduler{hooks: o.Hooks, run: o.Run, clock: o.Clock, log: o.Log, loc: o.Location, claim: o.Claim}
	if s.hooks == nil {
		s.hooks = &plugin.Dispatcher{}
	}
	if s.clock == nil {
		s.clock = systemClock{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.loc == nil {
		s.loc = time.Local
	}
	if len(jobs) > 0 && s.run == nil {
		return nil, errors.New("cron: Options.Run is nil")
	}
	now := s.clock.Now().In(s.loc)
	seen := make(map[string]bool, len(jobs))
	for i, cfg := range jobs {
		switch {
		case strings.TrimSpace(cfg.Name) == "":
			return nil, fmt.Errorf("cron: job %d has no name", i)
		case seen[cfg.Name]:
			return nil, fmt.Errorf("cron: two jobs are named %q", cfg.Name)
		}
		seen[cfg.Name] = true
		sched, err := parse(cfg.Schedule)
		if err == nil && sched.Next(now).IsZero() {
			err = errors.New("it never fires")
		}
		if err != nil {
			return nil, fmt.Errorf("cron: job %q: schedule %q: %w", cfg.Name, cfg.Schedule, err)
		}
		s.jobs = append(s.jobs, &job{cfg: cfg, sched: sched, byInstant: byInstant(cfg.Schedule)})
	}
	return s, nil
}

// parse reads a five-field schedule or a descriptor. Interval schedules
// (@every) and schedules with their own time zone (TZ=, CRON_TZ=) are
// refused: a job runs at clock times, in Options.Location.
func parse(spec string) (sched robfig.Schedule, err error) {
	spec = strings.TrimSpace(spec)
	switch {
	case strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ="):
		return nil, errors.New("a schedule cannot name a time zone")
	case strings.HasPrefix(spec, "@every"):
		return nil, errors.New("@every is an interval, not a cron schedule (use five fields)")
	}
	defer func() { // the parser has panicked on malformed input before
		if v := recover(); v != nil {
			sched, err = nil, fmt.Errorf("unparsable: %v", v)
		}
	}()
	sched, err = robfig.ParseStandard(spec)
	if err != nil {
		return nil, err
	}
	if _, ok := sched.(*robfig.SpecSchedule); !ok {
		return nil, fmt.Errorf("not a cron schedule (%T)", sched)
	}
	return sched, nil
}

// byInstant reports whether a parsed schedule fires by the instant in an
// hour the clock repeats: when its minute or hour field is a wildcard or a
// step (cron's rule), or it is @hourly. The other schedules name clock times,
// which happen once a day.
func byInstant(spec string) bool {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "@") {
		return spec == "@hourly"
	}
	f := strings.Fields(spec)
	return len(f) >= 2 && (strings.ContainsAny(f[0], "*?/") || strings.ContainsAny(f[1], "*?/"))
}

// next returns j's first tick after t, in s.loc. For a job at fixed clock
// times it skips the ticks in the second pass of an hour the clock repeats:
// their clock time has already happened.
func (s *Scheduler) next(j *job, t time.Time) time.Time {
	n := j.sched.Next(t.In(s.loc))
	for !j.byInstant && !n.IsZero() && repeated(n) {
		n = j.sched.Next(n)
	}
	return n
}

// repeated reports whether t's clock time happened before, at an earlier
// instant: t lies in the first stretch after its zone's offset went down
// (clocks set back), shorter than the drop.
func repeated(t time.Time) bool {
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return false // a fixed zone, or the first period on record
	}
	_, off := t.Zone()
	_, before := start.Add(-time.Nanosecond).Zone()
	return before > off && t.Sub(start) < time.Duration(before-off)*time.Second
}

// Start starts the scheduler on its own goroutine and returns. It runs until
// ctx ends or Stop is called. Only the first call starts anything; a
// Scheduler that was stopped does not start again.
func (s *Scheduler) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped {
		return
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go s.loop(ctx)
}

// Stop stops the ticking, cancels the context of the CronFired dispatches
// and runs under way, and waits until the loop and all of them have
// returned. It may be called more than once, and before Start.
func (s *Scheduler) Stop() {
	s.mu.Lock()
	s.stopped = true
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
	s.ticks.Wait() // no tick starts after done is closed
}

// loop waits for the earliest next tick and fires every job due, until ctx
// ends.
func (s *Scheduler) loop(ctx context.Context) {
	defer close(s.done)
	now := s.clock.Now()
	next := make([]time.Time, len(s.jobs))
	for i, j := range s.jobs {
		next[i] = s.next(j, now)
		s.log.Info("cron: job scheduled", "job", j.cfg.Name, "schedule", j.cfg.Schedule, "next", next[i])
	}
	for {
		var earliest time.Time
		for i, j := range s.jobs {
			if next[i].IsZero() {
				continue // no tick left
			}
			if !now.Before(next[i]) {
				s.fire(ctx, j, next[i], now)
				next[i] = s.next(j, now)
				if next[i].IsZero() {
					continue
				}
			}
			if earliest.IsZero() || next[i].Before(earliest) {
				earliest = next[i]
			}
		}
		if earliest.IsZero() {
			<-ctx.Done()
			return
		}
		t := s.clock.NewTimer(min(earliest.Sub(now), maxSleep))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if ctx.Err() != nil {
			return
		}
		now = s.clock.Now()
	}
}

// fire starts one tick of j, due at at, on a goroutine of its own.
func (s *Scheduler) fire(ctx context.Context, j *job, at, now time.Time) {
	log := s.log.With("job", j.cfg.Name, "scheduled_at", at.In(s.loc))
	if late := now.Sub(at); late >= maxSleep {
		log.Info("cron: the tick is late (the machine slept or the clock jumped); it fires once, missed ticks are not replayed", "late", late)
	}
	s.ticks.Add(1)
	go func() {
		defer s.ticks.Done()
		s.tick(ctx, j, at, log)
	}()
}

// tick dispatches CronFired for j's tick at at and runs the job unless the
// dispatch, its decision or a run still going says not to.
func (s *Scheduler) tick(ctx context.Context, j *job, at time.Time, log *slog.Logger) {
	if s.claim != nil {
		mine, err := s.claim(ctx, j.cfg.Name, at)
		if err != nil {
			log.Warn("cron: claiming the tick among the nodes failed; tick skipped", "error", err)
			return
		}
		if !mine {
			log.Debug("cron: another node fires this tick")
			return
		}
	}
	p := &plugin.HookPayload{
		Event:     plugin.HookCronFired,
		Channel:   Channel,
		SessionID: j.cfg.Session,
		Extra: map[string]any{
			ExtraJob:         j.cfg.Name,
			ExtraSchedule:    j.cfg.Schedule,
			ExtraScheduledAt: at.In(s.loc).Format(time.RFC3339),
			ExtraPrompt:      j.cfg.Prompt,
		},
	}
	rep, err := s.hooks.DispatchReport(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			log.Info("cron: stopped during CronFired; tick skipped")
			return
		}
		log.Warn("cron: CronFired dispatch failed; tick skipped", "error", err)
		return
	}
	switch rep.Result.Decision {
	case plugin.DecisionDeny:
		log.Info("cron: CronFired denied the run", "message", rep.Result.Message, "hooks", rep)
		return
	case plugin.DecisionAsk:
		log.Info("cron: CronFired asked for confirmation, and nobody can answer at a tick; run skipped", "message", rep.Result.Message, "hooks", rep)
		return
	}
	if !j.running.CompareAndSwap(false, true) {
		log.Info("cron: the previous run is still going; tick skipped")
		return
	}
	if ctx.Err() != nil {
		j.running.Store(false)
		log.Info("cron: stopped before the run; tick skipped")
		return
	}
	log.Info("cron: run started")
	start := s.clock.Now()
	err = s.call(ctx, j, runPayload(p))
	j.running.Store(false)
	elapsed := s.clock.Now().Sub(start)
	switch {
	case err == nil:
		log.Info("cron: run finished", "duration", elapsed)
	case ctx.Err() != nil:
		log.Info("cron: run stopped", "duration", elapsed, "error", err)
	default:
		log.Warn("cron: run failed", "duration", elapsed, "error", err)
	}
}

// runPayload copies p for Run: a handler abandoned at the dispatch deadline
// may still be reading p, and Run may do what it likes with its own.
func runPayload(p *plugin.HookPayload) *plugin.HookPayload {
	c := *p
	c.Extra = maps.Clone(p.Extra)
	return &c
}

// call runs Options.Run; a panic becomes an error, so that one job's bug
// does not take the server down.
func (s *Scheduler) call(ctx context.Context, j *job, p *plugin.HookPayload) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("run panicked: %v\n%s", v, debug.Stack())
		}
	}()
	return s.run(ctx, j.cfg, p)
}
