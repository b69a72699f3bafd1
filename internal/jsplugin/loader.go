package jsplugin

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/closest"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/internal/version"
	"github.com/podcode/podcode/plugin"
)

//go:embed tools.js
var toolsSource string

var toolsProgram = sync.OnceValues(func() (*goja.Program, error) {
	return goja.Compile("podcode:tools.js", toolsSource, true)
})

//go:embed opencode.js
var opencodeSource string

var opencodeProgram = sync.OnceValues(func() (*goja.Program, error) {
	return goja.Compile("podcode:opencode.js", opencodeSource, true)
})

// DefaultBootTimeout bounds one plugin's start: importing it and its
// server() settling.
const DefaultBootTimeout = 10 * time.Second

// DefaultToolTimeout bounds one execute of a plugin's tool.
const DefaultToolTimeout = 2 * time.Minute

// Options configure Load.
type Options struct {
	Cwd         string
	Config      *config.Config
	Logger      *slog.Logger
	Bus         *bus.Bus
	Bundler     *Bundler          // nil: a Bundler caching in DefaultCacheDir
	BootTimeout time.Duration     // DefaultBootTimeout if zero
	JobLimit    time.Duration     // jsrt.DefaultJobLimit if zero (H8's 5 s)
	ToolTimeout time.Duration     // the config's tools.plugin_timeout_ms, else DefaultToolTimeout
	Env         map[string]string // process.env; nil: this process's environment
	// Trust decides whether a plugin that came with the project (found in
	// its .podcode/plugins or named by its podcode.json) may run, given
	// its fingerprint: every file of its bundle and of the packages it
	// imports. It is asked after bundling, before anything of the plugin
	// runs; a refused plugin is skipped (the gate says why). nil trusts all.
	Trust func(trust.Item) (bool, string)
	// Exec decides whether and how each plugin's processes run
	// (child_process, Bun's $): see jsrt.Exec. nil: plugins start none.
	Exec jsrt.Exec
	// API answers the requests of opencode plugins' client (package
	// opencodeapi), once the server's sessions are open; nil, or nil
	// returned, answers 503.
	API func() http.Handler
}

// Set is the loaded plugins, in pipeline order. A plugin stopped for its
// memory (see Plugin.Status) stays in Plugins but leaves With, and so does
// a suspended hook (see SuspendAfter).
type Set struct {
	Plugins  []*Plugin
	Warnings []string  // every problem met while loading, each naming its plugin
	Failed   []Failure // the plugins that did not load (also among Warnings), by name
	mu       sync.Mutex
	byHook   atomic.Pointer[map[string][]*Plugin] // replaced whole, never changed
}

// With returns the running plugins that implement hook, in pipeline order.
// The slice is shared: do not modify it.
func (s *Set) With(hook string) []*Plugin {
	if m := s.byHook.Load(); m != nil {
		return (*m)[hook]
	}
	return nil
}

// index rebuilds With from the plugins that still run and their hooks that
// are not suspended.
func (s *Set) index() {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string][]*Plugin{}
	for _, p := range s.Plugins {
		if p.Err() != nil {
			continue
		}
		for _, h := range p.Hooks {
			if i := hookIndex(h); i >= 0 && p.health[i].suspended.Load() {
				continue
			}
			m[h] = append(m[h], p)
		}
	}
	s.byHook.Store(&m)
}

// Close stops every plugin's runtime, all at once: each may take two job
// limits to stop (jsrt.Runtime.Close), and the server waits for the slowest
// only.
func (s *Set) Close() {
	var wg sync.WaitGroup
	for _, p := range s.Plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
		}()
	}
	wg.Wait()
}

// loader is the state of one Load.
type loader struct {
	o        Options
	log      *slog.Logger
	programs *programs
	mu       sync.Mutex
	warnings []string
	failed   []Failure
}

// warn logs a load problem and keeps it for `podcode plugin list`.
func (l *loader) warn(msg string, attrs ...any) string {
	l.log.Warn(msg, attrs...)
	var b strings.Builder
	b.WriteString(msg)
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&b, " %v=%v", attrs[i], attrs[i+1])
	}
	l.keep(b.String())
	return b.String()
}

