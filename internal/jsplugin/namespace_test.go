package jsplugin_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
)

// nsPackage is an npm package whose exports reach a plugin through module
// namespaces: export * as, a live binding, a default export, and the
// exports of a CommonJS file re-exported.
var nsPackage = map[string]string{
	"node_modules/nspkg/package.json": `{"name": "nspkg", "type": "module", "main": "index.js"}`,
	"node_modules/nspkg/index.js": `export * as inner from "./inner.js"
export { counter, bump } from "./inner.js"
export const answer = 42
export default function hello() { return "hello" }
`,
	"node_modules/nspkg/inner.js": `export let counter = 0
export function bump() { counter++; return counter }
export const label = "inner"
`,
	"node_modules/cjsmix/package.json": `{"name": "cjsmix", "type": "module", "main": "index.js"}`,
	"node_modules/cjsmix/index.js":     "export * from \"./legacy.cjs\"\nexport const own = 1\n",
	"node_modules/cjsmix/legacy.cjs":   "exports.legacy = 'old'\n",
}

// nsObserver reads the package through every kind of import and reports
// what it saw.
const nsObserver = `import * as pkg from "nspkg"
import hello, { inner, counter, bump, answer } from "nspkg"
import * as mix from "cjsmix"

function observe() {
  "use strict" // as in Node, where a module is strict (esbuild's CommonJS output is not)
  const before = inner.counter
  bump()
  let writeRefused = false
  try { inner.counter = 99 } catch (e) { writeRefused = e instanceof TypeError }
  let addRefused = false
  try { inner.extra = 1 } catch (e) { addRefused = e instanceof TypeError }
  return {
    before, after: inner.counter, named: counter, star: pkg.inner.counter, afterWrite: inner.counter,
    writeRefused, addRefused, extra: inner.extra === undefined,
    keys: Object.keys(inner), pkgKeys: Object.keys(pkg).sort(),
    spread: { ...inner }.label, json: JSON.parse(JSON.stringify(inner)),
    has: ["label" in inner, "nope" in inner, "toString" in inner],
    answer, hello: hello(), sameDefault: pkg.default === hello,
    label: Object.getOwnPropertyDescriptor(inner, "label"),
    mix: [mix.legacy, mix.own],
  }
}

export default {
  id: "ns",
  server: () => ({
    tool: () => [{ id: "ns_observe", description: "what the plugin sees of its package", parameters: { type: "object", properties: {} },
      execute: async () => ({ title: "seen", output: JSON.stringify(observe()) }) }],
  }),
}
`

// A package's module namespaces behave as ES module namespaces when a
// plugin reads them, whatever the import: bindings are live, an export
// read through a namespace is a data property (as in Node), a namespace
// refuses writes and new properties, and enumeration, spread, JSON and
// the in operator see the exports. Each namespace is one object with no
// function per export (see namespace.go).
func TestPackageNamespacesBehaveAsModuleNamespaces(t *testing.T) {
	files := map[string]string{"observer.js": nsObserver}
	for k, v := range nsPackage {
		files[k] = v
	}
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{"./observer.js"}, Files: files})
	if got := ids(a.Plugins.Plugins); got != "ns" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{CallID: "c"}, "ns_observe", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(res.Output), &got); err != nil {
		t.Fatalf("%v: %s", err, res.Output)
	}
	want := map[string]any{
		"before": 0.0, "after": 1.0, "named": 1.0, "star": 1.0, "afterWrite": 1.0,
		"writeRefused": true, "addRefused": true, "extra": true,
		"keys":    []any{"bump", "counter", "label"},
		"pkgKeys": []any{"answer", "bump", "counter", "default", "inner"},
		"spread":  "inner", "json": map[string]any{"counter": 1.0, "label": "inner"},
		"has":    []any{true, false, true},
		"answer": 42.0, "hello": "hello", "sameDefault": true,
		"label": map[string]any{"value": "inner", "writable": true, "enumerable": true, "configurable": true},
		"mix":   []any{"old", 1.0},
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s: got %v, want %v", k, got[k], w)
		}
	}
}
