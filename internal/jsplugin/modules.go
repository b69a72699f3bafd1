package jsplugin

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/podcode/podcode/internal/jsrt"
)

// nodeBuiltins are Node's module names (its module.builtinModules);
// esbuild leaves them as require calls, and the runtime provides most of
// them (jsrt.BuiltinModules).
var nodeBuiltins = map[string]bool{
	"assert": true, "assert/strict": true, "async_hooks": true, "buffer": true, "child_process": true,
	"cluster": true, "console": true, "constants": true, "crypto": true, "dgram": true,
	"diagnostics_channel": true, "dns": true, "dns/promises": true, "domain": true, "events": true,
	"fs": true, "fs/promises": true, "http": true, "http2": true, "https": true, "inspector": true,
	"module": true, "net": true, "os": true, "path": true, "path/posix": true, "path/win32": true,
	"perf_hooks": true, "process": true, "punycode": true, "querystring": true, "readline": true,
	"readline/promises": true, "repl": true, "stream": true, "stream/consumers": true,
	"stream/promises": true, "stream/web": true, "string_decoder": true, "sys": true, "timers": true,
	"timers/promises": true, "tls": true, "trace_events": true, "tty": true, "url": true, "util": true,
	"util/types": true, "v8": true, "vm": true, "wasi": true, "worker_threads": true, "zlib": true,
}

// isBuiltin reports whether spec is a module of the runtime's rather than
// an npm package: Node's, and Bun's "bun" (which Podcode provides for
// opencode's plugins: jsrt's node/bun.js).
func isBuiltin(spec string) bool {
	return strings.HasPrefix(spec, "node:") || nodeBuiltins[spec] || spec == "bun" || strings.HasPrefix(spec, "bun:")
}

// programs compiles each bundle once per load, keyed by its code, and
// shares the compiled program between every runtime that evaluates it:
// twenty plugins importing zod parse zod once.
type programs struct {
	mu sync.Mutex
	m  map[programKey]*programEntry
}

// programKey is the code itself, not a hash of it: the bundles hold the
// text anyway, and hashing zod's 0.8 MB meant copying it for every plugin.
type programKey struct {
	code   string
	plugin bool // never the same entry as a package bundle of the same text
}

type programEntry struct {
	once sync.Once
	p    *goja.Program
	err  error
}

// get compiles a package bundle (CommonJS: a function of module, exports
// and require) or, when plugin is set, a plugin bundle (the body of an async
// function that also gets the module as __podcode_module and require as
// __podcode_require: see Bundler.Plugin).
func (ps *programs) get(name, code string, plugin bool) (*goja.Program, error) {
	key := programKey{code, plugin}
	ps.mu.Lock()
	if ps.m == nil {
		ps.m = map[programKey]*programEntry{}
	}
	e := ps.m[key]
	if e == nil {
		e = &programEntry{}
		ps.m[key] = e
	}
	ps.mu.Unlock()
	e.once.Do(func() {
		// A CommonJS module is a function of module, exports and require;
		// the rewritten namespaces and helpers call the last parameters
		// (see namespace.go).
		head := "(function (module, exports, require, " + nsFunc + ", " + interopFunc + ") {"
		var sm *sourceMap
		if plugin {
			head = "(async function (module, exports, require, __podcode_module, __podcode_require, " + interopFunc + ") {"
			if code, sm = splitSourceMap(code); sm != nil {
				sm.shift(len(head))
				code += sm.inline()
			}
		}
		e.p, e.err = compile(name, head+code+"\n})", sm)
	})
	return e.p, e.err
}

// moduleSystem evaluates one plugin's bundles in its runtime: the plugin's
// own code and the npm packages it requires, each at most once. Loop
// goroutine only.
type moduleSystem struct {
	rt       *jsrt.Runtime
	vm       *goja.Runtime
	packages map[string]*goja.Program // bare specifier → compiled package bundle
	cache    map[string]goja.Value    // specifier → module.exports
	require  goja.Value
	interop  *interop
	// evaluating are the packages being evaluated, the innermost last
	evaluating []string
}

func newModuleSystem(rt *jsrt.Runtime, vm *goja.Runtime, packages map[string]*goja.Program) *moduleSystem {
	m := &moduleSystem{rt: rt, vm: vm, packages: packages, cache: map[string]goja.Value{}, interop: newInterop(vm)}
	m.require = vm.ToValue(func(call goja.FunctionCall) goja.Value {
		spec := call.Argument(0).String()
		v, err := m.load(spec)
		var ex *goja.Exception
		switch {
		case errors.Is(err, errUnavailable):
			panic(rt.OneLineError(m.unavailable(spec)))
		case errors.As(err, &ex):
			panic(ex.Value()) // what a package threw as it loaded, as it threw it
		case err != nil:
			panic(vm.NewGoError(err))
		}
		return v
	})
	return m
}

