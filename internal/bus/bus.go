// Package bus is Podcode's event bus: the server publishes what happens
// (plugins loaded, tool calls started and finished, and more as the server
// grows), and listeners (plugins' bus.subscribe, the HTTP event stream)
// receive it.
//
// Delivery: Publish hands the event to every matching listener, in
// subscription order, on the publisher's goroutine; a listener that needs to
// do work elsewhere (a plugin's runtime) queues it and returns. A listener
// that panics is logged with the event type and the others still receive the
// event. Events carry data only (JSON-shaped values, never modified after
// publication), so no listener can change what another sees.
package bus

import (
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// The event types Podcode publishes. Plugins see the same names.
const (
	PluginLoaded     = "plugin.loaded"      // {id, path, source, hooks, tools}
	ToolCallStarted  = "tool.call.started"  // {callID, sessionID, tool, args}
	ToolCallFinished = "tool.call.finished" // {callID, sessionID, tool, title, error?, elapsedMs}
)

// Event is one published event.
type Event struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	// Tenant owns what the event is about (a session's tenant); empty for
	// events about the server itself (plugin.loaded). Listeners inside the
	// server see every tenant's events; the HTTP stream shows a client only
	// its tenant's and the server's.
	Tenant     string         `json:"tenant,omitempty"`
	Properties map[string]any `json:"properties"`
}

// Listener receives events.
type Listener func(Event)

type subscription struct {
	typ  string // "" for every type
	fn   Listener
	name string // who listens, for logs
}

// Bus fans events out to listeners. The zero value is not usable; use New.
type Bus struct {
	log  *slog.Logger
	mu   sync.RWMutex
	subs []*subscription
}

// New returns a bus that logs listener failures to logger.
func New(logger *slog.Logger) *Bus {
	if logger == nil {
		logger = slog.Default()
	}
	return &Bus{log: logger}
}

// Subscribe calls fn for every event of type typ ("" for all types) and
// returns a function that ends the subscription. name identifies the
// listener in logs (a plugin id).
func (b *Bus) Subscribe(typ, name string, fn Listener) (unsubscribe func()) {
	s := &subscription{typ: typ, fn: fn, name: name}
	b.mu.Lock()
	// Copy on write: Publish iterates a snapshot without holding the lock.
	b.subs = append(b.subs[:len(b.subs):len(b.subs)], s)
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			next := make([]*subscription, 0, len(b.subs))
			for _, x := range b.subs {
				if x != s {
					next = append(next, x)
				}
			}
			b.subs = next
		})
	}
}

// Publish delivers an event about the server itself (no tenant) of type
// typ with properties to the listeners.
func (b *Bus) Publish(typ string, properties map[string]any) { b.PublishFor("", typ, properties) }

// PublishFor delivers an event of tenant's to the listeners.
func (b *Bus) PublishFor(tenant, typ string, properties map[string]any) {
	ev := Event{Type: typ, Time: time.Now(), Tenant: tenant, Properties: properties}
	b.mu.RLock()
	subs := b.subs
	b.mu.RUnlock()
	for _, s := range subs {
		if s.typ == "" || s.typ == typ {
			b.deliver(s, ev)
		}
	}
}

func (b *Bus) deliver(s *subscription, ev Event) {
	defer func() {
		if v := recover(); v != nil {
			b.log.Warn("bus: listener failed", "event", ev.Type, "plugin", s.name, "error", fmt.Sprint(v))
		}
	}()
	s.fn(ev)
}