// Failure is a plugin that did not load.
type Failure struct {
	Plugin string   `json:"plugin"` // its id, or its spec before the id is known
	Path   string   `json:"path,omitempty"`
	Source string   `json:"source"` // FromConfig or FromDiscovered
	Where  string   `json:"where"`  // where it is named or found: "podcode.json:3"
	Reason string   `json:"reason"` // what failed: "server() threw", "import failed", ...
	Error  string   `json:"error"`  // the error, on one line
	Stack  []string `json:"stack,omitempty"`
	// Warning is the same failure as one of Set.Warnings.
	Warning string `json:"-"`
}

// fail warns that a plugin did not load (msg, "plugin: <reason>") and
// keeps it in Set.Failed. A thrown error's text is split: its message is
// the error, its "at …" lines the stack, so that the log line stays one
// line that a person can read (the stack an attribute, frames joined by
// " < ").
func (l *loader) fail(src source, msg, plugin, path, errText string, attrs ...any) {
	first, stack := splitStack(errText)
	a := []any{"plugin", plugin}
	if path != "" {
		a = append(a, "path", path)
	}
	a = append(a, "at", src.where)
	a = append(a, attrs...)
	if first != "" {
		a = append(a, "error", first)
	}
	if len(stack) > 0 {
		a = append(a, "stack", strings.Join(stack, " < "))
	}
	w := l.warn(msg, a...)
	l.mu.Lock()
	l.failed = append(l.failed, Failure{Plugin: plugin, Path: path, Source: src.from, Where: src.where,
		Reason: strings.TrimPrefix(msg, "plugin: "), Error: first, Stack: stack, Warning: w})
	l.mu.Unlock()
}

// gojaPC is the program counter goja adds to a frame's position.
var gojaPC = regexp.MustCompile(`(:\d+:\d+)\(\d+\)\)?$`)

// splitStack splits an error's text into its message (its lines that are
// not frames, joined) and its frames ("at server (plugin.js:3:9)").
func splitStack(text string) (msg string, stack []string) {
	var parts []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "at "):
			stack = append(stack, gojaPC.ReplaceAllStringFunc(line, func(m string) string {
				pos := gojaPC.FindStringSubmatch(m)[1]
				if strings.HasSuffix(m, ")") {
					return pos + ")"
				}
				return pos
			}))
		default:
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, " "), stack
}

// keep records a problem for `podcode plugin list` without logging it.
func (l *loader) keep(warning string) {
	l.mu.Lock()
	l.warnings = append(l.warnings, warning)
	l.mu.Unlock()
}

