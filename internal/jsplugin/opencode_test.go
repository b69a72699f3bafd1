package jsplugin_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/tool"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// opencode's documented .env protection example, in the project's
// opencode plugin folder as written: a throw in tool.execute.before
// denies the call with the thrown message; other reads go through.
func TestOpencodeEnvProtectionExample(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{
		".opencode/plugin/env-protection.js": readFixture(t, "opencode/env-protection.js"),
		".env":                               "TOKEN=secret\n",
		"notes.txt":                          "hello\n",
	}, Plugins: []string{"./.opencode/plugin/env-protection.js"}})
	if got := ids(a.Plugins.Plugins); got != "env-protection" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	ctx := context.Background()
	call := tool.Call{SessionID: "ses_1", CallID: "call_1"}
	_, _, err := a.Runner.CallTool(ctx, call, "read", map[string]any{"path": ".env"})
	if err == nil || !strings.Contains(err.Error(), "Do not read .env files") {
		t.Fatalf("read .env: %v, want a denial with the plugin's message", err)
	}
	res, _, err := a.Runner.CallTool(ctx, call, "read", map[string]any{"path": "notes.txt"})
	if err != nil || !strings.Contains(res.Output, "hello") {
		t.Fatalf("read notes.txt: %+v %v", res, err)
	}
}

// A package depending on @opencode-ai/plugin, from npm: its default export
// is an opencode plugin function with a tool map and before/after hooks
// that take (input, output).
func TestOpencodePublishedPlugin(t *testing.T) {
	const spec = "@sureshsankaran/opencode-destructive-check"
	apptest.RequireNodeModules(t, "testdata", spec, "@opencode-ai/plugin")
	p := apptest.Project{Plugins: []string{spec}}
	dir := apptest.Dir(t, p)
	apptest.LinkNodeModules(t, dir)
	a, logs := apptest.BootDir(t, dir, p)
	if got := ids(a.Plugins.Plugins); got != spec {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	pl := a.Plugins.Plugins[0]
	for _, h := range []string{jsplugin.HookTool, jsplugin.HookToolBefore, jsplugin.HookToolAfter} {
		if !pl.Implements(h) {
			t.Errorf("hooks %v, want %s", pl.Hooks, h)
		}
	}
	ctx := context.Background()
	in := map[string]any{"toolID": "bash", "args": map[string]any{"command": "rm -rf /"}, "ctx": map[string]any{"sessionID": "ses_1", "callID": "c1"}}
	if _, err := pl.Call(ctx, jsplugin.HookToolBefore, in, 0); err != nil {
		t.Fatal(err)
	}
	logs.Await(t, "destructive command")
	// Its before hook counts calls: the one above, and the status call's
	// own, which runs it once although it is both a PreToolUse vote and a
	// pipeline hook.
	res, _, err := a.Runner.CallTool(ctx, tool.Call{SessionID: "ses_1"}, "destructive-check-status", map[string]any{})
	if err != nil || !strings.Contains(res.Output, `"checked": 2`) || !strings.Contains(res.Output, `"id": "ses_1"`) {
		t.Fatalf("status tool: %+v %v", res, err)
	}
}

// The tool() map with zod args (the SDK's tool.schema, zod 4.1), and the
// context opencode gives: directory, worktree, project.
func TestOpencodeToolMap(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "opencode/tool-map.ts")}})
	if got := ids(a.Plugins.Plugins); got != "tool-map" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	def, ok := a.Tools.Get("greet")
	if !ok {
		t.Fatal("no greet tool")
	}
	if s := string(def.Parameters); !strings.Contains(s, `"name"`) || !strings.Contains(s, `"minLength":1`) || !strings.Contains(s, `"required":["name"]`) {
		t.Errorf("parameters %s", s)
	}
	ctx := context.Background()
	res, _, err := a.Runner.CallTool(ctx, tool.Call{SessionID: "ses_9"}, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "hello Ada x1 in ") || !strings.Contains(res.Output, "session ses_9") || res.Title != "greet" {
		t.Errorf("result %+v", res)
	}
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "greet", map[string]any{"name": ""}); err == nil || !strings.Contains(err.Error(), "name") {
		t.Errorf("empty name: %v, want zod's error naming the field", err)
	}
}

// Two plugin functions exported by name: both load as one plugin; their
// hooks mutate output and the mutations come back; the event hook hears
// the bus; a hook Podcode does not have is named in a warning.
func TestOpencodeNamedExportsAndMutations(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "opencode/.opencode/plugin/rewrite.js")}})
	if got := ids(a.Plugins.Plugins); got != "rewrite" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	logs.Require(t, "opencode hooks Podcode does not have", "plugin=rewrite", "permission.ask")
	ctx := context.Background()
	out, _ := a.Runner.Run(ctx, jsplugin.HookToolBefore, map[string]any{"toolID": "bash",
		"args": map[string]any{"command": "ls"}, "ctx": map[string]any{"sessionID": "s"}})
	if args, _ := out["args"].(map[string]any); args["timeout"] != int64(1234) && args["timeout"] != float64(1234) {
		t.Errorf("before: %v", out)
	}
	// Podcode's edit names its arguments old_string and new_string; the hook
	// reads and writes opencode's oldString and newString.
	out, _ = a.Runner.Run(ctx, jsplugin.HookToolBefore, map[string]any{"toolID": "edit",
		"args": map[string]any{"path": "a.txt", "old_string": "abc", "new_string": "x"}, "ctx": map[string]any{}})
	if args, _ := out["args"].(map[string]any); args["new_string"] != "ABC" || args["path"] != "a.txt" || args["newString"] != nil {
		t.Errorf("edit before: %v", out)
	}
	out, _ = a.Runner.Run(ctx, jsplugin.HookToolAfter, map[string]any{"toolID": "bash", "args": map[string]any{},
		"ctx": map[string]any{}, "result": map[string]any{"title": "ls", "output": "a secret b"}})
	if r, _ := out["result"].(map[string]any); r["output"] != "a [redacted] b" || r["title"] != "bash: ls" {
		t.Errorf("after: %v", out)
	}
	params, _ := a.Runner.ChatParams(ctx, pipeline.ChatInput{Model: provider.Model{ProviderID: "p", ModelID: "m1", Limit: config.Limit{Output: 100}}})
	if params.Temperature == nil || *params.Temperature != 0.3 || params.Options["seen"] != "m1" {
		t.Errorf("chat.params: %+v", params)
	}
	// Podcode's turn.finished is opencode's session.status, then session.idle.
	a.Bus.PublishFor("default", "turn.finished", map[string]any{"sessionID": "ses_1", "status": "complete"})
	for i := 0; ; i++ {
		res, _, err := a.Runner.CallTool(ctx, tool.Call{}, "seen_events", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Output, "session.idle") {
			break
		}
		if i > 1000 {
			t.Fatalf("the event hook never heard session.idle: %q", res.Output)
		}
	}
}

