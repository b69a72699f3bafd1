package main

import (
	"context"
	"testing"

	"github.com/podcode/podcode/plugin"
)

func TestGuard(t *testing.T) {
	for cmd, want := range map[string]plugin.HookDecision{"ls -la": plugin.DecisionAllow, "rm -rf /": plugin.DecisionDeny, "sudo rm -fr ~": plugin.DecisionDeny, "mkfs /dev/sda": plugin.DecisionDeny} {
		res, err := Guard(context.Background(), &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: `{"command":"` + cmd + `"}`})
		if err != nil || res.Decision != want {
			t.Errorf("%q: %+v %v", cmd, res, err)
		}
	}
	if res, _ := Guard(context.Background(), &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "read", ToolInput: `{}`}); res != nil {
		t.Error("the guard voted on a tool other than bash")
	}
	if _, err := Guard(context.Background(), &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: `not json`}); err == nil {
		t.Error("an unreadable bash call must be an error (the guard fails closed)")
	}
}
