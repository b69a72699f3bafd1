package jsplugin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/version"
)

func fixture(t *testing.T, name string) string {
	return apptest.Fixture(t, filepath.Join("plugins", name))
}

// beforeRead runs tool.execute.before over a call of read and returns the
// value the pipeline ends with.
func beforeRead(a *app.App) map[string]any {
	out, _ := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "read"})
	return out
}

func ids(ps []*jsplugin.Plugin) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return strings.Join(out, ",")
}

// covers P1 P2
func TestDefaultExportIsValidated(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{
		fixture(t, "named-export.ts"), fixture(t, "no-id.js"), fixture(t, "id-number.js"),
		fixture(t, "server-not-fn.js"), fixture(t, "minimal.js"),
	}})
	if got := ids(a.Plugins.Plugins); got != "minimal" {
		t.Fatalf("loaded %q, want only minimal (extra keys are not validated)", got)
	}
	for _, f := range []string{"named-export.ts", "no-id.js", "id-number.js", "server-not-fn.js"} {
		if n := logs.Count("WARN plugin: module has no valid default export {id, server}", f); n != 1 {
			t.Errorf("%s: %d warnings, want exactly one; logs:\n%s", f, n, strings.Join(logs.Lines(), "\n"))
		}
	}
}

// covers P3
func TestCommonJSDefaultExport(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "commonjs.cjs")}})
	if got := ids(a.Plugins.Plugins); got != "commonjs" {
		t.Fatalf("loaded %q", got)
	}
	if tr, _ := json.Marshal(beforeRead(a)["trail"]); string(tr) != `["commonjs"]` {
		t.Errorf("trail %s", tr)
	}
}

// covers P4
func TestDuplicateIDLastLoadedWins(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "dup-first.js"), fixture(t, "minimal.js"), fixture(t, "dup-second.js")}})
	if got := ids(a.Plugins.Plugins); got != "minimal,dup" {
		t.Fatalf("pipeline %q, want minimal,dup", got)
	}
	if p := a.Plugins.Plugins[1]; !strings.HasSuffix(p.Path, "dup-second.js") {
		t.Errorf("kept %s", p.Path)
	}
	logs.Require(t, "duplicate id", "plugin=dup", "dup-first.js", "dup-second.js")
	// Removed entirely: its hook does not run, its tool is gone.
	if tr, _ := json.Marshal(beforeRead(a)["trail"]); string(tr) != `["dup-second"]` {
		t.Errorf("trail %s", tr)
	}
	if _, ok := a.Tools.Get("dup_first_tool"); ok {
		t.Error("the removed plugin's tool is still registered")
	}
}

// covers P5 P8 P9 P11
func TestServerRunsOnceWithInputAndOptions(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{
		Plugins:      []string{fixture(t, "counter.ts")},
		PluginConfig: map[string]any{"counter": map[string]any{"level": "debug", "n": 2}},
		JobLimit:     time.Second,
	})
	state := func() map[string]any {
		res, _, err := a.Runner.CallTool(context.Background(), tool.Call{CallID: "c"}, "counter_state", nil)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(res.Output), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	s := state()
	want := map[string]any{"serverCalls": 1.0, "toolCalls": 1.0, "readyAtDrain": true, "argKeys": "", "cwd": a.Cwd,
		"version": version.PluginRuntime, "configIsUndefined": false, "hasBus": true}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("%s = %v, want %v", k, s[k], v)
		}
	}
	if cfg, _ := json.Marshal(s["config"]); string(cfg) != `{"level":"debug","n":2}` {
		t.Errorf("config = %s", cfg)
	}
	// A hook that had to be stopped does not make server() run again.
	if _, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "read", map[string]any{"path": "podcode.json"}); err != nil {
		t.Fatal(err)
	}
	a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "spin_now"})
	if s := state(); s["serverCalls"] != 1.0 || s["toolCalls"] != 1.0 {
		t.Errorf("after an interrupted hook: %v", s)
	}
}

// covers P9
func TestOptionsConfigUndefinedWithoutBlock(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "counter.ts")}, PluginConfig: map[string]any{"other": 1}})
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "counter_state", nil)
	if err != nil || !strings.Contains(res.Output, `"configIsUndefined":true`) {
		t.Errorf("%s %v", res.Output, err)
	}
}

// covers P6
func TestServerThrowSkipsOnlyThatPlugin(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "server-throws.js"), fixture(t, "server-rejects.js"), fixture(t, "minimal.js")}})
	if got := ids(a.Plugins.Plugins); got != "minimal" {
		t.Fatalf("loaded %q", got)
	}
	logs.Require(t, "WARN plugin: server() threw", "plugin=server-throws", "cannot start: missing setting")
	logs.Require(t, "WARN plugin: server() threw", "plugin=server-rejects", "async failure")
}

