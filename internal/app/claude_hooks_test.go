package app_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/trust"
)

// turnEnv is a booted project with an agent over a real store.
type turnEnv struct {
	a  *app.App
	ag *agent.Agent
}

func newTurnEnv(t *testing.T, p apptest.Project) *turnEnv {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed: these hooks read their input with jq, as Claude Code's examples do")
	}
	if _, ok := os.LookupEnv("CLAUDE_CONFIG_DIR"); !ok {
		t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir()) // not the real user's hooks
	}
	a, _ := apptest.Boot(t, p)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &turnEnv{a: a, ag: agent.New(a, st)}
}

func (e *turnEnv) turn(t *testing.T, prompt string) *agent.TurnResult {
	t.Helper()
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: prompt, Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Stop hook that reads the transcript, as Claude Code's loop-until-done
// and summary hooks do, finds the turn's prompt and tool calls in Claude
// Code's JSONL shape.
func TestStopHookReadsTranscript(t *testing.T) {
	e := newTurnEnv(t, apptest.Project{Files: map[string]string{
		"notes.txt": "hello notes",
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [
			{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/saw.sh"}]}]}}`,
		".claude/hooks/saw.sh": `#!/bin/bash
t=$(jq -r .transcript_path)
[[ -f "$t" ]] || exit 1
jq -c 'select(.type == "user" and (.message.content | type) == "string") | .message.content' "$t" > "$CLAUDE_PROJECT_DIR/prompts"
jq -c '.message.content | arrays | .[] | select(.type == "tool_use") | [.name, .input.file_path]' "$t" > "$CLAUDE_PROJECT_DIR/tools"
grep -c '"type":"tool_result"' "$t" > "$CLAUDE_PROJECT_DIR/results"
`,
	}})
	if err := os.Chmod(filepath.Join(e.a.Cwd, ".claude/hooks/saw.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.turn(t, "look at the notes\n/tool read {\"path\": \"notes.txt\"}")
	if got := readFile(t, filepath.Join(e.a.Cwd, "prompts")); got != "\"look at the notes\\n/tool read {\\\"path\\\": \\\"notes.txt\\\"}\"\n" {
		t.Errorf("the prompts the Stop hook saw: %q", got)
	}
	if got := readFile(t, filepath.Join(e.a.Cwd, "tools")); got != `["Read","`+filepath.Join(e.a.Cwd, "notes.txt")+`"]`+"\n" {
		t.Errorf("the tool calls the Stop hook saw: %q", got)
	}
	if got := readFile(t, filepath.Join(e.a.Cwd, "results")); got != "1\n" {
		t.Errorf("the tool results the Stop hook saw: %q", got)
	}
}

// A Stop hook's {"decision": "block", "reason": ...} goes on with the
// reason as the next prompt; the next Stop says stop_hook_active, so that
// the hook can let the turn end, as in Claude Code.
func TestStopHookBlockContinues(t *testing.T) {
	e := newTurnEnv(t, apptest.Project{Files: map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [
			{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/again.sh"}]}]}}`,
		".claude/hooks/again.sh": `#!/bin/bash
in=$(cat)
jq -r '[.stop_hook_active, .last_assistant_message] | @tsv' <<<"$in" >> "$CLAUDE_PROJECT_DIR/stops"
if [[ $(jq -r .stop_hook_active <<<"$in") == false ]]; then
  echo '{"decision": "block", "reason": "now run the tests"}'
fi
`,
	}})
	if err := os.Chmod(filepath.Join(e.a.Cwd, ".claude/hooks/again.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := e.turn(t, "fix it")
	var roles []string
	for _, m := range res.Messages {
		roles = append(roles, m.Role+":"+m.Text)
	}
	if len(res.Messages) != 4 || res.Messages[2].Role != chat.RoleUser || res.Messages[2].Text != "now run the tests" {
		t.Fatalf("messages %q", roles)
	}
	stops := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(e.a.Cwd, "stops"))), "\n")
	if len(stops) != 2 || !strings.HasPrefix(stops[0], "false\t") || !strings.HasPrefix(stops[1], "true\t") ||
		!strings.Contains(stops[1], res.Messages[3].Text[:10]) {
		t.Errorf("the Stop hook saw %q", stops)
	}
}

// SessionEnd fires for every session that ran when the App closes (the
// end of `podcode run`, a server stop) with reason "other", and not again
// for a session already ended (deleted: reason "clear"), nor for a
// sub-agent's, which ended with its task (reason "other").
func TestSessionEndOnClose(t *testing.T) {
	e := newTurnEnv(t, apptest.Project{Files: map[string]string{
		".claude/settings.json": `{"hooks": {"SessionEnd": [{"hooks": [
			{"type": "command", "command": "jq -r '[.session_id, .reason, (.transcript_path | length > 0)] | @tsv' >> \"$CLAUDE_PROJECT_DIR\"/ended"}]}]}}`,
	}})
	// A sub-agent's session ends with its task, not when the App closes.
	ran := e.turn(t, `/tool task {"description": "d", "prompt": "hello"}`)
	if r := ran.Messages[2].Result; r == nil || r.IsError || r.Metadata["sessionID"] == nil {
		t.Fatalf("no sub-agent ran: %+v", ran.Messages[2])
	}
	deleted := e.turn(t, "two")
	d := deleted.Session
	if _, err := e.a.EndSession(context.Background(), chat.Scope{Tenant: d.Tenant, SessionID: d.ID}, app.EndDeleted); err != nil {
		t.Fatal(err)
	}
	e.a.Close()
	e.a.Close() // ends nothing more
	got := readFile(t, filepath.Join(e.a.Cwd, "ended"))
	child := ran.Messages[2].Result.Metadata["sessionID"].(string)
	want := child + "\tother\ttrue\n" + d.ID + "\tclear\ttrue\n" + ran.Session.ID + "\tother\ttrue\n"
	if got != want {
		t.Errorf("SessionEnd ran with\n%s\nwant\n%s", got, want)
	}
}

// The user's own ~/.claude/settings.json hooks run in every project, with
// no trust asked: Claude Code users keep their guards there.
func TestUserClaudeGuardDenies(t *testing.T) {
	script, err := os.ReadFile("../claudehooks/testdata/hooks/block-rm.sh")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "block-rm.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "`+filepath.Join(home, "block-rm.sh")+`"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	a, _ := apptest.Boot(t, apptest.Project{Untrusted: true}) // no .claude in the project
	if err := rmRF(a); err == nil || !strings.Contains(err.Error(), "Blocked: 'rm -rf x'") {
		t.Fatalf("the user's guard did not deny: %v", err)
	}
	if s := a.Trust.Skipped(); len(s) != 0 {
		t.Errorf("the user's own hooks asked for trust: %+v", s)
	}
	// A project's disableAllHooks does not switch the user's guards off.
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{".claude/settings.json": `{"disableAllHooks": true}`}})
	b, _ := apptest.BootDir(t, dir, apptest.Project{})
	if err := rmRF(b); err == nil || !strings.Contains(err.Error(), "Blocked") {
		t.Fatalf("the project's disableAllHooks switched the user's guard off: %v", err)
	}
}

// .claude/settings.local.json is project code: its hooks run once
// trusted, as its own item, and not before.
func TestLocalSettingsRunOnceTrusted(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	script, err := os.ReadFile("../claudehooks/testdata/hooks/block-rm.sh")
	if err != nil {
		t.Fatal(err)
	}
	p := apptest.Project{Untrusted: true, UserDir: t.TempDir(), Files: map[string]string{
		".claude/settings.local.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"}]}]}}`,
		".claude/hooks/block-rm.sh": string(script),
	}}
	dir := apptest.Dir(t, p)
	a, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(a); err != nil && strings.Contains(err.Error(), "Blocked") {
		t.Fatalf("an untrusted settings.local.json hook ran: %v", err)
	}
	if s := a.Trust.Skipped(); len(s) != 1 || s[0].Kind != trust.KindClaude || s[0].Name != ".claude/settings.local.json" {
		t.Errorf("skipped %+v", s)
	}
	trustNow(t, dir, p)
	b, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(b); err == nil || !strings.Contains(err.Error(), "Blocked: 'rm -rf x'") {
		t.Fatalf("the trusted settings.local.json hook did not run: %v", err)
	}
}

// claudePluginFiles are a Claude Code plugin under dir (relative to the
// project), whose PreToolUse hook denies Bash calls naming its root.
func claudePluginFiles(dir string) map[string]string {
	return map[string]string{
		dir + "/.claude-plugin/plugin.json": `{"name": "guards"}`,
		dir + "/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}\"/deny.sh"}]}]}}`,
		dir + "/deny.sh": `echo "denied by the plugin in $CLAUDE_PLUGIN_ROOT" >&2; exit 2`,
	}
}

