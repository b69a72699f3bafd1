package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
)

const (
	rmGuard     = "rm-guard (sh ./deny-rm.sh)"
	claudeGuard = `claude: sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh (.claude/settings.json)`
)

// requireRecordedDeny checks that the bash call was denied by the guard
// named source as the user trusted it: the message names the guard and
// the item, says the project changed it and how to review it.
func requireRecordedDeny(t *testing.T, err error, source, item string) {
	t.Helper()
	requireTrustDeny(t, err, source, item, "is a guard you trusted, and the project changed it since")
}

// requireShownDenying checks that the item is shown where the user looks
// (Gate.Skipped: `podcode run`, `plugin list`, /healthz, /plugins) as
// denying, with the guard.
func requireShownDenying(t *testing.T, a *app.App, name, source string) {
	t.Helper()
	for _, s := range a.Trust.Skipped() {
		if s.Name == name {
			if s.Effect != trust.EffectDenying || !strings.Contains(strings.Join(s.Guards, "\n"), source) || !strings.Contains(s.Meaning, "podcode trust") {
				t.Errorf("%s is shown as %+v", name, s)
			}
			return
		}
	}
	t.Errorf("%s is not shown: %+v", name, a.Trust.Skipped())
}

func readIsAllowed(t *testing.T, a *app.App) {
	t.Helper()
	if _, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "read", map[string]any{"path": "podcode.json"}); err != nil {
		t.Errorf("a tool the recorded guard does not match was denied: %v", err)
	}
}

// A trusted fail-closed manifest guard on bash whose declaration the
// project then changes (failClosed dropped along with its command, another
// matcher, switched off in the manifest, a manifest that no longer
// parses, the folder deleted) still denies bash as the user trusted it:
// what denies is read from the trust store, not from the changed files.
// Trusting the change gives the guard up: the call is allowed, at once in
// the Podcode that runs and at the next start.
//
// covers the promise "a guard the project changed denies as trusted" (docs/security.md)
func TestRecordedManifestGuardDenies(t *testing.T) {
	manifest := ".podcode/plugins/guard/podcode-plugin.json"
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"failClosed dropped and command changed", func(t *testing.T, dir string) {
			write(t, dir, manifest, `{"id": "rm-guard", "contributes": {"hooks": [
				{"event": "PreToolUse", "matcher": "bash", "handler": {"command": "cat >/dev/null"}}]}}`)
		}},
		{"matcher changed", func(t *testing.T, dir string) {
			write(t, dir, manifest, `{"id": "rm-guard", "contributes": {"hooks": [
				{"event": "PreToolUse", "matcher": "nothing", "failClosed": true, "handler": {"command": "sh ./deny-rm.sh"}}]}}`)
		}},
		{"switched off in the manifest", func(t *testing.T, dir string) {
			write(t, dir, manifest, `{"id": "rm-guard", "contributes": {"hooks": [
				{"event": "PreToolUse", "matcher": "bash", "failClosed": true, "enabled": false, "handler": {"command": "sh ./deny-rm.sh"}}]}}`)
		}},
		{"manifest no longer parses", func(t *testing.T, dir string) {
			write(t, dir, manifest, `{"id": "rm-guard", "contributes": {"hooks": [}`)
		}},
		{"folder deleted", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, ".podcode/plugins/guard")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := failClosedProject(t)
			dir := apptest.Dir(t, p)
			trustNow(t, dir, p)
			c.change(t, dir)

			a, logs := apptest.BootDir(t, dir, p)
			requireRecordedDeny(t, rmRF(a), rmGuard, "manifest .podcode/plugins/guard")
			readIsAllowed(t, a)
			requireShownDenying(t, a, ".podcode/plugins/guard", rmGuard)
			logs.Require(t, "trust: a guard you trusted was changed by the project", rmGuard)

			// `podcode trust` of the change, while this Podcode runs.
			trustNow(t, dir, p)
			if err := rmRF(a); err != nil {
				t.Errorf("trusted meanwhile, the guard given up still denies: %v", err)
			}
			b, _ := apptest.BootDir(t, dir, p)
			if err := rmRF(b); err != nil {
				t.Errorf("trusted, the guard given up still denies: %v", err)
			}
			if s := b.Trust.Skipped(); len(s) != 0 {
				t.Errorf("trusted, still shown: %+v", s)
			}
		})
	}
}

// The same for a trusted .claude PreToolUse hook on Bash: its entry
// deleted (another hook kept, or none), the whole settings file deleted,
// the hook made async, or another matcher; it denies Bash as trusted
// until the change is trusted, and then the call is allowed.
//
// covers the promise "a guard the project changed denies as trusted" (docs/security.md)
func TestRecordedClaudeGuardDenies(t *testing.T) {
	settings := ".claude/settings.json"
	hook := func(extra string) string {
		return `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"` + extra + `}]}]}}`
	}
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"entry deleted", func(t *testing.T, dir string) {
			write(t, dir, settings, `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}]}}`)
		}},
		{"every hook deleted", func(t *testing.T, dir string) {
			write(t, dir, settings, `{"hooks": {}}`)
		}},
		{"file deleted", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, settings)); err != nil {
				t.Fatal(err)
			}
		}},
		{"made async", func(t *testing.T, dir string) {
			write(t, dir, settings, hook(`, "async": true`))
		}},
		{"matcher changed", func(t *testing.T, dir string) {
			write(t, dir, settings, strings.Replace(hook(""), `"Bash"`, `"Write"`, 1))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := claudeGuardProject(t)
			dir := apptest.Dir(t, p)
			trustNow(t, dir, p)
			c.change(t, dir)

			a, _ := apptest.BootDir(t, dir, p)
			requireRecordedDeny(t, rmRF(a), claudeGuard, "claude-hooks .claude/settings.json")
			readIsAllowed(t, a)
			requireShownDenying(t, a, settings, claudeGuard)

			trustNow(t, dir, p)
			if err := rmRF(a); err != nil {
				t.Errorf("trusted meanwhile, the guard given up still denies: %v", err)
			}
			b, _ := apptest.BootDir(t, dir, p)
			if err := rmRF(b); err != nil {
				t.Errorf("trusted, the guard given up still denies: %v", err)
			}
		})
	}
}