// Load finds and starts the plugins (steps 1 to 7 of the lifecycle). It
// fails only when the plugin folders cannot be read; a plugin that fails is
// skipped with a warning. Plugins start in parallel; their order in the
// pipeline is the order of the sources.
func Load(ctx context.Context, o Options) (*Set, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Config == nil {
		o.Config = &config.Config{}
	}
	if o.Bundler == nil {
		o.Bundler = NewBundler(DefaultCacheDir())
	}
	if o.BootTimeout <= 0 {
		o.BootTimeout = DefaultBootTimeout
	}
	if o.ToolTimeout <= 0 {
		o.ToolTimeout = DefaultToolTimeout
		if ms := o.Config.Tools.PluginTimeoutMs; ms > 0 {
			o.ToolTimeout = time.Duration(ms) * time.Millisecond
		}
	}
	if o.Env == nil {
		o.Env = map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				o.Env[k] = v
			}
		}
	}
	if o.Bus == nil {
		o.Bus = bus.New(o.Logger)
	}
	srcs, err := sources(o.Cwd, o.Config, o.Logger)
	if err != nil {
		return nil, err
	}
	l := &loader{o: o, log: o.Logger, programs: &programs{}}
	defer raiseGC()()
	loaded := make([]*Plugin, len(srcs))
	sem := make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, src := range srcs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			loaded[i] = l.load(ctx, src)
		}()
	}
	wg.Wait()

	set := &Set{}
	for _, p := range loaded {
		if p == nil {
			continue
		}
		if i := slices.IndexFunc(set.Plugins, func(q *Plugin) bool { return q.ID == p.ID }); i >= 0 {
			old := set.Plugins[i]
			l.warn("plugin: duplicate id; the plugin loaded later replaces the earlier one",
				"plugin", p.ID, "removed", old.Path, "kept", p.Path)
			old.Close()
			set.Plugins = slices.Delete(set.Plugins, i, i+1)
		}
		set.Plugins = append(set.Plugins, p)
	}
	for _, p := range set.Plugins {
		var tools []string
		for _, t := range p.Tools {
			tools = append(tools, t.ID)
		}
		o.Bus.Publish(bus.PluginLoaded, map[string]any{"id": p.ID, "path": p.Path, "source": p.Source,
			"hooks": anySlice(p.Hooks), "tools": anySlice(tools)})
	}
	set.Warnings = l.warnings
	set.Failed = l.failed
	slices.SortStableFunc(set.Failed, func(a, b Failure) int { return strings.Compare(a.Plugin, b.Plugin) })
	for _, p := range set.Plugins {
		p.set.Store(set)
	}
	set.index()
	return set, nil
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// load runs steps 2 to 6 for one plugin; nil means skipped (and said why).
func (l *loader) load(ctx context.Context, src source) *Plugin {
	start := time.Now()
	if name := src.disabledName(l.o.Config.DisabledFor(src.project)); name != "" {
		l.log.Info("plugin: disabled by the config; not loaded", "plugin", name, "spec", src.spec)
		return nil
	}
	// cannotLoad reports a failure of steps 2 and 3 before the runtime exists.
	cannotLoad := func(err error, attrs ...any) *Plugin {
		l.fail(src, "plugin: cannot load", src.spec, "", err.Error(), attrs...)
		return nil
	}
	entry, err := src.resolve()
	if err != nil {
		return cannotLoad(err)
	}
	bu, err := l.o.Bundler.Plugin(entry)
	if err != nil {
		return cannotLoad(err)
	}
	packages := map[string]*goja.Program{}
	pkgBundles := make([]*bundle, 0, len(bu.Packages))
	for _, spec := range bu.Packages {
		pb, err := l.o.Bundler.Package(spec, filepath.Dir(entry))
		if err == nil {
			packages[spec], err = l.programs.get("podcode:npm/"+spec, pb.Code, false)
		}
		if err != nil {
			if at := bu.Importers[spec]; at != "" {
				return cannotLoad(fmt.Errorf("%s imports it: %w", at, err), "package", spec)
			}
			return cannotLoad(err, "package", spec)
		}
		pkgBundles = append(pkgBundles, pb)
	}
	if src.project && l.o.Trust != nil {
		it, err := l.trustItem(src, bu, pkgBundles)
		if err != nil {
			return cannotLoad(err)
		}
		if ok, why := l.o.Trust(it); !ok {
			l.keep(fmt.Sprintf("plugin %s not trusted: %s", it.Name, why))
			return nil
		}
	}
	main, err := l.programs.get(entry, bu.Code, true)
	if err != nil {
		return cannotLoad(err)
	}

	p := &Plugin{Spec: src.spec, Path: entry, Source: src.from, Project: src.project, toolTimeout: l.o.ToolTimeout}
	rt, err := jsrt.New(jsrt.Options{Name: src.spec, Logger: l.log, JobLimit: l.o.JobLimit, Env: l.o.Env, Cwd: l.o.Cwd, Exec: l.o.Exec,
		MemoryLimit: int64(l.o.Config.PluginLimitsFor(src.project).MemoryMB) << 20, OnStop: p.stopped})
	if err != nil {
		l.fail(src, "plugin: cannot load", src.spec, entry, err.Error())
		return nil
	}
	p.rt = rt
	ok := false
	defer func() {
		if !ok {
			rt.Close()
		}
	}()

	bootCtx, cancel := context.WithTimeout(ctx, l.o.BootTimeout)
	defer cancel()
	var server goja.Callable
	var def *goja.Object
	// An opencode plugin (see opencode.go): oc is the adapter; ocModule
	// is set when the module exports opencode plugin functions rather
	// than {id, server}.
	var ocObj *goja.Object
	oc := func(vm *goja.Runtime) (*goja.Object, error) { // evaluated once, and only for what may be opencode's
		var err error
		if ocObj == nil {
			ocObj, err = opencodeAdapter(vm)
		}
		return ocObj, err
	}
	ocModule, ocMarked := false, dependsOnOpencode(entry)
	// Steps 3 and 4: import (awaiting the module's top-level awaits) and
	// validate.
	var module *goja.Object
	_, err = rt.Call(bootCtx, func(vm *goja.Runtime) (goja.Value, error) {
		ms := newModuleSystem(rt, vm, packages)
		p.modules = ms
		done, mod, err := ms.evalPlugin(main)
		module = mod
		return done, err
	}, func(vm *goja.Runtime, _ goja.Value) (any, error) {
		// tools.js first: the opencode adapter finds a tool map's zod with it.
		helpers, err := toolsProgram()
		if err != nil {
			return nil, err
		}
		h, err := vm.RunProgram(helpers)
		if err != nil {
			return nil, err
		}
		p.helpers = h.ToObject(vm)
		p.jsonSchema, _ = goja.AssertFunction(p.helpers.Get("jsonSchema"))
		p.canValidate, _ = goja.AssertFunction(p.helpers.Get("canValidate"))
		p.validateArgs, _ = goja.AssertFunction(p.helpers.Get("validate"))
		def = defaultExport(vm, module.Get("exports"))
		var id goja.Value
		var fn goja.Callable
		isFn := false
		if def != nil {
			id = def.Get("id")
			fn, isFn = goja.AssertFunction(def.Get("server"))
		}
		if id == nil || goja.IsUndefined(id) || !isString(id) || !isFn {
			if isFn && (id == nil || goja.IsUndefined(id)) && ocMarked {
				// opencode's {server} form may leave the id out.
				id = vm.ToValue(opencodeID(src, entry))
			} else if def != nil && (def.Get("id") != nil || def.Get("server") != nil) {
				return nil, errNoDefault // a Podcode plugin gone wrong, not an opencode one
			} else if !ocMarked && !inOpencodeFolder(entry) && !slices.Contains(bu.Packages, opencodePackage) {
				return nil, errNoDefault // SPEC P2: named exports alone are skipped, unless the module is opencode's
			} else {
				ocServer, err := opencodeServer(vm, oc, module.Get("exports"), l.opencodeInfo(vm, p), p)
				if err != nil || ocServer == nil {
					return nil, errNoDefault
				}
				ocModule, def, id, fn = true, vm.NewObject(), vm.ToValue(opencodeID(src, entry)), ocServer
			}
		}
		p.ID, server = id.String(), fn
		return nil, nil
	})
	switch {
	case errors.Is(err, errNoDefault):
		l.fail(src, "plugin: module has no valid default export {id, server}", src.spec, entry, "")
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		l.fail(src, "plugin: importing did not finish within the boot deadline; skipped", src.spec, entry, "", "deadline", l.o.BootTimeout.String())
		return nil
	case err != nil:
		l.fail(src, "plugin: import failed", src.spec, entry, err.Error())
		return nil
	}
	rt.SetName(p.ID)
	if slices.Contains(l.o.Config.DisabledFor(src.project), p.ID) {
		l.log.Info("plugin: disabled by the config; not loaded", "plugin", p.ID, "path", entry)
		return nil
	}

	if _, theirs := l.o.Config.PluginConfigFor(p.ID, true); theirs && !p.Project {
		at := "plugin_config." + p.ID
		if o := l.o.Config.Origins(at); len(o) > 0 {
			at = o[len(o)-1].At()
		}
		l.warn("plugin: the project's plugin_config block is not given to a plugin of the user's; it reads the user's block only", "plugin", p.ID, "key", at)
	}

	// Step 5: server(input, options), once.
	_, err = rt.Call(bootCtx, func(vm *goja.Runtime) (goja.Value, error) {
		input := vm.NewObject()
		input.Set("bus", l.busObject(vm, p))
		input.Set("cwd", l.o.Cwd)
		input.Set("version", version.PluginRuntime)
		options := vm.NewObject()
		cfg := goja.Undefined()
		// Each plugin reads the block of its own layer (config.Own).
		if raw, ok := l.o.Config.PluginConfigFor(p.ID, p.Project); ok {
			v, err := jsrt.ToValue(vm, raw)
			if err != nil {
				return nil, err
			}
			cfg = v
		}
		options.Set("config", cfg)
		if ocMarked && !ocModule {
			// opencode's {id, server} form: server reads opencode's context.
			ctx, err := opencodeContext(vm, oc, l.opencodeInfo(vm, p))
			if err != nil {
				return nil, err
			}
			for _, k := range input.Keys() {
				ctx.Set(k, input.Get(k))
			}
			input = ctx
		}
		return server(def, input, options)
	}, func(vm *goja.Runtime, v goja.Value) (any, error) {
		hooks, unsupported, err := l.opencodeHooks(vm, p, oc, v, ocModule, ocMarked)
		if err != nil {
			return nil, err
		}
		if len(unsupported) > 0 {
			l.warn("plugin: opencode hooks Podcode does not have; they are never called", "plugin", p.ID, "hooks", strings.Join(unsupported, ", "))
		}
		// Keys are checked on a Podcode plugin's own hooks, not on an
		// opencode plugin's, which the adapter made into hooks.
		if obj, ok := v.(*goja.Object); ok && !ocModule && !ocMarked && hooks.SameAs(v) {
			p.UnknownKeys = unknownKeys(obj)
		}
		p.collectHooks(vm, hooks)
		return nil, nil
	})
	var thrown *jsrt.ThrowError
	switch {
	case errors.As(err, &thrown):
		l.fail(src, "plugin: server() threw", p.ID, entry, thrown.Message)
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		l.fail(src, "plugin: server() did not settle within the boot deadline; skipped", p.ID, entry, "", "deadline", l.o.BootTimeout.String())
		return nil
	case err != nil:
		l.fail(src, "plugin: server() threw", p.ID, entry, err.Error())
		return nil
	}

	// Step 6: drain the tool hook once.
	if p.Implements(HookTool) {
		toolCtx, cancel := context.WithTimeout(ctx, hookToolTimeout)
		defs, err := rt.Call(toolCtx, func(vm *goja.Runtime) (goja.Value, error) {
			return p.fns[HookTool](p.hooks, vm.NewObject())
		}, func(vm *goja.Runtime, v goja.Value) (any, error) {
			return p.drainTools(vm, v)
		})
		cancel()
		if err == nil {
			p.Tools, _ = defs.([]*tool.Def)
		} else {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("exceeded %dms", hookToolTimeout.Milliseconds())
			}
			l.warn("plugin: tool hook threw at init", "plugin", p.ID, "error", err.Error())
		}
	}
	p.Boot = time.Since(start)
	ok = true
	return p
}

