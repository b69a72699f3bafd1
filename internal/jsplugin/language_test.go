package jsplugin_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
)

// for await, async generators, top-level await and import() of a file of
// the bundle work in a plugin, at its top level and in its hooks.
func TestLanguageFeaturesGojaLacks(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, filepath.Join("language", "main.ts"))}})
	if got := ids(a.Plugins.Plugins); got != "language" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	out, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "read"})
	want := map[string]any{"toolID": "read", "startup": 6.0, "sum": 10.0, "lazy": "lazy loaded", "same": true, "double": 4.0}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("%s = %v, want %v (steps %+v)", k, out[k], v, steps)
		}
	}
}

// The same in hooks of a plugin without top-level await.
func TestLanguageFeaturesInHooks(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, filepath.Join("language", "hooks-only.ts"))}})
	if got := ids(a.Plugins.Plugins); got != "hooks-only" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	if out := beforeRead(a); out["sum"] != 10.0 || out["double"] != 20.0 {
		t.Errorf("out %v", out)
	}
}

// A module Podcode does not provide fails the plugin's load, naming the
// module and where the plugin imports it.
func TestUnavailableModuleNamedAtLoad(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{
		fixture(t, filepath.Join("language", "worker-threads.ts")), fixture(t, filepath.Join("language", "bun-ffi.ts")),
	}})
	if got := ids(a.Plugins.Plugins); got != "" {
		t.Fatalf("loaded %q", got)
	}
	logs.Require(t, "WARN plugin: cannot load", "worker-threads.ts:2:", `"node:worker_threads"`, "not available")
	logs.Require(t, "WARN plugin: cannot load", "bun-ffi.ts:2:", `"bun:ffi"`, "not available")
}

// An import path that looks like a package but that tsconfig.json's paths
// map to a file of the project is bundled, not looked for in node_modules.
func TestTsconfigPathsAreBundled(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{
		"tsconfig.json":               `{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["lib/*"]}}}`,
		"lib/greeting.ts":             `export const greeting: string = "hello from lib"`,
		".podcode/plugins/aliased.ts": `import { greeting } from "@lib/greeting"` + "\n" + `export default { id: "aliased", server: () => ({ "tool.execute.before": (input: object) => ({ ...input, greeting }) }) }`,
	}})
	if got := ids(a.Plugins.Plugins); got != "aliased" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	if out := beforeRead(a); out["greeting"] != "hello from lib" {
		t.Errorf("out %v", out)
	}
}

// A Node API Podcode does not provide, used while the plugin starts,
// refuses the plugin with one line naming the plugin, the API, and the
// file:line of the plugin's own code that uses it (TypeScript's, through
// the source map).
func TestUnavailableAPINamedAtLoad(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{
		".podcode/plugins/watcher.ts": "import fs from \"node:fs\"\nconst n: number = 1\nexport default { id: \"watcher\", server: () => {\n  fs.watch(\".\")\n  return {}\n} }\n",
		".podcode/plugins/forker.js":  "import cp from \"node:child_process\"\nexport default { id: \"forker\", server: () => { cp.fork(\"a.js\"); return {} } }\n",
	}})
	if got := ids(a.Plugins.Plugins); got != "" {
		t.Fatalf("loaded %q", got)
	}
	for _, c := range []struct{ plugin, api, at string }{
		{"watcher", "fs.watch is not available to Podcode plugins", "watcher.ts:4:6)"},
		{"forker", "child_process.fork is not available to Podcode plugins", "forker.js:2:51)"},
	} {
		line := logs.Require(t, "WARN plugin: server() threw", "plugin="+c.plugin, c.api, "(used at ", c.at)
		if strings.Contains(line, "\n") {
			t.Errorf("more than one line: %q", line)
		}
	}
}

// An npm package that requires a Node module Podcode does not provide, as
// the plugin imports it, fails the import with one line naming the
// module, the package and the plugin's own line that imports it; a
// package that requires one only when called loads.
func TestUnavailableModuleOfAPackageNamed(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{"./p.js", "./lazy.js"}, Files: map[string]string{
		"p.js":                              "const n = 1\nimport x from \"netpkg\"\nexport default { id: \"p\", server: () => ({}) }\n",
		"lazy.js":                           "import { connect } from \"lazynet\"\nexport default { id: \"lazy\", server: () => ({}) }\n",
		"node_modules/netpkg/package.json":  `{"name":"netpkg","main":"index.js"}`,
		"node_modules/netpkg/index.js":      "const net = require(\"net\")\nmodule.exports = net\n",
		"node_modules/lazynet/package.json": `{"name":"lazynet","main":"index.js"}`,
		"node_modules/lazynet/index.js":     "exports.connect = () => require(\"net\").connect()\n",
	}})
	if got := ids(a.Plugins.Plugins); got != "lazy" {
		t.Errorf("loaded %q", got)
	}
	line := logs.Require(t, "WARN plugin: import failed", "plugin=./p.js", `module "net" is not available to Podcode plugins (npm package "netpkg" requires it, imported at `, "p.js:2:")
	if strings.Contains(line, "\n") || strings.Contains(line, "GoError") {
		t.Errorf("not one clean line: %q", line)
	}
}
