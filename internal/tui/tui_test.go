package tui

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/server"
	"github.com/podcode/podcode/internal/store"
)

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

func plain(s string) string { return sgr.ReplaceAllString(s, "") }

// The events of a turn become, in order, what the chat prints: the
// answer, each call with its hooks and output, the end of the turn; the
// events of another session are someone else's.
func TestEventsOfATurn(t *testing.T) {
	m := newModel(context.Background(), Options{})
	m.printing = true // keep what is emitted in the outbox
	m.opened(sessionMsg{s: store.Session{ID: "s1", Title: "t", Model: "offline/echo"}})
	m.outbox = nil
	stored := func(sid string, msg chat.Message) bus.Event {
		raw, _ := json.Marshal(msg)
		var v any
		json.Unmarshal(raw, &v)
		return bus.Event{Type: "message.stored", Properties: map[string]any{"sessionID": sid, "message": v}}
	}
	call := chat.ToolCall{ID: "c1", Tool: "bash", Args: json.RawMessage(`{"command":"echo hi"}`)}
	for _, ev := range []bus.Event{
		{Type: "turn.started", Properties: map[string]any{"sessionID": "s1"}},
		{Type: "message.delta", Properties: map[string]any{"sessionID": "s1", "text": "work"}},
		stored("s1", chat.Message{Role: chat.RoleAssistant, Text: "On it.", ToolCalls: []chat.ToolCall{call}}),
		stored("other", chat.Message{Role: chat.RoleAssistant, Text: "not ours"}),
		stored("s1", chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "c1", Tool: "bash", Output: "hi there\n"},
			Hooks: []chat.HookRun{{Kind: "lifecycle", Hook: "PreToolUse", Source: "config:permission", Decision: "allow", DurationUs: 12},
				{Kind: "pipeline", Hook: "tool.execute.before", Source: "audit", Outcome: "threw", Error: "boom", DurationUs: 1500}}}),
		{Type: "turn.finished", Properties: map[string]any{"sessionID": "s1", "status": "complete", "usage": map[string]any{"input": 1200, "output": 30}}},
	} {
		m.event(ev)
		if ev.Type == "message.delta" && m.streaming.String() != "work" {
			t.Errorf("streaming %q", m.streaming.String())
		}
		if ev.Type == "turn.started" && !m.running {
			t.Error("not running after turn.started")
		}
	}
	got := plain(strings.Join(m.outbox, "\n"))
	want := "  On it.\n" +
		"✓ bash  echo hi\n" +
		"  │ PreToolUse           config:permission  allow  12 µs\n" +
		"  │ tool.execute.before  audit              ⚠ threw: boom  1.5 ms\n" +
		"  └ hi there\n" +
		"· complete · tokens: 1,200 in, 30 out"
	if got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
	if m.running || len(m.calls) != 0 || m.streaming.Len() != 0 {
		t.Errorf("after the turn: running %v, calls %v, streaming %q", m.running, m.calls, m.streaming.String())
	}
}

// A running call shows what it last said of its progress
// (tool.call.progress), escaped, until its result comes; progress of a
// call not under way is dropped.
func TestProgressOfARunningCall(t *testing.T) {
	m := newModel(context.Background(), Options{})
	m.printing = true
	m.opened(sessionMsg{s: store.Session{ID: "s1"}})
	raw, _ := json.Marshal(chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Tool: "lookup", Args: json.RawMessage(`{"name":"x"}`)}}})
	var msg any
	json.Unmarshal(raw, &msg)
	m.event(bus.Event{Type: "turn.started", Properties: map[string]any{"sessionID": "s1"}})
	m.event(bus.Event{Type: "message.stored", Properties: map[string]any{"sessionID": "s1", "message": msg}})
	progress := func(call string, props map[string]any) {
		props["callID"], props["sessionID"], props["tool"] = call, "s1", "lookup"
		m.event(bus.Event{Type: "tool.call.progress", Properties: props})
	}
	progress("c1", map[string]any{"progress": 3.0, "total": 10.0, "message": "pages\x1b[2J read"})
	progress("c9", map[string]any{"progress": 1.0, "message": "another call's"})
	v := plain(m.View().Content)
	if !strings.Contains(v, "lookup  x  · pages\\x1b[2J read (3 of 10)\n") || strings.Contains(v, "another call's") {
		t.Errorf("the view:\n%s", v)
	}
	raw, _ = json.Marshal(chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "c1", Tool: "lookup", Output: "found"}})
	json.Unmarshal(raw, &msg)
	m.event(bus.Event{Type: "message.stored", Properties: map[string]any{"sessionID": "s1", "message": msg}})
	progress("c1", map[string]any{"progress": 10.0, "total": 10.0})
	if len(m.progress) != 0 || strings.Contains(plain(m.View().Content), "of 10") {
		t.Errorf("progress after the result: %v\n%s", m.progress, plain(m.View().Content))
	}
}

