package claudehooks

import (
	"context"
	"encoding/json"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/proctest"
	"github.com/podcode/podcode/plugin"
)

// The corpus (testdata/corpus, its README.md names where each setup comes
// from) holds Claude Code hook setups as their authors publish them: a
// project with .claude/settings.json and the scripts it runs. Each case
// loads one as Podcode does, drives it through the real dispatcher, and
// checks that it does what its author meant it to.

// copyTree copies the folder src to dst, keeping each file's mode (the
// hooks' scripts are executable, as their authors ship them).
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mode := info.Mode().Perm()
		if ext := filepath.Ext(path); ext == ".sh" || ext == ".py" {
			mode |= 0o755 // a checkout may have lost the bit
		}
		return os.WriteFile(to, data, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// corpusEnv is a setup copied into a new project, loaded and registered as
// Podcode does, with the sessions' transcripts kept.
type corpusEnv struct {
	dir string
	d   *plugin.Dispatcher
	s   *Settings
	tr  *Transcripts
}

func corpusProject(t *testing.T, name string) *corpusEnv {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, filepath.Join("testdata", "corpus", name), dir)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTranscripts(t.TempDir(), dir, quietLog())
	d := plugin.NewDispatcher(plugin.WithTimeout(10*time.Second), plugin.WithLogger(quietLog()))
	reg, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog(), Transcripts: tr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return &corpusEnv{dir: dir, d: d, s: s, tr: tr}
}

func postCall(tool string, args map[string]any, output string) *plugin.HookPayload {
	p := call(tool, args)
	p.Event, p.ToolOutput = plugin.HookPostToolUse, output
	return p
}

func promptPayload(prompt string) *plugin.HookPayload {
	return &plugin.HookPayload{Event: plugin.HookUserPromptSubmit, SessionID: "ses_1", Extra: map[string]any{"prompt": prompt}}
}

// wantDeny checks that the dispatch denied with a message holding each of parts.
func wantDeny(t *testing.T, what string, rep *plugin.Report, parts ...string) {
	t.Helper()
	if rep.Result.Decision != plugin.DecisionDeny {
		t.Errorf("%s: %s (%s), want a deny", what, rep.Result.Decision, outcomes(rep))
		return
	}
	for _, p := range parts {
		if !strings.Contains(rep.Result.Message, p) {
			t.Errorf("%s: the message %q does not say %q", what, rep.Result.Message, p)
		}
	}
}

// wantNoVote checks that the hooks ran and let the call through without a vote.
func wantNoVote(t *testing.T, what string, rep *plugin.Report) {
	t.Helper()
	if rep.Votes != 0 {
		t.Errorf("%s: %d votes, %s: %q (%s)", what, rep.Votes, rep.Result.Decision, rep.Result.Message, outcomes(rep))
	}
	for _, h := range rep.Handlers {
		if h.Outcome == plugin.OutcomeError {
			t.Errorf("%s: a hook failed: %s", what, h.Error)
		}
	}
}

// ran counts the handlers whose matcher matched the call.
func ran(rep *plugin.Report) int {
	n := 0
	for _, h := range rep.Handlers {
		if h.Outcome != plugin.OutcomeNotMatched {
			n++
		}
	}
	return n
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook wrote no log: %v", err)
	}
	return string(b)
}

