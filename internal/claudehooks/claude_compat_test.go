package claudehooks

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/plugin"
)

// Hooks written for Claude Code are bash: it runs them with bash unless
// they say otherwise. An inline [[ ]] test, which sh (dash) does not know,
// must run as its author meant.
func TestCommandsRunWithBash(t *testing.T) {
	dir := project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "[[ -f marker ]] && { echo \"marker present: no shell commands\" >&2; exit 2; }; exit 0"}]}]}}`)
	d, _ := load(t, dir)
	res, err := d.Dispatch(context.Background(), call("bash", map[string]any{"command": "ls"}))
	if err != nil || res.Decision == plugin.DecisionDeny {
		t.Fatalf("without the marker: %+v, %v", res, err)
	}
	writeFile(t, filepath.Join(dir, "marker"), "")
	res, err = d.Dispatch(context.Background(), call("bash", map[string]any{"command": "ls"}))
	if err != nil || res.Decision != plugin.DecisionDeny || res.Message != "marker present: no shell commands" {
		t.Fatalf("with the marker, the [[ ]] test did not run: %+v, %v", res, err)
	}
}

// "shell": "sh" asks for sh; "bash" is the default; anything else is an
// error that names the entry.
func TestShellField(t *testing.T) {
	s, err := Parse(SettingsFile, []byte(`{"hooks": {"Stop": [{"hooks": [
		{"type": "command", "command": "a", "shell": "sh"}, {"type": "command", "command": "b", "shell": "bash"}]}]}}`))
	if err != nil || s.Hooks[0].Shell != "sh" || s.Hooks[1].Shell != "" {
		t.Fatalf("%+v, %v", s, err)
	}
	_, err = Parse(SettingsFile, []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "shell": "powershell"}]}]}}`))
	if err == nil || !strings.Contains(err.Error(), "hooks.Stop[0].hooks[0]: shell \"powershell\" is not supported") {
		t.Fatalf("err = %v", err)
	}
}

// SessionEnd's reason is "clear" for a deleted session and "other" when
// the process ends; a matcher filters on it, as in Claude Code.
func TestSessionEndReasonMatcher(t *testing.T) {
	dir := project(t, `{"hooks": {"SessionEnd": [
		{"matcher": "clear", "hooks": [{"type": "command", "command": "sh .claude/hooks/reason.sh ended-clear"}]},
		{"hooks": [{"type": "command", "command": "sh .claude/hooks/reason.sh ended-any"}]},
		{"matcher": "logout", "hooks": [{"type": "command", "command": "echo never >> ended-logout"}]}]}}`)
	writeFile(t, filepath.Join(dir, ".claude/hooks/reason.sh"), `sed -n 's/.*"reason":"\([a-z_]*\)".*/\1/p' >> "$1"; echo >> "$1"`)
	d, s := load(t, dir)
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `matcher "logout" never matches in Podcode, where SessionEnd's reason is one of ["other" "clear"]`) {
		t.Errorf("warnings %q", s.Warnings)
	}
	for _, reason := range []string{ReasonClear, ReasonOther, ""} {
		p := &plugin.HookPayload{Event: plugin.HookSessionEnd, SessionID: "ses_1", Extra: map[string]any{}}
		if reason != "" {
			p.Extra[ExtraEndReason] = reason
		}
		if _, err := d.Dispatch(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(dir, name)); return string(b) }
	if got := read("ended-clear"); got != "clear\n" {
		t.Errorf("the clear hook saw %q", got)
	}
	if got := read("ended-any"); got != "clear\nother\nother\n" {
		t.Errorf("the hook without matcher saw %q", got)
	}
}

