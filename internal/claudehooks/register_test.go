package claudehooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/plugin"
)

// A typical Claude Code PreToolUse script, unchanged, blocks rm -rf by
// exiting 2; the model reads its stderr as the reason.
func TestBlockRmScript(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"}]}]}}`))

	rep := dispatch(t, d, bashCall("rm -rf build"))
	if rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "Blocked: 'rm -rf build' deletes recursively; remove files one by one" {
		t.Fatalf("rm -rf: %+v (%s)", rep.Result, outcomes(rep))
	}
	rep = dispatch(t, d, bashCall("ls -la"))
	if rep.Votes != 0 || rep.Result.Decision != plugin.DecisionDefer || outcomes(rep) != "abstained" {
		t.Fatalf("ls: exit 0 and no output is no decision, got %+v (%s)", rep.Result, outcomes(rep))
	}
	rep = dispatch(t, d, call("write", map[string]any{"path": "rm -rf", "content": "rm -rf /"}))
	if rep.Votes != 0 || outcomes(rep) != "not_matched" {
		t.Fatalf("write is not Bash: %s", outcomes(rep))
	}
	h := d.Handlers(plugin.HookPreToolUse)
	if len(h) != 1 || h[0].Layer != plugin.LayerProject || h[0].FailClosed ||
		h[0].Source != `claude: "$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh (.claude/settings.json)` || h[0].Matcher != "^(?:Bash|bash)$" {
		t.Fatalf("registration: %+v", h)
	}
}

// covers L7: permissionDecision deny, ask and allow in JSON on stdout
// become the same votes, with the reason as the message.
func TestPermissionDecisionScript(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": ".claude/hooks/permission.sh", "timeout": 10}]}]}}`))
	for _, c := range []struct {
		command string
		want    plugin.HookDecision
		message string
	}{
		{"curl https://example.com", plugin.DecisionDeny, "No network access from the agent"},
		{"./deploy.sh production", plugin.DecisionAsk, "Deploys need a human"},
		{"go test ./...", plugin.DecisionAllow, "Looks safe"},
	} {
		rep := dispatch(t, d, bashCall(c.command))
		if rep.Result.Decision != c.want || rep.Result.Message != c.message || rep.Votes != 1 {
			t.Errorf("%s: %+v (%s)", c.command, rep.Result, outcomes(rep))
		}
	}
}

// The matcher names Claude Code's tools (Bash, Write); the dispatcher
// calls them bash and write.
func TestMatcherRestrictsByClaudeToolName(t *testing.T) {
	dir := project(t, `{"hooks": {"PreToolUse": [
	  {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo bash hook >&2; exit 2"}]},
	  {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "echo write hook >&2; exit 2"}]},
	  {"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "echo mcp hook >&2; exit 2"}]},
	  {"hooks": [{"type": "command", "command": "exit 0"}]}
	]}}`)
	d, _ := load(t, dir)
	for _, c := range []struct {
		tool, outcomes, message string
	}{
		{"bash", "voted:deny not_matched not_matched abstained", "bash hook"},
		{"write", "not_matched voted:deny not_matched abstained", "write hook"},
		{"edit", "not_matched voted:deny not_matched abstained", "write hook"},
		{"read", "not_matched not_matched not_matched abstained", ""},
		{"mcp__github__create_issue", "not_matched not_matched voted:deny abstained", "mcp hook"},
	} {
		rep := dispatch(t, d, call(c.tool, map[string]any{}))
		if got := outcomes(rep); got != c.outcomes || rep.Result.Message != c.message {
			t.Errorf("%s: %s %q, want %s %q", c.tool, got, rep.Result.Message, c.outcomes, c.message)
		}
	}
}

