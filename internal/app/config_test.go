package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
)

// userDir makes the user's config folder with its podcode.json.
func userDir(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "podcode.json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A project's permission rules tighten the user's decision for each tool
// and never loosen it, whatever the shape of the rules: the project's
// exact "bash": "allow" does not beat the user's "*": "ask" (nobody to ask
// here: refused), and the project's "*": "deny" denies bash even where the
// user's file allows it.
//
// covers L8
func TestProjectPermissionOnlyTightens(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ user, project, want string }{
		{`{"permission": {"*": "ask"}}`, `bash`, "nobody can answer"},
		{`{"permission": {"bash": "allow"}}`, `*`, "the project's permission rule \"*\" says deny"},
	} {
		decision := map[string]string{"bash": "allow", "*": "deny"}[c.project]
		a, logs := apptest.Boot(t, apptest.Project{UserDir: userDir(t, c.user), Config: map[string]any{"permission": map[string]any{c.project: decision}}})
		_, _, err := a.Runner.CallTool(ctx, tool.Call{}, "bash", map[string]any{"command": "echo ran"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("user %s, project %s: %s: %v", c.user, c.project, decision, err)
		}
		if c.project == "bash" {
			logs.Require(t, `podcode.json:`, `key "permission.bash": "allow" has no effect: the user's rules say ask for bash`)
		}
	}
}

// A project's plugin_config block does not reach a plugin the user
// installed: that plugin reads the user's block, and a warning names the
// project's key.
//
// covers P9
func TestProjectPluginConfigReachesOnlyItsPlugins(t *testing.T) {
	probe := filepath.Join(t.TempDir(), "probe.js")
	os.WriteFile(probe, []byte(`export default { id: "probe", server: (input, options) => ({
  tool: () => [{ id: "probe_config", description: "the plugin's config", parameters: { type: "object", properties: {} },
    execute: () => ({ title: "config", output: JSON.stringify(options.config ?? null) }) }] }) }`), 0o644)
	user := userDir(t, `{"plugin": [`+quote(probe)+`], "plugin_config": {"probe": {"level": "the user's"}}}`)
	a, logs := apptest.Boot(t, apptest.Project{UserDir: user, PluginConfig: map[string]any{"probe": map[string]any{"level": "the project's"}}})
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "probe_config", map[string]any{})
	if err != nil || res.Output != `{"level":"the user's"}` {
		t.Errorf("the user's plugin read %q (%v)", res.Output, err)
	}
	logs.Require(t, "the project's plugin_config block is not given to a plugin of the user's", "plugin=probe", `key "plugin_config.probe"`)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// The project's settings that need trust are one trust item of kind
// config, whose fingerprint covers exactly those settings: untrusted they
// are not merged and each is named with its position; an edit of another
// key keeps the trust; an edit of one of them drops it.
func TestProjectConfigTrustItem(t *testing.T) {
	p := apptest.Project{UserDir: t.TempDir(), Untrusted: true, Config: map[string]any{
		"agent":    map[string]any{"ask_timeout_ms": 1000},
		"provider": map[string]any{"offline": map[string]any{"options": map[string]any{"temperature": 0.5}}},
		"cron":     []any{map[string]any{"name": "nightly", "schedule": "0 3 * * *", "prompt": "clean up"}},
	}}
	dir := apptest.Dir(t, p)
	a, logs := apptest.BootDir(t, dir, p)
	asked := a.Trust.Asked()
	if len(asked) != 1 || asked[0].Kind != "config" || strings.Join(asked[0].Runs, "\n") !=
		"cron = [{\"name\":\"nightly\",\"prompt\":\"clean up\",\"schedule\":\"0 3 * * *\"}]\nprovider.offline.options.temperature = 0.5" {
		t.Fatalf("asked %+v", asked)
	}
	if len(a.Config.Cron) != 0 || a.Config.Provider["offline"].Options["temperature"] != nil {
		t.Errorf("merged before trust: %+v %+v", a.Config.Cron, a.Config.Provider)
	}
	logs.Require(t, `podcode.json:`, `key "cron": not applied until the project's configuration is trusted`, "never trusted")
	if err := a.Trust.Store.Record(dir, []trust.Item{asked[0].Item}); err != nil {
		t.Fatal(err)
	}
	edit := func(k string, v any) {
		p.Config[k] = v
		data, _ := json.Marshal(p.Config)
		if err := os.WriteFile(filepath.Join(dir, "podcode.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("agent", map[string]any{"ask_timeout_ms": 2000})
	if a, _ := apptest.BootDir(t, dir, p); len(a.Config.Cron) != 1 || !a.Config.Cron[0].Project || a.Config.Provider["offline"].Options["temperature"] != 0.5 {
		t.Errorf("trusted: %+v %+v", a.Config.Cron, a.Config.Provider)
	}
	edit("cron", []any{map[string]any{"name": "nightly", "schedule": "* * * * *", "prompt": "clean up"}})
	if a, _ := apptest.BootDir(t, dir, p); len(a.Config.Cron) != 0 {
		t.Errorf("an edited job ran untrusted: %+v", a.Config.Cron)
	}
}