func TestCorpus(t *testing.T) {
	cases := []struct {
		name  string
		tools []string
		run   func(t *testing.T, e *corpusEnv)
	}{
		{"bash-command-validator", []string{"python3"}, func(t *testing.T, e *corpusEnv) {
			d := e.d
			wantDeny(t, "grep", dispatch(t, d, bashCall("grep -r TODO src")), "• Use 'rg' (ripgrep) rather than 'grep'")
			wantDeny(t, "find -name", dispatch(t, d, bashCall("find . -name '*.go'")), "rg --files -g PATTERN")
			wantNoVote(t, "grep in a pipe", dispatch(t, d, bashCall("ls | grep x")))
			wantNoVote(t, "ls", dispatch(t, d, bashCall("ls -la")))
			if rep := dispatch(t, d, call("read", map[string]any{"path": "x.go"})); ran(rep) != 0 {
				t.Errorf("the Bash hook ran on read: %s", outcomes(rep))
			}
		}},
		{"file-guard", []string{"python3"}, func(t *testing.T, e *corpusEnv) {
			dir, d := e.dir, e.d
			wantDeny(t, "write .env", dispatch(t, d, call("write", map[string]any{"path": ".env", "content": "KEY=1"})),
				"Protected file (environment file, may hold secrets): "+filepath.Join(dir, ".env"), "Change it by hand")
			wantDeny(t, "edit a key", dispatch(t, d, call("edit", map[string]any{"path": "certs/server.key", "old_string": "a", "new_string": "b"})),
				"key or certificate")
			wantNoVote(t, "write main.go", dispatch(t, d, call("write", map[string]any{"path": "main.go", "content": "package main"})))
			if rep := dispatch(t, d, bashCall("cat .env")); ran(rep) != 0 {
				t.Errorf("the Edit|Write|MultiEdit hook ran on bash: %s", outcomes(rep))
			}
		}},
		{"hooks-mastery", []string{"python3"}, func(t *testing.T, e *corpusEnv) {
			dir, d, s := e.dir, e.d, e.s
			// Notification is an event Podcode does not have: a warning, the rest runs.
			if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "Notification") {
				t.Errorf("warnings %q", s.Warnings)
			}
			wantDeny(t, "rm -rf", dispatch(t, d, bashCall("rm -rf /")), "BLOCKED: recursive forced rm refused")
			wantDeny(t, "read .env", dispatch(t, d, call("read", map[string]any{"path": ".env"})),
				"BLOCKED: .env files hold secrets", "Use .env.sample")
			wantDeny(t, "cat .env", dispatch(t, d, bashCall("cat .env")), "BLOCKED: .env files")
			wantNoVote(t, "read .env.sample", dispatch(t, d, call("read", map[string]any{"path": ".env.sample"})))
			wantNoVote(t, "ls", dispatch(t, d, bashCall("ls")))
			wantNoVote(t, "ls, after", dispatch(t, d, postCall("bash", map[string]any{"command": "ls"}, "a.txt\nb.txt")))
			var pre []map[string]any
			if err := json.Unmarshal([]byte(readLog(t, filepath.Join(dir, "logs", "pre_tool_use.json"))), &pre); err != nil {
				t.Fatal(err)
			}
			if len(pre) != 2 || pre[0]["tool_name"] != "Read" || pre[1]["tool_name"] != "Bash" ||
				pre[1]["hook_event_name"] != "PreToolUse" || pre[1]["cwd"] != dir {
				t.Errorf("pre_tool_use.json: %v", pre)
			}
			var post []map[string]any
			if err := json.Unmarshal([]byte(readLog(t, filepath.Join(dir, "logs", "post_tool_use.json"))), &post); err != nil {
				t.Fatal(err)
			}
			if len(post) != 1 || post[0]["tool_response"].(map[string]any)["stdout"] != "a.txt\nb.txt" {
				t.Errorf("post_tool_use.json: %v", post)
			}
			if _, err := os.Stat(filepath.Join(dir, "logs", "notification.json")); err == nil {
				t.Error("the Notification hook ran")
			}
			// PreCompact keeps a copy of the transcript before compaction;
			// SubagentStop logs the sub-agent that finished.
			if err := e.tr.Append(&chat.Message{ID: "m1", SessionID: "ses_1", Role: chat.RoleUser, Text: "summarise the logs"}); err != nil {
				t.Fatal(err)
			}
			wantNoVote(t, "PreCompact", dispatch(t, d, &plugin.HookPayload{Event: plugin.HookPreCompact, SessionID: "ses_1"}))
			backup := readLog(t, filepath.Join(dir, "logs", "transcript_backups", "ses_1_pre_compact_auto.jsonl"))
			if !strings.Contains(backup, `"content":"summarise the logs"`) {
				t.Errorf("the transcript backup holds %q", backup)
			}
			wantNoVote(t, "SubagentStop", dispatch(t, d, &plugin.HookPayload{Event: plugin.HookSubAgentStop, SessionID: "ses_1",
				Extra: map[string]any{"child_session_id": "ses_2"}}))
			var sub []map[string]any
			if err := json.Unmarshal([]byte(readLog(t, filepath.Join(dir, "logs", "subagent_stop.json"))), &sub); err != nil {
				t.Fatal(err)
			}
			if len(sub) != 1 || sub[0]["hook_event_name"] != "SubagentStop" || sub[0]["agent_id"] != "ses_2" || sub[0]["agent_type"] != "general-purpose" {
				t.Errorf("subagent_stop.json: %v", sub)
			}
		}},
		{"tool-failure-context", []string{"python3", "jq"}, func(t *testing.T, e *corpusEnv) {
			failed := func(tool string, args map[string]any, err string) *plugin.HookPayload {
				p := call(tool, args)
				p.Event, p.Extra = plugin.HookPostToolUseError, map[string]any{plugin.ExtraError: err}
				return p
			}
			for _, c := range []struct {
				what string
				p    *plugin.HookPayload
				want string
			}{
				{"not installed", failed("bash", map[string]any{"command": "rg x"}, "bash: line 1: rg: command not found\nexit status 127"),
					"The command is not installed. Check for it, or do it another way."},
				{"old_string missing", failed("edit", map[string]any{"path": "a.go", "old_string": "x", "new_string": "y"}, "old_string not found in a.go"),
					"old_string is not in the file: read the file again before editing it."},
				{"anything else", failed("read", map[string]any{"path": "a.go"}, "no such file"), ""},
			} {
				rep := dispatch(t, e.d, c.p)
				wantNoVote(t, c.what, rep)
				if got, _ := rep.Result.Data[plugin.DataAdditionalContext].(string); got != c.want {
					t.Errorf("%s: the context for the model is %q, want %q", c.what, got, c.want)
				}
			}
		}},
		{"session-audit", []string{"jq"}, func(t *testing.T, e *corpusEnv) {
			rep := dispatch(t, e.d, &plugin.HookPayload{Event: plugin.HookSessionStart, SessionID: "ses_a", Extra: map[string]any{plugin.ExtraModel: "offline/echo"}})
			wantNoVote(t, "SessionStart", rep)
			// Plain stdout of SessionStart is context for the model.
			if got, _ := rep.Result.Data[plugin.DataAdditionalContext].(string); !strings.HasPrefix(got, "=== Git Status ===\n") ||
				!strings.Contains(got, "=== Recent Commits ===") {
				t.Errorf("the context for the model is %q", got)
			}
			end := &plugin.HookPayload{Event: plugin.HookSessionEnd, SessionID: "ses_a", Extra: map[string]any{ExtraEndReason: ReasonOther}}
			wantNoVote(t, "SessionEnd", dispatch(t, e.d, end))
			var lines []map[string]any
			for _, l := range strings.Split(strings.TrimSpace(readLog(t, filepath.Join(e.dir, ".claude", "audit", "sessions.jsonl"))), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("audit line %q: %v", l, err)
				}
				lines = append(lines, m)
			}
			if len(lines) != 2 || lines[0]["event"] != "session_start" || lines[0]["session"] != "ses_a" || lines[0]["cwd"] != e.dir ||
				lines[1]["event"] != "session_end" || lines[1]["reason"] != "other" || lines[1]["timestamp"] == "" {
				t.Errorf("the audit log: %v", lines)
			}
		}},
		{"bash-command-log", []string{"jq"}, func(t *testing.T, e *corpusEnv) {
			dir, d := e.dir, e.d
			wantNoVote(t, "ls", dispatch(t, d, call("bash", map[string]any{"command": "ls -la", "description": "List the files"})))
			wantNoVote(t, "pwd", dispatch(t, d, bashCall("pwd")))
			if got := readLog(t, filepath.Join(dir, ".claude", "bash-command-log.txt")); got != "ls -la - List the files\npwd - No description\n" {
				t.Errorf("the log holds %q", got)
			}
		}},
		{"auto-format", []string{"python3", "gofmt"}, func(t *testing.T, e *corpusEnv) {
			dir, d := e.dir, e.d
			ugly := "package main\nfunc main(  ){\nprintln( \"hi\" )}\n"
			writeFile(t, filepath.Join(dir, "main.go"), ugly)
			wantNoVote(t, "write main.go", dispatch(t, d, postCall("write", map[string]any{"path": "main.go", "content": ugly}, "wrote main.go")))
			want, err := format.Source([]byte(ugly))
			if err != nil {
				t.Fatal(err)
			}
			if got := readLog(t, filepath.Join(dir, "main.go")); got != string(want) {
				t.Errorf("main.go was not formatted:\n%s", got)
			}
			// A file with no formatter, or a formatter not installed: left alone.
			writeFile(t, filepath.Join(dir, "notes.md"), "#  x")
			wantNoVote(t, "write notes.md", dispatch(t, d, postCall("write", map[string]any{"path": "notes.md", "content": "#  x"}, "")))
		}},
		{"check-changed", []string{"jq", "python3"}, func(t *testing.T, e *corpusEnv) {
			dir, d := e.dir, e.d
			writeFile(t, filepath.Join(dir, "bad.py"), "def f(:\n    pass\n")
			rep := dispatch(t, d, postCall("edit", map[string]any{"path": "bad.py", "old_string": "x", "new_string": "y"}, "edited"))
			// PostToolUse's exit 2: the tool ran; the reason is added to
			// what the model reads of its result.
			wantDeny(t, "bad.py", rep, "████ Compile Error ████", "bad.py does not compile", "SyntaxError", "Fix these errors")
			writeFile(t, filepath.Join(dir, "good.py"), "def f():\n    pass\n")
			wantNoVote(t, "good.py", dispatch(t, d, postCall("write", map[string]any{"path": "good.py", "content": "def f():\n    pass\n"}, "")))
		}},
		{"secret-prompt-guard", []string{"jq"}, func(t *testing.T, e *corpusEnv) {
			d := e.d
			wantDeny(t, "a PEM key", dispatch(t, d, promptPayload("use this:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n")),
				"Refused: the prompt holds a PEM private key")
			wantDeny(t, "an API key", dispatch(t, d, promptPayload("call it with api_key=sk_live_0123456789abcdef")),
				"Refused: the prompt seems to hold a credential")
			wantNoVote(t, "a plain prompt", dispatch(t, d, promptPayload("fix the failing test in parser.go")))
		}},
		{"prompt-context", []string{"python3"}, func(t *testing.T, e *corpusEnv) {
			d := e.d
			wantDeny(t, "a password", dispatch(t, d, promptPayload("log in with password: hunter2")),
				"Security policy: the prompt seems to contain a secret. Ask again without it.")
			rep := dispatch(t, d, promptPayload("what changed today?"))
			wantNoVote(t, "a plain prompt", rep)
			if c, _ := rep.Result.Data[plugin.DataAdditionalContext].(string); !strings.HasPrefix(c, "Current time: ") {
				t.Errorf("the context for the model is %q", c)
			}
		}},
		{"approve-doc-reads", []string{"python3"}, func(t *testing.T, e *corpusEnv) {
			d := e.d
			rep := dispatch(t, d, call("read", map[string]any{"path": "docs/guide.md"}))
			if rep.Result.Decision != plugin.DecisionAllow || rep.Result.Message != "documentation read, approved by the hook" {
				t.Errorf("guide.md: %+v (%s)", rep.Result, outcomes(rep))
			}
			wantNoVote(t, "main.go", dispatch(t, d, call("read", map[string]any{"path": "main.go"})))
		}},
		{"dangerous-commands-json", []string{"jq"}, func(t *testing.T, e *corpusEnv) {
			d := e.d
			msg := "Refused: the command skips safety checks (--no-verify, --force, --hard)"
			wantDeny(t, "push --force", dispatch(t, d, bashCall("git push --force origin main")), msg)
			wantDeny(t, "reset --hard", dispatch(t, d, bashCall("git reset --hard HEAD~1")), msg)
			// `read -r input` reads one line: the input must be one.
			rep := dispatch(t, d, bashCall("git status"))
			if rep.Result.Decision != plugin.DecisionAllow || rep.Result.Message != "command passed the safety check" {
				t.Errorf("git status: %+v (%s)", rep.Result, outcomes(rep))
			}
		}},
		{"block-rm-exit2", []string{"jq"}, func(t *testing.T, e *corpusEnv) {
			// "deny" is no decision Claude Code knows, but the hook exits 2
			// and says why in "reason": the model reads the author's words.
			wantDeny(t, "rm -rf", dispatch(t, e.d, bashCall("rm -rf build")), "recursive forced deletes are refused here")
			wantNoVote(t, "ls", dispatch(t, e.d, bashCall("ls")))
		}},
		{"mcp-logger", []string{"jq"}, func(t *testing.T, e *corpusEnv) {
			dir, d := e.dir, e.d
			for _, tool := range []string{"mcp__memory__create_entities", "mcp__filesystem__write_file", "mcp__filesystem__read_file", "bash"} {
				wantNoVote(t, tool, dispatch(t, d, call(tool, map[string]any{"name": "x"})))
			}
			if got := readLog(t, filepath.Join(dir, ".claude", "mcp-memory.log")); got != `{"tool":"mcp__memory__create_entities","input":{"name":"x"}}`+"\n" {
				t.Errorf("mcp-memory.log: %q", got)
			}
			if got := readLog(t, filepath.Join(dir, ".claude", "mcp-writes.log")); got != "mcp__filesystem__write_file writes\n" {
				t.Errorf("mcp-writes.log: %q", got)
			}
		}},
		{"command-rewriter", []string{"python3"}, func(t *testing.T, e *corpusEnv) {
			d := e.d
			// A documented difference: Podcode cannot apply updatedInput, and
			// running the original command could run what the hook meant to
			// change, so the call is denied, the rewrite kept in the data.
			rep := dispatch(t, d, bashCall("make test"))
			wantDeny(t, "make test", rep, "updatedInput", "tool.execute.before")
			if in, _ := rep.Result.Data[DataUpdatedInput].(map[string]any); in["command"] != "nice -n 10 make test" {
				t.Errorf("updated_input %v", rep.Result.Data)
			}
			wantNoVote(t, "already nice", dispatch(t, d, bashCall("nice make test")))
		}},
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			proctest.RequirePrograms(t, "the "+c.name+" hook setup", append([]string{"bash"}, c.tools...)...)
			e := corpusProject(t, c.name)
			// Only hooks-mastery declares an event Podcode does not have.
			if c.name != "hooks-mastery" && len(e.s.Warnings) != 0 {
				t.Errorf("warnings %q", e.s.Warnings)
			}
			c.run(t, e)
		})
	}
	for _, e := range entries {
		if e.IsDir() && !covered[e.Name()] {
			t.Errorf("testdata/corpus/%s has no case", e.Name())
		}
	}
}