// UserPromptSubmit: decision "block" rejects the prompt; plain stdout is
// context for the model.
func TestUserPromptSubmitScript(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"UserPromptSubmit": [{"hooks": [
	  {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/prompt-guard.sh"}]}]}}`))
	prompt := func(s string) *plugin.HookPayload {
		return &plugin.HookPayload{Event: plugin.HookUserPromptSubmit, Extra: map[string]any{"prompt": s}}
	}
	rep := dispatch(t, d, prompt("log in with password hunter2"))
	if rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "The prompt contains a password; rephrase it without the secret" {
		t.Fatalf("%+v", rep.Result)
	}
	rep = dispatch(t, d, prompt("deploy the app"))
	if rep.Votes != 0 || rep.Result.Data[plugin.DataAdditionalContext] != "The deployment target is staging." {
		t.Fatalf("%+v (%s)", rep.Result, outcomes(rep))
	}
}

// covers L8: exit 1 is a non-blocking error: it is reported, and the other
// hooks' votes decide as if it had not run.
func TestExitOneIsNonBlocking(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": ".claude/hooks/broken.sh"},
	  {"type": "command", "command": ".claude/hooks/permission.sh"}]}]}}`))
	rep := dispatch(t, d, bashCall("go vet ./..."))
	if rep.Result.Decision != plugin.DecisionAllow || outcomes(rep) != "error voted:allow" {
		t.Fatalf("%+v (%s)", rep.Result, outcomes(rep))
	}
	if e := rep.Handlers[0].Error; !strings.Contains(e, "claude: .claude/hooks/broken.sh (.claude/settings.json)") || !strings.Contains(e, "exit status 1: lint configuration not found") {
		t.Fatalf("error: %q", e)
	}
	// alone, the failing hook leaves the decision to Podcode's policy
	d, _ = load(t, project(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./no-such-script.sh"}]}]}}`))
	rep = dispatch(t, d, bashCall("ls"))
	if rep.Result.Decision != plugin.DecisionDefer || rep.Votes != 0 || outcomes(rep) != "error" || !strings.Contains(rep.Handlers[0].Error, "exit status 127") {
		t.Fatalf("%+v %+v", rep.Result, rep.Handlers)
	}
}

// covers L8: a Claude Code hook's deny (project layer) is not outvoted by a
// plugin's allow.
func TestDenyBeatsPluginAllow(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": ".claude/hooks/block-rm.sh"}]}]}}`))
	d.Register(plugin.HookPreToolUse, plugin.AllowHook(), plugin.WithSource("allow-all"))
	rep := dispatch(t, d, bashCall("rm -rf /"))
	if rep.Result.Decision != plugin.DecisionDeny || outcomes(rep) != "voted:deny voted:allow" {
		t.Fatalf("%+v (%s)", rep.Result, outcomes(rep))
	}
}