// A Claude Code plugin installed for the user and enabled in the user's
// settings runs in every project, as the user's own.
func TestUserClaudePluginRuns(t *testing.T) {
	home := t.TempDir()
	files := claudePluginFiles("plugins/cache/m/guards/1.0.0")
	files["plugins/installed_plugins.json"] = `{"version": 2, "plugins": {"guards@m": [{"scope": "user", "installPath": "` +
		filepath.Join(home, "plugins/cache/m/guards/1.0.0") + `"}]}}`
	files["settings.json"] = `{"enabledPlugins": {"guards@m": true, "absent@m": true}}`
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	a, logs := apptest.Boot(t, apptest.Project{Untrusted: true})
	if err := rmRF(a); err == nil || !strings.Contains(err.Error(), "denied by the plugin in "+filepath.Join(home, "plugins/cache/m/guards/1.0.0")) {
		t.Fatalf("the user's plugin did not deny: %v", err)
	}
	logs.Require(t, "enabled but not installed", "absent@m")
	if s := a.Trust.Skipped(); len(s) != 0 {
		t.Errorf("the user's own plugin asked for trust: %+v", s)
	}
}

// A Claude Code plugin the project names (in podcode.json's plugin array)
// is project code: it runs once trusted, as an item of its own.
func TestProjectClaudePluginRunsOnceTrusted(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	p := apptest.Project{Untrusted: true, UserDir: t.TempDir(), Plugins: []string{"./tools/guards"}, Files: claudePluginFiles("tools/guards")}
	dir := apptest.Dir(t, p)
	a, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(a); err != nil && strings.Contains(err.Error(), "denied by the plugin") {
		t.Fatalf("an untrusted plugin ran: %v", err)
	}
	if s := a.Trust.Skipped(); len(s) != 1 || s[0].Kind != trust.KindClaude || s[0].Name != "claude plugin guards" {
		t.Errorf("skipped %+v", s)
	}
	trustNow(t, dir, p)
	b, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(b); err == nil || !strings.Contains(err.Error(), "denied by the plugin in "+filepath.Join(dir, "tools/guards")) {
		t.Fatalf("the trusted plugin did not run: %v", err)
	}
}

