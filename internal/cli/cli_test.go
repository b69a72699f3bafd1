package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
)

// project makes a project directory with files, enters it, and points the
// user's config and data folders and the bundle cache at temp folders.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := apptest.Dir(t, apptest.Project{Files: files})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Chdir(dir)
	return dir
}

const glob = `export default { id: "fast-glob", server: () => ({
  tool: () => [{ id: "glob", description: "a faster glob", parameters: { type: "object", properties: { pattern: { type: "string" } } },
    execute: (args) => ({ title: "glob", output: "matched " + args.pattern }) }],
  "tool.execute.before": (i) => i.toolID === "bash" ? { ...i, args: { ...i.args, command: i.args.command + " && echo guarded" } } : undefined,
  "chat.params": (p) => ({ ...p, temperature: p.temperature ?? 0.3, maxOutputTokens: 1e9 }),
}) }`

func TestPluginAndToolList(t *testing.T) {
	dir := project(t, map[string]string{
		"podcode.json":                  `{"plugin": ["./plugins/glob.js", "./plugins/missing.js"]}`,
		"plugins/glob.js":               glob,
		".podcode/plugins/observer.mjs": `export default { id: "observer", server: () => ({}) }`,
	})
	// A plugin that did not load is listed as failed, and says so in the
	// exit status (3).
	out, err := run(t, "--trust-all", "plugin", "list", "--json")
	if exitCode(err) != exitProblems {
		t.Fatalf("%v\n%s", err, out)
	}
	var list struct {
		Plugins  []pluginInfo
		Warnings []string
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(list.Plugins) != 3 || list.Plugins[0].ID != "fast-glob" || list.Plugins[0].Source != "config" || list.Plugins[1].Source != "discovered" ||
		strings.Join(list.Plugins[0].Hooks, ",") != "tool,chat.params,tool.execute.before" || strings.Join(list.Plugins[0].Tools, ",") != "glob" ||
		list.Plugins[2].ID != "./plugins/missing.js" || !strings.HasPrefix(list.Plugins[2].Status, "failed: cannot load: ") {
		t.Errorf("plugins %+v", list.Plugins)
	}
	if len(list.Warnings) != 0 {
		t.Errorf("warnings %q: the failure is its plugin's row", list.Warnings)
	}
	text, _ := run(t, "--trust-all", "plugin", "list")
	if !strings.Contains(text, "fast-glob") || !strings.Contains(text, "./plugins/missing.js  config      failed: cannot load: no plugin file at ") || !strings.Contains(text, "named at "+filepath.Join(dir, "podcode.json")+":1") {
		t.Errorf("plugin list:\n%s", text)
	}

	out, err = run(t, "--trust-all", "tool", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []toolInfo
	json.Unmarshal([]byte(out), &tools)
	sources := map[string]string{}
	for _, tl := range tools {
		sources[tl.ID] = tl.Source
		if len(tl.Parameters) == 0 || tl.Description == "" {
			t.Errorf("tool %s lacks a schema or description", tl.ID)
		}
	}
	if sources["glob"] != "fast-glob" || sources["grep"] != "builtin" || sources["read"] != "builtin" {
		t.Errorf("sources %v", sources)
	}
	fired, _ := run(t, "--trust-all", "hook", "fire", "tool")
	if strings.TrimSpace(fired) != strings.TrimSpace(out) {
		t.Error("hook fire tool differs from tool list --json")
	}
}

func TestHookFireAndToolRun(t *testing.T) {
	project(t, map[string]string{"podcode.json": `{"plugin": ["./glob.js"]}`, "glob.js": glob, "input.json": `{"topP": 0.5}`})
	out, err := run(t, "--trust-all", "hook", "fire", "chat.params", "--input", `{"temperature": 0}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "{\n  \"model\": \"offline/echo\",\n  \"temperature\": 0,\n  \"maxOutputTokens\": 4096,\n  \"options\": {}\n}" {
		t.Errorf("chat.params:\n%s", out)
	}
	out, _ = run(t, "--trust-all", "hook", "fire", "chat.params", "--input-file", "input.json")
	if !strings.Contains(out, `"temperature": 0.3`) || !strings.Contains(out, `"topP": 0.5`) {
		t.Errorf("chat.params from a file:\n%s", out)
	}
	out, err = run(t, "--trust-all", "hook", "fire", "tool.execute.before", "--input", `{"toolID": "bash", "args": {"command": "ls"}, "ctx": {}}`)
	if err != nil || !strings.Contains(out, `"command": "ls && echo guarded"`) {
		t.Errorf("before: %s %v", out, err)
	}
	out, err = run(t, "--trust-all", "tool", "run", "bash", "--args", `{"command": "echo hi"}`)
	if err != nil || !strings.Contains(out, `"output": "hi\nguarded\n"`) {
		t.Errorf("tool run bash: %s %v", out, err)
	}
	out, err = run(t, "--trust-all", "tool", "run", "glob", "--args", `{"pattern": "*.go"}`)
	if err != nil || !strings.Contains(out, `"output": "matched *.go"`) {
		t.Errorf("tool run glob: %s %v", out, err)
	}
	if _, err := run(t, "tool", "run", "bash", "--args", `{"command": 1}`); err == nil || !strings.Contains(err.Error(), "command") {
		t.Errorf("invalid args: %v", err)
	}
	if _, err := run(t, "hook", "fire", "tool.before"); err == nil || !strings.Contains(err.Error(), "unknown hook") {
		t.Errorf("unknown hook: %v", err)
	}
}

func TestBadConfigNamesFileLineAndKey(t *testing.T) {
	project(t, map[string]string{"podcode.json": "{\n  // comments are fine\n  \"plugin\": \"./one.ts\"\n}"})
	_, err := run(t, "plugin", "list")
	if err == nil || !strings.Contains(err.Error(), "podcode.json:3:") || !strings.Contains(err.Error(), `key "plugin"`) {
		t.Errorf("err = %v", err)
	}
}

func TestPluginInit(t *testing.T) {
	project(t, nil)
	if _, err := run(t, "plugin", "init", "my-guard"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(".podcode", jsplugin.TypesFile)); string(b) != jsplugin.Types {
		t.Error("types not written")
	}
	out, err := run(t, "plugin", "list", "--json")
	if err != nil || !strings.Contains(out, `"id": "my-guard"`) || !strings.Contains(out, `"tool.execute.before"`) {
		t.Errorf("the starter does not load: %s %v", out, err)
	}
	out, _ = run(t, "hook", "fire", "tool.execute.before", "--input", `{"toolID": "bash", "args": {"command": "ls"}, "ctx": {}}`)
	if !strings.Contains(out, `"timeout": 60000`) {
		t.Errorf("starter hook: %s", out)
	}
	if _, err := run(t, "plugin", "init", "my-guard"); err == nil {
		t.Error("init overwrote an existing plugin")
	}
	if _, err := run(t, "plugin", "init", "../evil"); err == nil {
		t.Error("init accepted a path")
	}
	types, _ := run(t, "plugin", "types")
	if types != jsplugin.Types {
		t.Error("plugin types")
	}
}
