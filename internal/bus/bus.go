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
//
// Order and replay: every event gets an id, 1, 2, 3… per bus, in the order
// of publication. The bus keeps the latest events (the journal, Replay of
// them) so that a reader that went away can resume (Resume), and feeds
// followers (the HTTP event stream) through bounded queues in id order. A
// follower never slows a publisher down: when its queue is full it is
// dropped and told so (Follower.Dropped), and it can resume from the last
// event it took while that event's successors are still in the journal.
// Listeners, which run on the publishers' goroutines, may see the events of
// two concurrent publishers in either order; followers never do.
package bus

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
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
	// ID is the event's place in the bus's order (1 for the first event
	// published), assigned by Publish. It is not part of the event's JSON:
	// the HTTP stream sends it as the SSE id, qualified by the bus's epoch.
	ID   uint64    `json:"-"`
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

// Bus fans events out to listeners and followers. The zero value is not
// usable; use New.
type Bus struct {
	log  *slog.Logger
	mu   sync.RWMutex
	subs []*subscription

	epoch string
	// jmu orders publication: it guards the ids, the journal and the
	// followers, so the journal and every follower's queue are in id order.
	// Nothing that can block or call back into the bus runs under it.
	jmu       sync.Mutex
	seq       uint64  // the id of the latest event
	journal   []Event // a ring: the event with id n is at n % len(journal)
	followers []*Follower
}

// DefaultReplay is how many events a new bus keeps for readers that resume.
const DefaultReplay = 1024

// New returns a bus that logs listener failures to logger and keeps the
// latest DefaultReplay events.
func New(logger *slog.Logger) *Bus {
	if logger == nil {
		logger = slog.Default()
	}
	var e [4]byte
	rand.Read(e[:])
	return &Bus{log: logger, epoch: hex.EncodeToString(e[:]), journal: make([]Event, DefaultReplay)}
}

// SetReplay changes how many of the latest events the bus keeps (at least
// one), keeping the newest of those it has.
func (b *Bus) SetReplay(n int) {
	n = max(n, 1)
	b.jmu.Lock()
	defer b.jmu.Unlock()
	next := make([]Event, n)
	for id, lo := b.seq, b.oldest(); id >= lo && b.seq-id < uint64(n); id-- {
		next[id%uint64(n)] = b.journal[id%uint64(len(b.journal))]
	}
	b.journal = next
}

// oldest is the id of the oldest event in the journal (seq+1 when it is
// empty). The caller holds jmu.
func (b *Bus) oldest() uint64 {
	if n := uint64(len(b.journal)); b.seq >= n {
		return b.seq - n + 1
	}
	return 1
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

// PublishFor delivers an event of tenant's to the followers and the
// listeners. It never waits for a follower.
func (b *Bus) PublishFor(tenant, typ string, properties map[string]any) {
	ev := Event{Type: typ, Time: time.Now(), Tenant: tenant, Properties: properties}
	b.jmu.Lock()
	b.seq++
	ev.ID = b.seq
	b.journal[ev.ID%uint64(len(b.journal))] = ev
	dropped := false
	for _, f := range b.followers {
		if !f.keep(ev) {
			continue
		}
		select {
		case f.c <- ev:
		default:
			f.dropOnce.Do(func() { close(f.dropped) })
			dropped = true
		}
	}
	if dropped {
		b.removeFollowers(func(f *Follower) bool { return isClosed(f.dropped) })
	}
	b.jmu.Unlock()
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

// Follower receives the bus's events through a bounded queue, in id order,
// from Follow or Resume until Close, or until it is dropped: when an event
// finds its queue full, Dropped is closed and no event is queued after it
// (the ones already in C stay readable). Its reader resumes with Resume
// from the id of the last event it took.
type Follower struct {
	// C are the events, in id order.
	C <-chan Event
	// Dropped is closed when the follower fell behind and was dropped.
	Dropped <-chan struct{}
	// From is the id of the latest event published before the follower
	// began: C gets the later ones.
	From uint64

	b        *Bus
	c        chan Event
	dropped  chan struct{}
	dropOnce sync.Once
	keep     func(Event) bool
	stop     sync.Once
}

// Follow queues the events published from now on for which keep returns
// true, at most queue (at least one) of them waiting at a time. keep runs
// on the publisher's goroutine, with the bus's order held: it must be quick
// and must not use the bus.
func (b *Bus) Follow(queue int, keep func(Event) bool) *Follower {
	f, _, _ := b.follow(false, 0, queue, keep)
	return f
}

// Resume is Follow from the event after the one with id after: replay is
// the journal's events after it for which keep returns true, in id order,
// and the follower gets every later one. missed is true when the bus no
// longer has every event after after (it was too old, or not an id this bus
// gave): then there is no replay, and the reader should reload its state
// as of f.From.
func (b *Bus) Resume(after uint64, queue int, keep func(Event) bool) (f *Follower, replay []Event, missed bool) {
	return b.follow(true, after, queue, keep)
}

func (b *Bus) follow(resume bool, after uint64, queue int, keep func(Event) bool) (*Follower, []Event, bool) {
	c := make(chan Event, max(queue, 1))
	f := &Follower{C: c, b: b, c: c, dropped: make(chan struct{}), keep: keep}
	f.Dropped = f.dropped
	b.jmu.Lock()
	defer b.jmu.Unlock()
	f.From = b.seq
	var replay []Event
	missed := resume && (after > b.seq || after+1 < b.oldest())
	if resume && !missed {
		for id := after + 1; id <= b.seq; id++ {
			if ev := b.journal[id%uint64(len(b.journal))]; keep(ev) {
				replay = append(replay, ev)
			}
		}
	}
	b.followers = append(b.followers[:len(b.followers):len(b.followers)], f)
	return f, replay, missed
}

// Close ends the follower: no event is queued for it any more.
func (f *Follower) Close() {
	f.stop.Do(func() {
		f.b.jmu.Lock()
		defer f.b.jmu.Unlock()
		f.b.removeFollowers(func(x *Follower) bool { return x == f })
	})
}

// removeFollowers removes the followers for which gone is true. The caller
// holds jmu.
func (b *Bus) removeFollowers(gone func(*Follower) bool) {
	next := make([]*Follower, 0, len(b.followers))
	for _, f := range b.followers {
		if !gone(f) {
			next = append(next, f)
		}
	}
	b.followers = next
}

// Followers is how many followers the bus feeds.
func (b *Bus) Followers() int {
	b.jmu.Lock()
	defer b.jmu.Unlock()
	return len(b.followers)
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// FormatID is an event id as readers outside the process see it:
// "<epoch>-<id>", where the epoch, random per bus, tells this bus's ids
// from those of an earlier run of the server.
func (b *Bus) FormatID(id uint64) string {
	return b.epoch + "-" + strconv.FormatUint(id, 10)
}

// ParseID reads an id that FormatID wrote. ours is false for a well-formed
// id of another bus (an earlier run of the server); err says what is wrong
// with a malformed one.
func (b *Bus) ParseID(s string) (id uint64, ours bool, err error) {
	epoch, n, ok := strings.Cut(s, "-")
	if ok {
		id, err = strconv.ParseUint(n, 10, 64)
	}
	if !ok || err != nil || len(epoch) != len(b.epoch) || strings.Trim(epoch, "0123456789abcdef") != "" {
		return 0, false, fmt.Errorf("%q is not an event id (want <epoch>-<number>, as sent in the stream's id: lines)", s)
	}
	return id, epoch == b.epoch, nil
}
