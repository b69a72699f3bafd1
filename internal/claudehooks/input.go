package claudehooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/podcode/podcode/plugin"
)

// fieldRenames lists, per built-in tool, the arguments whose Claude Code
// name differs from Podcode's: {podcode, claude}. Arguments not listed keep
// their names (bash's command and timeout, in milliseconds in both; edit's
// old_string, new_string, replace_all; glob's and grep's pattern and path;
// webfetch's url; task's prompt and description). Read, Write and Edit
// also get an absolute file_path, and read's offset counts lines from 1 in
// Claude Code and from 0 in Podcode.
var fieldRenames = map[string][][2]string{
	"read":  {{"path", "file_path"}},
	"write": {{"path", "file_path"}},
	"edit":  {{"path", "file_path"}},
	"grep":  {{"include", "glob"}},
}

// toClaudeArgs translates a Podcode tool's arguments to Claude Code's
// tool_input. args is not modified. dir makes file paths absolute.
func toClaudeArgs(tool string, args map[string]any, dir string) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	for _, r := range fieldRenames[tool] {
		if v, ok := out[r[0]]; ok {
			delete(out, r[0])
			out[r[1]] = v
		}
	}
	if p, ok := out["file_path"].(string); ok && p != "" && !filepath.IsAbs(p) && dir != "" {
		out["file_path"] = filepath.Join(dir, p)
	}
	if tool == "read" {
		if n, ok := intArg(out["offset"]); ok {
			out["offset"] = json.Number(fmt.Sprint(n + 1))
		}
	}
	return out
}

// fromClaudeArgs is toClaudeArgs the other way round: a file_path inside
// dir becomes relative again.
func fromClaudeArgs(tool string, input map[string]any, dir string) map[string]any {
	out := make(map[string]any, len(input))
	for k, v := range input {
		out[k] = v
	}
	if p, ok := out["file_path"].(string); ok && filepath.IsAbs(p) && dir != "" {
		if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			out["file_path"] = rel
		}
	}
	for _, r := range fieldRenames[tool] {
		if v, ok := out[r[1]]; ok {
			delete(out, r[1])
			out[r[0]] = v
		}
	}
	if tool == "read" {
		if n, ok := intArg(out["offset"]); ok {
			out["offset"] = json.Number(fmt.Sprint(max(n-1, 0)))
		}
	}
	return out
}

// intArg reads a whole number decoded with UseNumber (or not).
func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// decodeArgs decodes a payload's ToolInput, keeping numbers as written.
func decodeArgs(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, fmt.Errorf("tool_input is not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("tool_input is not one JSON object")
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

// toolResponse builds PostToolUse's tool_response from the text the tool
// returned (Podcode keeps no structured result in the payload): "output"
// always holds that text; Bash, Read, Write and Edit also get the fields
// Claude Code's hooks read most (stdout; file.content; filePath, type).
func toolResponse(tool, output string, input map[string]any, truncated bool) map[string]any {
	r := map[string]any{"output": output}
	if truncated {
		r["truncated"] = true
	}
	path, _ := input["file_path"].(string)
	switch tool {
	case "bash":
		r["stdout"], r["stderr"], r["interrupted"], r["isImage"] = output, "", false, false
	case "read":
		r["type"] = "text"
		r["file"] = map[string]any{"filePath": path, "content": output}
	case "write":
		r["filePath"], r["content"] = path, input["content"]
		r["type"] = "create"
		if strings.HasPrefix(output, "overwrote") {
			r["type"] = "update"
		}
	case "edit":
		r["filePath"], r["oldString"], r["newString"] = path, input["old_string"], input["new_string"]
		r["replaceAll"], _ = input["replace_all"].(bool)
	}
	return r
}

// claudeInput builds the JSON object a Claude Code hook reads on stdin for
// payload p: the common fields (session_id, transcript_path, the
// session's file in tr, or "" when tr is nil, cwd, permission_mode,
// hook_event_name) and the event's own (see docs/claude-hooks.md). dir is
// the project directory. It also returns the tool_input given, for the
// `if` rule.
func claudeInput(p *plugin.HookPayload, dir string, tr *Transcripts) (map[string]any, map[string]any, error) {
	event := ClaudeEvent(p.Event)
	if event == "" {
		//lint:ignore ST1005 the message starts with a product name
		return nil, nil, fmt.Errorf("Claude Code has no %s event", p.Event)
	}
	in := map[string]any{
		"session_id":      p.SessionID,
		"transcript_path": tr.Path(p.SessionID),
		"cwd":             dir,
		"permission_mode": "default",
		"hook_event_name": event,
	}
	str := func(k string) string { s, _ := p.Extra[k].(string); return s }
	var toolInput map[string]any
	if p.Event.IsToolEvent() {
		args, err := decodeArgs(p.ToolInput)
		if err != nil {
			return nil, nil, err
		}
		toolInput = toClaudeArgs(p.ToolName, args, dir)
		in["tool_name"] = payloadNames(p)[0]
		in["tool_input"] = toolInput
		if p.Event != plugin.HookPreToolUse {
			in["duration_ms"] = p.ToolElapsedMs
		}
	}
	if mv, ok := matchValue[event]; ok {
		in[mv.field] = eventValue(event, p)
	}
	switch p.Event {
	case plugin.HookPostToolUse:
		cut, _ := p.Extra[plugin.ExtraToolOutputTruncated].(bool)
		in["tool_response"] = toolResponse(p.ToolName, p.ToolOutput, toolInput, cut)
	case plugin.HookPostToolUseError:
		in["error"], in["is_interrupt"] = str(plugin.ExtraError), false
	case plugin.HookUserPromptSubmit:
		in["prompt"] = str("prompt")
	case plugin.HookAgentStop:
		in["stop_hook_active"], in["last_assistant_message"] = tr.StopHookActive(p.SessionID), tr.LastAssistantMessage(p.SessionID)
		in["background_tasks"], in["session_crons"] = []any{}, []any{}
	case plugin.HookSubAgentStart:
		in["agent_id"] = ""
	case plugin.HookSubAgentStop:
		in["stop_hook_active"], in["last_assistant_message"] = false, ""
		child := str("child_session_id")
		in["agent_id"], in["agent_transcript_path"] = child, tr.Path(child)
		in["last_assistant_message"] = tr.LastAssistantMessage(child)
		in["background_tasks"], in["session_crons"] = []any{}, []any{}
	case plugin.HookSessionStart:
		if m := str(plugin.ExtraModel); m != "" {
			in["model"] = m
		}
	case plugin.HookPreCompact:
		in["custom_instructions"] = nil
	case plugin.HookPostCompact:
		in["compact_summary"] = ""
	}
	return in, toolInput, nil
}

// toClaudeInput is the stdin of a Claude Code hook for payload p, run in
// the project directory dir.
func toClaudeInput(p *plugin.HookPayload, dir string) ([]byte, error) {
	in, _, err := claudeInput(p, dir, nil)
	if err != nil {
		return nil, err
	}
	return marshal(in)
}

// marshal encodes without escaping <, > and & (scripts grep the text).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
