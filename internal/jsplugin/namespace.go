package jsplugin

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// Module namespaces without a function per export.
//
// esbuild turns every ES module namespace a bundle needs (export * as z,
// import * as ns, a package's exports as seen by require) into an object
// with one getter function per export: var ns = {}; __export(ns, {a: () =>
// a, …}), and __toCommonJS and __toESM copy such an object into another
// one, again with a getter per export. goja makes each of those functions
// a full object (about 1 KiB with its property map), so zod 4, with 1,250
// exports in its namespaces and 400 copied for require, cost every plugin
// importing it 1.9 MiB and a third of its evaluation.
//
// So bundles are rewritten once, when they are built (rewriteInterop): each
// such pair of statements becomes var ns = __podcode_ns(names, lookup),
// where names is the JSON array of the export names and lookup one arrow
// function returning the binding of export i (a balanced tree of
// conditionals, so a lookup is about log2(n) comparisons), and the
// __toCommonJS and __toESM helpers are wrapped by __podcode_interop. At
// run time __podcode_ns makes a Proxy whose traps (Go) answer from the name
// table, shared by every runtime, and the lookup: one object and one
// function per namespace and runtime. The bindings stay live (each read
// calls lookup), a binding read before its module ran still throws, and,
// as in Node, a namespace refuses writes. The proxy reports each export as
// a data property (writable, enumerable, configurable), where esbuild's
// object has accessors.
//
// The price is on reads: each goes from the trap into the lookup, about
// three times a getter's cost (BenchmarkNamespace), small next to what
// evaluating the getters cost every plugin.
//
// What is not rewritten keeps esbuild's form and works as before: a block
// of another shape, and a namespace that also receives another module's
// exports (__reExport).

const (
	nsFunc      = "__podcode_ns"
	interopFunc = "__podcode_interop"
)

