package opencode

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/store"
)

func stored(t *testing.T, m chat.Message) bus.Event {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return bus.Event{Type: podMessageStored, Properties: map[string]any{"sessionID": m.SessionID, "message": json.RawMessage(raw)}}
}

func types(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// One turn's bus events, as opencode's plugins hear them: the order of
// opencode's (busy, the user message and its part, the assistant message
// and its parts, the tool part completed by its result, file.edited for a
// write, idle and session.idle last), with the shapes plugins read
// (wakatime reads a completed tool part's title and metadata).
func TestMapperTurn(t *testing.T) {
	p := Project{Directory: "/proj", Worktree: "/proj", Version: "1.0"}
	mp := NewMapper(p)
	at := time.UnixMilli(1700000000000)
	var got []Event
	add := func(ev bus.Event) {
		evs := mp.Map(ev)
		if len(evs) > 0 != Maps(ev.Type) { // the pre-filter lets through what maps, and nothing else here
			t.Errorf("%s maps to %d events, Maps says %v", ev.Type, len(evs), Maps(ev.Type))
		}
		got = append(got, evs...)
	}
	add(bus.Event{Type: podTurnStarted, Properties: map[string]any{"sessionID": "ses_1"}})
	add(stored(t, chat.Message{ID: "msg_u", SessionID: "ses_1", Role: chat.RoleUser, Text: "write it", CreatedAt: at}))
	add(stored(t, chat.Message{ID: "msg_a", SessionID: "ses_1", Role: chat.RoleAssistant, Model: "offline/echo", CreatedAt: at,
		ToolCalls: []chat.ToolCall{{ID: "call_1", Tool: "write", Args: json.RawMessage(`{"path":"a.txt","content":"x"}`)}},
		Usage:     &chat.Usage{Input: 10, Output: 5, Cost: 0.5}}))
	add(bus.Event{Type: "tool.call.started", Properties: map[string]any{"sessionID": "ses_1"}}) // no counterpart
	add(stored(t, chat.Message{ID: "msg_t", SessionID: "ses_1", Role: chat.RoleTool, CreatedAt: at.Add(time.Second),
		Result: &chat.Result{CallID: "call_1", Tool: "write", Title: "a.txt", Output: "created a.txt (1 bytes)", Metadata: map[string]any{"created": true}}}))
	add(bus.Event{Type: podTurnFinished, Properties: map[string]any{"sessionID": "ses_1", "status": "complete"}})

	want := []string{"session.status", "message.updated", "message.part.updated", "message.updated", "message.part.updated",
		"message.part.updated", "message.part.updated", "message.part.updated", "file.edited", "session.status", "session.idle"}
	if g := types(got); !slices.Equal(g, want) {
		t.Fatalf("events %q\nwant %q", g, want)
	}
	if st := got[0].Properties["status"].(map[string]any)["type"]; st != "busy" {
		t.Errorf("first status %v", st)
	}
	info := got[3].Properties["info"].(map[string]any)
	if info["role"] != "assistant" || info["providerID"] != "offline" || info["modelID"] != "echo" || info["finish"] != "tool-calls" || info["cost"] != 0.5 {
		t.Errorf("assistant info %v", info)
	}
	running := got[5].Properties["part"].(map[string]any)
	if running["type"] != "tool" || running["state"].(map[string]any)["status"] != "running" {
		t.Errorf("the call's part before its result: %v", running)
	}
	done := got[7].Properties["part"].(map[string]any)
	state := done["state"].(map[string]any)
	if done["id"] != running["id"] || done["messageID"] != "msg_a" || done["callID"] != "call_1" || done["tool"] != "write" ||
		state["status"] != "completed" || state["title"] != "a.txt" || state["output"] != "created a.txt (1 bytes)" {
		t.Errorf("completed part %v", done)
	}
	meta := state["metadata"].(map[string]any)
	if meta["filepath"] != "/proj/a.txt" || meta["exists"] != false || state["input"].(map[string]any)["path"] != "a.txt" {
		t.Errorf("metadata %v, input %v", meta, state["input"])
	}
	if f := got[8].Properties["file"]; f != "/proj/a.txt" {
		t.Errorf("file.edited %v", f)
	}
	if got[len(got)-1].Properties["sessionID"] != "ses_1" {
		t.Errorf("session.idle %v", got[len(got)-1].Properties)
	}
	ids := map[string]bool{}
	for _, e := range got {
		if ids[e.ID] {
			t.Errorf("two events with id %s", e.ID)
		}
		ids[e.ID] = true
	}
}

// A failed turn is session.error before idle; an interrupted one's error
// is opencode's MessageAbortedError; a result whose call is unknown (the
// mapper started after it) maps to nothing; a failed tool call is the
// error state with no file.edited.
func TestMapperFailures(t *testing.T) {
	mp := NewMapper(Project{Directory: "/p", Worktree: "/p"})
	evs := mp.Map(bus.Event{Type: podTurnFinished, Properties: map[string]any{"sessionID": "s", "status": "error", "error": "boom"}})
	if g := types(evs); !slices.Equal(g, []string{"session.error", "session.status", "session.idle"}) {
		t.Fatalf("events %q", g)
	}
	if e := evs[0].Properties["error"].(map[string]any); e["name"] != "UnknownError" || e["data"].(map[string]any)["message"] != "boom" {
		t.Errorf("error %v", e)
	}
	evs = mp.Map(bus.Event{Type: podTurnFinished, Properties: map[string]any{"sessionID": "s", "status": "interrupted"}})
	if e := evs[0].Properties["error"].(map[string]any); e["name"] != "MessageAbortedError" {
		t.Errorf("interrupted: %v", e)
	}
	if evs := mp.Map(stored(t, chat.Message{ID: "msg_t", SessionID: "s", Role: chat.RoleTool, Result: &chat.Result{CallID: "nope", Tool: "read"}})); len(evs) != 0 {
		t.Errorf("an unknown call's result: %v", evs)
	}
	mp.Map(stored(t, chat.Message{ID: "msg_a", SessionID: "s", Role: chat.RoleAssistant,
		ToolCalls: []chat.ToolCall{{ID: "c", Tool: "edit", Args: json.RawMessage(`{"path":"x"}`)}}}))
	evs = mp.Map(stored(t, chat.Message{ID: "msg_t", SessionID: "s", Role: chat.RoleTool, Result: &chat.Result{CallID: "c", Tool: "edit", Output: "no such text", IsError: true}}))
	if g := types(evs); !slices.Equal(g, []string{"message.part.updated"}) {
		t.Fatalf("failed call: %q", g)
	}
	if st := evs[0].Properties["part"].(map[string]any)["state"].(map[string]any); st["status"] != "error" || st["error"] != "no such text" {
		t.Errorf("state %v", st)
	}
}

// The calls a mapper remembers are bounded: results that never come do
// not grow it without end.
func TestMapperForgetsOldCalls(t *testing.T) {
	mp := NewMapper(Project{})
	for i := range maxCalls + 10 {
		mp.Map(stored(t, chat.Message{ID: "msg_a", SessionID: "s", Role: chat.RoleAssistant,
			ToolCalls: []chat.ToolCall{{ID: "c" + string(rune('a'+i%26)) + time.Duration(i).String(), Tool: "read"}}}))
	}
	if len(mp.calls) != maxCalls || len(mp.order) != maxCalls {
		t.Errorf("remembers %d calls (%d in order), want %d", len(mp.calls), len(mp.order), maxCalls)
	}
}

// A session listed as opencode's, and a session's messages folded: each
// tool result inside its call's part, summaries and context left out.
func TestSessionAndMessages(t *testing.T) {
	p := Project{Directory: "/d", Worktree: "/w", Version: "9"}
	s := p.Session(store.Session{ID: "ses_1", Title: "t", Model: "anthropic/claude", Usage: chat.Usage{Input: 3, Cost: 1}, CreatedAt: time.UnixMilli(5), UpdatedAt: time.UnixMilli(6)})
	if s["id"] != "ses_1" || s["projectID"] != "/w" || s["directory"] != "/d" || s["version"] != "9" ||
		s["model"].(map[string]any)["providerID"] != "anthropic" || s["time"].(map[string]any)["updated"] != int64(6) {
		t.Errorf("session %v", s)
	}
	msgs := []chat.Message{
		{ID: "msg_1", Role: chat.RoleUser, Text: "hi"},
		{ID: "msg_c", Role: chat.RoleContext, Text: "ctx"},
		{ID: "msg_2", Role: chat.RoleAssistant, Text: "reading", ToolCalls: []chat.ToolCall{{ID: "c1", Tool: "read", Args: json.RawMessage(`{"path":"a"}`)}}},
		{ID: "msg_3", Role: chat.RoleTool, Result: &chat.Result{CallID: "c1", Tool: "read", Title: "a", Output: "A"}},
		{ID: "msg_4", Role: chat.RoleAssistant, Text: "done"},
	}
	entries := p.Messages(msgs)
	if len(entries) != 3 {
		t.Fatalf("%d entries: %+v", len(entries), entries)
	}
	parts := entries[1].Parts
	var tool map[string]any
	for _, pt := range parts {
		if pt["type"] == "tool" {
			tool = pt
		}
	}
	if tool == nil || tool["state"].(map[string]any)["status"] != "completed" || tool["state"].(map[string]any)["output"] != "A" {
		t.Errorf("the call's part: %v", parts)
	}
	if entries[0].Parts[0]["text"] != "hi" || entries[2].Info["finish"] != "stop" {
		t.Errorf("entries %+v", entries)
	}
}