var errNoDefault = errors.New("no valid default export")

// trustItem is the plugin as trust sees it: named as the project names it,
// fingerprinted by every input of its bundle and of its packages' bundles.
func (l *loader) trustItem(src source, bu *bundle, packages []*bundle) (trust.Item, error) {
	var h trust.Hasher
	for _, b := range append([]*bundle{bu}, packages...) {
		for _, in := range b.Inputs {
			h.Hash(trust.Shown(in.Path, l.o.Cwd), in.Hash)
		}
	}
	name := src.spec
	if src.from == FromDiscovered {
		name = trust.Shown(src.spec, l.o.Cwd)
	}
	return h.Item(trust.KindPlugin, name)
}

func isString(v goja.Value) bool {
	_, ok := v.Export().(string)
	return ok
}

// defaultExport applies SPEC P1 and P3: an ES module's default export, or a
// CommonJS module's module.exports.
func defaultExport(vm *goja.Runtime, exports goja.Value) *goja.Object {
	obj, ok := exports.(*goja.Object)
	if !ok {
		return nil
	}
	if esm := obj.Get("__esModule"); esm != nil && esm.ToBoolean() {
		d, ok := obj.Get("default").(*goja.Object)
		if !ok {
			return nil
		}
		return d
	}
	return obj
}

