package app

import (
	"context"
	"slices"
	"sync"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/claudehooks"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/plugin"
)

// Why a session ends, as SessionEnd's extra.reason says (Claude Code's
// reason field, which its SessionEnd matchers filter).
const (
	// EndDeleted: the session was deleted ("clear": its conversation is
	// discarded, as Claude Code's /clear discards one).
	EndDeleted = claudehooks.ReasonClear
	// EndClosed: the process that ran it ends, the server stopping or
	// `podcode run` done ("other", as Claude Code says when it exits).
	EndClosed = claudehooks.ReasonOther
)

// The bus events the agent publishes that say a session is live or gone
// (the agent is above this package, which repeats their names).
const (
	eventSessionCreated = "session.created" // {session}
	eventSessionDeleted = "session.deleted" // {sessionID}
	eventTurnStarted    = "turn.started"    // {sessionID}
)

// liveSessions are the sessions created, or that ran a turn, in this App
// and that did not end since: Close ends them.
type liveSessions struct {
	mu       sync.Mutex
	m        map[string]chat.Scope
	list     []string        // in the order first seen
	children map[string]bool // sub-agents' sessions, which end with their task, not here
}

// followSessions follows the bus's session events for a.
func followSessions(a *App) *liveSessions {
	l := &liveSessions{m: map[string]chat.Scope{}, children: map[string]bool{}}
	a.unsubscribe = append(a.unsubscribe,
		a.Bus.Subscribe(eventSessionCreated, "app sessions", func(ev bus.Event) {
			s, _ := ev.Properties["session"].(map[string]any)
			id, _ := s["id"].(string)
			channel, _ := s["channel"].(string)
			model, _ := s["model"].(string)
			if parent, _ := s["parentID"].(string); parent != "" {
				l.mu.Lock()
				l.children[id] = true
				l.mu.Unlock()
				return
			}
			l.add(chat.Scope{Tenant: ev.Tenant, SessionID: id, Channel: channel, Model: model})
		}),
		a.Bus.Subscribe(eventTurnStarted, "app sessions", func(ev bus.Event) {
			id, _ := ev.Properties["sessionID"].(string)
			l.add(chat.Scope{Tenant: ev.Tenant, SessionID: id})
		}),
		a.Bus.Subscribe(eventSessionDeleted, "app sessions", func(ev bus.Event) {
			id, _ := ev.Properties["sessionID"].(string)
			l.take(id)
		}))
	return l
}

// add records a live session; what is known of it already is kept.
func (l *liveSessions) add(s chat.Scope) {
	if s.SessionID == "" {
		return
	}
	if s.Tenant == "" {
		s.Tenant = store.DefaultTenant
	}
	s.TenantID = store.TenantID(s.Tenant)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.children[s.SessionID] {
		return
	}
	if old, ok := l.m[s.SessionID]; ok {
		if s.Channel == "" {
			s.Channel = old.Channel
		}
		if s.Model == "" {
			s.Model = old.Model
		}
	} else {
		l.list = append(l.list, s.SessionID)
	}
	l.m[s.SessionID] = s
}

// take forgets session id and reports whether it was live.
func (l *liveSessions) take(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.m[id]
	delete(l.m, id)
	delete(l.children, id)
	if ok {
		l.list = slices.DeleteFunc(l.list, func(s string) bool { return s == id })
	}
	return ok
}

// drain forgets every live session and returns them, in the order seen.
func (l *liveSessions) drain() []chat.Scope {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []chat.Scope
	for _, id := range l.list {
		if s, ok := l.m[id]; ok {
			out = append(out, s)
		}
	}
	l.m, l.list = map[string]chat.Scope{}, nil
	return out
}

// EndSession fires SessionEnd for the session of scope, with reason
// (EndDeleted, EndClosed) in extra.reason, and forgets it: Close will not
// end it again. Its report holds the votes, which cannot keep the session
// from ending.
func (a *App) EndSession(ctx context.Context, scope chat.Scope, reason string) (*plugin.Report, error) {
	if a.sessions != nil {
		a.sessions.take(scope.SessionID)
	}
	p := scope.Payload(plugin.HookSessionEnd)
	p.Extra[claudehooks.ExtraEndReason] = reason
	return a.Hooks.DispatchReport(ctx, p)
}

// EndSessions ends (EndSession) every session created, or that ran a
// turn, in this App and not ended since, in the order they were first
// seen. Close calls it with EndClosed.
func (a *App) EndSessions(ctx context.Context, reason string) {
	if a.sessions == nil {
		return
	}
	for _, s := range a.sessions.drain() {
		if _, err := a.EndSession(ctx, s, reason); err != nil {
			a.Log.Warn("session end: SessionEnd not fired", "session", s.SessionID, "reason", reason, "error", err.Error())
		}
	}
}
