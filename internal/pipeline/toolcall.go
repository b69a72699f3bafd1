package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// ToolReport says what happened in one tool call: the lifecycle handlers
// before and after it, the plugin hooks' steps, and how long execute took.
type ToolReport struct {
	Tool    string         `json:"tool"`
	Args    any            `json:"args"`           // what execute received
	Pre     *plugin.Report `json:"pre,omitempty"`  // PreToolUse
	Steps   []Step         `json:"steps"`          // tool.execute.before, then tool.execute.after
	Post    *plugin.Report `json:"post,omitempty"` // PostToolUse or PostToolUseFailure
	Execute time.Duration  `json:"execute_ns"`
	// Start is when CallTool took the call up: the Steps' Start count from
	// it, and Rebase places Pre's and Post's handlers after it.
	Start time.Time `json:"start"`
}

// Rebase takes runs, the hook runs of the lifecycle dispatch of (r.Pre or
// r.Post), whose StartUs count from the start of that dispatch, and
// returns them counted from the start of the tool call instead, so that
// they line up with the Steps. Runs of a dispatch without a start (no
// handlers), or of a report without one, are returned as they are.
func (r *ToolReport) Rebase(runs []chat.HookRun, of *plugin.Report) []chat.HookRun {
	if of == nil || of.Start.IsZero() || r.Start.IsZero() {
		return runs
	}
	by := of.Start.Sub(r.Start).Microseconds()
	for i := range runs {
		runs[i].StartUs += by
	}
	return runs
}

// Runs lists the call's hooks in the order they ran (PreToolUse, the
// pipeline steps, PostToolUse), their StartUs counted from the call's
// start: what the timeline and an MCP client's log show.
func (r ToolReport) Runs() []chat.HookRun {
	out := r.Rebase(LifecycleRuns(r.Pre), r.Pre)
	out = append(out, StepRuns(r.Steps)...)
	return append(out, r.Rebase(LifecycleRuns(r.Post), r.Post)...)
}

// LifecycleRuns turns a dispatch report into hook runs, their StartUs
// counted from the start of the dispatch (ToolReport.Runs rebases them on
// the tool call's start).
func LifecycleRuns(rep *plugin.Report) []chat.HookRun {
	if rep == nil {
		return nil
	}
	out := make([]chat.HookRun, 0, len(rep.Handlers))
	for _, h := range rep.Handlers {
		out = append(out, chat.HookRun{Kind: "lifecycle", Hook: string(rep.Event), Source: h.Source, Outcome: string(h.Outcome),
			Decision: string(h.Decision), Layer: h.Layer.String(), Message: h.Message, Error: h.Error, DurationUs: h.Duration.Microseconds(),
			StartUs: h.Start.Microseconds()})
	}
	return out
}

// StepRuns turns pipeline steps into hook runs.
func StepRuns(steps []Step) []chat.HookRun {
	out := make([]chat.HookRun, 0, len(steps))
	for _, s := range steps {
		out = append(out, chat.HookRun{Kind: "pipeline", Hook: s.Hook, Source: s.Plugin, Outcome: s.Outcome, Error: s.Error,
			DurationUs: s.Duration.Microseconds(), StartUs: s.Start.Microseconds(), Input: s.Input, Output: s.Output})
	}
	return out
}

// ToolGate wraps every tool call the Runner makes with the host's own
// policies. Before runs after the arguments were validated and before
// tool.execute.before (SPEC H16: PreToolUse, permissions, the loop guard);
// an error refuses the call and its message is what the model reads. After
// runs once the call is over, whatever its outcome (PostToolUse or
// PostToolUseFailure). Both may record what they ran in rep.
type ToolGate interface {
	Before(ctx context.Context, call tool.Call, def *tool.Def, args map[string]any, rep *ToolReport) error
	After(ctx context.Context, call tool.Call, def *tool.Def, args map[string]any, res tool.Result, err error, elapsed time.Duration, rep *ToolReport)
}

