package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
)

// runIn runs the command with stdin and returns its stdout and stderr
// apart.
func runIn(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	bootOptions = app.Options{}
	root := newRoot()
	root.SetIn(stdin)
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

// The words after run are the prompt, joined; a lone - reads it from
// standard input.
func TestRunPromptFromWordsAndStdin(t *testing.T) {
	project(t, map[string]string{"README.md": "# hi"})
	out, _, err := runIn(t, strings.NewReader(""), "run", "summarise", "README.md")
	// The offline model's first echo says what it is and where to read on.
	if err != nil || !strings.HasPrefix(out, "You said: summarise README.md\n\n(This is Podcode's built-in offline model") ||
		!strings.Contains(out, "docs/providers.md") {
		t.Errorf("words: %v %q", err, out)
	}
	out, errOut, err := runIn(t, strings.NewReader("read it\n/tool read {\"path\": \"README.md\"}\n"), "run", "-")
	if err != nil || !strings.Contains(out, "Tool read returned:") || !strings.Contains(out, "# hi") || !strings.Contains(errOut, "-> read") {
		t.Errorf("stdin: %v %q %q", err, out, errOut)
	}
	if _, _, err := runIn(t, strings.NewReader("  \n"), "run", "-"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty prompt on stdin: %v", err)
	}
	if out, _, err := runIn(t, strings.NewReader("not read"), "run", "compare", "a", "-", "b"); err != nil || !strings.HasPrefix(out, "You said: compare a - b\n") {
		t.Errorf("- among words: %v %q", err, out)
	}
}

// --json prints the turn's events, one JSON object a line: the objects
// GET /events sends, of this session only, and nothing else on stdout.
func TestRunJSONPrintsTheEvents(t *testing.T) {
	project(t, map[string]string{"a.txt": "alpha"})
	out, _, err := runIn(t, strings.NewReader(""), "run", "--json", `/tool read {"path": "a.txt"}`)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	session := ""
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var ev bus.Event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil || ev.Type == "" || ev.Time.IsZero() {
			t.Fatalf("not an event: %q (%v)", line, err)
		}
		types = append(types, ev.Type)
		if ev.Type == "turn.finished" {
			// The turn's tokens (and cost, when the model's prices are
			// known) are in its end.
			if u, _ := ev.Properties["usage"].(map[string]any); u == nil || u["input"].(float64) <= 0 || u["output"].(float64) <= 0 {
				t.Errorf("turn.finished without usage: %s", line)
			}
		}
		if id, ok := ev.Properties["sessionID"].(string); ok {
			if session == "" {
				session = id
			}
			if id != session {
				t.Errorf("an event of another session: %s", line)
			}
		}
	}
	want := "session.created turn.started message.stored message.stored tool.call.started tool.call.finished message.stored message.delta message.stored turn.finished"
	if strings.Join(types, " ") != want {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(types, " "), want)
	}
}

// A permission question shows the arguments as indented JSON, escaped;
// with nobody to answer it (standard input not a terminal) the call is
// refused, and both the question and the refusal say so.
func TestRunPermissionQuestionWithNobodyToAnswer(t *testing.T) {
	project(t, map[string]string{"podcode.json": `{"permission": {"bash": "ask"}}`})
	prompt := `/tool bash {"command": "make && rm -rf build \u202e"}`
	out, errOut, err := runIn(t, strings.NewReader(""), "run", prompt)
	if exitCode(err) != exitProblems || !strings.Contains(err.Error(), "1 of its 1 tool calls failed (bash: bash needs permission") {
		t.Fatalf("a turn whose call was refused: %v", err) // exit status 3
	}
	want := "? bash wants to run:\n    {\n      \"command\": \"make && rm -rf build \\u202e\"\n    }\n" +
		"  (the project's permission rule \"bash\" says ask)\n  Nobody can answer (standard input is not a terminal): refused.\n"
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr:\n%s\nwant it to hold\n%s", errOut, want)
	}
	if !strings.Contains(out, "nobody can answer a permission question here (standard input is not a terminal): refused") {
		t.Errorf("stdout: %q", out)
	}
}

// answerer types answer into the asker's input once the question asks
// for it.
type answerer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	pw     *io.PipeWriter
	answer string
}

func (a *answerer) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if bytes.Contains(p, []byte("? [y/N]")) { // Allow? or, for a form, Accept?
		answer := a.answer
		go func() {
			if answer == "" {
				a.pw.Close() // Ctrl-D
				return
			}
			io.WriteString(a.pw, answer)
		}()
	}
	return len(p), nil
}

