// Package jsplugin finds, bundles, validates and starts JavaScript and
// TypeScript plugins (SPEC P1–P12), and calls their hooks.
//
// # Lifecycle of a plugin (SPEC P11)
//
//  1. Find: the config's plugin array in order, then auto-discovered files
//     (see sources). A specifier that does not resolve is a warning.
//  2. Bundle: esbuild turns the entry and its own files (TypeScript
//     included) into one CommonJS script; the npm packages it imports are
//     bundled separately, once, and shared (see Bundler, programs). A missing
//     package is a load error that names it.
//  3. Import: the bundle runs in the plugin's own runtime (jsrt); its
//     top-level awaits are awaited, within the boot deadline. A Node module
//     the runtime lacks (or Bun's) already failed step 2, naming the
//     importing file and line.
//  4. Validate (P1): the default export must be an object with a string id
//     and a function server; CommonJS module.exports counts as the default
//     export (P3). A module that exports functions instead is an opencode
//     plugin and is adapted (see opencode.go). Otherwise the warning of P2
//     is logged and the plugin is skipped. An id in disabled_plugins is
//     skipped here.
//  5. server(input, options) runs once (P5), awaited within the boot
//     deadline; a throw or rejection skips the plugin (P6), and so does a
//     server() that does not settle in time.
//  6. Drain tool (H9): the tool hook, if any, is called once with {}; its
//     ToolDefs (the first MaxToolDefs entries) are kept; a throw leaves the
//     plugin with no tools.
//  7. Register (P4): plugins join the pipeline in load order; a later
//     plugin with the same id removes the earlier one entirely.
//
// There is no unload or reload (P12): Close only stops the runtimes when
// the server stops. A hook that keeps timing out is suspended for the rest
// of the server's life (SuspendAfter).
//
// # Resource limits
//
// Each plugin's runtime gets the memory budget of its layer
// (config.PluginLimitsFor: the user's plugin_limits.memory_mb, or for a
// project's plugin the project's value when lower) and jsrt's timer cap.
// A hook call that grows the heap past the budget fails like a throw and
// the plugin serves on. A plugin that retains more than its budget is
// stopped, not restarted: it leaves the pipeline (Set.With), its tools and
// lifecycle handlers fail with the reason, its bus subscriptions end, the
// memory it held is released, and Status says why, until the server
// restarts. Restarting would run server() again (P5 says once) and
// rebuild the state that outgrew the budget.
package jsplugin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// The hooks a plugin may implement (SPEC H1). Keys match by exact string.
const (
	HookTool        = "tool"
	HookChatParams  = "chat.params"
	HookToolBefore  = "tool.execute.before"
	HookToolAfter   = "tool.execute.after"
	hookToolTimeout = 5 * time.Second // the tool hook at init, as H8
)

// MaxToolDefs is how many entries of the array the tool hook returns are
// read; the rest are ignored, with a warning. The array's length is the
// script's to set (up to 2³²-1, all holes), and reading it is Go work the
// watchdog does not stop.
const MaxToolDefs = 1000

// Hooks lists the hooks in the order they are documented.
var Hooks = []string{HookTool, HookChatParams, HookToolBefore, HookToolAfter}

// hookIndex is hook's place in Hooks, -1 for another name.
func hookIndex(hook string) int {
	switch hook {
	case HookTool:
		return 0
	case HookChatParams:
		return 1
	case HookToolBefore:
		return 2
	case HookToolAfter:
		return 3
	}
	return -1
}

// SuspendAfter is how many timeouts in a row of one hook of one plugin
// suspend that hook (each costs the caller the hook timeout, 5 s by
// default). A suspended hook is no longer called (it leaves Set.With)
// until the server restarts, since plugins are never reloaded; the
// plugin's other hooks, tools and listeners go on. A call that settles in
// time with a value resets the count; a throw neither counts nor resets.
const SuspendAfter = 3

// UnknownKey is a key of a plugin's hooks that is not a hook, with the
// valid key closest to it.
type UnknownKey struct {
	Key     string `json:"key"`
	Closest string `json:"closest"`
}

