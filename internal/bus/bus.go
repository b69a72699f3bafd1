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
//
// Many nodes: several `podcode serve` nodes share their events through a
// NATS server when each joins the deployment (Join). Publish still calls
// the node's own listeners at once, and only them: a plugin sees the events
// of its own node's turns (with ID 0, as the stream has not numbered them
// yet). The event also goes, without waiting, to a JetStream stream; every
// node feeds its journal and followers from that stream through one ordered
// consumer, so all nodes see all nodes' events in one order, with the
// stream's sequence as id and an epoch derived from the stream: an id that
// one node sent resumes on any other. A node that joins takes the stream's
// latest events (as many as its journal holds) before Join returns, so its
// replay is the others'; an id older than that is missed, as on one node.
// Nodes ask each other small questions with Remote.Ask and answer them with
// Remote.Handle (core NATS request/reply, not kept in the stream).
//
// Without NATS: Join fails when the server cannot be reached, and the bus
// goes on alone. Once joined, nats.go reconnects forever and buffers what
// is published meanwhile (listeners are called as usual; followers get the
// events when they come back from the stream); what overflows its buffer
// is lost to the followers, and logged. Publishing never waits for the
// stream's acknowledgement, so it is at most once: an event published in
// the instant the server goes away, before the node notices, can be lost
// to every follower. A bus that never joined works as
// above, ids 1, 2, 3…, at no extra cost.
package bus

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The event types Podcode publishes. Plugins see the same names.
const (
	PluginLoaded     = "plugin.loaded"      // {id, path, source, hooks, tools}
	ToolCallStarted  = "tool.call.started"  // {callID, sessionID, tool, args}
	ToolCallFinished = "tool.call.finished" // {callID, sessionID, tool, title, error?, elapsedMs}
	ToolCallProgress = "tool.call.progress" // {callID, sessionID, tool, progress, total?, message?} (tool.ReportProgress)
)

// Event is one published event.
type Event struct {
	// ID is the event's place in the bus's order (1 for the first event
	// published), assigned by Publish. On a bus that joined a deployment
	// (Join) it is the event's sequence in the deployment's stream, the
	// same on every node, and listeners, which run before the stream has
	// the event, see 0. It is not part of the event's JSON: the HTTP
	// stream sends it as the SSE id, qualified by the bus's epoch.
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

	epoch atomic.Pointer[string]
	// remote, when the bus joined a deployment, takes the events Publish
	// makes; the stream's events come back through record.
	remote atomic.Pointer[Remote]
	// jmu orders publication: it guards the ids, the journal and the
	// followers, so the journal and every follower's queue are in id order.
	// Nothing that can block or call back into the bus runs under it.
	jmu       sync.Mutex
	seq       uint64  // the id of the latest event
	first     uint64  // the lowest id the journal can hold (1, or where a joined bus began)
	journal   []Event // a ring: the event with id n is at n % len(journal), if any
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
	b := &Bus{log: logger, first: 1, journal: make([]Event, DefaultReplay)}
	b.epoch.Store(randomEpoch())
	return b
}

// randomEpoch is the epoch of a bus of its own: 8 random hex digits.
func randomEpoch() *string {
	var e [4]byte
	rand.Read(e[:])
	s := hex.EncodeToString(e[:])
	return &s
}

// rebase starts the bus's order anew, under epoch, after id seq: the
// journal is emptied and the followers are dropped (told so, as when they
// fall behind) because the ids they hold belong to the order that ended.
// remote is who takes Publish's events from now on (nil: the bus itself).
func (b *Bus) rebase(epoch *string, seq uint64, remote *Remote) {
	b.jmu.Lock()
	defer b.jmu.Unlock()
	b.remote.Store(remote)
	b.epoch.Store(epoch)
	b.seq, b.first = seq, seq+1
	b.journal = make([]Event, len(b.journal))
	for _, f := range b.followers {
		f.dropOnce.Do(func() { close(f.dropped) })
	}
	b.followers = nil
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

// oldest is the id of the oldest event the journal can hold (seq+1 when it
// is empty). The caller holds jmu.
func (b *Bus) oldest() uint64 {
	if n := uint64(len(b.journal)); b.seq >= n && b.seq-n+1 > b.first {
		return b.seq - n + 1
	}
	return b.first
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
// listeners. It never waits for a follower, nor, on a bus that joined a
// deployment, for NATS: the event is sent to the stream, and reaches the
// followers when it comes back from there.
func (b *Bus) PublishFor(tenant, typ string, properties map[string]any) {
	ev := Event{Type: typ, Time: time.Now(), Tenant: tenant, Properties: properties}
	if r := b.remote.Load(); r != nil {
		r.send(ev)
	} else {
		b.jmu.Lock()
		b.seq++
		ev.ID = b.seq
		b.record(ev)
		b.jmu.Unlock()
	}
	b.mu.RLock()
	subs := b.subs
	b.mu.RUnlock()
	for _, s := range subs {
		if s.typ == "" || s.typ == typ {
			b.deliver(s, ev)
		}
	}
}

// record puts ev, whose id is after every id the bus has, in the journal
// and the followers' queues. The caller holds jmu and has set b.seq to
// ev.ID.
func (b *Bus) record(ev Event) {
	b.journal[ev.ID%uint64(len(b.journal))] = ev
	dropped := false
	for _, f := range b.followers {
		if ev.ID <= f.From || !f.keep(ev) {
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
}

// take records an event that came from the deployment's stream, ids
// ascending with gaps where the stream skipped. false: ev.ID is not after
// the bus's latest id (the stream was made anew), and ev was left out.
func (b *Bus) take(ev Event) bool {
	b.jmu.Lock()
	defer b.jmu.Unlock()
	if ev.ID <= b.seq {
		return false
	}
	b.seq = ev.ID
	b.record(ev)
	return true
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
	// began: C gets the later ones. (On a joined bus, a resumed follower
	// may begin after an id of the stream this node has not taken yet:
	// then From is that id.)
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
// as of f.From. On a joined bus, an id up to the journal's size beyond the
// latest this node has taken is an id another node has seen first: the
// follower gets the events after it as they arrive, with no replay.
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
	ahead := resume && after > b.seq && b.remote.Load() != nil && after-b.seq <= uint64(len(b.journal))
	missed := resume && !ahead && (after > b.seq || after+1 < b.oldest())
	if ahead {
		f.From = after
	} else if resume && !missed {
		for id := after + 1; id <= b.seq; id++ {
			// A slot whose event has another id is a gap in the stream's ids.
			if ev := b.journal[id%uint64(len(b.journal))]; ev.ID == id && keep(ev) {
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
// from those of an earlier run of the server. On a joined bus the epoch is
// the deployment's stream's, the same on every node.
func (b *Bus) FormatID(id uint64) string {
	return *b.epoch.Load() + "-" + strconv.FormatUint(id, 10)
}

// ParseID reads an id that FormatID wrote. ours is false for a well-formed
// id of another bus (an earlier run of the server); err says what is wrong
// with a malformed one.
func (b *Bus) ParseID(s string) (id uint64, ours bool, err error) {
	mine := *b.epoch.Load()
	epoch, n, ok := strings.Cut(s, "-")
	if ok {
		id, err = strconv.ParseUint(n, 10, 64)
	}
	if !ok || err != nil || len(epoch) != len(mine) || strings.Trim(epoch, "0123456789abcdef") != "" {
		return 0, false, fmt.Errorf("%q is not an event id (want <epoch>-<number>, as sent in the stream's id: lines)", s)
	}
	return id, epoch == mine, nil
}
