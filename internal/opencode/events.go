package opencode

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/store"
)

// Event is an opencode bus event, as its plugins' event hook receives it.
type Event struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
}

// Podcode's bus events that map (their names are the agent's and the
// server's; see internal/agent).
const (
	podSessionCreated  = "session.created"
	podSessionDeleted  = "session.deleted"
	podMessageStored   = "message.stored"
	podTurnStarted     = "turn.started"
	podTurnFinished    = "turn.finished"
	podCompacted       = "session.compacted"
	podPermissionAsked = "permission.asked"
	// ToastShown is what a plugin's client.tui.showToast publishes on
	// Podcode's bus; opencode plugins hear it as tui.toast.show.
	ToastShown = "tui.toast.show"
)

// Maps reports whether Map may make events of a bus event of type typ:
// a check cheap enough for the publisher's goroutine, before the event
// waits for a plugin's loop.
func Maps(typ string) bool {
	switch typ {
	case podSessionCreated, podSessionDeleted, podMessageStored, podTurnStarted, podTurnFinished, podCompacted, podPermissionAsked, ToastShown:
		return true
	}
	return false
}

// maxCalls bounds the tool calls a Mapper remembers until their results:
// a call whose result never comes is forgotten, oldest first.
const maxCalls = 1024

// Mapper turns Podcode's bus events into opencode's, for one listener: it
// remembers each tool call until its result, to complete the call's part.
// Safe for concurrent use.
type Mapper struct {
	Project Project

	mu    sync.Mutex
	calls map[string]call // by call id
	order []string        // call ids, oldest first
	seq   int64
}

// NewMapper returns a Mapper for p.
func NewMapper(p Project) *Mapper {
	return &Mapper{Project: p, calls: map[string]call{}}
}

func (mp *Mapper) event(typ string, props map[string]any) Event {
	mp.seq++
	return Event{ID: fmt.Sprintf("evt_%012x%06d", time.Now().UnixMilli(), mp.seq), Type: typ, Properties: props}
}

// Map is ev as opencode's events: none, one or several, in the order
// opencode publishes them.
func (mp *Mapper) Map(ev bus.Event) []Event {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	props := ev.Properties
	session, _ := props["sessionID"].(string)
	switch ev.Type {
	case podSessionCreated:
		s, ok := sessionOf(props["session"])
		if !ok {
			return nil
		}
		return []Event{mp.event("session.created", map[string]any{"sessionID": s.ID, "info": mp.Project.Session(s)})}
	case podSessionDeleted:
		return []Event{mp.event("session.deleted", map[string]any{"sessionID": session, "info": map[string]any{"id": session}})}
	case podTurnStarted:
		return []Event{mp.event("session.status", map[string]any{"sessionID": session, "status": map[string]any{"type": "busy"}})}
	case podTurnFinished:
		var out []Event
		if status, _ := props["status"].(string); status == "error" || status == "interrupted" {
			msg, _ := props["error"].(string)
			name := "UnknownError"
			if status == "interrupted" {
				name = "MessageAbortedError"
			}
			out = append(out, mp.event("session.error", map[string]any{"sessionID": session,
				"error": map[string]any{"name": name, "data": map[string]any{"message": msg}}}))
		}
		return append(out,
			mp.event("session.status", map[string]any{"sessionID": session, "status": map[string]any{"type": "idle"}}),
			mp.event("session.idle", map[string]any{"sessionID": session}))
	case podCompacted:
		return []Event{mp.event("session.compacted", map[string]any{"sessionID": session})}
	case podPermissionAsked:
		q, _ := props["question"].(map[string]any)
		id, _ := q["id"].(string)
		tool, _ := q["tool"].(string)
		s, _ := q["sessionID"].(string)
		meta, _ := q["args"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		return []Event{mp.event("permission.asked", map[string]any{"id": id, "sessionID": s, "permission": tool,
			"patterns": []any{}, "metadata": meta, "always": []any{}})}
	case ToastShown:
		return []Event{mp.event(ToastShown, props)}
	case podMessageStored:
		m, ok := messageOf(props["message"])
		if !ok {
			return nil
		}
		return mp.stored(m)
	}
	return nil
}

// stored maps a stored message.
func (mp *Mapper) stored(m chat.Message) []Event {
	p := mp.Project
	now := time.Now().UnixMilli()
	part := func(pt map[string]any) Event {
		return mp.event("message.part.updated", map[string]any{"sessionID": m.SessionID, "part": pt, "time": now})
	}
	switch m.Role {
	case chat.RoleUser, chat.RoleAssistant:
		out := []Event{mp.event("message.updated", map[string]any{"sessionID": m.SessionID, "info": p.Info(m)})}
		for _, pt := range p.Parts(m, nil) {
			out = append(out, part(pt))
		}
		for i, c := range m.ToolCalls {
			mp.remember(c.ID, call{messageID: m.ID, tool: c.Tool, index: toolPartIndex(i), input: args(c.Args), start: millis(m.CreatedAt)})
		}
		return out
	case chat.RoleTool:
		if m.Result == nil {
			return nil
		}
		c, ok := mp.calls[m.Result.CallID]
		if !ok {
			return nil
		}
		mp.forget(m.Result.CallID)
		state := p.resultState(c.input, c.start, m)
		pt := map[string]any{"id": PartID(c.messageID, c.index), "sessionID": m.SessionID, "messageID": c.messageID,
			"type": "tool", "callID": m.Result.CallID, "tool": c.tool, "state": state}
		out := []Event{part(pt)}
		if meta, _ := state["metadata"].(map[string]any); state["status"] == "completed" && meta != nil {
			file, _ := meta["filepath"].(string)
			if file == "" {
				file, _ = meta["filePath"].(string)
			}
			if file != "" {
				out = append(out, mp.event("file.edited", map[string]any{"file": file}))
			}
		}
		return out
	}
	return nil
}

func (mp *Mapper) remember(id string, c call) {
	if _, ok := mp.calls[id]; !ok {
		mp.order = append(mp.order, id)
	}
	mp.calls[id] = c
	for len(mp.order) > maxCalls {
		delete(mp.calls, mp.order[0])
		mp.order = mp.order[1:]
	}
}

func (mp *Mapper) forget(id string) {
	delete(mp.calls, id)
	for i, o := range mp.order {
		if o == id {
			mp.order = append(mp.order[:i], mp.order[i+1:]...)
			break
		}
	}
}

// messageOf reads a stored message as the bus carries it (the JSON the
// store wrote, in process).
func messageOf(v any) (chat.Message, bool) {
	var m chat.Message
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	case chat.Message:
		return x, true
	case *chat.Message:
		return *x, x != nil
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return m, false
		}
		raw = b
	}
	return m, json.Unmarshal(raw, &m) == nil && m.ID != ""
}

func sessionOf(v any) (store.Session, bool) {
	var s store.Session
	b, err := json.Marshal(v)
	if err != nil {
		return s, false
	}
	return s, json.Unmarshal(b, &s) == nil && s.ID != ""
}