// Plugin is one loaded plugin.
type Plugin struct {
	ID     string `json:"id"`
	Spec   string `json:"spec"`   // as configured, or the discovered file
	Path   string `json:"path"`   // the entry file
	Source string `json:"source"` // FromConfig or FromDiscovered
	// Project is set when the plugin came with the project (its
	// .podcode/plugins, or named by its podcode.json).
	Project bool     `json:"project"`
	Hooks   []string `json:"hooks"` // the hooks it implements
	// Lifecycle are the lifecycle events its server() result's lifecycle
	// object handles, in plugin.HookEvents order.
	Lifecycle []plugin.HookEvent `json:"lifecycle,omitempty"`
	Tools     []*tool.Def        `json:"-"`
	Boot      time.Duration      `json:"boot_ns"` // from bundling to the tool hook drained
	// UnknownKeys are the keys of its server() result that are not hooks
	// (a misspelt "tool.before"): never called, and silent at load (SPEC
	// P10); `podcode plugin list` and `plugin check` show them.
	UnknownKeys []UnknownKey `json:"unknown_keys,omitempty"`

	rt          *jsrt.Runtime
	toolTimeout time.Duration
	mu          sync.Mutex
	subs        map[int]func()      // its bus subscriptions' ends, by number (under mu)
	nextSub     int                 // under mu
	events      eventQueue          // its bus events waiting for its loop
	set         atomic.Pointer[Set] // the set it is in, told when it stops
	health      [4]hookHealth       // by hookIndex: timeouts in a row, suspension

	// Loop goroutine only (and, once the loop ended, the goroutine that
	// lets go of them: see stopped).
	hooks        *goja.Object
	fns          map[string]goja.Callable
	life         *goja.Object
	lifeFns      map[plugin.HookEvent]goja.Callable
	toolFns      map[string]toolFns
	helpers      *goja.Object  // tools.js, evaluated in the plugin's runtime
	jsonSchema   goja.Callable // tools.js: a tool's parameters as JSON Schema
	canValidate  goja.Callable // tools.js: whether validateArgs checks a schema itself
	validateArgs goja.Callable // tools.js: arguments checked with a tool's own schema
	modules      *moduleSystem // its module system, where tools.js finds a schema's zod
}

// toolFns are what a tool of the plugin calls into.
type toolFns struct {
	execute goja.Callable
	schema  goja.Value
}

// hookHealth is one hook's record of timeouts (see SuspendAfter).
type hookHealth struct {
	timeouts  atomic.Int32 // in a row
	suspended atomic.Bool
}

// Status is "running", "running; suspended: " and the suspended hooks, or
// "stopped: " and why.
func (p *Plugin) Status() string {
	if err := p.Err(); err != nil {
		return "stopped: " + err.Error()
	}
	if s := p.Suspended(); len(s) > 0 {
		return fmt.Sprintf("running; suspended after %d timeouts in a row: %s", SuspendAfter, strings.Join(s, ", "))
	}
	return "running"
}

// Suspended lists the plugin's suspended hooks (see SuspendAfter), in
// Hooks order.
func (p *Plugin) Suspended() []string {
	var out []string
	for i, h := range Hooks {
		if p.health[i].suspended.Load() {
			out = append(out, h)
		}
	}
	return out
}

// HookTimedOut records that a call of hook timed out (or was stopped for
// spinning). The SuspendAfter-th in a row suspends the hook: it is logged
// once, with the plugin and the hook, and the hook leaves Set.With.
// HookTimedOut reports whether this call suspended it.
func (p *Plugin) HookTimedOut(hook string) bool {
	i := hookIndex(hook)
	if i < 0 {
		return false
	}
	h := &p.health[i]
	if h.timeouts.Add(1) < SuspendAfter || !h.suspended.CompareAndSwap(false, true) {
		return false
	}
	p.rt.Log().Error("plugin: hook suspended after timing out repeatedly; it is not called again until the server restarts",
		"hook", hook, "timeouts", SuspendAfter)
	if s := p.set.Load(); s != nil {
		s.index()
	}
	return true
}

// HookSucceeded records that a call of hook settled in time with a value:
// its timeouts no longer run in a row.
func (p *Plugin) HookSucceeded(hook string) {
	if i := hookIndex(hook); i >= 0 && p.health[i].timeouts.Load() != 0 {
		p.health[i].timeouts.Store(0)
	}
}

// Err is why the plugin was stopped (its runtime held more than its memory
// budget: a *jsrt.OverBudgetError), or nil while it runs.
func (p *Plugin) Err() error { return p.rt.Err() }