// unknownKeys are the keys of server()'s result that are neither a hook
// nor "lifecycle", each with the closest valid key. They load silently
// (SPEC P10); plugin list and plugin check show them.
func unknownKeys(obj *goja.Object) []UnknownKey {
	valid := append(slices.Clone(Hooks), "lifecycle")
	var out []UnknownKey
	for _, k := range obj.Keys() {
		if !slices.Contains(valid, k) {
			out = append(out, UnknownKey{Key: k, Closest: closest.Names(k, valid, 1)[0]})
		}
	}
	return out
}

// collectHooks keeps the hook functions server() returned (SPEC P10): keys
// match by exact string, unknown keys are ignored without a warning.
func (p *Plugin) collectHooks(vm *goja.Runtime, v goja.Value) {
	p.fns = map[string]goja.Callable{}
	obj, ok := v.(*goja.Object)
	if !ok {
		if !goja.IsUndefined(v) && !goja.IsNull(v) {
			p.rt.Log().Warn("plugin: server() returned something other than an object of hooks; the plugin has no hooks")
		}
		p.hooks = vm.NewObject()
		return
	}
	p.hooks = obj
	p.rt.Keep(obj) // what the hooks reach counts against the plugin's memory budget
	for _, h := range Hooks {
		if fn, ok := goja.AssertFunction(obj.Get(h)); ok {
			p.fns[h] = fn
			p.Hooks = append(p.Hooks, h)
		}
	}
	p.collectLifecycle(obj)
}