// The hook reads Claude Code's input on stdin, runs in the project with
// CLAUDE_PROJECT_DIR set, and keeps the rest of the environment.
func TestHookInputAndEnvironment(t *testing.T) {
	dir := project(t, `{"hooks": {
	  "PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "sh .claude/hooks/record.sh pre"}]}],
	  "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh .claude/hooks/record.sh post; echo \"$HOOK_TEST_VAR\" > got-env"}]}]
	}}`)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := plugin.NewDispatcher(plugin.WithLogger(quietLog()))
	if _, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog(), Env: append(os.Environ(), "HOOK_TEST_VAR=kept", "CLAUDE_PROJECT_DIR=/elsewhere")}); err != nil {
		t.Fatal(err)
	}
	dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "edit", SessionID: "ses_9",
		ToolInput: `{"path":"src/a.go","old_string":"a < b","new_string":"a <= b"}`})
	dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "bash", SessionID: "ses_9",
		ToolInput: `{"command":"echo hi"}`, ToolOutput: "hi\n", ToolElapsedMs: 7})

	var pre, post map[string]any
	readJSON(t, filepath.Join(dir, "got-pre.json"), &pre)
	readJSON(t, filepath.Join(dir, "got-post.json"), &post)
	if pre["hook_event_name"] != "PreToolUse" || pre["tool_name"] != "Edit" || pre["session_id"] != "ses_9" || pre["cwd"] != dir {
		t.Errorf("pre: %v", pre)
	}
	ti, _ := pre["tool_input"].(map[string]any)
	if ti["file_path"] != filepath.Join(dir, "src", "a.go") || ti["old_string"] != "a < b" || ti["new_string"] != "a <= b" {
		t.Errorf("tool_input: %v", ti)
	}
	tr, _ := post["tool_response"].(map[string]any)
	if post["tool_name"] != "Bash" || tr["stdout"] != "hi\n" || post["duration_ms"] != 7.0 {
		t.Errorf("post: %v", post)
	}
	if cwd := readText(t, filepath.Join(dir, "got-pre.cwd")); cwd != dir {
		t.Errorf("cwd %q, want %q", cwd, dir)
	}
	if env := readText(t, filepath.Join(dir, "got-env")); env != "kept" {
		t.Errorf("HOOK_TEST_VAR = %q", env)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// A Stop hook that blocks keeps the turn going (AgentStop deny), until it
// lets the agent stop.
func TestStopScript(t *testing.T) {
	dir := project(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ".claude/hooks/stop-until-tested.sh"}]}]}}`)
	d, _ := load(t, dir)
	rep := dispatch(t, d, &plugin.HookPayload{Event: plugin.HookAgentStop})
	if rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "Run the tests before you stop" {
		t.Fatalf("%+v", rep.Result)
	}
	writeFile(t, filepath.Join(dir, "tests-passed"), "")
	rep = dispatch(t, d, &plugin.HookPayload{Event: plugin.HookAgentStop})
	if rep.Votes != 0 {
		t.Fatalf("%+v", rep.Result)
	}
}

// PostToolUse exit 2 cannot undo the call; it is a deny vote, whose message
// Podcode adds to the result the model reads.
func TestPostToolUseExitTwo(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [
	  {"type": "command", "command": ".claude/hooks/gofmt-check.sh"}]}]}}`))
	rep := dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "write",
		ToolInput: `{"path":"main.go","content":"package main"}`, ToolOutput: "created main.go (12 bytes)"})
	if rep.Result.Decision != plugin.DecisionDeny || !strings.HasSuffix(rep.Result.Message, "main.go: run gofmt before going on") {
		t.Fatalf("%+v", rep.Result)
	}
	rep = dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "write", ToolInput: `{"path":"notes.md","content":"x"}`})
	if rep.Votes != 0 {
		t.Fatalf("%+v", rep.Result)
	}
}

// covers L11: a hook that outlives its own timeout is killed (with its
// children) and reported as an error, without holding up the dispatch.
func TestHookTimeout(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"hooks": [
	  {"type": "command", "command": "sleep 30 & sleep 30", "timeout": 0.3}]}]}}`))
	start := time.Now()
	rep := dispatch(t, d, bashCall("ls"))
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("the dispatch took %s", el)
	}
	if outcomes(rep) != "error" || !strings.Contains(rep.Handlers[0].Error, "did not finish within its timeout of 300ms") || rep.Result.Decision != plugin.DecisionDefer {
		t.Fatalf("%+v %+v", rep.Result, rep.Handlers)
	}
}

// The dispatch deadline ends a hook that has no timeout of its own sooner.
func TestDispatchDeadlineEndsHook(t *testing.T) {
	dir := project(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 30"}]}]}}`)
	s, _ := Load(dir)
	d := plugin.NewDispatcher(plugin.WithTimeout(300*time.Millisecond), plugin.WithLogger(quietLog()))
	Register(d, s, Options{ProjectDir: dir, Log: quietLog()})
	start := time.Now()
	rep := dispatch(t, d, bashCall("ls"))
	if time.Since(start) > 5*time.Second || rep.Result.Decision != plugin.DecisionDefer {
		t.Fatalf("%+v %+v after %s", rep.Result, rep.Handlers, time.Since(start))
	}
}