// CallTool runs one tool call the way a turn does, whoever wrote the tool:
//
//  1. the arguments are validated against the tool's schema;
//     then the Gate, when the Runner has one, decides whether the call may
//     run (PreToolUse, permissions, loop guard);
//  2. tool.execute.before runs (SPEC H16) with {toolID, args, ctx}; the args
//     it returns are what execute receives, validated again if they changed;
//  3. execute runs; when ctx ends first, the call fails with the context's
//     error at most cancelGrace later, even if execute has not returned
//     (see execute);
//  4. tool.execute.after runs (SPEC H17) with the same plus result {title,
//     output, metadata}; a result it returns replaces the one the model sees.
//     When execute fails, the hook still runs, with the error text as
//     result.output and metadata.error true, and the call fails with the
//     output it returns (a *ToolError): a redactor sees every path to the
//     model.
//
// The bus hears tool.call.started before step 2, tool.call.progress as
// the running tool reports it (tool.ReportProgress, at most one per
// tool.ProgressEvery), and tool.call.finished at the end.
func (r *Runner) CallTool(ctx context.Context, call tool.Call, id string, args map[string]any) (tool.Result, ToolReport, error) {
	rep := ToolReport{Tool: id, Args: args, Start: time.Now()}
	def, ok := r.Tools.Get(id)
	if !ok {
		return tool.Result{}, rep, fmt.Errorf("unknown tool %q", id)
	}
	args, err := def.Check(ctx, args)
	if err != nil {
		return tool.Result{}, rep, err
	}
	if r.Gate != nil {
		if err := r.Gate.Before(ctx, call, def, args, &rep); err != nil {
			return tool.Result{}, rep, err
		}
	}
	callData := map[string]any{"sessionID": call.SessionID, "messageID": call.MessageID, "callID": call.CallID,
		"agent": call.Agent, "cwd": call.Cwd}
	r.publish(ctx, bus.ToolCallStarted, map[string]any{"callID": call.CallID, "sessionID": call.SessionID, "tool": id, "args": args})
	start := time.Now()
	res, err := r.callTool(ctx, &rep, def, call, callData, args)
	if r.Gate != nil {
		ran, _ := rep.Args.(map[string]any) // the arguments execute received
		r.Gate.After(ctx, call, def, ran, res, err, time.Since(start), &rep)
	}
	fin := map[string]any{"callID": call.CallID, "sessionID": call.SessionID, "tool": id,
		"elapsedMs": float64(time.Since(start).Milliseconds())}
	if err != nil {
		fin["error"] = err.Error()
	} else {
		fin["title"] = res.Title
	}
	r.publish(ctx, bus.ToolCallFinished, fin)
	return res, rep, err
}

func (r *Runner) callTool(ctx context.Context, rep *ToolReport, def *tool.Def, call tool.Call, callData, args map[string]any) (tool.Result, error) {
	in := map[string]any{"toolID": def.ID, "args": args, "ctx": callData}
	out, steps := r.run(ctx, jsplugin.HookToolBefore, in, rep.Start)
	rep.Steps = append(rep.Steps, steps...)
	if !jsrt.Same(out["args"], args) {
		rewritten, ok := out["args"].(map[string]any)
		if !ok {
			return tool.Result{}, fmt.Errorf("tool.execute.before left %s without arguments (args is %s)", def.ID, jsrt.Describe(out["args"]))
		}
		checked, err := def.Check(ctx, rewritten)
		if err != nil {
			return tool.Result{}, fmt.Errorf("arguments rewritten by tool.execute.before: %w", err)
		}
		args = checked
	}
	rep.Args = args
	if err := ctx.Err(); err != nil {
		// Cancelled while the plugins rewrote the arguments: those after
		// the cancel never saw them, so the call does not run at all.
		return tool.Result{}, fmt.Errorf("%s did not run: the turn was cancelled before its tool.execute.before hooks finished: %w", def.ID, err)
	}
	start := time.Now()
	// A tool's progress reports (tool.ReportProgress) are thinned per call
	// and published for the timeline; whoever ran the call may listen too
	// (the MCP server sends them to its client).
	ectx := tool.WithProgress(tool.NewCallReports(ctx), func(p tool.Progress) {
		ev := map[string]any{"callID": call.CallID, "sessionID": call.SessionID, "tool": def.ID, "progress": p.Progress}
		if p.Total > 0 {
			ev["total"] = p.Total
		}
		if p.Message != "" {
			ev["message"] = p.Message
		}
		r.publish(ctx, bus.ToolCallProgress, ev)
	})
	if r.AskForm != nil {
		ectx = tool.WithFormAsker(ectx, func(c context.Context, message string, schema any) (tool.FormAnswer, error) {
			return r.AskForm(c, def, call, message, schema)
		})
	}
	ectx = tool.WithLog(ectx, func(l tool.LogLine) {
		r.log().Log(ctx, logLevel(l.Level), "tool: "+l.Message, "tool", def.ID, "plugin", def.Source, "call", call.CallID)
	})
	res, execErr := r.execute(ectx, def, call, args)
	rep.Execute = time.Since(start)
	if execErr != nil {
		// The error text reaches the model too (a command's output so far,
		// a file's content in a message): it goes through the after hook
		// like a result, so a redactor sees every path.
		res = tool.Result{Title: def.ID, Output: execErr.Error(), Metadata: map[string]any{"error": true}}
	}
	resData := map[string]any{"title": res.Title, "output": res.Output}
	if res.Metadata != nil {
		resData["metadata"] = res.Metadata
	}
	after := map[string]any{"toolID": def.ID, "args": args, "ctx": callData, "result": resData}
	// A call cancelled while it ran still has its result (what a command
	// wrote so far) go through every after hook, a redactor's included:
	// it is stored, and the next turn's model reads it. Each hook keeps
	// its own time limit.
	actx := ctx
	if ctx.Err() != nil {
		actx = context.WithoutCancel(ctx)
	}
	out, steps = r.run(actx, jsplugin.HookToolAfter, after, rep.Start)
	rep.Steps = append(rep.Steps, steps...)
	final := res
	if !jsrt.Same(out["result"], resData) {
		changed, err := jsplugin.ResultFromData(def.ID, out["result"])
		if err != nil {
			// A broken result from the hook is not a tool error (SPEC H18):
			// the model gets the unmodified result.
			r.log().Warn("plugin: tool.execute.after returned an unusable result; the model gets the original",
				"tool", def.ID, "error", err.Error())
		} else {
			final = changed
		}
	}
	if execErr != nil {
		return tool.Result{}, &ToolError{Message: final.Output, Err: execErr}
	}
	return final, nil
}

