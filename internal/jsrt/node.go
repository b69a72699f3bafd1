package jsrt

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/dop251/goja"
)

// Node's modules, as plugins written for Node import them.
//
// Each module is a JavaScript file under node/ (its name, "/" written
// "."), the body of a CommonJS function of
// (module, exports, require, host): require loads another of these
// modules (the names under internal/ only from here), and host is the
// module's Go half, made by its nodeHosts entry, or undefined. A module is
// compiled once per process and evaluated in a runtime on its first
// require there, so a plugin pays only for the modules it uses: a fresh
// runtime holds none of them. What each module provides, and how it
// differs from Node's, is in docs/plugins.md; every difference a plugin
// can see is tested against Node itself (node_test.go).
//
// Every operation that reaches outside JavaScript goes through the host
// functions of hostio.go and web.go, under their bounds: file operations
// in the runtime's pools, reads of regular files only and at most half the
// memory budget, writes held within MaxHeldBytes, processes through
// Options.Exec.

//go:embed node/*.js
var nodeFiles embed.FS

// nodeAliases are the modules that are a property of another.
var nodeAliases = map[string][2]string{
	"fs/promises":     {"fs", "promises"},
	"path/posix":      {"path", "posix"},
	"util/types":      {"util", "types"},
	"assert/strict":   {"assert", "strict"},
	"stream/promises": {"stream", "promises"},
	"timers/promises": {"timers", "promises"},
}

// nodeHosts makes the Go half of a module, for the modules that have
// one; each is registered by the file that implements it.
var nodeHosts = map[string]func(r *Runtime) (*goja.Object, error){}

// nodePrograms are the compiled modules, by name, shared by every runtime.
var nodePrograms sync.Map // string → func() (*goja.Program, error)

// BuiltinModules are the Node modules plugins may import, without the
// node: prefix, sorted: the files of node/ but the internal ones, and the
// aliases. Bundling refuses a plugin that imports another one.
var BuiltinModules = func() []string {
	entries, err := nodeFiles.ReadDir("node")
	if err != nil {
		panic(err)
	}
	var names []string
	for _, e := range entries {
		name := strings.ReplaceAll(strings.TrimSuffix(e.Name(), ".js"), ".", "/")
		if !strings.HasPrefix(name, "internal/") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var aliases []string // apart: names must stay sorted while searched
	for alias, a := range nodeAliases {
		if _, found := slices.BinarySearch(names, a[0]); found {
			aliases = append(aliases, alias)
		}
	}
	names = append(names, aliases...)
	slices.Sort(names)
	return names
}()

// IsBuiltinModule reports whether spec (with or without the node: prefix)
// names one of BuiltinModules. "bun" is Bun's module (node/bun.js), never
// node:bun.
func IsBuiltinModule(spec string) bool {
	if spec == "node:bun" {
		return false
	}
	_, found := slices.BinarySearch(BuiltinModules, strings.TrimPrefix(spec, "node:"))
	return found
}

// nodeProgram compiles the module name, once per process.
func nodeProgram(name string) (*goja.Program, error) {
	f, _ := nodePrograms.LoadOrStore(name, sync.OnceValues(func() (*goja.Program, error) {
		file := "node/" + strings.ReplaceAll(name, "/", ".") + ".js"
		src, err := nodeFiles.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("no Node module %q", name)
		}
		return goja.Compile("node:"+name, "(function (module, exports, require, host) {"+string(src)+"\n})", true)
	}))
	return f.(func() (*goja.Program, error))()
}

// Builtin returns the Node module spec (one of BuiltinModules, with or
// without the node: prefix), evaluating it on first use; ok is false for
// any other spec. Loop goroutine only.
func (r *Runtime) Builtin(spec string) (v goja.Value, ok bool, err error) {
	if !IsBuiltinModule(spec) {
		return nil, false, nil
	}
	v, err = r.requireNode(spec, false)
	return v, true, err
}

// requireNode returns the exports of the Node module name, evaluating it
// on first use; internal allows the modules under internal/. A cycle sees
// the exports so far, as in Node. Loop goroutine only.
func (r *Runtime) requireNode(name string, internal bool) (goja.Value, error) {
	name = strings.TrimPrefix(name, "node:")
	if v, ok := r.host.node[name]; ok {
		return v, nil
	}
	if a, ok := nodeAliases[name]; ok {
		parent, err := r.requireNode(a[0], internal)
		if err != nil {
			return nil, err
		}
		v := parent.ToObject(r.vm).Get(a[1])
		r.host.node[name] = v
		return v, nil
	}
	if strings.HasPrefix(name, "internal/") && !internal {
		return nil, fmt.Errorf("module %q is not available to Podcode plugins", "node:"+name)
	}
	prg, err := nodeProgram(name)
	if err != nil {
		return nil, err
	}
	var host goja.Value = goja.Undefined()
	if mk := nodeHosts[name]; mk != nil {
		h, err := mk(r)
		if err != nil {
			return nil, fmt.Errorf("node:%s: %w", name, err)
		}
		host = h
	}
	fn, err := r.vm.RunProgram(prg)
	if err != nil {
		return nil, err
	}
	call, _ := goja.AssertFunction(fn)
	module := r.vm.NewObject()
	exports := r.vm.NewObject()
	module.Set("exports", exports)
	r.host.node[name] = exports
	if _, err := call(goja.Undefined(), module, exports, r.host.nodeRequire, host); err != nil {
		delete(r.host.node, name)
		return nil, err
	}
	out := module.Get("exports")
	r.host.node[name] = out
	return out, nil
}

// installNodeRequire makes the require the modules of node/ get.
func (r *Runtime) installNodeRequire() {
	r.host.node = map[string]goja.Value{}
	r.host.nodeRequire = r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		v, err := r.requireNode(call.Argument(0).String(), true)
		if err != nil {
			panic(r.vm.NewGoError(err))
		}
		return v
	})
}