// stopped is called once when the plugin's runtime stopped itself: the
// plugin leaves the pipeline (its hooks are no longer called; its tools and
// lifecycle handlers fail with err), its bus subscriptions end, and nothing
// of its runtime is kept, so that the memory it held can be collected.
// The plugin stays in its Set, with its Status, for the listings.
func (p *Plugin) stopped(err error) {
	p.unsubscribe()
	p.hooks, p.fns, p.life, p.lifeFns, p.toolFns, p.jsonSchema, p.validateArgs = nil, nil, nil, nil, nil, nil, nil
	p.canValidate, p.modules, p.helpers = nil, nil, nil
	if s := p.set.Load(); s != nil {
		s.index()
	}
	p.rt.Log().Error("plugin: stopped; it no longer runs until the server restarts", "error", err.Error())
}

// Implements reports whether the plugin implements hook.
func (p *Plugin) Implements(hook string) bool { return slices.Contains(p.Hooks, hook) }

// Call runs the plugin's hook on input (Go data) and returns what the hook
// returned, as data: jsrt.Undefined when it returned undefined (no change).
// The wait ends with ctx, or after within (when positive) with an error
// matching context.DeadlineExceeded; the call is then abandoned (SPEC H8).
func (p *Plugin) Call(ctx context.Context, hook string, input any, within time.Duration) (any, error) {
	return p.rt.CallWithin(ctx, within, func(vm *goja.Runtime) (goja.Value, error) {
		fn := p.fns[hook]
		if fn == nil {
			return nil, fmt.Errorf("plugin %s does not implement %s", p.ID, hook)
		}
		v, err := jsrt.ToValue(vm, input)
		if err != nil {
			return nil, err
		}
		return fn(p.hooks, v)
	}, nil)
}

// LifecycleHandler is a lifecycle handler (SPEC L7) that calls the
// plugin's lifecycle[event] function with the payload as a plain object
// (the JSON of plugin.HookPayload) and reads its return value:
//
//   - undefined or null abstains;
//   - {decision, message, data} is the vote; the dispatcher decides what an
//     unknown decision means (an error);
//   - anything else, a throw or a rejection is the handler's error.
//
// The call is bounded by the dispatch's context (SPEC L11) and, like every
// plugin call, by the runtime's watchdog.
func (p *Plugin) LifecycleHandler(event plugin.HookEvent) plugin.HookHandler {
	return func(ctx context.Context, payload *plugin.HookPayload) (*plugin.HookResult, error) {
		if calledBy(ctx, p.ID) {
			// the plugin asked for what is dispatched (a process of its
			// own) and may be waiting for it on its loop: it abstains
			return nil, nil
		}
		in, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		out, err := p.rt.CallWithin(ctx, 0, func(vm *goja.Runtime) (goja.Value, error) {
			fn := p.lifeFns[event]
			if fn == nil {
				return nil, fmt.Errorf("plugin %s has no lifecycle handler of %s", p.ID, event)
			}
			v, err := jsrt.ToValue(vm, json.RawMessage(in))
			if err != nil {
				return nil, err
			}
			return fn(p.life, v)
		}, nil)
		if err != nil {
			return nil, jsrt.Error(err)
		}
		return lifecycleResult(out)
	}
}

type callerKey struct{}

// WithCaller returns ctx saying that the plugin id asked for what is being
// dispatched in it (a process it starts: plugin_exec), besides the plugins
// ctx named already (a process started by a handler of one dispatched for
// another's): those plugins' own lifecycle handlers abstain, since each
// may be waiting for the answer on the loop they would run on (a
// synchronous execSync), and a plugin vetting its own processes adds
// nothing.
func WithCaller(ctx context.Context, id string) context.Context {
	prev, _ := ctx.Value(callerKey{}).([]string)
	return context.WithValue(ctx, callerKey{}, append(slices.Clip(prev), id))
}

// calledBy reports whether WithCaller named id in ctx.
func calledBy(ctx context.Context, id string) bool {
	ids, _ := ctx.Value(callerKey{}).([]string)
	return slices.Contains(ids, id)
}

type requesterKey struct{}

// Requester is the plugin whose request (its opencode client's) is served
// in a context, for the server's log, never for the guard (a turn the
// request starts is guarded as any turn). OfNoCall says that the request
// was made by code of no call the plugin serves (a timer, an event, code
// that ran on after its call settled): its scope says the server's own,
// which a server with tenants must not take on trust.
type Requester struct {
	Plugin   string
	OfNoCall bool
}

// WithRequester returns ctx carrying r.
func WithRequester(ctx context.Context, r Requester) context.Context {
	return context.WithValue(ctx, requesterKey{}, r)
}