// covers P7
func TestBus(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "bus-listener.js")}})
	if _, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "read", map[string]any{"path": "podcode.json"}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "bus_seen", nil)
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal([]byte(res.Output), &seen)
		if strings.Contains(strings.Join(seen, " "), "one:tool.call.finished:read") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	joined := strings.Join(seen, " ")
	for _, want := range []string{"all:" + bus.PluginLoaded, "all:tool.call.started", "all:tool.call.finished", "one:tool.call.finished:read"} {
		if !strings.Contains(joined, want) {
			t.Errorf("listener saw %q, want %q", joined, want)
		}
	}
	if strings.Contains(joined, "stopped listener ran") {
		t.Error("an unsubscribed listener ran")
	}
	logs.Require(t, "WARN plugin: bus listener threw", "plugin=bus-listener", "event=tool.call.started", "listener bug")
}

// covers P10
func TestUnknownHookKeysIgnoredSilently(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "unknown-keys.js"), fixture(t, "empty.js")}})
	if got := ids(a.Plugins.Plugins); got != "unknown-keys,empty" {
		t.Fatalf("loaded %q", got)
	}
	for _, p := range a.Plugins.Plugins {
		if len(p.Hooks) != 0 {
			t.Errorf("%s implements %v", p.ID, p.Hooks)
		}
	}
	for _, line := range logs.Lines() {
		if strings.HasPrefix(line, "WARN") {
			t.Errorf("unexpected warning: %s", line)
		}
	}
}

// covers P12
func TestNoReloadUntilRestart(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "versioned.js")
	src, _ := os.ReadFile(fixture(t, "versioned.js"))
	os.WriteFile(file, src, 0o644)
	project := apptest.Project{Plugins: []string{file}}
	a, _ := apptest.Boot(t, project)
	run := func() any { return beforeRead(a)["version"] }
	if v := run(); v != "v1" {
		t.Fatalf("version %v", v)
	}
	os.WriteFile(file, []byte(strings.ReplaceAll(string(src), `"v1"`, `"v2"`)), 0o644)
	if v := run(); v != "v1" {
		t.Errorf("an edit took effect without a restart: %v", v)
	}
	a.Close()
	a, _ = apptest.Boot(t, project)
	if v := run(); v != "v2" {
		t.Errorf("after a restart: %v", v)
	}
}

// covers H9
func TestToolHookDrainedOnce(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "counter.ts"), fixture(t, "tool-throws.js"), fixture(t, "tool-not-array.js")}})
	if got := ids(a.Plugins.Plugins); got != "counter,tool-throws,tool-not-array" {
		t.Fatalf("loaded %q: a tool hook that throws must not drop its plugin", got)
	}
	for i := 0; i < 3; i++ {
		res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "counter_state", nil)
		if err != nil || !strings.Contains(res.Output, `"toolCalls":1`) || !strings.Contains(res.Output, `"argKeys":""`) {
			t.Fatalf("tool hook called again, or not with {}: %s %v", res.Output, err)
		}
	}
	logs.Require(t, "WARN plugin: tool hook threw at init", "plugin=tool-throws", "no tools today")
	for _, p := range a.Plugins.Plugins[1:] {
		if len(p.Tools) != 0 {
			t.Errorf("%s has tools %v", p.ID, p.Tools)
		}
	}
	if !a.Plugins.Plugins[1].Implements(jsplugin.HookToolBefore) {
		t.Error("tool-throws lost its other hooks")
	}
}

// covers H10
func TestProtectedToolsCannotBeReplaced(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "replace-tools.js")}})
	if d, _ := a.Tools.Get("glob"); d.Source != "replace-tools" {
		t.Errorf("glob source %s, want the plugin", d.Source)
	}
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "glob", map[string]any{})
	if err != nil || res.Output != "replaced glob" {
		t.Errorf("glob ran %q %v", res.Output, err)
	}
	if d, _ := a.Tools.Get("read"); d.Source != tool.Builtin {
		t.Errorf("read was replaced by %s", d.Source)
	}
	logs.Require(t, "WARN plugin: refused to override a protected tool", "plugin=replace-tools", "tool=read")
	logs.Require(t, "refused to override a protected tool", "tool=browser_click")
	if _, ok := a.Tools.Get("browser_click"); ok {
		t.Error("browser_click was registered")
	}
	found := false
	for _, w := range a.Plugins.Warnings {
		found = found || strings.Contains(w, `"read"`)
	}
	if !found {
		t.Errorf("plugin list warnings lack the refusal: %q", a.Plugins.Warnings)
	}
}

