package jsplugin

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/jsrt"
)

// nodeBuiltins are Node's module names; esbuild leaves them as require
// calls, and the runtime provides some of them (jsrt.Runtime.Builtin).
var nodeBuiltins = map[string]bool{
	"assert": true, "buffer": true, "child_process": true, "crypto": true, "events": true, "fs": true,
	"fs/promises": true, "http": true, "https": true, "net": true, "os": true, "path": true,
	"path/posix": true, "process": true, "stream": true, "string_decoder": true, "timers": true,
	"tty": true, "url": true, "util": true, "worker_threads": true, "zlib": true,
}

func isBuiltin(spec string) bool {
	return strings.HasPrefix(spec, "node:") || nodeBuiltins[spec]
}

// programs compiles each bundle once per process, keyed by the hash of its
// code, and shares the compiled program between every runtime that
// evaluates it: twenty plugins importing zod parse zod once.
type programs struct {
	mu sync.Mutex
	m  map[[32]byte]*programEntry
}

type programEntry struct {
	once sync.Once
	p    *goja.Program
	err  error
}

func (ps *programs) get(name, code string) (*goja.Program, error) {
	key := sha256.Sum256([]byte(code))
	ps.mu.Lock()
	if ps.m == nil {
		ps.m = map[[32]byte]*programEntry{}
	}
	e := ps.m[key]
	if e == nil {
		e = &programEntry{}
		ps.m[key] = e
	}
	ps.mu.Unlock()
	e.once.Do(func() {
		// A CommonJS module is a function of module, exports and require.
		e.p, e.err = goja.Compile(name, "(function (module, exports, require) {"+code+"\n})", false)
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
}

func newModuleSystem(rt *jsrt.Runtime, vm *goja.Runtime, packages map[string]*goja.Program) *moduleSystem {
	m := &moduleSystem{rt: rt, vm: vm, packages: packages, cache: map[string]goja.Value{}}
	m.require = vm.ToValue(func(call goja.FunctionCall) goja.Value {
		spec := call.Argument(0).String()
		v, err := m.load(spec)
		if err != nil {
			panic(vm.NewGoError(err))
		}
		return v
	})
	return m
}

func (m *moduleSystem) load(spec string) (goja.Value, error) {
	if v, ok := m.cache[spec]; ok {
		return v, nil
	}
	if isBuiltin(spec) {
		if v, ok := m.rt.Builtin(spec); ok {
			return v, nil
		}
		return nil, fmt.Errorf("module %q is not available to Podcode plugins (available: node:path, node:fs/promises)", spec)
	}
	prg, ok := m.packages[spec]
	if !ok {
		return nil, fmt.Errorf("cannot find module %q", spec)
	}
	return m.eval(prg, spec)
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
	if _, err := call(goja.Undefined(), module, exports, m.require); err != nil {
		delete(m.cache, spec)
		return nil, err
	}
	out := module.Get("exports")
	if spec != "" {
		m.cache[spec] = out
	}
	return out, nil
}
