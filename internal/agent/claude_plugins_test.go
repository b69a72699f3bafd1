package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/provider/openaitest"
	"github.com/podcode/podcode/internal/tool"
)

// publishedPlugin is the absolute path of a pinned Claude Code plugin
// (internal/claudecode/testdata/plugins, SOURCES.md there).
func publishedPlugin(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "claudecode", "testdata", "plugins", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// userText is the text of the turn's user message.
func userText(res *agent.TurnResult) string {
	for _, m := range res.Messages {
		if m.Role == chat.RoleUser {
			return m.Text
		}
	}
	return ""
}

// commit-commands' /commit shows the model the repository's state: its
// "!`git …`" lines run, each as a bash call through the hooks, and their
// output is what the model reads.
func TestClaudePluginCommandRunsItsShellLines(t *testing.T) {
	e := newEnv(t, apptest.Project{Plugins: []string{publishedPlugin(t, "commit-commands")},
		Files: map[string]string{"README.md": "first\n"}})
	dir := e.ag.App.Cwd
	git(t, dir, "init", "-q", "-b", "trunk")
	git(t, dir, "add", "README.md")
	git(t, dir, "commit", "-q", "-m", "the first commit")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a new file\n"), 0o644)
	git(t, dir, "add", "notes.txt")
	res, err := e.turn(t, "/commit")
	if err != nil {
		t.Fatal(err)
	}
	text := userText(res)
	for _, want := range []string{
		"- Current git status: On branch trunk", "new file:   notes.txt", // git status
		"+a new file",             // git diff HEAD
		"- Current branch: trunk", // git branch --show-current
		"the first commit",        // git log --oneline -10
		"Based on the above changes, create a single git commit.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the model read no %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "!`") {
		t.Errorf("a shell line was left as written:\n%s", text)
	}
	if !strings.Contains(res.Text, "Current branch: trunk") {
		t.Errorf("the offline model did not answer the expanded command: %q", res.Text)
	}
	got := e.rec.events()
	if n := strings.Count(got, "PreToolUse:bash"); n != 4 {
		t.Errorf("the shell lines' bash calls through PreToolUse: %d, want 4 (%s)", n, got)
	}
	if strings.Index(got, "UserPromptSubmit") > strings.Index(got, "PreToolUse:bash") {
		t.Errorf("the shell lines ran before UserPromptSubmit: %s", got)
	}
}

// A command's $ARGUMENTS and a plugin command's full name.
func TestClaudePluginCommandArguments(t *testing.T) {
	e := newEnv(t, apptest.Project{Plugins: []string{publishedPlugin(t, "feature-dev"), publishedPlugin(t, "code-review")}})
	res, err := e.turn(t, "/feature-dev:feature-dev add a login page")
	if err != nil {
		t.Fatal(err)
	}
	if text := userText(res); !strings.Contains(text, "Initial request: add a login page") || !strings.HasPrefix(strings.TrimSpace(text), "# Feature Development") {
		t.Errorf("feature-dev expanded to:\n%s", text)
	}
	res, err = e.turn(t, "/code-review 123")
	if err != nil {
		t.Fatal(err)
	}
	if text := userText(res); !strings.Contains(text, "Provide a code review for the given pull request.") || !strings.HasSuffix(text, "ARGUMENTS: 123") {
		t.Errorf("code-review expanded to:\n%s", text)
	}
	// A prompt of no command is the prompt: the offline model's tool
	// lines still work.
	res, err = e.turn(t, "/nope at all")
	if err != nil || userText(res) != "/nope at all" {
		t.Errorf("an unknown command: %v %q", err, userText(res))
	}
}

// feature-dev's code-explorer runs as a sub-agent type of the task tool:
// its prompt is the system prompt the model reads, and a tool not among
// its tools is refused.
func TestClaudePluginAgentIsASubAgentType(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Answer{Calls: []openaitest.Call{{Name: "task", Args: `{"subagent_type": "code-explorer", "description": "explore", "prompt": "trace the login flow"}`}}},
		openaitest.Answer{Calls: []openaitest.Call{{Name: "bash", Args: `{"command": "echo hi"}`}, {Name: "glob", Args: `{"pattern": "*.md"}`}}},
		openaitest.Answer{Text: "the login flow is in README.md"},
		openaitest.Answer{Text: "done"},
	)
	p := onOpenAI(srv, map[string]string{"README.md": "login\n"})
	p.Plugins = []string{publishedPlugin(t, "feature-dev")}
	e := newEnv(t, p)
	def, _ := e.ag.App.Tools.Get("task")
	if !strings.Contains(def.Description, "- code-explorer: Deeply analyzes existing codebase features") {
		t.Errorf("the task tool does not offer code-explorer: %s", def.Description)
	}
	res, err := e.turn(t, "how does login work?")
	if err != nil {
		t.Fatal(err)
	}
	requireValid(t, srv)
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	system := func(r openaitest.Request) string {
		for _, m := range r.Messages {
			if m.Role == "system" {
				s, _ := m.Content.(string)
				return s
			}
		}
		return ""
	}
	if s := system(reqs[1]); !strings.Contains(s, "You are an expert code analyst specializing in tracing") {
		t.Errorf("the sub-agent's system prompt: %q", s)
	}
	if s := system(reqs[0]); strings.Contains(s, "expert code analyst") {
		t.Errorf("the caller's system prompt has the agent's: %q", s)
	}
	var child []string
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" {
			c, _ := m.Content.(string)
			child = append(child, c)
		}
	}
	if len(child) != 2 || !strings.Contains(child[0], "bash is not among the tools of agent code-explorer") || !strings.Contains(child[1], "README.md") {
		t.Errorf("the sub-agent's results: %q", child)
	}
	if got := results(res.Messages); len(got) != 1 || !strings.Contains(got[0], "the login flow is in README.md") {
		t.Errorf("the task's result: %q", got)
	}
	// An agent type no source defines is the call's error, naming those
	// that exist.
	_, _, err = e.ag.App.Runner.CallTool(context.Background(), tool.Call{SessionID: res.Session.ID}, "task", map[string]any{"subagent_type": "nope", "prompt": "x"})
	if err == nil || !strings.Contains(err.Error(), `no agent type "nope"; the types are: general-purpose, code-architect, code-explorer, code-reviewer`) {
		t.Errorf("an unknown agent type: %v", err)
	}
}

// frontend-design's skill is offered to the model by name and
// description, and read through the skill tool.
func TestClaudePluginSkill(t *testing.T) {
	e := newEnv(t, apptest.Project{Plugins: []string{publishedPlugin(t, "frontend-design")}})
	def, ok := e.ag.App.Tools.Get("skill")
	if !ok || !strings.Contains(def.Description, "- frontend-design: Guidance for distinctive, intentional visual design") {
		t.Fatalf("the skill tool: %v %+v", ok, def)
	}
	res, err := e.turn(t, `/tool skill {"name": "frontend-design"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "Base directory for this skill: " + filepath.Join(publishedPlugin(t, "frontend-design"), "skills", "frontend-design") + "\n\n# Frontend Design"
	if !strings.Contains(res.Text, want) || strings.Contains(res.Text, "description: Guidance") {
		t.Errorf("the skill read: %q", chat.Shorten(res.Text, 300))
	}
	if got := e.rec.events(); !strings.Contains(got, "PreToolUse:skill") {
		t.Errorf("the skill's read passed no hook: %s", got)
	}
}

// A plugin's MCP server (.mcp.json, ${CLAUDE_PLUGIN_ROOT}) starts, and its
// tool answers the plugin's own command.
func TestClaudePluginMCPServer(t *testing.T) {
	modules, err := filepath.Abs(filepath.Join("..", "mcpclient", "testdata", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	apptest.RequireNodeModules(t, filepath.Dir(modules), "@modelcontextprotocol/server-everything")
	dir := filepath.Join(t.TempDir(), "everything-server")
	if err := os.CopyFS(dir, os.DirFS(publishedPlugin(t, "everything-server"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, apptest.Project{Plugins: []string{dir}})
	st := e.ag.App.MCPStatus()
	if len(st) != 1 || st[0].Name != "plugin_everything-server_everything" || st[0].State != "ready" {
		t.Fatalf("the plugin's server: %+v", st)
	}
	def, ok := e.ag.App.Tools.Get("plugin_everything-server_everything_echo")
	if !ok || def.Alias != "mcp__plugin_everything-server_everything__echo" {
		t.Fatalf("its echo tool: %v %+v", ok, def)
	}
	res, err := e.turn(t, "/everything-server:echo hello there")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "returned:\nEcho: hello there") {
		t.Errorf("the command's MCP call answered %q", res.Text)
	}
}

// A slash command is the person's: a sub-agent's prompt, which the model
// wrote, is sent as written, and runs none of a command's shell lines.
func TestSubAgentPromptIsNoCommand(t *testing.T) {
	e := newEnv(t, apptest.Project{Plugins: []string{publishedPlugin(t, "commit-commands"), publishedPlugin(t, "feature-dev")}})
	res, err := e.turn(t, `/tool task {"subagent_type": "code-explorer", "prompt": "/commit"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := results(res.Messages); len(got) != 1 || !strings.Contains(got[0], "You said: /commit") {
		t.Errorf("the sub-agent read: %q", got)
	}
	if ev := e.rec.events(); strings.Contains(ev, "PreToolUse:bash") {
		t.Errorf("the sub-agent's prompt ran a command's shell lines: %s", ev)
	}
}

// A session no one named is named after its first prompt, shortened to a
// line; a name given is kept.
func TestSessionNamedAfterItsFirstPrompt(t *testing.T) {
	e := newEnv(t, apptest.Project{})
	res, err := e.turn(t, "  fix the flaky test in the bus package, then run everything again and report back to me\nwith details")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Session.Title; got != "fix the flaky test in the bus package, then run everything a…" {
		t.Errorf("title %q", got)
	}
	// A secret in the first prompt is redacted in the title as in the
	// message.
	t.Setenv("GITHUB_TOKEN", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB")
	e2 := newEnv(t, apptest.Project{})
	res, err = e2.turn(t, "deploy with ghp_0123456789abcdefghijklmnopqrstuvwxyzAB now")
	if err != nil || strings.Contains(res.Session.Title, "ghp_") || !strings.Contains(res.Session.Title, "[redacted]") {
		t.Errorf("a secret in the title: %v %q", err, res.Session.Title)
	}
	named, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli", Title: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	res, err = e.ag.Run(context.Background(), agent.TurnRequest{SessionID: named.ID, Prompt: "something else", Channel: "cli"})
	if err != nil || res.Session.Title != "mine" {
		t.Errorf("a named session: %v %q", err, res.Session.Title)
	}
}