// RequesterFrom is the Requester in ctx, zero when there is none.
func RequesterFrom(ctx context.Context) Requester {
	r, _ := ctx.Value(requesterKey{}).(Requester)
	return r
}

// lifecycleResult reads a lifecycle function's return value.
func lifecycleResult(v any) (*plugin.HookResult, error) {
	if _, undef := v.(jsrt.Undefined); v == nil || undef {
		return nil, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a lifecycle handler returned %s, not {decision, message, data}", jsrt.Describe(v))
	}
	var res plugin.HookResult
	if d, ok := obj["decision"].(string); ok {
		res.Decision = plugin.HookDecision(d)
	} else if _, undef := obj["decision"].(jsrt.Undefined); obj["decision"] != nil && !undef {
		return nil, fmt.Errorf("a lifecycle handler returned decision %s, not a string", jsrt.Describe(obj["decision"]))
	}
	res.Message, _ = obj["message"].(string)
	res.Data, _ = obj["data"].(map[string]any)
	return &res, nil
}

// Close ends the plugin's bus subscriptions and stops its runtime.
func (p *Plugin) Close() {
	p.unsubscribe()
	p.rt.Close()
}

// unsubscribe ends the plugin's bus subscriptions.
func (p *Plugin) unsubscribe() {
	p.mu.Lock()
	subs := p.subs
	p.subs = nil
	p.mu.Unlock()
	for _, u := range subs {
		u()
	}
}

// drainTools converts what the tool hook returned (SPEC H9) into tools. It
// runs on the loop; the loader keeps the result only if it came in time.
func (p *Plugin) drainTools(vm *goja.Runtime, v goja.Value) ([]*tool.Def, error) {
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Array" {
		p.rt.Log().Warn("plugin: tool hook returned something other than an array; ignored", "got", v.ExportType().String())
		return nil, nil
	}
	var defs []*tool.Def
	length := obj.Get("length").ToInteger() // a script sets it: up to 2³²-1, holes and all
	n := int(min(length, MaxToolDefs))
	if length > MaxToolDefs {
		p.rt.Log().Warn("plugin: tool hook returned too many ToolDefs; the rest are ignored", "returned", length, "max", MaxToolDefs)
	}
	// Invalid entries are counted and reported once, with the first error:
	// a line for each would bypass the console's line budget.
	skipped, firstIndex, firstErr := 0, 0, error(nil)
	for i := 0; i < n; i++ {
		def, err := p.toolDef(vm, obj.Get(strconv.Itoa(i)))
		if err != nil {
			if skipped == 0 {
				firstIndex, firstErr = i, err
			}
			skipped++
			continue
		}
		defs = append(defs, def)
	}
	if skipped > 0 {
		p.rt.Log().Warn("plugin: invalid ToolDef; skipped", "skipped", skipped, "first_index", firstIndex, "error", firstErr.Error())
	}
	return defs, nil
}

func (p *Plugin) toolDef(vm *goja.Runtime, v goja.Value) (*tool.Def, error) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("a ToolDef must be an object")
	}
	id := obj.Get("id")
	if id == nil || goja.IsUndefined(id) || goja.IsNull(id) || id.ExportType().Kind() != reflect.String || id.String() == "" {
		return nil, fmt.Errorf("a ToolDef needs a string id")
	}
	execute, ok := goja.AssertFunction(obj.Get("execute"))
	if !ok {
		return nil, fmt.Errorf("tool %s: execute must be a function", id)
	}
	desc := ""
	if d := obj.Get("description"); d != nil && !goja.IsUndefined(d) {
		desc = d.String()
	}
	schemaVal := obj.Get("parameters")
	js, err := p.jsonSchema(goja.Undefined(), schemaVal, p.modules.loaded())
	if err != nil {
		return nil, fmt.Errorf("tool %s: parameters: %w", id, err)
	}
	data, err := jsrt.Export(vm, js)
	if err != nil {
		return nil, fmt.Errorf("tool %s: parameters: %w", id, err)
	}
	raw, err := json.Marshal(jsrt.StripUndefined(data))
	if err != nil {
		return nil, fmt.Errorf("tool %s: parameters: %w", id, err)
	}
	name := id.String()
	// The tool's closures reach its functions through the plugin, so that
	// a stopped plugin's runtime is not kept alive by the tool registry.
	if p.toolFns == nil {
		p.toolFns = map[string]toolFns{}
	}
	p.toolFns[name] = toolFns{execute: execute, schema: schemaVal}
	p.rt.Keep(obj)
	def := &tool.Def{ID: name, Description: desc, Parameters: raw, Source: p.ID,
		Execute: func(ctx context.Context, call tool.Call, args map[string]any) (tool.Result, error) {
			return p.execute(ctx, name, call, args)
		}}
	if ok, err := p.canValidate(goja.Undefined(), schemaVal); err == nil && ok.ToBoolean() {
		def.Validate = func(ctx context.Context, args map[string]any) (map[string]any, error) {
			return p.validate(ctx, name, args)
		}
	}
	return def, nil
}