// A question of the session or of one of its sub-agents is put to the
// person; another session's is not.
func TestQuestions(t *testing.T) {
	m := newModel(context.Background(), Options{})
	m.opened(sessionMsg{s: store.Session{ID: "s1"}})
	ask := func(sid string) bus.Event {
		return bus.Event{Type: "permission.asked", Properties: map[string]any{"question": map[string]any{
			"id": "q-" + sid, "sessionID": sid, "tool": "bash", "args": map[string]any{"command": "ls"}, "reason": "asks"}}}
	}
	m.event(ask("stranger"))
	if m.question != nil {
		t.Fatal("a question of another session was taken")
	}
	m.event(bus.Event{Type: "session.created", Properties: map[string]any{"session": map[string]any{"id": "child", "parentID": "s1"}}})
	m.event(ask("child"))
	if m.question == nil || m.question.id != "q-child" || argsLine(m.question.tool, m.question.args) != "ls" {
		t.Fatalf("the sub-agent's question: %+v", m.question)
	}
	if v := plain(m.View().Content); !strings.Contains(v, "? Allow bash?  ls  (asks)\n  [y] allow  [n] deny") {
		t.Errorf("the view:\n%s", v)
	}
	// A question is wrapped to the terminal's width, not cut: a page's
	// whole URL is seen.
	page := "https://login.example.com/authorize?client=podcode&state=" + strings.Repeat("x", 90)
	m.event(bus.Event{Type: "permission.asked", Properties: map[string]any{"question": map[string]any{
		"id": "q-page", "sessionID": "s1", "tool": "probe_open", "args": map[string]any{"url": page},
		"reason": "the MCP server probe asks you to open " + page + ", a page of login.example.com"}}})
	v := plain(m.View().Content)
	for _, line := range strings.Split(v, "\n") {
		if ansi.StringWidth(line) > m.width {
			t.Errorf("a line wider than the terminal (%d): %q", m.width, line)
		}
	}
	if !strings.Contains(strings.ReplaceAll(v, "\n", ""), page+", a page of") {
		t.Errorf("the whole URL is not shown:\n%s", v)
	}
	// A form says who asks: a plugin is not an MCP server.
	for _, c := range []struct {
		form map[string]any
		want string
	}{
		{map[string]any{"server": "probe", "message": "Who are you?"}, "? the MCP server probe asks: Who are you?  {}\n  [y] accept these values  [n] decline"},
		{map[string]any{"server": "audit", "plugin": true, "message": "Your token?"}, "? the plugin audit asks: Your token?  {}\n  [y] accept these values"},
	} {
		m.event(bus.Event{Type: "permission.asked", Properties: map[string]any{"question": map[string]any{
			"id": "q-form", "sessionID": "s1", "tool": "x", "args": map[string]any{}, "form": c.form}}})
		if v := plain(m.View().Content); !strings.Contains(v, c.want) {
			t.Errorf("the form's question:\n%s\nwant %q", v, c.want)
		}
	}
}