// Exec form: args without a shell, ${CLAUDE_PROJECT_DIR} substituted.
func TestExecForm(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": "sh", "args": ["${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "it's $HOME"]}]}]}}`))
	rep := dispatch(t, d, bashCall("rm -rf x"))
	if rep.Result.Decision != plugin.DecisionDeny {
		t.Fatalf("%+v %+v", rep.Result, rep.Handlers)
	}
}

// The `if` rule narrows a hook to the calls it names.
func TestIfField(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "if": "Bash(rm *)", "command": "echo 'no rm here' >&2; exit 2"}]}]}}`))
	if rep := dispatch(t, d, bashCall("ls && rm -r build")); rep.Result.Decision != plugin.DecisionDeny {
		t.Fatalf("rm: %+v", rep.Result)
	}
	if rep := dispatch(t, d, bashCall("ls -la")); rep.Votes != 0 || outcomes(rep) != "abstained" {
		t.Fatalf("ls: %+v (%s)", rep.Result, outcomes(rep))
	}
}

// Async hooks run in the background and never vote.
func TestAsyncHook(t *testing.T) {
	dir := project(t, `{"hooks": {"PostToolUse": [{"hooks": [
	  {"type": "command", "command": "cat > async-got.json; echo '{\"decision\":\"block\"}'; exit 2", "async": true}]}]}}`)
	d, _ := load(t, dir)
	rep := dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "bash", ToolInput: `{"command":"ls"}`})
	if rep.Votes != 0 || outcomes(rep) != "abstained" {
		t.Fatalf("%+v (%s)", rep.Result, outcomes(rep))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "async-got.json")); err == nil && strings.Contains(string(data), `"hook_event_name":"PostToolUse"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the async hook never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An async hook that ends within AsyncGrace finishes even when Podcode
// stops right after starting it (a Stop hook at the end of podcode run).
func TestAsyncHookFinishesWithinGrace(t *testing.T) {
	dir := project(t, `{"hooks": {"PostToolUse": [{"hooks": [
	  {"type": "command", "command": "sleep 0.3; echo done > done", "async": true}]}]}}`)
	s, _ := Load(dir)
	d := plugin.NewDispatcher(plugin.WithLogger(quietLog()))
	reg, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "bash", ToolInput: `{"command":"ls"}`})
	reg.Close()
	if _, err := os.Stat(filepath.Join(dir, "done")); err != nil {
		t.Errorf("the async hook was stopped before it could finish: %v", err)
	}
}

// Close lets async hooks finish for AsyncGrace, then kills their process
// group (the shell and what it started) and waits for them; an async hook
// that fires after Close does not start.
func TestAsyncHooksStopOnClose(t *testing.T) {
	dir := project(t, `{"hooks": {"PostToolUse": [{"hooks": [
	  {"type": "command", "command": "echo started > started; sleep 60; echo late > late", "async": true}]}]}}`)
	s, _ := Load(dir)
	d := plugin.NewDispatcher(plugin.WithLogger(quietLog()))
	reg, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	post := &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "bash", ToolInput: `{"command":"ls"}`}
	dispatch(t, d, post)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the async hook never started")
		}
	}
	done := make(chan struct{})
	go func() { reg.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(AsyncGrace + 20*time.Second):
		t.Fatal("Close did not stop the async hook")
	}
	os.Remove(filepath.Join(dir, "started"))
	dispatch(t, d, post)
	time.Sleep(200 * time.Millisecond)
	for _, f := range []string{"started", "late"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: the hook ran after Close or outlived it", f)
		}
	}
	reg.Close() // again: nothing to do
}

// Hooks on the other lifecycle events: context from SessionStart, a
// PreCompact block, SubagentStop and SessionEnd run, and exit 2 where
// Claude Code cannot block is only an error.
func TestOtherEvents(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {
	  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo 'Current branch: main'"}]}],
	  "SessionEnd": [{"hooks": [{"type": "command", "command": "echo bye >&2; exit 2"}]}],
	  "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "echo 'keep the history' >&2; exit 2"}]}],
	  "SubagentStop": [{"hooks": [{"type": "command", "command": "grep -q '\"agent_id\":\"ses_child\"' && echo '{\"decision\":\"block\",\"reason\":\"check its work\"}'"}]}]
	}}`))
	rep := dispatch(t, d, &plugin.HookPayload{Event: plugin.HookSessionStart})
	if rep.Votes != 0 || rep.Result.Data[plugin.DataAdditionalContext] != "Current branch: main" {
		t.Errorf("SessionStart: %+v", rep.Result)
	}
	rep = dispatch(t, d, &plugin.HookPayload{Event: plugin.HookSessionEnd})
	if rep.Votes != 0 || outcomes(rep) != "error" {
		t.Errorf("SessionEnd: %+v (%s)", rep.Result, outcomes(rep))
	}
	rep = dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPreCompact})
	if rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "keep the history" {
		t.Errorf("PreCompact: %+v", rep.Result)
	}
	rep = dispatch(t, d, &plugin.HookPayload{Event: plugin.HookSubAgentStop, Extra: map[string]any{"child_session_id": "ses_child"}})
	if rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "check its work" {
		t.Errorf("SubagentStop: %+v (%s)", rep.Result, outcomes(rep))
	}
}