// covers H11
func TestToolDefWithZod(t *testing.T) {
	apptest.RequireNodeModules(t, "testdata", "zod", "zod3")
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "zod4-tool.ts"), fixture(t, "zod3-tool.ts")}})
	if got := ids(a.Plugins.Plugins); got != "zod4-tool,zod3-tool" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	greet, ok := a.Tools.Get("greet")
	if !ok || greet.Source != "zod4-tool" || greet.Description != "Greet someone, loudly if asked." {
		t.Fatalf("greet: %+v", greet)
	}
	var schema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(greet.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["name"]["description"] != "who to greet" || strings.Join(schema.Required, ",") != "name" ||
		schema.Properties["times"]["type"] != "integer" {
		t.Errorf("JSON Schema for the model: %s", greet.Parameters)
	}
	ctx := context.Background()
	res, _, err := a.Runner.CallTool(ctx, tool.Call{CallID: "call_7"}, "greet", map[string]any{"name": "ada", "times": 2.0})
	if err != nil || res.Title != "greet" || res.Output != "hello adahello ada" || res.Metadata["callID"] != "call_7" {
		t.Errorf("greet: %+v %v", res, err)
	}
	res, _, err = a.Runner.CallTool(ctx, tool.Call{}, "greet", map[string]any{"name": "ada", "loud": true})
	if err != nil || res.Output != "HELLO ADA" {
		t.Errorf("loud greet: %+v %v", res, err)
	}
	for args, want := range map[string]string{`{"name": 5}`: "name: ", `{"name": "x", "times": 9}`: "times: ", `{}`: "name: "} {
		var m map[string]any
		json.Unmarshal([]byte(args), &m)
		if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "greet", m); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "greet") {
			t.Errorf("%s: err %v, want one naming %q", args, err, want)
		}
	}
	res, _, err = a.Runner.CallTool(ctx, tool.Call{}, "sum", map[string]any{"values": []any{1.0, 2.0, 3.5}, "label": "total"})
	if err != nil || res.Output != "total=6.5" {
		t.Errorf("zod 3 sum: %+v %v", res, err)
	}
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "sum", map[string]any{"values": []any{}}); err == nil || !strings.Contains(err.Error(), "values: ") {
		t.Errorf("zod 3 validation: %v", err)
	}
}

func TestLoadErrorsNameTheProblem(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "missing-package.ts"), "./nope.ts", "not-installed-plugin-pkg", fixture(t, "ts-features.mts")}})
	if got := ids(a.Plugins.Plugins); got != "ts-features" {
		t.Fatalf("loaded %q", got)
	}
	logs.Require(t, "WARN plugin: cannot load", "missing-package.ts", `left-pad-that-is-not-installed`)
	logs.Require(t, "WARN plugin: cannot load", "plugin=./nope.ts", "podcode.json:", "no plugin file")
	logs.Require(t, "WARN plugin: cannot load", "not-installed-plugin-pkg", "npm install")
	out, _ := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "bash"})
	if out["level"] != 2.0 || out["boxed"] != "bash" {
		t.Errorf("TypeScript plugin output %v", out)
	}
}

// A server() that never settles does not block start-up.
func TestHungServerIsSkippedAtTheBootDeadline(t *testing.T) {
	start := time.Now()
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "server-hangs.js"), fixture(t, "minimal.js")}, BootTimeout: 2 * time.Second})
	if got := ids(a.Plugins.Plugins); got != "minimal" {
		t.Fatalf("loaded %q", got)
	}
	logs.Require(t, "WARN plugin: server() did not settle within the boot deadline; skipped", "plugin=server-hangs", "deadline=2s")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("boot took %s", d)
	}
}

func TestNpmPackagePlugin(t *testing.T) {
	dir := apptest.Dir(t, apptest.Project{
		Plugins: []string{"@acme/podcode-plugin", "file://" + fixture(t, "minimal.js")},
		Files: map[string]string{
			"node_modules/@acme/podcode-plugin/package.json":  `{"name": "@acme/podcode-plugin", "exports": {".": {"import": "./dist/index.js", "require": "./dist/index.cjs"}}}`,
			"node_modules/@acme/podcode-plugin/dist/index.js": `export default { id: "acme", server: () => ({}) }`,
		},
	})
	a, logs := apptest.BootDir(t, dir, apptest.Project{})
	if got := ids(a.Plugins.Plugins); got != "acme,minimal" {
		t.Fatalf("loaded %q; logs %q", got, logs.Lines())
	}
	if p := a.Plugins.Plugins[0]; p.Source != jsplugin.FromConfig || !strings.HasSuffix(p.Path, "dist/index.js") {
		t.Errorf("acme: %+v", p)
	}
}