// A Claude Code plugin the user installed but only the project enables is
// the project's choice: it runs once trusted.
func TestProjectEnabledClaudePluginRunsOnceTrusted(t *testing.T) {
	home := t.TempDir()
	files := claudePluginFiles("plugins/cache/m/guards/1.0.0")
	files["plugins/installed_plugins.json"] = `{"version": 2, "plugins": {"guards@m": [{"scope": "project", "installPath": "` +
		filepath.Join(home, "plugins/cache/m/guards/1.0.0") + `"}]}}`
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	p := apptest.Project{Untrusted: true, UserDir: t.TempDir(), Files: map[string]string{
		".claude/settings.json": `{"enabledPlugins": {"guards@m": true}}`}}
	dir := apptest.Dir(t, p)
	a, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(a); err != nil && strings.Contains(err.Error(), "denied by the plugin") {
		t.Fatalf("an untrusted plugin ran: %v", err)
	}
	if s := a.Trust.Skipped(); len(s) != 1 || s[0].Name != "claude plugin guards@m" {
		t.Errorf("skipped %+v", s)
	}
	trustNow(t, dir, p)
	b, _ := apptest.BootDir(t, dir, p)
	if err := rmRF(b); err == nil || !strings.Contains(err.Error(), "denied by the plugin") {
		t.Fatalf("the trusted plugin did not run: %v", err)
	}
}