// The user's ~/.claude/settings.json comes first, then the project's
// files; a hook defined the same way in two runs once.
func TestLoadUserAndMerge(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "guard.sh"}, {"type": "command", "command": "shared.sh"}]}]}}`)
	user, err := LoadUser(home)
	if err != nil {
		t.Fatal(err)
	}
	dir := project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "shared.sh"}]}]}}`)
	writeFile(t, filepath.Join(dir, LocalSettingsFile), `{"disableAllHooks": false, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "local.sh"}]}]}}`)
	proj, err := LoadFile(dir, SettingsFile)
	if err != nil {
		t.Fatal(err)
	}
	local, err := LoadFile(dir, LocalSettingsFile)
	if err != nil {
		t.Fatal(err)
	}
	m := Merge(user, proj, local)
	var got []string
	for _, h := range m.Hooks {
		got = append(got, h.Command+"@"+h.File)
	}
	if strings.Join(got, " ") != "guard.sh@~/.claude/settings.json shared.sh@~/.claude/settings.json local.sh@.claude/settings.local.json" {
		t.Errorf("merged %s", got)
	}
	if !m.SetsDisableAllHooks() || m.DisableAllHooks || strings.Join(m.Files, ",") != UserSettingsFile+","+SettingsFile+","+LocalSettingsFile {
		t.Errorf("%+v", m)
	}
	if it, err := local.TrustItem(dir); err != nil || it.Name != LocalSettingsFile {
		t.Errorf("the local file's item: %+v, %v", it, err)
	}
	none, err := LoadUser(t.TempDir())
	if err != nil || len(none.Hooks) != 0 || len(none.Files) != 0 {
		t.Errorf("no file: %+v, %v", none, err)
	}
}

