package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/bus"
)

// jsonEvents writes the events of one session, and of the sub-agents it
// starts, as JSON lines: each the object GET /events sends as an event's
// data (its redacted JSON), one a line, in the order published. It listens
// to every event from before the session exists (session.created comes
// while the session is being made) and keeps those until follow names
// the session. A nil *jsonEvents does nothing.
type jsonEvents struct {
	mu       sync.Mutex
	w        io.Writer
	redact   func(string) string
	sessions map[string]bool // the session and its sub-agents'; nil until follow
	early    []bus.Event     // before follow
}

// follow starts writing the events of session id, first those published
// before.
func (j *jsonEvents) follow(id string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sessions = map[string]bool{id: true}
	for _, ev := range j.early {
		j.write(ev)
	}
	j.early = nil
}

// publish is the bus listener.
func (j *jsonEvents) publish(ev bus.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.sessions == nil {
		j.early = append(j.early, ev)
		return
	}
	j.write(ev)
}

// write writes ev if it is about a followed session; the caller holds mu.
func (j *jsonEvents) write(ev bus.Event) {
	id, _ := ev.Properties["sessionID"].(string)
	if ev.Type == agent.EventSessionCreated {
		sess, _ := ev.Properties["session"].(map[string]any)
		id, _ = sess["id"].(string)
		if parent, _ := sess["parentID"].(string); j.sessions[parent] {
			j.sessions[id] = true // a sub-agent of the turn
		}
	}
	if !j.sessions[id] {
		return
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return // not JSON: left out, as /events leaves it out
	}
	fmt.Fprintln(j.w, j.redact(string(data)))
}
