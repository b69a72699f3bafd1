package app_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

func claudeProject(t *testing.T) apptest.Project {
	script, err := os.ReadFile("testdata/block-rm.sh")
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
// hooks override and disabled_plugins remove them by id.
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
	p.Config = map[string]any{"hooks": map[string]any{"claude/PreToolUse": map[string]any{"enabled": false}}, "disabled_plugins": []string{"audit"}}
	a, _ = apptest.Boot(t, p)
	if got := sources(a.Hooks, plugin.HookPreToolUse) + sources(a.Hooks, plugin.HookPostToolUse); got != "config:permission@config" {
		t.Errorf("switched off: %s", got)
	}
}
