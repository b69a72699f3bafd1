package jsplugin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/plugin"
)

const votingPlugin = `export default { id: "voter", server: () => ({
  "tool.execute.before": (i) => i,
  lifecycle: {
    PreToolUse: (p) => {
      if (p.tool_name === "bash" && JSON.parse(p.tool_input).command.includes("rm -rf")) return { decision: "deny", message: "voter: not that" }
      if (p.tool_name === "write") throw new Error("write handler bug")
      if (p.tool_name === "webfetch") { for (;;) {} }
      return undefined
    },
    UserPromptSubmit: async (p) => ({ decision: "ask", message: "sure? " + p.session_id, data: { seen: true } }),
    SessionEnd: () => 42,
    PreTooluse: () => ({ decision: "deny" }),
  },
}) }`

func bashPayload(cmd string) *plugin.HookPayload {
	return &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: `{"command": "` + cmd + `"}`}
}

// A JS plugin votes through its lifecycle object, dispatched like a Go
// handler in the plugin layer.
//
// covers L7 L8
func TestLifecycleObjectVotes(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{".podcode/plugins/voter.js": votingPlugin},
		JobLimit: 300 * time.Millisecond})
	ctx := context.Background()
	rep, err := a.Hooks.DispatchReport(ctx, bashPayload("rm -rf /"))
	if err != nil || rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "voter: not that" {
		t.Fatalf("%+v %v", rep.Result, err)
	}
	var run *plugin.HandlerRun
	for i := range rep.Handlers {
		if rep.Handlers[i].Source == "voter" {
			run = &rep.Handlers[i]
		}
	}
	if run == nil || run.Layer != plugin.LayerPlugin || run.Outcome != plugin.OutcomeVoted {
		t.Errorf("handlers %+v", rep.Handlers)
	}
	if rep, _ := a.Hooks.DispatchReport(ctx, bashPayload("ls")); rep.Votes != 0 {
		t.Errorf("undefined must abstain: %+v", rep)
	}
	res, err := a.Hooks.Dispatch(ctx, &plugin.HookPayload{Event: plugin.HookUserPromptSubmit, SessionID: "ses_1"})
	if err != nil || res.Decision != plugin.DecisionAsk || res.Message != "sure? ses_1" || res.Data["seen"] != true {
		t.Errorf("async handler: %+v %v", res, err)
	}

	// A throw, a spin and a bad return value are the handler's errors: the
	// dispatch carries on without the vote, and the server with it.
	for _, p := range []*plugin.HookPayload{
		{Event: plugin.HookPreToolUse, ToolName: "write", ToolInput: "{}"},
		{Event: plugin.HookPreToolUse, ToolName: "webfetch", ToolInput: "{}"},
		{Event: plugin.HookSessionEnd},
	} {
		rep, err := a.Hooks.DispatchReport(ctx, p)
		if err != nil || rep.Votes != 0 {
			t.Errorf("%s %s: %+v %v", p.Event, p.ToolName, rep.Result, err)
		}
		for _, h := range rep.Handlers {
			if h.Source == "voter" && h.Outcome != plugin.OutcomeError {
				t.Errorf("%s %s: outcome %s", p.Event, p.ToolName, h.Outcome)
			}
		}
	}
	logs.Require(t, "plugin: lifecycle key is not a hook event; ignored", "key=PreTooluse", "PreToolUse")
	logs.Require(t, "hook handler failed", "write handler bug")
	if rep, _ := a.Hooks.DispatchReport(ctx, bashPayload("rm -rf /")); rep.Result.Decision != plugin.DecisionDeny {
		t.Error("the plugin stopped voting after a spin")
	}
}

// The config's hooks overrides remove a JS plugin's lifecycle handler.
func TestLifecycleOverride(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{".podcode/plugins/voter.js": votingPlugin},
		Config: map[string]any{"hooks": map[string]any{"voter/PreToolUse": map[string]any{"enabled": false}}}})
	var sources []string
	for _, h := range a.Hooks.Handlers(plugin.HookPreToolUse) {
		sources = append(sources, h.Source)
	}
	if strings.Contains(strings.Join(sources, ","), "voter") {
		t.Errorf("PreToolUse handlers %v", sources)
	}
	if hs := a.Hooks.Handlers(plugin.HookUserPromptSubmit); len(hs) != 1 || hs[0].Source != "voter" {
		t.Errorf("UserPromptSubmit handlers %+v", hs)
	}
}