// What a corpus guard costs a tool call: bash, two jq runs and the
// dispatch, for a command it lets through.
func BenchmarkCorpusGuard(b *testing.B) {
	if _, err := exec.LookPath("jq"); err != nil {
		b.Fatal("jq is not installed: the dangerous-commands-json hook setup runs it")
	}
	dir := b.TempDir()
	copyTree(b, filepath.Join("testdata", "corpus", "dangerous-commands-json"), dir)
	s, err := Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	d := plugin.NewDispatcher(plugin.WithTimeout(10*time.Second), plugin.WithLogger(quietLog()))
	reg, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog()})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	p := bashCall("git status")
	b.ReportAllocs()
	for b.Loop() {
		if res, err := d.Dispatch(context.Background(), p); err != nil || res.Decision != plugin.DecisionAllow {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}

// Exit 2 blocks whatever stdout holds; when stderr is empty, a reason the
// JSON gives is the message even if the JSON is not valid hook output.
func TestExit2LooseReason(t *testing.T) {
	for _, c := range []struct{ stdout, stderr, want string }{
		{`{"decision": "deny", "reason": "no rm -rf"}`, "", "no rm -rf"},
		{`{"decision": "deny", "reason": "no rm -rf"}`, "stderr says why", "stderr says why"},
		{`{"hookSpecificOutput": {"permissionDecision": "block", "permissionDecisionReason": "not here"}}`, "", "not here"},
		{`{"decision": "deny", "reason": 5}`, "", "a Claude Code PreToolUse hook blocked it (exit status 2)"},
		{`{"decision": "deny", "hookSpecificOutput": "x"}`, "", "a Claude Code PreToolUse hook blocked it (exit status 2)"},
		{`not json`, "", "a Claude Code PreToolUse hook blocked it (exit status 2)"},
	} {
		res, err := fromClaudeOutput("PreToolUse", 2, []byte(c.stdout), []byte(c.stderr))
		if err != nil || res.Decision != plugin.DecisionDeny || res.Message != c.want {
			t.Errorf("%s / %q: %+v, %v; want a deny with %q", c.stdout, c.stderr, res, err, c.want)
		}
	}
}
