package claudehooks

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

// A guard hook as the trust store recorded it denies the calls its
// recorded matcher and `if` rule match, over Claude Code's tool names as
// the hook did, while its check says so, and abstains once it does not
// (the hooks trusted again); nothing of the hook runs. A recorded matcher
// that no longer compiles denies every call of its event.
//
// covers the promise "a guard the project changed denies as trusted" (docs/security.md)
func TestRecordedGuardDenies(t *testing.T) {
	d := plugin.NewDispatcher(plugin.WithLogger(quietLog()))
	var trusted atomic.Bool
	denies := func() error {
		if trusted.Load() {
			return nil
		}
		return errors.New("the project changed it; run `podcode trust`")
	}
	g := trust.Guard{Event: "PreToolUse", Matcher: "Bash", If: "Bash(rm *)", Source: "claude: ./check.sh (.claude/settings.json)"}
	if ok, err := RegisterRecordedGuard(d, g, t.TempDir(), denies); !ok || err != nil {
		t.Fatalf("registered %v: %v", ok, err)
	}
	ctx := context.Background()
	res, err := d.Dispatch(ctx, call("bash", map[string]any{"command": "rm -rf build"}))
	if err != nil || res.Decision != plugin.DecisionDeny || !strings.Contains(res.Message, "podcode trust") {
		t.Errorf("rm -rf: %+v %v", res, err)
	}
	for _, c := range []*plugin.HookPayload{call("bash", map[string]any{"command": "ls"}), call("write", map[string]any{"filePath": "x", "content": "rm -rf"})} {
		if res, _ := d.Dispatch(ctx, c); res.Decision == plugin.DecisionDeny {
			t.Errorf("a call the recorded guard does not match was denied: %+v", c)
		}
	}
	if h := d.Handlers(plugin.HookPreToolUse); len(h) != 1 || !h[0].FailClosed || h[0].Layer != plugin.LayerProject || h[0].Source != g.Source+" (as trusted)" {
		t.Errorf("handlers: %+v", h)
	}
	trusted.Store(true)
	if res, _ := d.Dispatch(ctx, call("bash", map[string]any{"command": "rm -rf build"})); res.Decision == plugin.DecisionDeny {
		t.Errorf("trusted again, it still denies: %+v", res)
	}

	trusted.Store(false)
	bad := plugin.NewDispatcher(plugin.WithLogger(quietLog()))
	g.Matcher, g.If = "(", ""
	if ok, err := RegisterRecordedGuard(bad, g, t.TempDir(), denies); !ok || err == nil || !strings.Contains(err.Error(), "denies every PreToolUse call") {
		t.Fatalf("a bad recorded matcher: %v %v", ok, err)
	}
	if res, _ := bad.Dispatch(ctx, call("read", map[string]any{"filePath": "x"})); res.Decision != plugin.DecisionDeny {
		t.Errorf("a bad recorded matcher does not deny: %+v", res)
	}
	g.Event = "Nonsense"
	if ok, err := RegisterRecordedGuard(bad, g, t.TempDir(), denies); ok || err == nil {
		t.Errorf("an unknown recorded event: %v %v", ok, err)
	}
}