// collectLifecycle keeps the functions of server()'s lifecycle object, by
// event name. A key that is not a lifecycle event is not run; unlike an
// unknown hook key it draws a warning, since it can only be a misspelt
// event (a plugin manifest's event names are checked the same way, L2).
func (p *Plugin) collectLifecycle(obj *goja.Object) {
	life, ok := obj.Get("lifecycle").(*goja.Object)
	if !ok {
		return
	}
	p.life, p.lifeFns = life, map[plugin.HookEvent]goja.Callable{}
	for _, k := range life.Keys() {
		fn, isFn := goja.AssertFunction(life.Get(k))
		switch {
		case !plugin.IsValidHookEvent(k):
			_, err := plugin.ParseHookEvent(k)
			p.rt.Log().Warn("plugin: lifecycle key is not a hook event; ignored", "key", k, "error", err.Error())
		case !isFn:
			p.rt.Log().Warn("plugin: lifecycle handler is not a function; ignored", "event", k)
		default:
			p.lifeFns[plugin.HookEvent(k)] = fn
		}
	}
	for _, ev := range plugin.HookEvents() {
		if p.lifeFns[ev] != nil {
			p.Lifecycle = append(p.Lifecycle, ev)
		}
	}
}

// busObject is the bus a plugin's server() receives (SPEC P7). Listeners run
// on the plugin's loop; a listener that throws is logged with the event type.
// At most MaxPendingEvents events wait for the loop (the rest are dropped,
// counted and logged) and a plugin holds at most MaxSubscriptions.
func (l *loader) busObject(vm *goja.Runtime, p *Plugin) *goja.Object {
	b := vm.NewObject()
	podcode := func(ev bus.Event) []any {
		return []any{map[string]any{"type": ev.Type, "time": ev.Time.UTC().Format(time.RFC3339Nano), "tenant": ev.Tenant, "properties": ev.Properties}}
	}
	b.Set("subscribe", func(call goja.FunctionCall) goja.Value {
		return l.subscribe(vm, p, call.Argument(0).String(), call.Argument(1), nil, podcode)
	})
	b.Set("subscribeAll", func(call goja.FunctionCall) goja.Value {
		return l.subscribe(vm, p, "", call.Argument(0), nil, podcode)
	})
	return b
}

// subscribe calls fnv, on the plugin's loop, with each value deliver makes
// (on the loop: the plugin's time, not the publisher's) of each bus event
// of type typ ("" for all) that accept takes (nil: all; on the publisher's
// goroutine, so cheap), and returns the function that stops it. Events
// wait for the loop within the plugin's eventQueue; the plugin holds at
// most MaxSubscriptions.
func (l *loader) subscribe(vm *goja.Runtime, p *Plugin, typ string, fnv goja.Value, accept func(bus.Event) bool, deliver func(bus.Event) []any) goja.Value {
	fn, ok := goja.AssertFunction(fnv)
	if !ok {
		panic(vm.NewTypeError("bus.subscribe: the listener must be a function"))
	}
	p.mu.Lock()
	if len(p.subs) >= MaxSubscriptions {
		p.mu.Unlock()
		panic(p.rt.RangeError(fmt.Sprintf("bus.subscribe: this plugin already holds %d subscriptions, the most one plugin may hold; stop some first (call the function subscribe returned)", MaxSubscriptions)))
	}
	p.mu.Unlock()
	unsub := l.o.Bus.Subscribe(typ, p.ID, func(ev bus.Event) {
		if accept != nil && !accept(ev) {
			return
		}
		if !p.events.take() {
			p.events.drop(p.rt.Log(), ev.Type)
			return
		}
		posted := p.rt.Post(func(vm *goja.Runtime) {
			p.events.done(p.rt.Log())
			for _, data := range deliver(ev) {
				v, err := jsrt.ToValue(vm, data)
				if err == nil {
					_, err = fn(goja.Undefined(), v)
				}
				if err != nil {
					p.rt.LogError("plugin: bus listener threw", err, "event", ev.Type)
				}
			}
		})
		if !posted {
			p.events.done(p.rt.Log())
		}
	})
	p.mu.Lock()
	p.nextSub++
	id := p.nextSub
	if p.subs == nil {
		p.subs = map[int]func(){}
	}
	p.subs[id] = unsub
	p.mu.Unlock()
	forget, done := p.rt.Keep(fnv), false
	return vm.ToValue(func(goja.FunctionCall) goja.Value {
		if !done {
			done = true
			unsub()
			p.mu.Lock()
			delete(p.subs, id)
			p.mu.Unlock()
			forget()
		}
		return goja.Undefined()
	})
}