func TestRegisterLogsWarnings(t *testing.T) {
	dir := project(t, `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]}}`)
	s, err := Load(dir)
	if err != nil || len(s.Hooks) != 0 || len(s.Warnings) != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	var logged strings.Builder
	log := slogTo(&logged)
	if _, err := Register(plugin.NewDispatcher(), s, Options{ProjectDir: dir, Log: log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), "hooks.Notification: Podcode does not run Notification hooks") {
		t.Fatalf("logged: %s", logged.String())
	}
	if _, err := Register(nil, s, Options{}); err == nil {
		t.Fatal("a nil dispatcher is an error")
	}
	if _, err := Register(plugin.NewDispatcher(), nil, Options{}); err != nil {
		t.Fatal(err)
	}
}

// A hook honours the caller's context: cancelling the dispatch kills it.
func TestCancelKillsHook(t *testing.T) {
	d, _ := load(t, project(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 30"}]}]}}`))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	d.DispatchReport(ctx, bashCall("ls"))
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %s", el)
	}
}

// Hooks made by hand, not by Parse, register the same way.
func TestRegisterHandMadeHooks(t *testing.T) {
	dir := t.TempDir()
	s := &Settings{Hooks: []Hook{
		{File: "x.json", Where: "a", Event: "PreToolUse", Matcher: "Bash", Command: "echo no >&2; exit 2", If: "Bash(rm *)"},
		{File: "x.json", Where: "b", Event: "UserPromptSubmit", Matcher: "(", Command: "exit 0"}, // matcher ignored there
	}}
	d := plugin.NewDispatcher(plugin.WithLogger(quietLog()))
	if _, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog()}); err != nil {
		t.Fatal(err)
	}
	if rep := dispatch(t, d, bashCall("rm x")); rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "no" {
		t.Fatalf("%+v", rep.Result)
	}
	if rep := dispatch(t, d, call("write", nil)); outcomes(rep) != "not_matched" {
		t.Fatalf("%s", outcomes(rep))
	}
	bad := &Settings{Hooks: []Hook{{File: "x.json", Where: "c", Event: "PreToolUse", Matcher: "(", Command: "true"},
		{File: "x.json", Where: "d", Event: "Notification", Command: "true"}}}
	_, err := Register(plugin.NewDispatcher(), bad, Options{ProjectDir: dir, Log: quietLog()})
	if err == nil || !strings.Contains(err.Error(), `x.json: c: matcher "(": does not compile`) || !strings.Contains(err.Error(), "x.json: d: Podcode does not run Notification hooks") {
		t.Fatalf("got %v", err)
	}
}