func TestDisabledPluginsAreNotLoaded(t *testing.T) {
	// "counter" names counter.ts by file name: it is not even imported.
	// "commonjs" is an id: the file is imported to learn it, server() never runs.
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "counter.ts"), fixture(t, "minimal.js"), fixture(t, "commonjs.cjs")},
		Config: map[string]any{"disabled_plugins": []string{"counter", "commonjs"}}})
	if got := ids(a.Plugins.Plugins); got != "minimal" {
		t.Fatalf("loaded %q", got)
	}
	logs.Require(t, "disabled by the config", "plugin=counter", "counter.ts")
	logs.Require(t, "disabled by the config", "plugin=commonjs", "commonjs.cjs")
	if _, ok := a.Tools.Get("counter_state"); ok {
		t.Error("a disabled plugin's tool is registered")
	}
}

// A plugin that imports what never ends (a link to /dev/zero), what never
// answers (a FIFO) or a file far larger than any source fails to load,
// with the file and why; start-up neither hangs nor grows without bound,
// and the other plugins load.
func TestBundleReadsOnlyBoundedRegularFiles(t *testing.T) {
	importer := func(id, target string) string {
		return `import x from "./lib/` + target + `"
export default { id: "` + id + `", server: () => ({}), x }`
	}
	p := apptest.Project{
		Files: map[string]string{
			"zero.js": importer("zero", "zero.js"), "fifo.js": importer("fifo", "fifo.js"),
			"huge.js": importer("huge", "huge.js"), "lib/ok.js": "export default 1",
			"fine.js": importer("fine", "ok.js"),
			// What esbuild's resolver reads on its own: a tsconfig.json,
			// a package.json, and the package.json of a package by name.
			"ts/p.ts":  `export default { id: "ts", server: () => ({}) }`,
			"pkg/p.js": `export default { id: "pkg", server: () => ({}) }`,
			"bare/p.js": `import evil from "evil/sub"
export default { id: "bare", server: () => ({}), evil }`,
			"bare/node_modules/evil/sub.js": "export default 1",
		},
		Plugins:     []string{"./zero.js", "./fifo.js", "./huge.js", "./fine.js", "./ts/p.ts", "./pkg/p.js", "./bare/p.js"},
		BootTimeout: time.Minute,
	}
	dir := apptest.Dir(t, p)
	lib := filepath.Join(dir, "lib")
	if err := os.Symlink("/dev/zero", filepath.Join(lib, "zero.js")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(lib, "fifo.js"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "huge.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(lib, "huge.js"), 1<<30); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"ts/tsconfig.json", "bare/node_modules/evil/package.json"} {
		if err := os.Symlink("/dev/zero", filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pkg", "package.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, logs := apptest.BootDir(t, dir, p)
	if got := ids(a.Plugins.Plugins); got != "fine" {
		t.Errorf("loaded %q, want only fine", got)
	}
	logs.Require(t, "WARN plugin: cannot load", "plugin=./zero.js", "zero.js:1:", "/dev/zero: not a regular file but a device")
	logs.Require(t, "WARN plugin: cannot load", "plugin=./fifo.js", "fifo.js:1:", "lib/fifo.js: not a regular file but a FIFO")
	logs.Require(t, "WARN plugin: cannot load", "plugin=./huge.js", "huge.js:1:", "lib/huge.js: too large to read")
	logs.Require(t, "WARN plugin: cannot load", "plugin=./ts/p.ts", "ts/tsconfig.json: not a regular file")
	logs.Require(t, "WARN plugin: cannot load", "plugin=./pkg/p.js", "pkg/package.json: not a regular file")
	logs.Require(t, "WARN plugin: cannot load", "plugin=./bare/p.js", "p.js:1:", "evil/package.json: not a regular file")
}

// A key of a Podcode plugin's hooks that is no hook is kept with the
// closest valid one (for plugin list and check); an opencode-style
// plugin's hooks, which the adapter maps, are none.
func TestUnknownHookKeys(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{
		"typo.js": `export default { id: "typo", server: () => ({ "tool.before": () => {}, "chat.params": (p) => p }) }`,
		"oc.js":   `export default { id: "oc", server: () => ({ "tool.execute.before": async (input, output) => {}, event: async ({ event }) => {} }) }`,
	}, Plugins: []string{"./typo.js", "./oc.js"}})
	byID := map[string][]jsplugin.UnknownKey{}
	for _, p := range a.Plugins.Plugins {
		byID[p.ID] = p.UnknownKeys
	}
	if got := byID["typo"]; len(got) != 1 || got[0] != (jsplugin.UnknownKey{Key: "tool.before", Closest: "tool.execute.before"}) {
		t.Errorf("typo: %+v", got)
	}
	if _, ok := byID["oc"]; !ok || len(byID["oc"]) != 0 {
		t.Errorf("the opencode-style plugin: loaded %v, unknown keys %+v", ok, byID["oc"])
	}
}