// loaded is a JavaScript array of the exports of the packages evaluated so
// far, by specifier: where tools.js looks for the zod copy of a schema.
func (m *moduleSystem) loaded() goja.Value {
	specs := make([]string, 0, len(m.cache))
	for spec := range m.cache {
		specs = append(specs, spec)
	}
	slices.Sort(specs)
	out := make([]any, len(specs))
	for i, spec := range specs {
		out[i] = m.cache[spec]
	}
	return m.vm.NewArray(out...)
}

func (m *moduleSystem) load(spec string) (goja.Value, error) {
	if v, ok := m.cache[spec]; ok {
		return v, nil
	}
	if isBuiltin(spec) {
		v, ok, err := m.rt.Builtin(spec)
		if ok || err != nil {
			return v, err
		}
		return nil, errUnavailable
	}
	prg, ok := m.packages[spec]
	if !ok {
		return nil, fmt.Errorf("cannot find module %q", spec)
	}
	return m.eval(prg, spec)
}

// errUnavailable is load's error for a Node module the runtime does not
// provide (the plugin's own imports of one fail at bundling).
var errUnavailable = errors.New("not available to Podcode plugins")

// unavailable says which Node module a package required that the runtime
// does not provide, which package, and where the plugin's own code
// imports it (the first frame of the stack in one of its files).
func (m *moduleSystem) unavailable(spec string) string {
	msg := fmt.Sprintf("module %q is not available to Podcode plugins", spec)
	if n := len(m.evaluating); n > 0 {
		msg += fmt.Sprintf(" (npm package %q requires it", m.evaluating[n-1])
		for _, f := range m.vm.CaptureCallStack(0, nil) {
			if src := f.SrcName(); filepath.IsAbs(src) {
				pos := f.Position()
				msg += fmt.Sprintf(", imported at %s:%d:%d", src, pos.Line, pos.Column)
				break
			}
		}
		msg += ")"
	}
	return msg
}

// evalPlugin starts the plugin's own bundle and returns what its async
// function returned (a promise) and its module, whose exports are the
// plugin's once the promise settled.
func (m *moduleSystem) evalPlugin(prg *goja.Program) (goja.Value, *goja.Object, error) {
	fn, err := m.vm.RunProgram(prg)
	if err != nil {
		return nil, nil, err
	}
	call, ok := goja.AssertFunction(fn)
	if !ok {
		return nil, nil, fmt.Errorf("the plugin's bundle is not a module function")
	}
	module := m.vm.NewObject()
	exports := m.vm.NewObject()
	module.Set("exports", exports)
	done, err := call(goja.Undefined(), module, exports, m.require, module, m.require, m.interop.wrap)
	return done, module, err
}

// eval runs a compiled CommonJS bundle and returns its module.exports.
func (m *moduleSystem) eval(prg *goja.Program, spec string) (goja.Value, error) {
	fn, err := m.vm.RunProgram(prg)
	if err != nil {
		return nil, err
	}
	call, ok := goja.AssertFunction(fn)
	if !ok {
		return nil, fmt.Errorf("bundle of %s is not a module function", spec)
	}
	module := m.vm.NewObject()
	exports := m.vm.NewObject()
	module.Set("exports", exports)
	if spec != "" {
		m.cache[spec] = exports // a cycle sees the exports so far, as in Node
	}
	m.evaluating = append(m.evaluating, spec)
	_, err = call(goja.Undefined(), module, exports, m.require, m.interop.ns, m.interop.wrap)
	m.evaluating = m.evaluating[:len(m.evaluating)-1]
	if err != nil {
		delete(m.cache, spec)
		return nil, err
	}
	out := module.Get("exports")
	if spec != "" {
		m.cache[spec] = out
	}
	return out, nil
}

// compile is goja.Compile, keeping the parser's errors to place them
// with sm (goja's own Compile turns them into text).
func compile(name, src string, sm *sourceMap) (*goja.Program, error) {
	prg, err := parser.ParseFile(nil, name, src, 0)
	if err != nil {
		return nil, syntaxError(err, name, sm)
	}
	return goja.CompileAST(prg, false)
}

// syntaxError names the plugin's own file, line and column in a parse
// error of its bundle (goja reads the bundle's source map only once it
// parsed the whole bundle, so its parse errors give the bundle's lines).
// entry is the bundle's name: the map's sources are relative to its folder.
func syntaxError(err error, entry string, sm *sourceMap) error {
	var list parser.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return fmt.Errorf("SyntaxError: %w", err)
	}
	if sm == nil {
		return fmt.Errorf("SyntaxError: %w", err)
	}
	pos := list[0].Position
	src, line, col, ok := sm.lookup(pos.Line, pos.Column)
	if !ok {
		return fmt.Errorf("SyntaxError: %w", err)
	}
	if !filepath.IsAbs(src) {
		src = filepath.Join(filepath.Dir(entry), filepath.FromSlash(src))
	}
	more := ""
	if len(list) > 1 {
		more = fmt.Sprintf(" (and %d more errors)", len(list)-1)
	}
	return fmt.Errorf("%s:%d:%d: SyntaxError: %s%s", src, line, col, list[0].Message, more)
}