// logLevel is the slog level of an MCP log level: notice is info, critical
// and above error.
func logLevel(mcp string) slog.Level {
	switch mcp {
	case "debug":
		return slog.LevelDebug
	case "info", "notice":
		return slog.LevelInfo
	case "warning":
		return slog.LevelWarn
	}
	return slog.LevelError
}

// cancelGrace is how long a call whose context ended still waits for its
// execute to return.
const cancelGrace = 2 * time.Second

// execute runs def's execute, but returns at most cancelGrace after ctx
// ends, whether or not execute has: a tool that ignores its context (a Go
// tool blocked in a system call, a plugin's tool that never returns)
// cannot keep a cancelled turn running. Such a call is left to finish on its own goroutine; what
// it returns then is dropped, and logged. A panic in execute is the
// call's error, not the server's end.
func (r *Runner) execute(ctx context.Context, def *tool.Def, call tool.Call, args map[string]any) (tool.Result, error) {
	if ctx.Done() == nil { // a context that never ends: nothing to wait for
		return r.executeSafely(ctx, def, call, args)
	}
	type outcome struct {
		res tool.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.executeSafely(ctx, def, call, args)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
	}
	// A tool that honours its context returns now, with its own account
	// (a command's output so far) and its clean-up done: it gets a moment.
	grace := time.NewTimer(cancelGrace)
	defer grace.Stop()
	select {
	case o := <-done:
		return o.res, o.err
	case <-grace.C:
	}
	r.log().Warn("tool: the call ended before its execute returned; its result will be dropped",
		"tool", def.ID, "plugin", def.Source, "session", call.SessionID, "call", call.CallID, "error", context.Cause(ctx).Error())
	go func() {
		<-done
		r.log().Info("tool: an abandoned execute returned", "tool", def.ID, "plugin", def.Source, "call", call.CallID)
	}()
	return tool.Result{}, fmt.Errorf("%s did not return when its call ended: %w", def.ID, context.Cause(ctx))
}

// executeSafely runs def's execute, turning a panic into the call's error.
func (r *Runner) executeSafely(ctx context.Context, def *tool.Def, call tool.Call, args map[string]any) (res tool.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log().Error("tool: execute panicked", "tool", def.ID, "plugin", def.Source, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = tool.Result{}, fmt.Errorf("%s: the tool failed (panic: %v)", def.ID, p)
		}
	}()
	return def.Execute(ctx, call, args)
}

// ToolError is a failed tool call. Message is what the model reads: the
// error text after tool.execute.after, which may have redacted it; Err is
// the original error, for the host's logs and errors.Is.
type ToolError struct {
	Message string
	Err     error
}

func (e *ToolError) Error() string { return e.Message }
func (e *ToolError) Unwrap() error { return e.Err }

// publish tells the bus, as the tenant of the turn the call belongs to.
func (r *Runner) publish(ctx context.Context, typ string, props map[string]any) {
	if r.Bus != nil {
		r.Bus.PublishFor(chat.ScopeFrom(ctx).Tenant, typ, props)
	}
}
