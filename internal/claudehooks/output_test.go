package claudehooks

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/podcode/podcode/plugin"
)

// covers L7: every way a Claude Code hook can answer becomes a HookResult
// (decision, message, data) or an error.
func TestFromClaudeOutput(t *testing.T) {
	type res = plugin.HookResult
	deny := func(msg string) *res { return &res{Decision: plugin.DecisionDeny, Message: msg} }
	ctx := func(s string) map[string]any { return map[string]any{plugin.DataAdditionalContext: s} }
	cases := []struct {
		event          string
		code           int
		stdout, stderr string
		want           *res
		err            string
	}{
		// exit 0
		{"PreToolUse", 0, "", "", nil, ""},
		{"PreToolUse", 0, "checked\n", "debug noise", nil, ""},
		{"PreToolUse", 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Database writes are not allowed"}}`, "",
			deny("Database writes are not allowed"), ""},
		{"PreToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "",
			&res{Decision: plugin.DecisionAsk, Message: "sure?"}, ""},
		{"PreToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"fine","additionalContext":"env: prod"}}`, "",
			&res{Decision: plugin.DecisionAllow, Message: "fine", Data: ctx("env: prod")}, ""},
		{"PreToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"defer"}}`, "", &res{Decision: plugin.DecisionDefer}, ""},
		{"PreToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, "", deny("a Claude Code PreToolUse hook denied it"), ""},
		{"PreToolUse", 0, `{"decision":"block","reason":"legacy no"}`, "", deny("legacy no"), ""},
		{"PreToolUse", 0, `{"decision":"approve","reason":"legacy yes"}`, "", &res{Decision: plugin.DecisionAllow, Message: "legacy yes"}, ""},
		{"PreToolUse", 0, `{"decision":"approve","hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"new wins"}}`, "", deny("new wins"), ""},
		{"PreToolUse", 0, `{"continue":false,"stopReason":"Build failed","hookSpecificOutput":{"permissionDecision":"allow"}}`, "", deny("Build failed"), ""},
		{"PreToolUse", 0, `{"continue":true,"systemMessage":"careful"}`, "", &res{Data: map[string]any{DataSystemMessage: "careful"}}, ""},
		{"PreToolUse", 0, `{"suppressOutput":true}`, "", nil, ""},
		// a rewrite Podcode cannot apply is refused rather than ignored
		{"PreToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, "",
			&res{Decision: plugin.DecisionDeny, Message: "a Claude Code PreToolUse hook rewrote the tool's input (updatedInput), which Podcode cannot apply; rewrite arguments in a tool.execute.before plugin hook instead",
				Data: map[string]any{DataUpdatedInput: map[string]any{"command": "ls"}}}, ""},
		{"UserPromptSubmit", 0, "The target is staging.\n", "", &res{Data: ctx("The target is staging.")}, ""},
		{"UserPromptSubmit", 0, `{"decision":"block","reason":"no secrets"}`, "", deny("no secrets"), ""},
		{"UserPromptSubmit", 0, `{"decision":"block"}`, "", deny("a Claude Code UserPromptSubmit hook blocked it"), ""},
		{"UserPromptSubmit", 0, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}`, "", &res{Data: ctx("ctx")}, ""},
		{"SessionStart", 0, "branch: main", "", &res{Data: ctx("branch: main")}, ""},
		{"SessionStart", 0, `{"decision":"block","reason":"no"}`, "", nil, ""}, // cannot block
		{"SessionStart", 0, `{"continue":false,"stopReason":"not here"}`, "", deny("not here"), ""},
		{"PostToolUse", 0, "plain text is only logged", "", nil, ""},
		{"PostToolUse", 0, `{"decision":"block","reason":"lint failed","hookSpecificOutput":{"additionalContext":"see lint.log","updatedToolOutput":{"stdout":"[redacted]"}}}`, "",
			&res{Decision: plugin.DecisionDeny, Message: "lint failed", Data: map[string]any{plugin.DataAdditionalContext: "see lint.log", DataUpdatedToolOutput: map[string]any{"stdout": "[redacted]"}}}, ""},
		{"PostToolUseFailure", 0, `{"hookSpecificOutput":{"additionalContext":"retry with -v"}}`, "", &res{Data: ctx("retry with -v")}, ""},
		{"Stop", 0, `{"decision":"block","reason":"Run the tests"}`, "", deny("Run the tests"), ""},
		{"Stop", 0, `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Please run the linter"}}`, "",
			&res{Decision: plugin.DecisionDeny, Message: "Please run the linter", Data: ctx("Please run the linter")}, ""},
		{"Stop", 0, `{"continue":false,"stopReason":"done","decision":"block","reason":"more"}`, "", &res{Decision: plugin.DecisionAllow, Message: "done"}, ""},
		{"SubagentStop", 0, `{"decision":"block","reason":"more"}`, "", deny("more"), ""},
		{"PreCompact", 0, `{"decision":"block","reason":"not now"}`, "", deny("not now"), ""},
		{"PreCompact", 0, `{"continue":false}`, "", nil, ""},
		{"SessionEnd", 0, `{"decision":"block","systemMessage":"bye"}`, "", nil, ""},
		{"PostCompact", 0, "summary noted", "", nil, ""},
		// several lines, each JSON and none a hook answer: plain text
		{"UserPromptSubmit", 0, "{\"a\":1}\n{\"b\":2}", "", &res{Data: ctx("{\"a\":1}\n{\"b\":2}")}, ""},
		{"PreToolUse", 0, `{"decision":"maybe"}`, "", nil, `decision "maybe"`},
		{"PreToolUse", 0, `{"hookSpecificOutput":{"permissionDecision":"yes"}}`, "", nil, `permissionDecision "yes"`},
		{"PreToolUse", 0, `{"continue":"no"}`, "", nil, "not valid hook JSON"},
		{"PreToolUse", 0, `{"decision": "block",}`, "", nil, "not valid hook JSON"},
		{"UserPromptSubmit", 0, "{\"decision\":\"block\"}\n{\"b\":2}", "", nil, "not valid hook JSON"},
		// exit 2 blocks with stderr
		{"PreToolUse", 2, "", "Blocked: rm -rf\n", deny("Blocked: rm -rf"), ""},
		{"PreToolUse", 2, "", "", deny("a Claude Code PreToolUse hook blocked it (exit status 2)"), ""},
		{"PreToolUse", 2, `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, "still no", deny("still no"), ""},
		{"PreToolUse", 2, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"json reason"}}`, "stderr reason", deny("json reason"), ""},
		{"PreToolUse", 2, `{not json`, "blocked anyway", deny("blocked anyway"), ""},
		{"UserPromptSubmit", 2, "", "no", deny("no"), ""},
		{"PostToolUse", 2, "", "file.go: run gofmt", deny("file.go: run gofmt"), ""},
		{"PostToolUseFailure", 2, "", "look at the log", deny("look at the log"), ""},
		{"Stop", 2, "", "keep going", deny("keep going"), ""},
		{"PreCompact", 2, "", "not now", deny("not now"), ""},
		{"SessionStart", 2, "", "shown to the user only", nil, "exit status 2 (SessionStart cannot block): shown to the user only"},
		{"SessionEnd", 2, "", "x", nil, "exit status 2 (SessionEnd cannot block)"},
		// other exit codes: non-blocking errors, unless JSON decides
		{"PreToolUse", 1, "", "lint config missing\nmore\n", nil, "exit status 1: lint config missing"},
		{"PreToolUse", 127, "", "sh: ./nope.sh: not found", nil, "exit status 127: sh: ./nope.sh: not found"},
		{"PreToolUse", 1, "some text", "", nil, "exit status 1: (no stderr)"},
		{"PreToolUse", 1, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"json decides"}}`, "", deny("json decides"), ""},
		{"PreToolUse", 1, `{"decision":1}`, "oops", nil, "exit status 1: oops; its output is not valid hook JSON"},
		{"Notification", 0, "", "", nil, "Podcode does not run Notification hooks"},
	}
	for _, c := range cases {
		got, err := fromClaudeOutput(c.event, c.code, []byte(c.stdout), []byte(c.stderr))
		name := fmt.Sprintf("%s exit %d %s", c.event, c.code, c.stdout)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", name, got, c.want)
		}
	}
}