// validate checks args with the tool's own schema (a Standard Schema's
// validate, or zod 3.23's safeParseAsync) and returns the parsed value, so
// defaults and transforms apply.
func (p *Plugin) validate(ctx context.Context, id string, args map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, hookToolTimeout)
	defer cancel()
	out, err := p.rt.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
		v, err := jsrt.ToValue(vm, args)
		if err != nil {
			return nil, err
		}
		return p.validateArgs(goja.Undefined(), p.toolFns[id].schema, v)
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("validating arguments of %s: %w", id, err)
	}
	res, _ := out.(map[string]any)
	if issues, ok := res["issues"].([]any); ok {
		var msgs []string
		for _, it := range issues {
			m, _ := it.(map[string]any)
			field, _ := m["path"].(string)
			if field == "" {
				field = "arguments"
			}
			msgs = append(msgs, fmt.Sprintf("%s: %v", field, m["message"]))
		}
		return nil, fmt.Errorf("invalid arguments for %s: %s", id, strings.Join(msgs, "; "))
	}
	if v, ok := res["value"].(map[string]any); ok {
		return v, nil
	}
	return nil, fmt.Errorf("invalid arguments for %s: the schema did not produce an object", id)
}

// execute runs a plugin tool's execute(args, ctx) with its own time limit;
// ctx.abort is aborted when the call is cancelled or times out.
func (p *Plugin) execute(ctx context.Context, id string, call tool.Call, args map[string]any) (tool.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, p.toolTimeout)
	defer cancel()
	var stopAbort func() bool
	out, err := p.rt.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
		a, err := jsrt.ToValue(vm, args)
		if err != nil {
			return nil, err
		}
		signal, stop, err := p.rt.AbortSignal(ctx)
		if err != nil {
			return nil, err
		}
		stopAbort = stop
		c := vm.NewObject()
		c.Set("sessionID", call.SessionID)
		c.Set("messageID", call.MessageID)
		c.Set("callID", call.CallID)
		c.Set("agent", call.Agent)
		c.Set("cwd", call.Cwd)
		c.Set("abort", signal)
		c.Set("progress", func(fc goja.FunctionCall) goja.Value {
			pr, err := progressFrom(fc.Argument(0).Export())
			if err != nil {
				panic(vm.NewTypeError("tool %s: ctx.progress: %v", id, err))
			}
			tool.ReportProgress(ctx, pr)
			return goja.Undefined()
		})
		c.Set("ask", func(fc goja.FunctionCall) goja.Value {
			arg, _ := fc.Argument(0).Export().(map[string]any)
			message, _ := arg["message"].(string)
			if message == "" {
				panic(vm.NewTypeError("tool %s: ctx.ask: want {message, schema?}, with a message", id))
			}
			schema := arg["schema"]
			return vm.ToValue(p.rt.Async(0, func() (any, error) {
				ans, err := tool.AskForm(ctx, message, schema)
				if err != nil {
					return nil, err
				}
				out := map[string]any{"action": ans.Action}
				if ans.Content != nil {
					out["content"] = ans.Content
				}
				return out, nil
			}))
		})
		c.Set("log", func(level, message string) {
			if !slices.Contains(logLevels, level) {
				panic(vm.NewTypeError("tool %s: ctx.log: level %q is not one of %s", id, level, strings.Join(logLevels, ", ")))
			}
			tool.ReportLog(ctx, tool.LogLine{Level: level, Message: chat.Shorten(message, maxLogMessage)})
		})
		return p.toolFns[id].execute(goja.Undefined(), a, c)
	}, nil)
	if ctx.Err() == nil && stopAbort != nil {
		stopAbort() // settled, or threw: ctx.abort stays unaborted when cancel runs below
	}
	if ctx.Err() == context.DeadlineExceeded && err != nil {
		return tool.Result{}, fmt.Errorf("tool %s (plugin %s) did not finish within %s", id, p.ID, p.toolTimeout)
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("tool %s (plugin %s): %w", id, p.ID, err)
	}
	return ResultFromData(id, out)
}