// On the terminal, the answer is the line typed after the question; a
// closed input means nobody can answer, said as such, for that question
// and every later one.
func TestTerminalAskerClosedInput(t *testing.T) {
	pr, pw := io.Pipe()
	out := &answerer{pw: pw, answer: "y\n"}
	asker := &terminalAsker{in: pr, out: out}
	q := guard.Question{Tool: "bash", Args: map[string]any{"command": "ls"}, Reason: "ask"}
	if ok, err := asker.Ask(context.Background(), q); !ok || err != nil {
		t.Fatalf("a yes: %v %v", ok, err)
	}
	out.mu.Lock()
	out.answer = ""
	out.mu.Unlock()
	for i := range 2 {
		ok, err := asker.Ask(context.Background(), q)
		if ok || !errors.Is(err, guard.ErrNobodyToAsk) || !strings.Contains(err.Error(), "standard input is closed") {
			t.Errorf("question %d after Ctrl-D: %v %v", i+1, ok, err)
		}
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if n := strings.Count(out.buf.String(), "Nobody can answer (standard input is closed): refused."); n != 2 {
		t.Errorf("said %d times:\n%s", n, out.buf.String())
	}
}

// Unknown commands and flags, and wrong arguments, say where the usage
// is.
func TestUsageErrorsSuggestHelp(t *testing.T) {
	project(t, nil)
	cases := []struct{ args, want string }{
		{"nonsense", "Run 'podcode --help' for usage."},
		{"plugin lsit", "(did you mean init or list?)\nRun 'podcode plugin --help' for usage."},
		{"run --jsn hello", "unknown flag: --jsn\nRun 'podcode run --help' for usage."},
		{"run", "Run 'podcode run --help' for usage."},
		{"version extra", "Run 'podcode version --help' for usage."},
	}
	for _, c := range cases {
		_, _, err := runIn(t, strings.NewReader(""), strings.Fields(c.args)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("podcode %s: %v, want %q", c.args, err, c.want)
		}
	}
	if out, _, err := runIn(t, strings.NewReader(""), "plugin"); err != nil || !strings.Contains(out, "Available Commands") {
		t.Errorf("podcode plugin: %v %q", err, out)
	}
}

// After a turn, podcode run says which plugins no longer run whole: here
// one whose hook timed out on each of three calls, and was suspended.
func TestRunShowsPluginsThatNoLongerRunWhole(t *testing.T) {
	project(t, map[string]string{
		"podcode.json": `{"plugin": ["./plugins/hangs.js"]}`,
		"plugins/hangs.js": `export default { id: "hangs", server: () => ({
  "tool.execute.before": () => new Promise(() => {}),
}) }`,
	})
	var out, errOut bytes.Buffer
	bootOptions = app.Options{HookTimeout: 100 * time.Millisecond}
	t.Cleanup(func() { bootOptions = app.Options{} })
	root := newRoot()
	root.SetIn(strings.NewReader(""))
	root.SetOut(&out)
	root.SetErr(&errOut)
	calls := `/tool glob {"pattern": "*.md"}` + "\n" + `/tool glob {"pattern": "*.go"}` + "\n" + `/tool glob {"pattern": "*.js"}`
	root.SetArgs([]string{"--trust-all", "run", calls})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if want := "plugin hangs: running; suspended after 3 timeouts in a row: tool.execute.before\n"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to hold %q", errOut.String(), want)
	}
}

// A turn's failed calls are its own: the results that close calls an
// earlier turn left open (a node killed mid-call) come before its prompt.
func TestFailedCallsAreTheTurns(t *testing.T) {
	interrupted := chat.Message{Role: chat.RoleTool, Result: &chat.Result{Tool: "bash", IsError: true, Output: "the call was interrupted"}}
	user := chat.Message{Role: chat.RoleUser, Text: "hello again"}
	if err := failedCalls([]chat.Message{interrupted, user, {Role: chat.RoleAssistant, Text: "hi"}}); err != nil {
		t.Errorf("an earlier turn's call counted: %v", err)
	}
	failed := chat.Message{Role: chat.RoleTool, Result: &chat.Result{Tool: "read", IsError: true, Output: "no such file\nmore"}}
	if err := failedCalls([]chat.Message{interrupted, user, failed}); exitCode(err) != exitProblems || err.Error() != "the turn ended, but 1 of its 1 tool calls failed (read: no such file)" {
		t.Errorf("its own failed call: %v", err)
	}
}

// An MCP server's form on the terminal: the server's message and each
// field with its default (escaped, as every question is), then Accept?;
// yes sends the defaults, through the guard's yes/no fallback.
func TestTerminalAnswersAFormWithItsDefaults(t *testing.T) {
	pr, pw := io.Pipe()
	out := &answerer{pw: pw, answer: "y\n"}
	asker := &terminalAsker{in: pr, out: out}
	form := &guard.Form{Server: "probe", Message: "Who are you?\nSay \x1b[31mit", Fields: []guard.Field{
		{Name: "name", Type: guard.FieldString, Default: "John Doe", Description: "User name"},
		{Name: "age", Type: guard.FieldInteger, Default: 30.0, Required: true}}}
	ans, err := guard.AskForm(context.Background(), asker, guard.NewFormQuestion("ses_1", "probe_ask", form))
	if err != nil || ans.Action != guard.Accept || ans.Content["name"] != "John Doe" || ans.Content["age"] != 30.0 {
		t.Fatalf("%+v %v", ans, err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	shown := out.buf.String()
	for _, want := range []string{"? the MCP server probe asks (during probe_ask):\n    Who are you?\n    Say \\x1b[31mit",
		`- name (string, default "John Doe"): User name`, "- age (integer, required, default 30)", "(yes sends the defaults, no declines)\n  Accept? [y/N] "} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal shows:\n%s\nwithout %q", shown, want)
		}
	}
}
