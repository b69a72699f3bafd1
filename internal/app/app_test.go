package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

func claudeProject(t *testing.T) apptest.Project {
	script, err := os.ReadFile("../claudehooks/testdata/hooks/block-rm.sh") // the Claude Code script, unchanged
	if err != nil {
		t.Fatal(err)
	}
	return apptest.Project{Files: map[string]string{
		".claude/settings.json": `{"permissions": {"allow": ["Bash"]}, "hooks": {"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"}]}]}}`,
		".claude/hooks/block-rm.sh": string(script),
		// A manifest plugin named by the config's plugin array.
		"guards/audit/podcode-plugin.json": `{"id": "audit", "contributes": {"hooks": [{"event": "PostToolUse", "handler": {"command": "cat >/dev/null"}}]}}`,
	}, Plugins: []string{"./guards/audit"}}
}

func sources(a interface {
	Handlers(plugin.HookEvent) []plugin.HandlerInfo
}, ev plugin.HookEvent) string {
	var out []string
	for _, h := range a.Handlers(ev) {
		out = append(out, h.Source+"@"+h.Layer.String())
	}
	return strings.Join(out, " ")
}

// A Claude Code hook script runs unchanged, in the project layer, once the
// project is trusted; a manifest directory in the plugin array loads as a
// manifest plugin, not as a JavaScript one.
//
// covers L2
func TestClaudeHooksAndManifestsBoot(t *testing.T) {
	a, logs := apptest.Boot(t, claudeProject(t))
	if got := sources(a.Hooks, plugin.HookPreToolUse); !strings.Contains(got, "claude: sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh (.claude/settings.json)@project") {
		t.Fatalf("PreToolUse handlers: %s", got)
	}
	if got := sources(a.Hooks, plugin.HookPostToolUse); got != "audit (cat >/dev/null)@plugin" {
		t.Errorf("PostToolUse handlers: %s", got)
	}
	if len(a.Plugins.Plugins) != 0 || len(a.Plugins.Warnings) != 0 {
		t.Errorf("the manifest directory reached the JS loader: %v", a.Plugins.Warnings)
	}
	_, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "bash", map[string]any{"command": "rm -rf build"})
	if err == nil || !strings.Contains(err.Error(), "Blocked: 'rm -rf build' deletes recursively") {
		t.Errorf("rm -rf: %v\n%s", err, strings.Join(logs.Lines(), "\n"))
	}
	if res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "bash", map[string]any{"command": "echo fine"}); err != nil || !strings.Contains(res.Output, "fine") {
		t.Errorf("echo: %+v %v", res, err)
	}
}

// Untrusted, neither the Claude hooks nor the manifest run; the config's
// hooks override and disabled_plugins remove them by id (a guard, such as
// the PreToolUse hook here, only by the user's file:
// TestProjectConfigCannotSwitchOffGuards).
func TestClaudeHooksGated(t *testing.T) {
	p := claudeProject(t)
	p.Untrusted = true
	a, logs := apptest.Boot(t, p)
	if got := sources(a.Hooks, plugin.HookPreToolUse) + sources(a.Hooks, plugin.HookPostToolUse); got != "config:permission@config" {
		t.Errorf("untrusted handlers: %s", got)
	}
	logs.Require(t, "trust: project code skipped", "kind=claude-hooks", "name=.claude/settings.json", "podcode trust")
	logs.Require(t, "trust: project code skipped", "kind=manifest", "name=guards/audit")

	p = claudeProject(t)
	p.Config = map[string]any{"disabled_plugins": []string{"audit"}}
	p.User = map[string]any{"hooks": map[string]any{"claude/PreToolUse": map[string]any{"enabled": false}}}
	p.UserDir = t.TempDir()
	a, _ = apptest.Boot(t, p)
	if got := sources(a.Hooks, plugin.HookPreToolUse) + sources(a.Hooks, plugin.HookPostToolUse); got != "config:permission@config" {
		t.Errorf("switched off: %s", got)
	}
}