// While a question waits, typing does not reach the prompt, and a y typed
// before the question could be read does not answer it.
func TestQuestionTakesTheKeys(t *testing.T) {
	m := newModel(context.Background(), Options{})
	m.opened(sessionMsg{s: store.Session{ID: "s1"}})
	m.event(bus.Event{Type: "permission.asked", Properties: map[string]any{"question": map[string]any{"id": "q1", "sessionID": "s1", "tool": "bash"}}})
	for _, r := range "command y" {
		m.key(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if m.question == nil || m.input.Value() != "" {
		t.Fatalf("typing answered (%v) or reached the prompt (%q)", m.question == nil, m.input.Value())
	}
	m.question.shown = time.Now().Add(-answerDelay)
	if _, cmd := m.key(tea.KeyPressMsg{Code: 'y', Text: "y"}); m.question != nil || cmd == nil {
		t.Error("y did not answer the question once it could be read")
	}
}

// Tab completes a command: the one that matches, what the matches share,
// then each in turn.
func TestComplete(t *testing.T) {
	m := newModel(context.Background(), Options{})
	m.commands = []server.Command{{Name: "hello"}, {Name: "commit"}, {Name: "commit-push-pr"}}
	for _, c := range []struct{ typed, want string }{
		{"/hell", "/hello "},
		{"/co", "/commit"},
		{"/commit", "/commit "},
		{"/x", "/x"},
		{"hello", "hello"},
	} {
		m.input.SetValue(c.typed)
		m.cycle = nil
		m.complete()
		if got := m.input.Value(); got != c.want {
			t.Errorf("%q: %q, want %q", c.typed, got, c.want)
		}
	}
	m.input.SetValue("/commit")
	m.cycle = nil
	for _, want := range []string{"/commit ", "/commit-push-pr ", "/commit "} {
		m.complete()
		if got := m.input.Value(); got != want {
			t.Errorf("Tab again: %q, want %q", got, want)
		}
	}
}

func TestReadEvents(t *testing.T) {
	in := "id: e-1\nevent: x\ndata: {\"type\":\"a\",\"properties\":{\"n\":1}}\n\n" +
		": a comment\n\nid: e-2\ndata: not json\n\n" +
		"id: e-3\ndata: {\"type\":\ndata: \"b\"}\n\n"
	var got []string
	last := ""
	err := readEvents(strings.NewReader(in), &last, func(ev bus.Event) { got = append(got, ev.Type) })
	if !errors.Is(err, io.ErrUnexpectedEOF) || strings.Join(got, ",") != "a,b" || last != "e-3" {
		t.Errorf("events %q, last %q, err %v", got, last, err)
	}
}

// A frame past the bound ends the stream with an error that says so (the
// chat does not resume into the same event forever).
func TestReadEventsTooLarge(t *testing.T) {
	last := ""
	err := readEvents(strings.NewReader("data: "+strings.Repeat("x", maxFrame+1)+"\n\n"), &last, func(bus.Event) {})
	if !errors.Is(err, bufio.ErrTooLong) || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("%v", err)
	}
}

// What the chat prints of a tool's output, a model's answer or a hook's
// reason cannot drive the terminal: its control characters are shown
// escaped, and only the chat's own colours are escape sequences.
func TestNoTerminalControlFromElsewhere(t *testing.T) {
	m := newModel(context.Background(), Options{})
	m.printing = true
	m.opened(sessionMsg{s: store.Session{ID: "s1", Title: "t\x1b]0;title\x07"}})
	evil := "\x1b]52;c;cGF3bmVk\x07\x1b[2J\rgone \u202eevil"
	call := chat.ToolCall{ID: "c1", Tool: "bash", Args: json.RawMessage(`{"command":"echo \u001b[31m"}`)}
	for _, msg := range []chat.Message{
		{Role: chat.RoleAssistant, Text: "answer " + evil, ToolCalls: []chat.ToolCall{call}},
		{Role: chat.RoleTool, Result: &chat.Result{CallID: "c1", Tool: "bash", Output: evil},
			Hooks: []chat.HookRun{{Hook: "PreToolUse", Source: "x\x1b[8m", Decision: "deny", Message: evil}}},
	} {
		raw, _ := json.Marshal(msg)
		var v any
		json.Unmarshal(raw, &v)
		m.event(bus.Event{Type: "message.stored", Properties: map[string]any{"sessionID": "s1", "message": v}})
	}
	out := sgr.ReplaceAllString(strings.Join(m.outbox, "\n"), "")
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && safetext.Unsafe(r) }); i >= 0 {
		t.Errorf("printed a control character raw at %d: %q", i, out)
	}
	// Escape sequences of the chat's own colours are taken out above: the
	// others must be there as text.
	for _, want := range []string{`\x1b]52;c;cGF3bmVk\a\x1b[2J\rgone \u202eevil`, `echo \x1b[31m`, `x\x1b[8m`} {
		if !strings.Contains(out, want) {
			t.Errorf("%s is not shown escaped:\n%s", want, out)
		}
	}
}

func FuzzReadEvents(f *testing.F) {
	f.Add("id: 1\ndata: {\"type\":\"a\"}\n\n")
	f.Add("data: {\ndata: }\n\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		last := ""
		readEvents(strings.NewReader(in), &last, func(bus.Event) {})
		if last != "" && !strings.Contains(in, last) {
			t.Errorf("last id %q is not in the stream", last)
		}
	})
}
