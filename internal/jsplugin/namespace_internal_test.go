package jsplugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/podcode/podcode/internal/jsrt"
)

// esbuildNamespaces is a package bundle as esbuild writes one: two
// namespaces, one of them also filled by __reExport, and the helpers.
const esbuildNamespaces = `var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);
var __toESM = (mod, isNodeMode, target) => (target = {},
  __copyProps(target, mod));
var a_exports = {};
__export(a_exports, {
  "0x": () => zero,
  default: () => a_default,
  "odd name": () => odd,
  x: () => x
});
var b_exports = {};
__export(b_exports, {
  y: () => y
});
__reExport(b_exports, other);
var c_exports = {};
__export(c_exports, {
  z: () => z + 1
});
module.exports = __toCommonJS(a_exports);
`

// The rewrite turns each namespace esbuild built from getters into one
// __podcode_ns call, wraps the helpers, leaves alone what it cannot turn
// (a namespace __reExport fills, an export that is not a plain binding),
// and keeps every line where it was.
func TestRewriteInteropNamespaces(t *testing.T) {
	out := rewriteInterop(esbuildNamespaces, true)
	if _, err := parser.ParseFile(nil, "", out, 0); err != nil {
		t.Fatalf("the rewrite does not parse: %v\n%s", err, out)
	}
	if strings.Count(out, "\n") != strings.Count(esbuildNamespaces, "\n") {
		t.Errorf("lines moved:\n%s", out)
	}
	for _, want := range []string{
		`var a_exports = __podcode_ns("[\"0x\",\"default\",\"odd name\",\"x\"]", (i) => (i < 2 ? (i < 1 ? zero : a_default) : (i < 3 ? odd : x)));`,
		`var __toCommonJS = __podcode_interop((mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod));`,
		"var __toESM = __podcode_interop((mod, isNodeMode, target) => (target = {},\n  __copyProps(target, mod)));",
		"var b_exports = {};\n__export(b_exports, {", // filled by __reExport too
		"var c_exports = {};\n__export(c_exports, {", // not a plain binding
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// A plugin bundle keeps its namespaces: only the helpers change.
	if out := rewriteInterop(esbuildNamespaces, false); strings.Contains(out, nsFunc) || !strings.Contains(out, interopFunc+"((mod)") {
		t.Errorf("plugin bundle:\n%s", out)
	}
	if out := rewriteInterop("var x = {;", true); out != "var x = {;" {
		t.Errorf("code that does not parse changed: %q", out)
	}
}

// A package bundle is cached rewritten: esbuild's namespace getters are
// gone from what the runtimes evaluate.
func TestPackageBundleIsRewritten(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"node_modules/p/package.json": `{"name": "p", "type": "module", "main": "index.js"}`,
		"node_modules/p/index.js":     "export * as inner from \"./inner.js\"\nexport const a = 1\n",
		"node_modules/p/inner.js":     "export const b = 2\n",
	}
	for name, content := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	bu, err := NewBundler(t.TempDir()).Package("p", dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(bu.Code, "__export(") || strings.Count(bu.Code, nsFunc+"(") != 2 {
		t.Errorf("bundle:\n%s", bu.Code)
	}
}

// Loads raise the collector's target while any runs and set Go's default
// back when the last ends; a target the process chose is kept.
func TestBootRaisesGCTargetForTheLoadsOnly(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	var wg sync.WaitGroup
	restores := make([]func(), 8)
	for i := range restores {
		wg.Add(1)
		go func() { defer wg.Done(); restores[i] = raiseGC() }()
	}
	wg.Wait()
	if got := debug.SetGCPercent(bootGCPercent); got != bootGCPercent {
		t.Errorf("GOGC during loads: %d", got)
	}
	for i, restore := range restores {
		restore()
		restore() // twice is once
		want := bootGCPercent
		if i == len(restores)-1 {
			want = 100
		}
		if got := debug.SetGCPercent(want); got != want {
			t.Errorf("after %d of %d loads ended: GOGC %d, want %d", i+1, len(restores), got, want)
		}
	}
	debug.SetGCPercent(50)
	raiseGC()()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("a chosen GOGC of 50 became %d", got)
	}
}

// The rewrite reads what esbuild made of a plugin's code before the user
// trusted it: it never panics, and what parsed still parses, on the same
// lines.
func FuzzRewriteInterop(f *testing.F) {
	f.Add(esbuildNamespaces)
	f.Add("var a = {};\n__export(a, {\n  b: () => c\n});\n")
	f.Add("var __toESM = 1;\nvar a = {};\n__export(a, { [k]: () => c, get d() { return 1 } });")
	f.Fuzz(func(t *testing.T, code string) {
		out := rewriteInterop(code, true)
		if _, err := parser.ParseFile(nil, "", code, 0); err != nil {
			return
		}
		if _, err := parser.ParseFile(nil, "", out, 0); err != nil {
			t.Fatalf("%q parsed, its rewrite %q does not: %v", code, out, err)
		}
		if strings.Count(out, "\n") != strings.Count(code, "\n") {
			t.Fatalf("lines moved: %q → %q", code, out)
		}
	})
}

// What a namespace costs: evaluating a package bundle with 400 exports in
// one namespace and reading an export through it, in esbuild's form (a
// getter per export) and rewritten (one proxy).
//
//	go test -run '^$' -bench Namespace -benchmem ./internal/jsplugin/
func BenchmarkNamespace(b *testing.B) {
	var src strings.Builder
	src.WriteString("var __defProp = Object.defineProperty;\nvar __export = (target, all) => {\n  for (var name in all)\n    __defProp(target, name, { get: all[name], enumerable: true });\n};\n")
	for i := range 400 {
		fmt.Fprintf(&src, "function f%d() { return %d }\n", i, i)
	}
	src.WriteString("var ns_exports = {};\n__export(ns_exports, {\n")
	for i := range 400 {
		fmt.Fprintf(&src, "  f%d: () => f%d,\n", i, i)
	}
	src.WriteString("});\nmodule.exports = ns_exports;\n")
	for _, c := range []struct {
		name string
		code string
	}{{"esbuild", src.String()}, {"rewritten", rewriteInterop(src.String(), true)}} {
		prg, err := (&programs{}).get("ns", c.code, false)
		if err != nil {
			b.Fatal(err)
		}
		rt, err := jsrt.New(jsrt.Options{Name: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.Run("eval/"+c.name, func(b *testing.B) {
			for b.Loop() {
				rt.Do(ctx, func(vm *goja.Runtime) error {
					_, err := newModuleSystem(rt, vm, map[string]*goja.Program{"ns": prg}).load("ns")
					return err
				})
			}
		})
		var read goja.Callable
		rt.Do(ctx, func(vm *goja.Runtime) error {
			ns, err := newModuleSystem(rt, vm, map[string]*goja.Program{"ns": prg}).load("ns")
			if err != nil {
				return err
			}
			fn, err := vm.RunString("(ns) => () => { let s = 0; for (let i = 0; i < 1000; i++) s += ns.f200(); return s }")
			if err != nil {
				return err
			}
			f, _ := goja.AssertFunction(fn)
			v, err := f(goja.Undefined(), ns)
			read, _ = goja.AssertFunction(v)
			return err
		})
		b.Run("read1000/"+c.name, func(b *testing.B) {
			for b.Loop() {
				rt.Do(ctx, func(*goja.Runtime) error {
					_, err := read(goja.Undefined())
					return err
				})
			}
		})
		rt.Close()
	}
}