// maxLogMessage bounds a line of ctx.log.
const maxLogMessage = 4000

// logLevels are ctx.log's levels: MCP's.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// progressFrom reads ctx.progress's argument: {progress, total?,
// message?}, progress and total finite numbers, at least 0.
func progressFrom(v any) (tool.Progress, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return tool.Progress{}, fmt.Errorf("want {progress, total?, message?}, got %s", jsrt.Describe(v))
	}
	num := func(key string, need bool) (float64, error) {
		x, present := m[key]
		if !present || x == nil {
			if need {
				return 0, fmt.Errorf("%s is missing", key)
			}
			return 0, nil
		}
		var f float64
		switch n := x.(type) {
		case int64:
			f = float64(n)
		case float64:
			f = n
		default:
			return 0, fmt.Errorf("%s is %s, not a number", key, jsrt.Describe(x))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return 0, fmt.Errorf("%s is %v: want a finite number, at least 0", key, f)
		}
		return f, nil
	}
	var p tool.Progress
	var err error
	if p.Progress, err = num("progress", true); err != nil {
		return p, err
	}
	if p.Total, err = num("total", false); err != nil {
		return p, err
	}
	if msg, ok := m["message"].(string); ok {
		p.Message = msg // ReportProgress bounds it
	} else if x, present := m["message"]; present && x != nil {
		return p, fmt.Errorf("message is %s, not a string", jsrt.Describe(x))
	}
	return p, nil
}

// ResultFromData reads a tool result ({title, output, metadata}) from data.
func ResultFromData(id string, v any) (tool.Result, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return tool.Result{}, fmt.Errorf("tool %s returned %s, not {title, output}", id, jsrt.Describe(v))
	}
	res := tool.Result{Title: id}
	if t, ok := m["title"].(string); ok {
		res.Title = t
	}
	switch o := m["output"].(type) {
	case string:
		res.Output = o
	case nil, jsrt.Undefined:
		return tool.Result{}, fmt.Errorf("tool %s returned no output", id)
	default:
		b, err := json.Marshal(jsrt.StripUndefined(o))
		if err != nil {
			return tool.Result{}, fmt.Errorf("tool %s: output: %w", id, err)
		}
		res.Output = string(b)
	}
	if md, ok := jsrt.StripUndefined(m["metadata"]).(map[string]any); ok {
		res.Metadata = md
	}
	if a, present := m["attachments"]; present && a != nil && a != (jsrt.Undefined{}) {
		var err error
		if res.Attachments, err = attachmentsFrom(a); err != nil {
			return tool.Result{}, fmt.Errorf("tool %s: attachments: %w", id, err)
		}
	}
	return res, nil
}

// attachmentsFrom reads a result's attachments: an array of {type:
// "image"|"audio", mimeType, data} (data base64) and {type: "resource",
// uri, mimeType?, text | data}, at most tool.MaxAttachmentBytes in all.
func attachmentsFrom(v any) ([]tool.Attachment, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array, got %s", jsrt.Describe(v))
	}
	var out []tool.Attachment
	size := 0
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("[%d] is %s, not an object", i, jsrt.Describe(item))
		}
		str := func(key string) string { s, _ := m[key].(string); return s }
		a := tool.Attachment{MIMEType: str("mimeType"), URI: str("uri"), Text: str("text")}
		if d := str("data"); d != "" {
			data, err := base64.StdEncoding.DecodeString(d)
			if err != nil {
				return nil, fmt.Errorf("[%d].data is not base64: %w", i, err)
			}
			a.Data = data
		}
		switch typ := str("type"); typ {
		case "image", "audio":
			if !strings.HasPrefix(a.MIMEType, typ+"/") || a.Data == nil || a.URI != "" {
				return nil, fmt.Errorf(`[%d]: an %s needs mimeType "%s/..." and data, and no uri`, i, typ, typ)
			}
		case "resource":
			if a.URI == "" || (a.Data == nil) == (a.Text == "") {
				return nil, fmt.Errorf("[%d]: a resource needs a uri, and text or data", i)
			}
		default:
			return nil, fmt.Errorf(`[%d].type is %q: want "image", "audio" or "resource"`, i, typ)
		}
		if size += len(a.Data) + len(a.Text); size > tool.MaxAttachmentBytes {
			return nil, fmt.Errorf("more than %d MiB in all", tool.MaxAttachmentBytes>>20)
		}
		out = append(out, a)
	}
	return out, nil
}