// The project's cron jobs and webhooks run prompts unattended: they stay
// only once the project is trusted.
func TestProjectJobsNeedTrust(t *testing.T) {
	p := apptest.Project{Config: map[string]any{
		"cron":     []any{map[string]any{"name": "nightly", "schedule": "0 3 * * *", "prompt": "clean up"}},
		"webhooks": map[string]any{"deploy": map[string]any{"secret": "in-the-repo", "prompt": "{{.Body}}"}},
	}}
	a, _ := apptest.Boot(t, p)
	if len(a.Config.Cron) != 1 || len(a.Config.Webhooks) != 1 {
		t.Errorf("trusted: cron %v webhooks %v", a.Config.Cron, a.Config.Webhooks)
	}
	p.Untrusted = true
	a, logs := apptest.Boot(t, p)
	if len(a.Config.Cron) != 0 || len(a.Config.Webhooks) != 0 {
		t.Errorf("untrusted: cron %v webhooks %v", a.Config.Cron, a.Config.Webhooks)
	}
	logs.Require(t, "trust: project code skipped", "kind=config", "name=podcode.json")
}

// Trusted scripts are checked again before every run: an edit after
// start-up (a tool call, a git pull) stops them rather than running
// content nobody trusted; a guard among them denies instead.
func TestScriptsRecheckedAtEveryRun(t *testing.T) {
	p := claudeProject(t)
	p.Untrusted, p.UserDir = true, t.TempDir()
	dir := apptest.Dir(t, p)
	survey, _ := apptest.BootDir(t, dir, p)
	var items []trust.Item
	for _, it := range survey.Trust.Asked() {
		items = append(items, it.Item)
	}
	if len(items) != 2 {
		t.Fatalf("asked about %+v", items)
	}
	if err := survey.Trust.Store.Record(dir, items); err != nil {
		t.Fatal(err)
	}
	a, logs := apptest.BootDir(t, dir, p)
	ctx := context.Background()
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "bash", map[string]any{"command": "rm -rf nothing-here"}); err == nil {
		t.Fatal("the trusted hook did not run")
	}
	os.WriteFile(filepath.Join(dir, ".claude/hooks/block-rm.sh"), []byte("exit 0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "guards/audit/notes.txt"), []byte("new file in the plugin"), 0o644)
	// The PreToolUse hook is a guard: changed, it denies what it matches.
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "bash", map[string]any{"command": "rm -rf nothing-here"}); err == nil ||
		!strings.Contains(err.Error(), "claude-hooks .claude/settings.json changed since it was trusted") {
		t.Errorf("the call: %v", err)
	}
	// Any other handler is not run, and says why.
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "read", map[string]any{"path": "podcode.json"}); err != nil {
		t.Errorf("read: %v", err)
	}
	logs.Require(t, "hook handler failed", "audit", "not run", "manifest guards/audit changed since it was trusted")
}

// The project's podcode.json switches off only Claude Code hooks that
// came with the project: the user's own ~/.claude hooks (a PostToolUse
// audit here) keep running whatever the project's disabled_plugins or
// hooks entries say; the user's file switches off either.
func TestProjectConfigReachesOnlyTheProjectsClaudeHooks(t *testing.T) {
	claudeDir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claudeDir)
	if err := os.WriteFile(filepath.Join(claudeDir, "settings.json"), []byte(`{"hooks": {"PostToolUse": [
		{"hooks": [{"type": "command", "command": "echo user-audit"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{".claude/settings.json": `{"hooks": {"PostToolUse": [
		{"hooks": [{"type": "command", "command": "echo project-audit"}]}]}}`}
	off := map[string]any{"claude/PostToolUse": map[string]any{"enabled": false}}
	for _, c := range []struct {
		name            string
		project, user   map[string]any
		userRuns, yours bool
	}{
		{"nothing off", nil, nil, true, true},
		{"project disabled_plugins", map[string]any{"disabled_plugins": []string{"claude"}}, nil, true, false},
		{"project hooks entry", map[string]any{"hooks": off}, nil, true, false},
		{"user hooks entry", nil, map[string]any{"hooks": off}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _ := apptest.Boot(t, apptest.Project{Files: files, Config: c.project, User: c.user})
			got := sources(a.Hooks, plugin.HookPostToolUse)
			if strings.Contains(got, "user-audit") != c.userRuns || strings.Contains(got, "project-audit") != c.yours {
				t.Errorf("PostToolUse handlers: %q; want the user's: %v, the project's: %v", got, c.userRuns, c.yours)
			}
		})
	}
}
