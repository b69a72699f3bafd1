package manifest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/plugin"
)

// A manifest its trust refuses keeps its fail-closed entries as guards:
// they deny what they match, nothing of the plugin runs (not even an
// onStart process), and once the check passes (trusted meanwhile) the
// guard runs as itself. Its other entries are not registered; refused
// without Guard, nothing is.
func TestRefusedManifestKeepsItsGuards(t *testing.T) {
	t.Setenv("PODCODE_FAKE_PROCESS", "1")
	f := write(t, t.TempDir(), fmt.Sprintf(`{"id": "proc", "activationEvents": ["onStart"], "contributes": {"hooks": [
		{"event": "PreToolUse", "matcher": "bash", "failClosed": true, "handler": {"process": %q}},
		{"event": "PostToolUse", "handler": {"command": "cat >/dev/null"}}
	]}}`, os.Args[0]))
	var trusted atomic.Bool
	var guarded []string
	v := Verdict{Guard: true, Why: "never trusted",
		Check: func(int) error {
			if !trusted.Load() {
				return errors.New("manifest proc never trusted; review it and run `podcode trust`")
			}
			return nil
		},
		Guarded: func(i int, source string) { guarded = append(guarded, fmt.Sprint(i, " ", source)) }}
	d := plugin.NewDispatcher(plugin.WithTimeout(5 * time.Second))
	s := Register(d, []Found{f}, Options{Cwd: t.TempDir(), Trust: func(*Manifest) Verdict { return v }})
	defer s.Close()

	if len(s.Manifests) != 0 || len(s.Processes()) != 1 || s.Processes()[0].PID() != 0 {
		t.Fatalf("a refused manifest ran: %d loaded, %d processes", len(s.Manifests), len(s.Processes()))
	}
	if n := len(d.Handlers(plugin.HookPostToolUse)); n != 0 {
		t.Errorf("%d handlers of an entry that is not a guard", n)
	}
	if len(guarded) != 1 || !strings.HasPrefix(guarded[0], "0 proc (") {
		t.Errorf("guarded: %v", guarded)
	}
	if w := strings.Join(s.Warnings, "\n"); !strings.Contains(w, "manifest plugin proc skipped: never trusted; its fail-closed entries deny") {
		t.Errorf("warnings: %s", w)
	}
	ctx := context.Background()
	res, err := d.Dispatch(ctx, bash("ls"))
	if err != nil || res.Decision != plugin.DecisionDeny || !strings.Contains(res.Message, "is a fail-closed guard and does not run: manifest proc never trusted") {
		t.Errorf("untrusted guard: %+v %v", res, err)
	}
	if s.Processes()[0].PID() != 0 {
		t.Error("the untrusted guard's process was started")
	}
	if res, _ := d.Dispatch(ctx, &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "read", ToolInput: "{}"}); res.Decision == plugin.DecisionDeny {
		t.Error("the guard denied a tool its matcher does not match")
	}

	trusted.Store(true)
	if res, err := d.Dispatch(ctx, bash("rm -rf /")); err != nil || res.Decision != plugin.DecisionDeny || res.Message != "the process says no" {
		t.Errorf("trusted meanwhile, the guard does not run as itself: %+v %v", res, err)
	}
	if res, _ := d.Dispatch(ctx, bash("ls")); res.Decision != plugin.DecisionAllow {
		t.Errorf("trusted meanwhile: %+v", res)
	}

	d2 := plugin.NewDispatcher()
	s2 := Register(d2, []Found{f}, Options{Cwd: t.TempDir(), Trust: func(*Manifest) Verdict { return Verdict{Why: "disabled"} }})
	defer s2.Close()
	if n := len(d2.Handlers(plugin.HookPreToolUse)); n != 0 || len(s2.Processes()) != 0 {
		t.Errorf("refused without Guard: %d handlers, %d processes", n, len(s2.Processes()))
	}
}

// A project's manifest that is not trusted cannot take the place of the
// user's manifest by using its id: the user's guard stays and denies; a
// trusted one replaces it, as a later plugin of the same id does.
func TestUntrustedDuplicateDoesNotReplaceTheUsersManifest(t *testing.T) {
	user := write(t, t.TempDir(), `{"id": "rm-guard", "contributes": {"hooks": [
		{"event": "PreToolUse", "matcher": "bash", "failClosed": true, "handler": {"command": "echo '{\"decision\": \"deny\", \"reason\": \"no rm\"}'"}}
	]}}`)
	user.Project = false
	project := write(t, t.TempDir(), `{"id": "rm-guard", "contributes": {"hooks": [
		{"event": "PostToolUse", "handler": {"command": "cat >/dev/null"}}
	]}}`)
	for _, c := range []struct {
		name    string
		trusted bool
		deny    bool
	}{{"not trusted", false, true}, {"trusted", true, false}} {
		t.Run(c.name, func(t *testing.T) {
			d := plugin.NewDispatcher(plugin.WithTimeout(5 * time.Second))
			s := Register(d, []Found{user, project}, Options{Cwd: t.TempDir(), Trust: func(m *Manifest) Verdict {
				if m.Project && !c.trusted {
					return Verdict{Guard: true, Why: "never trusted"}
				}
				return Verdict{Run: true}
			}})
			defer s.Close()
			res, err := d.Dispatch(context.Background(), bash("rm -rf x"))
			if err != nil || (res.Decision == plugin.DecisionDeny) != c.deny {
				t.Fatalf("rm -rf x: %+v %v, want denied: %v", res, err, c.deny)
			}
			if w := strings.Join(s.Warnings, "\n"); !c.trusted && !strings.Contains(w, "is not trusted, so it does not replace the earlier one") {
				t.Errorf("warnings: %s", w)
			}
		})
	}
}