// The transcript has one line a message, in Claude Code's shape, chained
// by parentUuid, across a restart; Stop's input names it and carries the
// last assistant message and stop_hook_active.
func TestTranscript(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	b := bus.New(quietLog())
	tr := NewTranscripts(data, dir, quietLog())
	defer tr.Listen(b)()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	publish := func(m chat.Message) {
		m.SessionID, m.CreatedAt = "ses_t", at
		raw, _ := json.Marshal(m)
		var v map[string]any
		json.Unmarshal(raw, &v)
		b.PublishFor("default", EventMessageStored, map[string]any{"sessionID": m.SessionID, "message": v})
	}
	publish(chat.Message{ID: "m1", Role: chat.RoleUser, Text: "read notes"})
	publish(chat.Message{ID: "m2", Role: chat.RoleAssistant, Text: "reading", Usage: &chat.Usage{Input: 3, Output: 4},
		ToolCalls: []chat.ToolCall{{ID: "call_1", Tool: "read", Args: json.RawMessage(`{"path": "notes.txt"}`)}}})
	publish(chat.Message{ID: "m3", Role: chat.RoleTool, Result: &chat.Result{CallID: "call_1", Tool: "read", Output: "hello"}})
	publish(chat.Message{ID: "m4", Role: chat.RoleAssistant, Text: "done"})
	in, _, err := claudeInput(&plugin.HookPayload{Event: plugin.HookAgentStop, SessionID: "ses_t"}, dir, tr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "transcripts", "ses_t.jsonl")
	if in["transcript_path"] != path || in["last_assistant_message"] != "done" || in["stop_hook_active"] != false {
		t.Errorf("Stop input %v", in)
	}
	// A Stop hook's continuation, then a restart: the chain goes on.
	publish(chat.Message{ID: "m5", Role: chat.RoleUser, Text: "run the tests", Hooks: []chat.HookRun{{Kind: "lifecycle", Hook: "AgentStop"}}})
	if !tr.StopHookActive("ses_t") {
		t.Error("stop_hook_active is false after a Stop hook's continuation")
	}
	tr2 := NewTranscripts(data, dir, quietLog())
	if err := tr2.Append(&chat.Message{ID: "m6", SessionID: "ses_t", Role: chat.RoleAssistant, Text: "tests pass"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 6 {
		t.Fatalf("%d lines", len(lines))
	}
	want := []string{"user", "assistant", "user", "assistant", "user", "assistant"}
	for i, l := range lines {
		if l["type"] != want[i] || l["sessionId"] != "ses_t" || l["uuid"] == "" || l["cwd"] != dir || l["timestamp"] == nil {
			t.Errorf("line %d: %v", i, l)
		}
		if i == 0 && l["parentUuid"] != nil || i > 0 && l["parentUuid"] != lines[i-1]["uuid"] {
			t.Errorf("line %d: parentUuid %v", i, l["parentUuid"])
		}
	}
	use := lines[1]["message"].(map[string]any)["content"].([]any)[1].(map[string]any)
	if use["type"] != "tool_use" || use["name"] != "Read" || use["id"] != "call_1" ||
		use["input"].(map[string]any)["file_path"] != filepath.Join(dir, "notes.txt") {
		t.Errorf("tool_use %v", use)
	}
	res := lines[2]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if res["type"] != "tool_result" || res["tool_use_id"] != "call_1" || res["content"] != "hello" || res["is_error"] != false {
		t.Errorf("tool_result %v", res)
	}
	if lines[0]["message"].(map[string]any)["content"] != "read notes" {
		t.Errorf("user line %v", lines[0])
	}
	if tr.Path("../x") != "" || tr.Path("") != "" {
		t.Error("a session id that is a path names a transcript")
	}
}

// claudePlugin writes a Claude Code plugin: a manifest, hooks/hooks.json and a
// guard script that names the plugin root it ran from.
func claudePlugin(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for path, content := range map[string]string{
		PluginManifest: `{"name": "` + name + `", "version": "1.0.0"}`,
		PluginHooks: `{"description": "guards", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}\"/scripts/guard.sh"},
			{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh", "args": ["exec"]}]}]}}`,
		"scripts/guard.sh": "#!/bin/sh\necho \"denied by $CLAUDE_PLUGIN_ROOT ${1:-shell}\" >&2\nexit 2\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A Claude Code plugin's hooks run with CLAUDE_PLUGIN_ROOT set to its
// folder, in shell form and in exec form.
func TestLoadPlugin(t *testing.T) {
	root := claudePlugin(t, "guards")
	if !IsPluginDir(root) || IsPluginDir(t.TempDir()) {
		t.Fatal("IsPluginDir")
	}
	s, err := LoadPlugin(root, "guards@market")
	if err != nil {
		t.Fatal(err)
	}
	if s.Plugin.ItemName() != "claude plugin guards@market" || len(s.Hooks) != 2 || s.Hooks[0].File != "claude plugin guards@market: hooks/hooks.json" {
		t.Fatalf("%+v", s)
	}
	dir := project(t, "")
	d := plugin.NewDispatcher(plugin.WithTimeout(10*time.Second), plugin.WithLogger(quietLog()))
	reg, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog(), Env: append(os.Environ(), PluginRootEnv+"=/elsewhere")})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	rep, err := d.DispatchReport(context.Background(), call("bash", map[string]any{"command": "ls"}))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, h := range rep.Handlers {
		msgs = append(msgs, h.Message)
	}
	if got := strings.Join(msgs, "|"); got != "denied by "+root+" shell|denied by "+root+" exec" {
		t.Errorf("the hooks said %q", got)
	}
	it, err := s.TrustItem(dir)
	if err != nil || it.Name != "claude plugin guards@market" || !strings.Contains(strings.Join(it.Runs, " "), "guard.sh") {
		t.Errorf("item %+v, %v", it, err)
	}
	// A name that is a path, and hooks outside the plugin, are refused.
	os.WriteFile(filepath.Join(root, PluginManifest), []byte(`{"name": "../x"}`), 0o644)
	if _, err := LoadPlugin(root, ""); err == nil || !strings.Contains(err.Error(), `name "../x"`) {
		t.Errorf("err = %v", err)
	}
	os.WriteFile(filepath.Join(root, PluginManifest), []byte(`{"name": "x", "hooks": "../../etc/hooks.json"}`), 0o644)
	if _, err := LoadPlugin(root, ""); err == nil || !strings.Contains(err.Error(), "outside the plugin") {
		t.Errorf("err = %v", err)
	}
}

// installed_plugins.json, versions 1 and 2.
func TestInstalledPlugins(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "plugins"), 0o755)
	writeFile(t, filepath.Join(home, "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {
		"a@m": [{"scope": "user", "installPath": "/p/a/1.0.0", "version": "1.0.0"}],
		"b@m": {"version": "2.0.0", "installPath": "/p/b/2.0.0"}}}`)
	got, err := InstalledPlugins(home)
	if err != nil || len(got) != 2 || got["a@m"] != "/p/a/1.0.0" || got["b@m"] != "/p/b/2.0.0" {
		t.Errorf("%v, %v", got, err)
	}
	if got, err := InstalledPlugins(t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("none: %v, %v", got, err)
	}
}

// What keeping a transcript adds to storing a message: one line appended.
func BenchmarkTranscriptAppend(b *testing.B) {
	tr := NewTranscripts(b.TempDir(), b.TempDir(), quietLog())
	m := chat.Message{SessionID: "ses_b", Role: chat.RoleAssistant, Text: strings.Repeat("word ", 200), Usage: &chat.Usage{Input: 1000, Output: 200},
		ToolCalls: []chat.ToolCall{{ID: "call_1", Tool: "read", Args: json.RawMessage(`{"path": "notes.txt"}`)}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.ID = fmt.Sprint("m", i)
		if err := tr.Append(&m); err != nil {
			b.Fatal(err)
		}
	}
}