// Bun's $ works while the plugin starts (through the guard, as every
// plugin process); the SDK client answers 503 before the server's
// sessions are open (package opencodeapi answers it then). The second
// plugin is an npm package in opencode's {server} form, known as
// opencode's by its dependency on @opencode-ai/plugin, without an id: its
// package name is its id.
func TestOpencodeShellAndClient(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{
		Plugins: []string{fixture(t, "opencode/.opencode/plugin/uses-shell.js"), "oc-logger"},
		Files: map[string]string{
			"node_modules/oc-logger/package.json": `{"name": "oc-logger", "main": "index.js", "peerDependencies": {"@opencode-ai/plugin": "*"}}`,
			"node_modules/oc-logger/index.js": `export default {
  server: async ({ client, directory }) => ({
    "tool.execute.after": async (input, output) => {
      const r = await client.app.log({ body: { service: "x", level: "info", message: input.tool + " in " + directory } })
      output.title = r.error ? r.error.name + " " + r.response.status : "logged"
    },
  }),
}`,
		},
	})
	if got := ids(a.Plugins.Plugins); got != "uses-shell,oc-logger" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "shell_says", map[string]any{})
	if err != nil || res.Output != "hello world|a b|c|" {
		t.Errorf("shell_says: %+v %v", res, err)
	}
	out, _ := a.Runner.Run(context.Background(), jsplugin.HookToolAfter, map[string]any{"toolID": "x", "args": map[string]any{},
		"ctx": map[string]any{}, "result": map[string]any{"title": "t", "output": "o"}})
	if r, _ := out["result"].(map[string]any); r["title"] != "UnavailableError 503" {
		t.Errorf("after: %v", out)
	}
}

// A path written without "./" is read as an npm package name; when the
// file is there, the warning says to write the path, not to install it. A
// missing npm package names the plugin file and line that import it.
func TestLoadHintsNameThePathAndTheImporter(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{
		Plugins: []string{"plugins/x.ts", fixture(t, "missing-package.ts")},
		Files:   map[string]string{"plugins/x.ts": `export default { id: "x", server: () => ({}) }`},
	})
	if got := ids(a.Plugins.Plugins); got != "" {
		t.Fatalf("loaded %q", got)
	}
	line := logs.Require(t, "WARN plugin: cannot load", "plugin=plugins/x.ts", `write "./plugins/x.ts"`)
	if strings.Contains(line, "npm install") {
		t.Errorf("the hint still says npm install: %s", line)
	}
	logs.Require(t, "WARN plugin: cannot load", "left-pad-that-is-not-installed", "missing-package.ts:2 imports it")
}

// covers P10: a Podcode plugin with an event key (unknown to Podcode) and
// one-parameter hooks keeps Podcode's convention: its return value counts.
func TestPodcodePluginWithEventKeyIsNotAdapted(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{".podcode/plugins/p.js": `export default {
  id: "p",
  server: () => ({
    event: () => {},
    "tool.execute.before": (input) => ({ ...input, args: { n: 1 } }),
  }),
}`}})
	out, _ := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "x", "args": map[string]any{}, "ctx": map[string]any{}})
	if args, _ := out["args"].(map[string]any); args["n"] != int64(1) && args["n"] != float64(1) {
		t.Errorf("before: %v", out)
	}
	if _, found := logs.Find("opencode"); found {
		t.Errorf("logs mention opencode: %q", logs.Lines())
	}
}

// opencode's {id, server} form, without a package.json: a hook declaring
// (input, output) is enough to adapt the plugin.
func TestOpencodeServerFormDetectedByItsHooks(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{".podcode/plugins/two.js": `export default {
  id: "two",
  server: async () => ({
    "tool.execute.before": async (input, output) => { output.args.k = input.tool },
  }),
}`}})
	if got := ids(a.Plugins.Plugins); got != "two" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	out, _ := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "glob", "args": map[string]any{}, "ctx": map[string]any{}})
	if args, _ := out["args"].(map[string]any); args["k"] != "glob" {
		t.Errorf("before: %v", out)
	}
}

// covers P2: a module of named exports alone that does not say it is
// opencode's (in an opencode plugin folder, or importing its SDK) is
// skipped with the one warning, even when its exports are functions.
func TestNamedExportFunctionsOutsideOpencodeAreSkipped(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{
		".podcode/plugins/env-protection.js": readFixture(t, "opencode/env-protection.js"),
	}})
	if got := ids(a.Plugins.Plugins); got != "" {
		t.Errorf("loaded %q", got)
	}
	logs.Require(t, "plugin: module has no valid default export {id, server}", "env-protection.js")
}
