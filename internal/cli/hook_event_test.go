package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/podcode/podcode/plugin"
)

// `hook fire` dispatches a lifecycle event through every registered source
// (a JS plugin's lifecycle object, a manifest plugin, Claude Code hooks, the
// config's permission rules), prints each handler's vote, and fails on a
// deny or a handler that threw.
func TestHookFireLifecycleEvent(t *testing.T) {
	project(t, map[string]string{
		".podcode/plugins/guard.mjs": `export default { id: "guard", server: () => ({ lifecycle: {
  PreToolUse: (p) => JSON.parse(p.tool_input).command.includes("rm -rf") ? { decision: "deny", message: "no rm -rf" } : { decision: "allow" },
  UserPromptSubmit: () => { throw new Error("boom") },
} }) }`,
		".podcode/plugins/audit/podcode-plugin.json": `{"id": "audit", "contributes": {"hooks": [
  // a vote per call
  {"event": "PreToolUse", "handler": {"command": "echo '{\"decision\":\"allow\",\"message\":\"audited\"}'"}},
]}}`,
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	out, err := run(t, "--trust-all", "hook", "fire", "PreToolUse", "--input", `{"tool_name": "bash", "tool_input": {"command": "ls"}}`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"PreToolUse: allow", "SOURCE", "guard", "audit", "audited", "claude", "config:permission"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, err = run(t, "--trust-all", "hook", "fire", "PreToolUse", "--json", "--input", `{"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}`)
	if err == nil || !strings.Contains(err.Error(), "denied: no rm -rf") {
		t.Errorf("a deny: err %v", err)
	}
	var rep plugin.Report
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
		t.Fatalf("%v\n%s", jerr, out)
	}
	if rep.Result.Decision != plugin.DecisionDeny || len(rep.Handlers) < 4 {
		t.Errorf("report %+v", rep)
	}

	out, err = run(t, "--trust-all", "hook", "fire", "UserPromptSubmit", "--input", `{"extra": {"prompt": "hi"}}`)
	if err == nil || !strings.Contains(err.Error(), "guard") || !strings.Contains(out, "boom") {
		t.Errorf("a throw: err %v\n%s", err, out)
	}

	if _, err := run(t, "--trust-all", "hook", "fire", "PreToolUsed"); err == nil || !strings.Contains(err.Error(), "lifecycle events: PreToolUse") {
		t.Errorf("unknown event: %v", err)
	}
}