// rewriteInterop rewrites a bundle's namespaces (when namespaces is set:
// package bundles, whose exports are all read through them) and its
// __toCommonJS and __toESM helpers. It returns code unchanged when code
// does not parse (compiling it reports the error). The edits keep every
// line where it was: a plugin bundle's inline source map stays right, and
// a package's stack traces name the lines esbuild wrote.
func rewriteInterop(code string, namespaces bool) string {
	prg, err := parser.ParseFile(nil, "", code, 0)
	if err != nil {
		return code
	}
	type edit struct {
		from, to int // byte offsets in code
		text     string
	}
	var edits []edit
	body := prg.Body
	for i, st := range body {
		vs, ok := st.(*ast.VariableStatement)
		if !ok || len(vs.List) != 1 {
			continue
		}
		b := vs.List[0]
		id, ok := b.Target.(*ast.Identifier)
		if !ok || b.Initializer == nil {
			continue
		}
		name := id.Name.String()
		switch {
		case name == "__toCommonJS" || name == "__toESM":
			from, to := int(b.Initializer.Idx0())-1, int(b.Initializer.Idx1())-1
			edits = append(edits, edit{from, from, interopFunc + "("}, edit{to, to, ")"})
		case namespaces && i+1 < len(body):
			if obj, ok := b.Initializer.(*ast.ObjectLiteral); !ok || len(obj.Value) != 0 {
				continue
			}
			names, values, ok := exportCall(body[i+1], name)
			if !ok || strings.Contains(code, "__reExport("+name+",") {
				continue
			}
			from, to := int(vs.Idx0())-1, int(body[i+1].Idx1())-1
			if to < len(code) && code[to] == ';' {
				to++
			}
			js, _ := json.Marshal(names)
			text := "var " + name + " = " + nsFunc + "(" + strconvQuote(string(js)) + ", (i) => " + lookupTree(values, 0, len(values)) + ");"
			text += strings.Repeat("\n", strings.Count(code[from:to], "\n"))
			edits = append(edits, edit{from, to, text})
		}
	}
	if len(edits) == 0 {
		return code
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	var out strings.Builder
	out.Grow(len(code))
	at := 0
	for _, e := range edits {
		if e.from < at || e.to > len(code) {
			return code // overlapping edits cannot happen; be safe anyway
		}
		out.WriteString(code[at:e.from])
		out.WriteString(e.text)
		at = e.to
	}
	out.WriteString(code[at:])
	return out.String()
}

// exportCall matches __export(target, {name: () => binding, …}) and
// returns the names and bindings.
func exportCall(st ast.Statement, target string) (names, values []string, ok bool) {
	es, isExpr := st.(*ast.ExpressionStatement)
	if !isExpr {
		return nil, nil, false
	}
	call, isCall := es.Expression.(*ast.CallExpression)
	if !isCall || len(call.ArgumentList) != 2 {
		return nil, nil, false
	}
	if callee, isID := call.Callee.(*ast.Identifier); !isID || callee.Name.String() != "__export" {
		return nil, nil, false
	}
	if t, isID := call.ArgumentList[0].(*ast.Identifier); !isID || t.Name.String() != target {
		return nil, nil, false
	}
	obj, isObj := call.ArgumentList[1].(*ast.ObjectLiteral)
	if !isObj || len(obj.Value) == 0 {
		return nil, nil, false
	}
	seen := map[string]bool{}
	for _, p := range obj.Value {
		pk, isKeyed := p.(*ast.PropertyKeyed)
		if !isKeyed || pk.Computed || pk.Kind != ast.PropertyKindValue {
			return nil, nil, false
		}
		key, isStr := pk.Key.(*ast.StringLiteral)
		fn, isArrow := pk.Value.(*ast.ArrowFunctionLiteral)
		if !isStr || !isArrow || fn.Async || len(fn.ParameterList.List) != 0 || fn.ParameterList.Rest != nil {
			return nil, nil, false
		}
		eb, isBody := fn.Body.(*ast.ExpressionBody)
		if !isBody {
			return nil, nil, false
		}
		v, isID := eb.Expression.(*ast.Identifier)
		k := key.Value.String()
		if _, err := strconv.Atoi(k); !isID || seen[k] || err == nil {
			// A name like "0" is read through the proxy's index traps:
			// keep esbuild's form for such a namespace.
			return nil, nil, false
		}
		seen[k] = true
		names = append(names, k)
		values = append(values, v.Name.String())
	}
	return names, values, true
}

// lookupTree is an expression of i giving values[i] for lo <= i < hi.
func lookupTree(values []string, lo, hi int) string {
	if hi-lo == 1 {
		return values[lo]
	}
	mid := (lo + hi) / 2
	return "(i < " + strconv.Itoa(mid) + " ? " + lookupTree(values, lo, mid) + " : " + lookupTree(values, mid, hi) + ")"
}

// nsTable is the export names of one namespace, shared by the runtimes
// that evaluate its bundle.
type nsTable struct {
	names []string
	index map[string]int
}

// nsTables caches the tables by their JSON text. Bounded by the bundles
// this process compiled.
var nsTables sync.Map // string → *nsTable

func tableFor(js string) (*nsTable, error) {
	if t, ok := nsTables.Load(js); ok {
		return t.(*nsTable), nil
	}
	t := &nsTable{}
	if err := json.Unmarshal([]byte(js), &t.names); err != nil {
		return nil, fmt.Errorf("namespace table: %w", err)
	}
	t.index = make(map[string]int, len(t.names))
	for i, n := range t.names {
		t.index[n] = i
	}
	v, _ := nsTables.LoadOrStore(js, t)
	return v.(*nsTable), nil
}

// interop is the run-time half of the rewrite, one per runtime (loop
// goroutine only).
type interop struct {
	vm *goja.Runtime
	// cjs maps each namespace to its view as require returns it (the
	// namespace with __esModule); views holds those views.
	cjs   map[*goja.Object]*goja.Object
	views map[*goja.Object]bool
	ns    goja.Value // __podcode_ns
	wrap  goja.Value // __podcode_interop
}

func newInterop(vm *goja.Runtime) *interop {
	in := &interop{vm: vm, cjs: map[*goja.Object]*goja.Object{}, views: map[*goja.Object]bool{}}
	in.ns = vm.ToValue(func(call goja.FunctionCall) goja.Value {
		t, err := tableFor(call.Argument(0).String())
		if err != nil {
			panic(vm.NewGoError(err))
		}
		lookup, ok := goja.AssertFunction(call.Argument(1))
		if !ok {
			panic(vm.NewTypeError("%s: the lookup is not a function", nsFunc))
		}
		return in.namespace(t, lookup)
	})
	in.wrap = vm.ToValue(func(call goja.FunctionCall) goja.Value {
		helper, ok := goja.AssertFunction(call.Argument(0))
		if !ok {
			return call.Argument(0)
		}
		return vm.ToValue(func(c goja.FunctionCall) goja.Value {
			if mod, isObj := c.Argument(0).(*goja.Object); isObj {
				// __toCommonJS(namespace): its view with __esModule.
				if view := in.cjs[mod]; view != nil {
					return view
				}
				// __toESM(view) outside Node mode: the view is already
				// what the copy would be (its exports and __esModule).
				if in.views[mod] && !c.Argument(1).ToBoolean() {
					return mod
				}
			}
			v, err := helper(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
	})
	return in
}

// namespace returns the proxy for one namespace, and makes its view.
func (in *interop) namespace(t *nsTable, lookup goja.Callable) *goja.Object {
	ns := in.proxy(t, lookup, false)
	view := in.proxy(t, lookup, true)
	in.cjs[ns] = view
	in.views[view] = true
	return ns
}

func (in *interop) proxy(t *nsTable, lookup goja.Callable, esModule bool) *goja.Object {
	vm := in.vm
	target := vm.NewObject()
	if esModule {
		// As __toCommonJS defines it: not enumerable, not writable.
		target.DefineDataProperty("__esModule", vm.ToValue(true), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	}
	get := func(i int) goja.Value {
		v, err := lookup(goja.Undefined(), vm.ToValue(i))
		if err != nil {
			panic(err) // a binding read before its module ran: the ReferenceError
		}
		return v
	}
	p := vm.NewProxy(target, &goja.ProxyTrapConfig{
		Get: func(target *goja.Object, key string, _ goja.Value) goja.Value {
			if i, ok := t.index[key]; ok {
				return get(i)
			}
			if v := target.Get(key); v != nil {
				return v
			}
			return goja.Undefined()
		},
		Has: func(target *goja.Object, key string) bool {
			_, ok := t.index[key]
			return ok || target.Get(key) != nil
		},
		GetOwnPropertyDescriptor: func(target *goja.Object, key string) goja.PropertyDescriptor {
			if i, ok := t.index[key]; ok {
				return goja.PropertyDescriptor{Value: get(i), Writable: goja.FLAG_TRUE, Enumerable: goja.FLAG_TRUE, Configurable: goja.FLAG_TRUE}
			}
			if esModule && key == "__esModule" {
				return goja.PropertyDescriptor{Value: vm.ToValue(true), Writable: goja.FLAG_FALSE, Enumerable: goja.FLAG_FALSE, Configurable: goja.FLAG_FALSE}
			}
			return goja.PropertyDescriptor{}
		},
		OwnKeys: func(*goja.Object) *goja.Object {
			keys := make([]any, 0, len(t.names)+1)
			for _, n := range t.names {
				keys = append(keys, n)
			}
			if esModule {
				keys = append(keys, "__esModule")
			}
			return vm.NewArray(keys...)
		},
		Set:               func(*goja.Object, string, goja.Value, goja.Value) bool { return false },
		SetIdx:            func(*goja.Object, int, goja.Value, goja.Value) bool { return false },
		SetSym:            func(*goja.Object, *goja.Symbol, goja.Value, goja.Value) bool { return false },
		DefineProperty:    func(*goja.Object, string, goja.PropertyDescriptor) bool { return false },
		DefinePropertyIdx: func(*goja.Object, int, goja.PropertyDescriptor) bool { return false },
		DefinePropertySym: func(*goja.Object, *goja.Symbol, goja.PropertyDescriptor) bool { return false },
		DeleteProperty: func(_ *goja.Object, key string) bool {
			_, ok := t.index[key]
			return !ok && !(esModule && key == "__esModule")
		},
	})
	return vm.ToValue(p).(*goja.Object)
}
