package plugin

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// covers L9
func TestSDKHelpers(t *testing.T) {
	ctx := context.Background()
	p := &HookPayload{Event: HookPreToolUse, ToolName: "bash", SessionID: "ses_1", Channel: "cli"}

	res, err := DenyHook("no shells")(ctx, p)
	if err != nil || res.Decision != DecisionDeny || res.Message != "no shells" {
		t.Errorf("DenyHook = %+v, %v", res, err)
	}
	res, err = AllowHook()(ctx, p)
	if err != nil || res.Decision != DecisionAllow {
		t.Errorf("AllowHook = %+v, %v", res, err)
	}

	var buf bytes.Buffer
	var _ Logger = (*slog.Logger)(nil) // *slog.Logger satisfies Logger
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	res, err = LogHook(logger, "tool about to run")(ctx, p)
	if err != nil || res.Decision != DecisionAllow {
		t.Errorf("LogHook = %+v, %v", res, err)
	}
	line := buf.String()
	for _, want := range []string{`msg="tool about to run"`, "event=PreToolUse", "session_id=ses_1", "channel=cli", "tool_name=bash"} {
		if !strings.Contains(line, want) {
			t.Errorf("LogHook line %q lacks %q", line, want)
		}
	}

	// Through a Dispatcher, the helpers vote as they say.
	d, _ := newTestDispatcher(t)
	mustRegister(t, d, HookPreToolUse, LogHook(logger, "seen"))
	mustRegister(t, d, HookPreToolUse, AllowHook())
	mustRegister(t, d, HookPreToolUse, DenyHook("blocked by policy"))
	got, err := d.Dispatch(ctx, p)
	if err != nil || got.Decision != DecisionDeny || got.Message != "blocked by policy" {
		t.Errorf("dispatch = %+v, %v", got, err)
	}
}
