package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/plugin"
)

// commandsProject boots a project whose .claude/commands are the
// fixtures of testdata/commands, with the redactor plugin and a Go
// PreToolUse handler that records what it sees.
func commandsProject(t testing.TB, untrusted bool) (*app.App, *payloads) {
	t.Helper()
	files := map[string]string{
		"plugins/redactor.js": redactor,
		"notes.txt":           "the key is SECRET-12345, keep it\n",
		"VERSION":             "1.2.3\n",
		"src/main.go":         "package main\n",
		"src/more.go":         "package main\n",
	}
	entries, err := os.ReadDir("testdata/commands")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/commands", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[".claude/commands/"+e.Name()] = string(data)
	}
	seen := &payloads{}
	a, _ := apptest.Boot(t, apptest.Project{
		Plugins:   []string{"./plugins/redactor.js"},
		Files:     files,
		Untrusted: untrusted,
		Hooks: func(d *plugin.Dispatcher) error {
			return d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				seen.add(p)
				return nil, nil
			}, plugin.WithSource("test-guard"))
		},
	})
	return a, seen
}

func promptText(t testing.TB, res *mcp.GetPromptResult) string {
	t.Helper()
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("messages %+v", res.Messages)
	}
	tc, ok := res.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("content of type %T", res.Messages[0].Content)
	}
	return tc.Text
}

// The project's commands are prompts: their arguments from their bodies
// and hints; getting one expands it as a turn does, its "!" line a bash
// call and its "@file" a read call, through the hooks, on channel mcp.
func TestPrompts(t *testing.T) {
	a, seen := commandsProject(t, false)
	cs := dial(t, New(a), nil)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(list.Prompts)
	want := `[{"arguments":[{"name":"arg1","description":"The command's $1: one of major, minor, patch","required":true},` +
		`{"name":"file","description":"The command's $2: [file]"}],"description":"Bump the version","name":"bump"},` +
		`{"arguments":[{"name":"arguments","description":"The command's arguments: [message]"}],"description":"Commit the work","name":"commit"},` +
		`{"description":"Say hello.","name":"plain"},` +
		`{"arguments":[{"name":"arg1","description":"The command's $1"},{"name":"arg2","description":"The command's $2"}],"description":"Quote two words","name":"quote"}]`
	if string(got) != want {
		t.Errorf("prompts/list:\n%s\nwant\n%s", got, want)
	}

	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "bump", Arguments: map[string]string{"arg1": "minor", "file": "VERSION"}})
	if err != nil {
		t.Fatal(err)
	}
	text := promptText(t, res)
	for _, want := range []string{"Bump the minor version in VERSION.", "status: ok in " + a.Cwd, "Contents of @notes.txt:", "the key is [REDACTED], keep it"} {
		if !strings.Contains(text, want) {
			t.Errorf("bump expands to %q, without %q", text, want)
		}
	}
	if res.Description != "Bump the version" || strings.Contains(text, "SECRET-12345") {
		t.Errorf("bump: %q %q", res.Description, text)
	}
	var calls []string
	for _, p := range seen.all() {
		calls = append(calls, p.ToolName)
		if p.Channel != Channel || p.SessionID != SessionID {
			t.Errorf("%s: channel %q, session %q", p.ToolName, p.Channel, p.SessionID)
		}
	}
	if !slices.Equal(calls, []string{"read", "bash"}) {
		t.Errorf("the expansion's tool calls: %v", calls)
	}

	res, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "commit", Arguments: map[string]string{"arguments": "fix the thing"}})
	if err != nil || promptText(t, res) != "Commit the work with the message: fix the thing\n" {
		t.Errorf("commit: %v %v", res, err)
	}
	// Values with spaces and quotes reach $1 and $2 whole.
	res, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "quote", Arguments: map[string]string{"arg1": `it's "quoted"`, "arg2": "two words"}})
	if err != nil || promptText(t, res) != `first=<it's "quoted">`+" second=<two words>\n" {
		t.Errorf("quote: %v %v", res, err)
	}
	res, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "quote", Arguments: map[string]string{"arg2": "second only"}})
	if err != nil || promptText(t, res) != "first=<> second=<second only>\n" {
		t.Errorf("quote without $1: %v %v", res, err)
	}

	for name, args := range map[string]map[string]string{
		"bump":    {"file": "VERSION"}, // arg1 is required
		"commit":  {"message": "x"},    // no such argument
		"missing": {},                  // no such prompt
	} {
		if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: args}); !isRPC(err, jsonrpc.CodeInvalidParams, "") {
			t.Errorf("%s %v: %v", name, args, err)
		}
	}
}

// A project's commands are offered only once the project is trusted.
func TestPromptsOfAnUntrustedProject(t *testing.T) {
	a, _ := commandsProject(t, true)
	cs := dial(t, New(a), nil)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(list.Prompts) != 0 {
		t.Errorf("prompts/list: %v %v", list, err)
	}
}

// A project's command edited since it was trusted is no longer listed,
// and getting it is refused.
func TestPromptsOfAChangedCommand(t *testing.T) {
	a, _ := commandsProject(t, false)
	s := New(a)
	checked := false
	for _, c := range a.Claude.Commands() {
		// Trust here is all-trusting (apptest): stand in for a check that
		// fails, as trust.Watch.Check does after an edit.
		if c.Value.Source.Label == "project" && !checked {
			c.Value.Source.Check = func() error { return errors.New("its files changed since they were trusted") }
			checked = true
		}
	}
	cs := dial(t, s, nil)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(list.Prompts) != 0 {
		t.Errorf("prompts/list: %v %v", list, err)
	}
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "plain"}); !isRPC(err, jsonrpc.CodeInternalError, "changed since they were trusted") {
		t.Errorf("prompts/get: %v", err)
	}
}

// Arguments come from the body and the hint.
func TestNewPrompt(t *testing.T) {
	for _, tc := range []struct {
		body, hint string
		want       string
	}{
		{"$1 and $3", "[pr-number] <priority level>", "pr-number? priority_level! arg3?"},
		{"$1 $2", "[a] [a]", "a? a_2?"},
		{"$2", "[arguments]", "arguments? arg2?"},
		{"all: $ARGUMENTS", "", "arguments?"},
		{"all: $ARGUMENTS", "[major|minor]", "arguments?{major,minor}"},
		{"no arguments", "", ""},
		{"appended", "<file>", "arguments?@"},
		{"$1", "path", "path?@"},
	} {
		p := newPrompt("p", &claudecode.Command{Body: tc.body, ArgumentHint: tc.hint})
		var got []string
		for _, a := range p.args {
			s := a.name + map[bool]string{true: "!", false: "?"}[a.required]
			if len(a.choices) > 0 {
				s += "{" + strings.Join(a.choices, ",") + "}"
			}
			if a.paths {
				s += "@"
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q %q: %q, want %q", tc.body, tc.hint, strings.Join(got, " "), tc.want)
		}
	}
}
