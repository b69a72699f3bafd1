package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/trust"
)

// writeConfig replaces the project's podcode.json.
func writeConfig(t *testing.T, dir string, cfg map[string]any) {
	t.Helper()
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "podcode.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A changed .claude/settings.json that also says disableAllHooks is not
// trusted either: its guards deny, as shown, rather than nothing running
// while `podcode run` says they deny.
func TestChangedClaudeSettingsCannotDisableTheirGuards(t *testing.T) {
	p := claudeGuardProject(t)
	dir := apptest.Dir(t, p)
	trustNow(t, dir, p)
	settings := filepath.Join(dir, ".claude/settings.json")
	old, _ := os.ReadFile(settings)
	os.WriteFile(settings, []byte(`{"disableAllHooks": true, `+strings.TrimPrefix(string(old), "{")), 0o644)
	a, _ := apptest.BootDir(t, dir, p)
	requireTrustDeny(t, rmRF(a), ".claude/settings.json", "changed since it was trusted")
	if s := a.Trust.Skipped(); len(s) != 1 || s[0].Effect != "denying" {
		t.Errorf("skipped %+v", s)
	}
}

// The project's podcode.json switches off code that came with the project,
// but not a guard the user trusted: a pulled line of config
// (disabled_plugins, a hooks entry) must not stop a fail-closed manifest
// entry or a .claude PreToolUse hook, any more than an edit of it does.
// The user's own file still switches them off.
func TestProjectConfigCannotSwitchOffGuards(t *testing.T) {
	manifest := failClosedProject(t)
	claude := claudeGuardProject(t)
	for _, c := range []struct {
		name    string
		p       apptest.Project
		project map[string]any // the project's podcode.json, after trust
		user    map[string]any // the user's, which may
		says    string         // the guard's own deny
	}{
		{"manifest, disabled_plugins", manifest, map[string]any{"disabled_plugins": []string{"rm-guard"}},
			map[string]any{"disabled_plugins": []string{"rm-guard"}}, "the guard says no"},
		{"manifest, hooks", manifest, map[string]any{"hooks": map[string]any{"rm-guard/PreToolUse": map[string]any{"enabled": false}}},
			map[string]any{"hooks": map[string]any{"rm-guard/PreToolUse": map[string]any{"enabled": false}}}, "the guard says no"},
		{"claude, disabled_plugins", claude, map[string]any{"plugin": claude.Plugins, "disabled_plugins": []string{"claude"}},
			map[string]any{"disabled_plugins": []string{"claude"}}, "Blocked"},
		{"claude, hooks", claude, map[string]any{"plugin": claude.Plugins, "hooks": map[string]any{"claude/PreToolUse": map[string]any{"enabled": false}}},
			map[string]any{"hooks": map[string]any{"claude/PreToolUse": map[string]any{"enabled": false}}}, "Blocked"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.p
			p.UserDir = t.TempDir()
			dir := apptest.Dir(t, p)
			trustNow(t, dir, p)
			writeConfig(t, dir, c.project)
			a, logs := apptest.BootDir(t, dir, p)
			if err := rmRF(a); err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("the project's file switched the guard off: %v", err)
			}
			logs.Require(t, "does not switch off")
			p.User = c.user
			b, _ := apptest.BootDir(t, dir, p)
			if err := rmRF(b); err != nil {
				t.Errorf("the user's file did not switch the guard off: %v", err)
			}
		})
	}
}

// Claude Code records the commands you approve in .claude/settings.local.json,
// and teams edit the permissions, env and model of .claude/settings.json:
// none of it is run by Podcode, so none of it untrusts the hooks (a guard
// would deny every call it matches until `podcode trust`). What the hooks
// are does.
func TestClaudeSettingsOtherKeysKeepTrust(t *testing.T) {
	p := claudeGuardProject(t)
	dir := apptest.Dir(t, p)
	trustNow(t, dir, p)
	settings := filepath.Join(dir, ".claude/settings.json")
	old, _ := os.ReadFile(settings)
	os.WriteFile(filepath.Join(dir, ".claude/settings.local.json"), []byte(`{"permissions": {"allow": ["Bash(npm test:*)"]}}`), 0o644)
	os.WriteFile(settings, []byte("{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"},\n"+strings.TrimPrefix(string(old), "{")), 0o644)
	a, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(a); err == nil || !strings.Contains(err.Error(), "Blocked") {
		t.Errorf("the trusted hook did not run as itself: %v", err)
	}
	if s := a.Trust.Skipped(); len(s) != 0 {
		t.Errorf("skipped %+v", s)
	}
	// A hook added in the local file is that file's to trust: it is
	// skipped, and the trusted file's guard still runs as itself.
	os.WriteFile(filepath.Join(dir, ".claude/settings.local.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`), 0o644)
	b, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(b); err == nil || !strings.Contains(err.Error(), "Blocked") {
		t.Errorf("the trusted hook did not run as itself: %v", err)
	}
	if s := b.Trust.Skipped(); len(s) != 1 || s[0].Name != ".claude/settings.local.json" || s[0].State != trust.NeverTrusted {
		t.Errorf("skipped %+v", s)
	}
}
