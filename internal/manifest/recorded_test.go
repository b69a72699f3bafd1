package manifest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

// A fail-closed entry as the trust store recorded it denies the events
// its recorded matcher matches (the whole tool id) while its check says
// so, in the plugin layer and fail-closed, and runs nothing; the guards a
// manifest declares are its fail-closed entries it does not switch off.
//
// covers the promise "a guard the project changed denies as trusted" (docs/security.md)
func TestRecordedGuardDenies(t *testing.T) {
	m, err := Parse("/p/podcode-plugin.json", []byte(`{"id": "g", "contributes": {"hooks": [
		{"event": "PreToolUse", "matcher": "bash", "failClosed": true, "handler": {"command": "sh ./deny.sh"}},
		{"event": "PreToolUse", "matcher": "write", "failClosed": true, "enabled": false, "handler": {"command": "sh ./off.sh"}},
		{"event": "PostToolUse", "handler": {"process": "./audit", "args": ["--json"]}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	guards := m.Guards()
	if len(guards) != 1 || guards[0] != (trust.Guard{Event: "PreToolUse", Matcher: "bash", Source: "g (sh ./deny.sh)", Plugin: "g"}) {
		t.Fatalf("guards: %+v", guards)
	}
	d := plugin.NewDispatcher()
	denies := func() error { return errors.New("g (sh ./deny.sh) changed; run `podcode trust`") }
	if ok, err := RegisterRecordedGuard(d, guards[0], denies); !ok || err != nil {
		t.Fatalf("registered %v: %v", ok, err)
	}
	ctx := context.Background()
	if res, err := d.Dispatch(ctx, bash("ls")); err != nil || res.Decision != plugin.DecisionDeny || !strings.Contains(res.Message, "podcode trust") {
		t.Errorf("bash: %+v %v", res, err)
	}
	if res, _ := d.Dispatch(ctx, &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bashful", ToolInput: "{}"}); res.Decision == plugin.DecisionDeny {
		t.Error("the recorded matcher is not over the whole tool id")
	}
	if h := d.Handlers(plugin.HookPreToolUse); len(h) != 1 || !h[0].FailClosed || h[0].Layer != plugin.LayerPlugin || h[0].Source != "g (sh ./deny.sh) (as trusted)" {
		t.Errorf("handlers: %+v", h)
	}
	bad := guards[0]
	bad.Matcher = "("
	if ok, err := RegisterRecordedGuard(plugin.NewDispatcher(), bad, denies); !ok || err == nil {
		t.Errorf("a bad recorded matcher: %v %v", ok, err)
	}
	bad.Event = "Nonsense"
	if ok, err := RegisterRecordedGuard(plugin.NewDispatcher(), bad, denies); ok || err == nil {
		t.Errorf("an unknown recorded event: %v %v", ok, err)
	}
}
