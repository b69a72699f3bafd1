package claudehooks

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/podcode/podcode/plugin"
)

// Each built-in tool's arguments reach a Claude Code hook under Claude
// Code's names, and come back (updatedInput) under Podcode's.
func TestToolInputRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	cases := []struct {
		tool    string
		claude  string
		podcode string // Podcode's arguments, as the guard encodes them
		want    string // Claude Code's tool_input
	}{
		{"bash", "Bash", `{"command":"go test ./...","timeout":120000,"workdir":"sub"}`,
			`{"command":"go test ./...","timeout":120000,"workdir":"sub"}`},
		{"read", "Read", `{"path":"src/main.go","offset":10,"limit":50}`,
			`{"file_path":"` + filepath.Join(dir, "src", "main.go") + `","offset":11,"limit":50}`},
		{"write", "Write", `{"path":"notes.txt","content":"hello"}`,
			`{"file_path":"` + filepath.Join(dir, "notes.txt") + `","content":"hello"}`},
		{"edit", "Edit", `{"path":"a.go","old_string":"x","new_string":"y","replace_all":true}`,
			`{"file_path":"` + filepath.Join(dir, "a.go") + `","old_string":"x","new_string":"y","replace_all":true}`},
		{"glob", "Glob", `{"pattern":"**/*.go","path":"internal"}`, `{"pattern":"**/*.go","path":"internal"}`},
		{"grep", "Grep", `{"pattern":"TODO","path":"src","include":"*.ts"}`, `{"pattern":"TODO","path":"src","glob":"*.ts"}`},
		{"webfetch", "WebFetch", `{"url":"https://example.com"}`, `{"url":"https://example.com"}`},
		{"task", "Agent", `{"description":"find endpoints","prompt":"list the API endpoints"}`,
			`{"description":"find endpoints","prompt":"list the API endpoints"}`},
		{"mcp__fs__read_file", "mcp__fs__read_file", `{"path":"x"}`, `{"path":"x"}`},
		{"read", "Read", `{"path":"/etc/hosts"}`, `{"file_path":"/etc/hosts"}`},
	}
	for _, c := range cases {
		args, err := decodeArgs(c.podcode)
		if err != nil {
			t.Fatal(err)
		}
		if got := ClaudeToolName(c.tool); got != c.claude {
			t.Errorf("%s is %s to Claude Code, want %s", c.tool, got, c.claude)
		}
		if got := PodcodeToolName(c.claude); got != c.tool {
			t.Errorf("%s is %s to Podcode, want %s", c.claude, got, c.tool)
		}
		claude := toClaudeArgs(c.tool, args, dir)
		if got, want := canon(t, claude), canon(t, c.want); got != want {
			t.Errorf("%s: tool_input\n got  %s\n want %s", c.tool, got, want)
		}
		back := fromClaudeArgs(c.tool, claude, dir)
		if !reflect.DeepEqual(back, args) {
			t.Errorf("%s: round trip\n got  %v\n want %v", c.tool, back, args)
		}
	}
}

