// Package pipeline runs the four plugin hooks as pipelines (SPEC H1–H18)
// and drives one tool call through them.
//
// # The contract of every hook (SPEC H2–H8)
//
//   - Order: plugins run in pipeline order (config-listed first, in array
//     order, then auto-discovered files alphabetically; see jsplugin).
//   - Threading: each plugin receives the value the previous one returned;
//     the last value is what Podcode uses.
//   - undefined means "no change": the value passes through untouched.
//   - A returned value replaces the payload whole; returning a fragment
//     drops the rest. A value that is not an object cannot be a payload:
//     it is dropped like a throw.
//   - A hook may be sync or async; an async hook is awaited before the next.
//   - Isolation: a hook that throws is logged as "plugin: hook threw"; one
//     that takes longer than 5 s is abandoned and logged as "exceeded 5000ms;
//     dropping its contribution" (its promise settles on its own, its result
//     ignored, and a synchronous spin is stopped by the runtime). Either way
//     its contribution is discarded, the pipeline continues from the value it
//     was given, later plugins still run, and the turn is never interrupted.
//   - Suspension: after jsplugin.SuspendAfter (3) timeouts in a row of one
//     hook of one plugin, that hook is suspended until the server restarts
//     (logged once, shown in the plugin's Status); a call that settles in
//     time with a value resets the count.
//
// Every run returns its steps (plugin, outcome, start, duration, and the
// redacted, bounded JSON of what each step received and returned), for
// logs, the event bus and the API.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/tool"
)

// DefaultHookTimeout is SPEC H8's limit on one plugin's hook.
const DefaultHookTimeout = 5 * time.Second

// Outcomes of one plugin's hook in a run.
const (
	Changed   = "changed"   // returned a new value
	Unchanged = "unchanged" // returned undefined
	Threw     = "threw"     // threw or rejected (H7)
	TimedOut  = "timed_out" // exceeded the hook timeout (H8)
	Invalid   = "invalid"   // returned something that cannot be the payload
	Cancelled = "cancelled" // the caller's context ended (the turn was cancelled)
)

// Step is what one plugin's hook did in one run.
//
// Start is when the step started, after the start of the call it belongs
// to: the tool call for tool.execute.before and tool.execute.after (from
// when CallTool took it up), the run itself otherwise (chat.params: the
// model call). Input is the JSON of the value the step received and
// Output that of the object it returned (empty when it returned none that
// counts: unchanged, threw, timed out, cancelled; for invalid, what it
// returned instead), both redacted by the Runner's Redact and bounded by
// chat.MaxRunData (see record).
type Step struct {
	Plugin   string        `json:"plugin"`
	Hook     string        `json:"hook"`
	Outcome  string        `json:"outcome"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Start    time.Duration `json:"start_ns"`
	Input    string        `json:"input,omitempty"`
	Output   string        `json:"output,omitempty"`
}

// Runner runs hooks over a set of plugins.
type Runner struct {
	Plugins     *jsplugin.Set
	Tools       *tool.Registry
	Bus         *bus.Bus
	Log         *slog.Logger
	HookTimeout time.Duration // DefaultHookTimeout if zero
	Gate        ToolGate      // the host's policies around every tool call; nil for none
	// Redact replaces known secrets in what the steps record of their
	// input and output (the redactor of everything Podcode stores); nil
	// records them as they are.
	Redact *logging.Redactor
	// AskForm asks a form of the user of a running call of def (a plugin
	// tool's ctx.ask: tool.AskForm); nil: nobody can be asked.
	AskForm func(ctx context.Context, def *tool.Def, call tool.Call, message string, schema any) (tool.FormAnswer, error)
}

func (r *Runner) timeout() time.Duration {
	if r.HookTimeout > 0 {
		return r.HookTimeout
	}
	return DefaultHookTimeout
}

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

// Run threads value through every plugin that implements hook. value is
// JSON-shaped data and is never modified; the result is the last value
// returned (or value itself when no plugin changed it).
func (r *Runner) Run(ctx context.Context, hook string, value map[string]any) (map[string]any, []Step) {
	return r.run(ctx, hook, value, time.Time{})
}

// run is Run with the start of the call the run belongs to, which the
// steps' Start count from; zero means the run's own start.
func (r *Runner) run(ctx context.Context, hook string, value map[string]any, call time.Time) (map[string]any, []Step) {
	if r.Plugins == nil {
		return value, nil
	}
	plugins := r.Plugins.With(hook)
	if len(plugins) == 0 {
		return value, nil
	}
	steps := make([]Step, 0, len(plugins))
	limit := r.timeout()
	// Each value is recorded once: a step's input is the output of the
	// step before it that changed the value, or the run's input.
	input := r.record(value)
	for _, p := range plugins {
		if ctx.Err() != nil {
			break // the turn was cancelled: no more plugins
		}
		start := time.Now()
		if call.IsZero() {
			call = start
		}
		out, err := p.Call(ctx, hook, value, limit)
		st := Step{Plugin: p.ID, Hook: hook, Duration: time.Since(start), Start: start.Sub(call), Input: input}
		var spin *jsrt.SpinError
		switch {
		case err != nil && ctx.Err() != nil:
			st.Outcome, st.Error = Cancelled, ctx.Err().Error()
		case errors.Is(err, context.DeadlineExceeded), errors.As(err, &spin):
			st.Outcome = TimedOut
			r.log().Warn(fmt.Sprintf("plugin: hook exceeded %dms; dropping its contribution", limit.Milliseconds()),
				"plugin", p.ID, "hook", hook)
			if p.HookTimedOut(hook) {
				st.Error = fmt.Sprintf("suspended after %d timeouts in a row", jsplugin.SuspendAfter)
			}
		case err != nil:
			st.Outcome, st.Error = Threw, err.Error()
			r.log().Warn("plugin: hook threw", "plugin", p.ID, "hook", hook, "error", err.Error())
		case jsrt.IsUndefined(out):
			st.Outcome = Unchanged
			p.HookSucceeded(hook)
		default:
			p.HookSucceeded(hook)
			m, ok := out.(map[string]any)
			if !ok {
				st.Outcome = Invalid
				st.Error = fmt.Sprintf("returned %T, not an object", out)
				st.Output = r.record(out)
				r.log().Warn("plugin: hook returned something that is not an object; dropping its contribution",
					"plugin", p.ID, "hook", hook, "got", fmt.Sprintf("%T", out))
				break
			}
			st.Outcome = Changed
			value = m
			input = r.record(m)
			st.Output = input
		}
		steps = append(steps, st)
	}
	return value, steps
}