// A guard recorded as trusted is switched off as the guard itself would
// be: by the user's podcode.json only, never by the project's.
//
// covers the promise "a guard the project changed denies as trusted" (docs/security.md)
func TestRecordedGuardOnlyTheUserSwitchesOff(t *testing.T) {
	for _, c := range []struct {
		name          string
		p             func(t *testing.T) apptest.Project
		change        func(t *testing.T, dir string)
		project, user map[string]any
		source        string
	}{
		{"manifest", failClosedProject, func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, ".podcode/plugins/guard"))
		}, map[string]any{"disabled_plugins": []string{"rm-guard"}, "hooks": map[string]any{"rm-guard/PreToolUse": map[string]any{"enabled": false}}},
			map[string]any{"disabled_plugins": []string{"rm-guard"}}, rmGuard},
		{"claude", claudeGuardProject, func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ".claude/settings.json"))
		}, map[string]any{"disabled_plugins": []string{"claude"}, "hooks": map[string]any{"claude/PreToolUse": map[string]any{"enabled": false}}},
			map[string]any{"hooks": map[string]any{"claude/PreToolUse": map[string]any{"enabled": false}}}, claudeGuard},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.p(t)
			dir := apptest.Dir(t, p)
			trustNow(t, dir, p)
			c.change(t, dir)
			cfg := c.project
			if len(p.Plugins) > 0 {
				cfg["plugin"] = p.Plugins
			}
			writeConfig(t, dir, cfg)
			a, _ := apptest.BootDir(t, dir, p)
			requireRecordedDeny(t, rmRF(a), c.source, "")
			p.User = c.user
			b, _ := apptest.BootDir(t, dir, p)
			if err := rmRF(b); err != nil {
				t.Errorf("the user's file did not switch the recorded guard off: %v", err)
			}
		})
	}
}

// A trust.json written before guards were recorded holds plain
// fingerprint strings: it still loads, its items stay trusted and run as
// themselves, and nothing of it is lost. At the first start that finds a
// guard's item as trusted, its guards are recorded, so that a change of
// the declaration afterwards still denies as trusted.
//
// covers the promise "a trust store written before guards were recorded still loads" (docs/security.md)
func TestOldTrustStoreStillLoads(t *testing.T) {
	p := failClosedProject(t)
	p.Files["guards/audit/podcode-plugin.json"] = `{"id": "audit", "contributes": {"hooks": [{"event": "PostToolUse", "handler": {"command": "cat >/dev/null"}}]}}`
	p.Plugins = []string{"./guards/audit"}
	dir := apptest.Dir(t, p)
	survey := p
	survey.Untrusted = true
	s, _ := apptest.BootDir(t, dir, survey)
	old := map[string]string{}
	for _, it := range s.Trust.Asked() {
		old[it.Key()] = it.Fingerprint
	}
	if len(old) != 2 {
		t.Fatalf("asked %+v", s.Trust.Asked())
	}
	data, _ := json.Marshal(map[string]any{"projects": map[string]any{dir: old, "/elsewhere": map[string]string{"plugin:x.ts": "sha256:1"}}})
	if err := os.WriteFile(filepath.Join(p.UserDir, trust.FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}

	a, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(a); err == nil || !strings.Contains(err.Error(), "the guard says no") {
		t.Fatalf("trusted in the old store, the guard does not run as itself: %v", err)
	}
	if sk := a.Trust.Skipped(); len(sk) != 0 {
		t.Errorf("skipped %+v", sk)
	}
	st, err := trust.Open(p.UserDir)
	if err != nil {
		t.Fatal(err)
	}
	guard, audit := st.Projects[dir]["manifest:.podcode/plugins/guard"], st.Projects[dir]["manifest:guards/audit"]
	if guard.Fingerprint != old["manifest:.podcode/plugins/guard"] || !guard.GuardsKnown || len(guard.Guards) != 1 || guard.Guards[0].Source != rmGuard {
		t.Errorf("the guard's entry: %+v", guard)
	}
	if audit.Fingerprint != old["manifest:guards/audit"] || audit.GuardsKnown {
		t.Errorf("the entry of an item without guards: %+v", audit)
	}
	if other := st.Projects["/elsewhere"]["plugin:x.ts"]; other.Fingerprint != "sha256:1" {
		t.Errorf("another project's entry was lost: %+v", other)
	}

	write(t, dir, ".podcode/plugins/guard/podcode-plugin.json", `{"id": "rm-guard", "contributes": {"hooks": [
		{"event": "PreToolUse", "matcher": "bash", "handler": {"command": "sh ./deny-rm.sh"}}]}}`)
	b, _ := apptest.BootDir(t, dir, p)
	requireRecordedDeny(t, rmRF(b), rmGuard, "manifest .podcode/plugins/guard")
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