// canon re-encodes JSON (a string, or a value) with sorted keys.
func canon(t *testing.T, v any) string {
	t.Helper()
	if s, ok := v.(string); ok {
		var x any
		if err := json.Unmarshal([]byte(s), &x); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		v = x
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	json.Unmarshal(b, &x)
	b, _ = json.Marshal(x)
	return string(b)
}

// input decodes what a hook would read on stdin for p.
func input(t *testing.T, p *plugin.HookPayload, dir string) map[string]any {
	t.Helper()
	b, err := toClaudeInput(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// covers L6: tool fields reach a hook on tool events only; each event
// brings the fields Claude Code documents for it.
func TestClaudeInputPerEvent(t *testing.T) {
	dir := "/proj"
	extra := func(kv ...any) map[string]any {
		m := map[string]any{plugin.ExtraModel: "offline/echo"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		p    *plugin.HookPayload
		want map[string]any
		none []string
	}{
		{&plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: `{"command":"rm -rf build"}`},
			map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf build"}},
			[]string{"tool_response", "duration_ms"}},
		{&plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "bash", ToolInput: `{"command":"ls"}`, ToolOutput: "a\nb\n", ToolElapsedMs: 12},
			map[string]any{"hook_event_name": "PostToolUse", "duration_ms": 12.0,
				"tool_response": map[string]any{"output": "a\nb\n", "stdout": "a\nb\n", "stderr": "", "interrupted": false, "isImage": false}},
			nil},
		{&plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "write", ToolInput: `{"path":"a.txt","content":"hi"}`, ToolOutput: "created a.txt (2 bytes)",
			Extra: map[string]any{plugin.ExtraToolOutputTruncated: true}},
			map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/proj/a.txt", "content": "hi"},
				"tool_response": map[string]any{"output": "created a.txt (2 bytes)", "filePath": "/proj/a.txt", "content": "hi", "type": "create", "truncated": true}},
			nil},
		{&plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "read", ToolInput: `{"path":"a.txt"}`, ToolOutput: "     1\thi\n"},
			map[string]any{"tool_response": map[string]any{"output": "     1\thi\n", "type": "text", "file": map[string]any{"filePath": "/proj/a.txt", "content": "     1\thi\n"}}},
			nil},
		{&plugin.HookPayload{Event: plugin.HookPostToolUseError, ToolName: "bash", ToolInput: `{"command":"false"}`, Extra: extra(plugin.ExtraError, "exit status 1")},
			map[string]any{"hook_event_name": "PostToolUseFailure", "error": "exit status 1", "is_interrupt": false, "duration_ms": 0.0},
			[]string{"tool_response"}},
		{&plugin.HookPayload{Event: plugin.HookUserPromptSubmit, Extra: extra("prompt", "fix the bug <now> & test")},
			map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "fix the bug <now> & test"},
			[]string{"tool_name", "tool_input"}},
		{&plugin.HookPayload{Event: plugin.HookAgentStop},
			map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": ""},
			[]string{"tool_name"}},
		{&plugin.HookPayload{Event: plugin.HookSubAgentStop, Extra: extra("child_session_id", "ses_child")},
			map[string]any{"hook_event_name": "SubagentStop", "stop_hook_active": false, "agent_id": "ses_child", "agent_type": "general-purpose"},
			nil},
		{&plugin.HookPayload{Event: plugin.HookSessionStart, Extra: extra()},
			map[string]any{"hook_event_name": "SessionStart", "source": "startup", "model": "offline/echo"},
			nil},
		{&plugin.HookPayload{Event: plugin.HookSessionEnd},
			map[string]any{"hook_event_name": "SessionEnd", "reason": "other"}, nil},
		{&plugin.HookPayload{Event: plugin.HookPreCompact, Extra: extra("messages", 12)},
			map[string]any{"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": nil}, nil},
	}
	for _, c := range cases {
		c.p.SessionID = "ses_1"
		got := input(t, c.p, dir)
		common := map[string]any{"session_id": "ses_1", "transcript_path": "", "cwd": dir, "permission_mode": "default"}
		for k, v := range common {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s: %s = %#v, want %#v", c.p.Event, k, got[k], v)
			}
		}
		for k, v := range c.want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s: %s = %#v, want %#v", c.p.Event, k, got[k], v)
			}
		}
		for _, k := range c.none {
			if _, ok := got[k]; ok {
				t.Errorf("%s: %s should be absent: %v", c.p.Event, k, got[k])
			}
		}
	}
}

func TestClaudeInputRefuses(t *testing.T) {
	if _, err := toClaudeInput(&plugin.HookPayload{Event: plugin.HookCronFired}, "/p"); err == nil {
		t.Error("CronFired has no Claude Code name")
	}
	if _, err := toClaudeInput(&plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: "[1]"}, "/p"); err == nil {
		t.Error("tool_input must be an object")
	}
	if m := input(t, &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash"}, "/p"); !reflect.DeepEqual(m["tool_input"], map[string]any{}) {
		t.Errorf("no arguments are an empty tool_input, got %v", m["tool_input"])
	}
}

func TestEventNames(t *testing.T) {
	for c, p := range events {
		if got, ok := PodcodeEvent(c); !ok || got != p || ClaudeEvent(p) != c {
			t.Errorf("%s <-> %s", c, p)
		}
		if !plugin.IsValidHookEvent(string(p)) {
			t.Errorf("%s maps to an invalid event %s", c, p)
		}
		if _, ok := controls[c]; !ok {
			t.Errorf("%s has no output control", c)
		}
		if _, ok := unsupported[c]; ok {
			t.Errorf("%s is both supported and not", c)
		}
	}
	if got := ClaudeEvent(plugin.HookAgentStop); got != "Stop" {
		t.Errorf("AgentStop is %q", got)
	}
}
