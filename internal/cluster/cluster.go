// Package cluster makes a `podcode serve` one node of many that share a
// PostgreSQL store and a NATS bus (store.url and bus.url; see
// docs/deploy.md). It owns what the nodes agree on without a consensus of
// their own: the store's turn leases and the bus's requests.
//
// # A turn's lease
//
// A session's turn runs on one node at a time. Before a turn starts, the
// node claims the session's lease in the store (Claim); the claim fails
// while another node's lease is live, and the turn is refused as busy (409
// over HTTP). While the node runs turns it renews all its leases every
// third of the lease (Run); the turn releases its lease when it ends
// (Release). A node that dies mid-turn stops renewing: once its lease has
// expired, every node's reaper (Run, every half lease) tries to mark the
// session interrupted, the store lets exactly one succeed, and that node
// announces turn.finished with status "interrupted" (Options.Reaped). The
// session's next turn, on any node, answers the calls the dead turn left
// open and goes on.
//
// # Requests between nodes
//
// A permission answer or a cancel may reach any node; the node that holds
// the question or runs the turn is the one to act. The node that got the
// request handles it itself when it can, else asks the others (Ask): the
// node concerned answers, the others stay silent, and no answer within
// AskTimeout means no node has it.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/store"
)

// DefaultLease is a turn's lease when cluster.lease_ms is not set.
const DefaultLease = 15 * time.Second

// AskTimeout bounds how long a request waits for the node concerned.
const AskTimeout = 2 * time.Second

// Leases are the store's turn leases (store.Store implements them).
type Leases interface {
	ClaimTurn(ctx context.Context, sessionID, node string, until time.Time) error
	RenewTurns(ctx context.Context, node string, ids []string, until time.Time) (renewed []string, err error)
	ReleaseTurn(ctx context.Context, sessionID, node string) error
	ReapTurns(ctx context.Context, now time.Time) ([]store.Session, error)
}

// Messenger carries requests between nodes (bus.Remote implements it).
type Messenger interface {
	// Handle answers the requests named name; fn's ok=false keeps this
	// node silent.
	Handle(name string, fn func(ctx context.Context, req []byte) (resp []byte, ok bool)) (stop func())
	// Ask sends a request to every node and returns the first answer; ok
	// is false when none came before ctx ended.
	Ask(ctx context.Context, name string, req []byte) (resp []byte, ok bool, err error)
}

// Options configure a Node. A Node made with a nil Messenger is the only
// node on its store (store.url without bus.url): it holds leases and reaps
// the turns a crash left, and asks no other node.
type Options struct {
	Name  string        // the node's name; DefaultName() when empty
	Lease time.Duration // DefaultLease when zero
	Log   *slog.Logger
	// Reaped is called for each session whose turn a dead node left
	// running, once this node has marked it interrupted.
	Reaped func(store.Session)
}

// Node is this process as one node of a deployment.
type Node struct {
	name   string
	holder string // what its leases are recorded under (Holder)
	lease  time.Duration
	leases Leases
	msg    Messenger
	log    *slog.Logger
	reaped func(store.Session)

	mu   sync.Mutex
	held map[string]*held // the leases this node holds, by session
}

// held is a lease this node holds.
type held struct {
	cancel context.CancelFunc // ends the turn
	until  time.Time          // when the lease ends unless renewed
}

// DefaultName is a node's name when cluster.node is not set: the host
// name and the process id, unique among live processes.
func DefaultName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "node"
	}
	return fmt.Sprintf("%s-%d", h, os.Getpid())
}

// New returns the node; start its renewals and reaper with Run.
func New(leases Leases, msg Messenger, o Options) *Node {
	n := &Node{name: o.Name, lease: o.Lease, leases: leases, msg: msg, log: o.Log, reaped: o.Reaped,
		held: map[string]*held{}}
	if n.name == "" {
		n.name = DefaultName()
	}
	var token [6]byte
	rand.Read(token[:])
	n.holder = fmt.Sprintf("%s#%x", n.name, token)
	if n.lease <= 0 {
		n.lease = DefaultLease
	}
	if n.log == nil {
		n.log = slog.Default()
	}
	n.log = n.log.With("node", n.name)
	return n
}

// Name is the node's name.
func (n *Node) Name() string { return n.name }

// Holder is what this node's leases are recorded under, and what fences
// its turns' writes (store.WithFence): its name and a token drawn when the
// node was made ("podcode-1#3fa9c2e07b51"). A name is the user's to give
// (cluster.node), and one user config read by two servers gives them the
// same one: leased under the name alone, each would pass the other's
// claims and fences, and two turns would write one session's history. A
// node restarted under its name likewise does not take over the leases of
// the process it replaces: they run out, and a reaper marks those turns
// interrupted, as for any node that died.
func (n *Node) Holder() string { return n.holder }

// Lease is how long a lease lasts without renewal.
func (n *Node) Lease() time.Duration { return n.lease }

// ErrBusy is in the error of a Claim that another node's live lease
// refused.
var ErrBusy = errors.New("a turn of this session is running on another node")

// Claim takes the lease of sessionID's turn for this node. It fails with
// an error wrapping ErrBusy while another node's lease is live. cancel
// ends the turn: Run calls it when the lease is lost (see Run).
func (n *Node) Claim(ctx context.Context, sessionID string, cancel context.CancelFunc) error {
	until := time.Now().Add(n.lease)
	if err := n.leases.ClaimTurn(ctx, sessionID, n.holder, until); err != nil {
		if errors.Is(err, store.ErrLeased) {
			return fmt.Errorf("%w: %w", ErrBusy, err)
		}
		return err
	}
	n.mu.Lock()
	n.held[sessionID] = &held{cancel: cancel, until: until}
	n.mu.Unlock()
	return nil
}

// releaseTimeout bounds a release: a database that does not answer must
// not keep the turn from ending (the lease then expires by itself).
const releaseTimeout = 5 * time.Second

// Release gives sessionID's lease back (the turn ended). It runs even when
// ctx is done (a lease left behind would hold the session until it
// expires), for at most releaseTimeout. A lease not released is no longer
// renewed.
func (n *Node) Release(ctx context.Context, sessionID string) {
	n.mu.Lock()
	delete(n.held, sessionID)
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := n.leases.ReleaseTurn(ctx, sessionID, n.holder); err != nil {
		n.log.Warn("cluster: releasing a turn's lease failed; it expires by itself", "session", sessionID, "error", err.Error())
	}
}

// Run renews this node's leases every third of the lease while it holds
// any, and reaps the turns of dead nodes every half lease, until ctx ends.
// The two run apart, each bounded, so that a reap that hangs (a database
// cut off, a lock wait) never holds back a renewal.
//
// A turn whose lease is lost is cancelled, so that it does not go on beside
// the turn of a node that takes the session over (and its writes are
// fenced: store.WithFence): a lease the renewal did not find is lost
// (another node reaped or claimed it after it expired), and a lease within
// a third of its end is given up, when renewals keep failing or hang.
func (n *Node) Run(ctx context.Context) {
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		reap := time.NewTicker(n.lease / 2)
		defer reap.Stop()
		for {
			n.reap(ctx) // first: what a node that died before this one started left
			select {
			case <-ctx.Done():
				return
			case <-reap.C:
			}
		}
	}()
	defer func() { <-reaped }()
	renew := time.NewTicker(n.lease / 3)
	defer renew.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-renew.C:
			n.renew(ctx)
		}
	}
}

// renew renews the leases this node holds, each renewal bounded by a third
// of the lease; then it gives up the leases that were not renewed (lost)
// or that end within a third of the lease (renewals failing).
func (n *Node) renew(ctx context.Context) {
	n.mu.Lock()
	ids := make([]string, 0, len(n.held))
	for id := range n.held {
		ids = append(ids, id)
	}
	n.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, n.lease/3)
	renewed, err := n.leases.RenewTurns(rctx, n.holder, ids, start.Add(n.lease))
	cancel()
	if ctx.Err() != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.log.Warn("cluster: renewing this node's leases failed", "error", err.Error())
	} else {
		for _, id := range ids {
			h := n.held[id]
			if h == nil {
				continue // released meanwhile
			}
			if slices.Contains(renewed, id) {
				h.until = start.Add(n.lease)
				continue
			}
			n.log.Error("cluster: this node lost the lease of a turn (it expired and another node took the session over); the turn is cancelled", "session", id)
			n.drop(id, h)
		}
	}
	// Claims made during the renewal are in held with a fresh lease.
	for id, h := range n.held {
		if time.Until(h.until) < n.lease/3 {
			n.log.Error("cluster: the lease of a turn ends soon and could not be renewed; the turn is cancelled, as another node may take the session over", "session", id)
			n.drop(id, h)
		}
	}
}

// drop cancels a turn whose lease is lost and forgets the lease. The
// caller holds mu.
func (n *Node) drop(id string, h *held) {
	h.cancel()
	delete(n.held, id)
}

// reap marks interrupted the turns whose leases ran out (their nodes
// stopped renewing), each look bounded by half a lease.
func (n *Node) reap(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, n.lease/2)
	defer cancel()
	sessions, err := n.leases.ReapTurns(rctx, time.Now())
	if err != nil {
		if ctx.Err() == nil {
			n.log.Warn("cluster: looking for the turns of dead nodes failed", "error", err.Error())
		}
		return
	}
	for _, s := range sessions {
		n.log.Warn("cluster: a turn's node stopped renewing its lease; the turn is marked interrupted", "session", s.ID, "tenant", s.Tenant)
		if n.reaped != nil {
			n.reaped(s)
		}
	}
}

// Handle answers the requests named name that other nodes Ask: fn
// receives the request decoded into a new Req and returns the answer and
// whether this node is the one concerned.
func Handle[Req, Resp any](n *Node, name string, fn func(ctx context.Context, req Req) (Resp, bool)) (stop func()) {
	if n.msg == nil {
		return func() {} // a node alone: no other node asks
	}
	return n.msg.Handle(name, func(ctx context.Context, data []byte) ([]byte, bool) {
		var req Req
		if err := json.Unmarshal(data, &req); err != nil {
			n.log.Warn("cluster: a request from another node does not decode", "request", name, "error", err.Error())
			return nil, false
		}
		resp, ok := fn(ctx, req)
		if !ok {
			return nil, false
		}
		out, err := json.Marshal(resp)
		if err != nil {
			n.log.Warn("cluster: an answer to another node does not encode", "request", name, "error", err.Error())
			return nil, false
		}
		return out, true
	})
}

// Ask sends req to the other nodes and decodes the first answer into resp;
// ok is false when no node answered within AskTimeout (none is concerned,
// or the one that was is gone).
func Ask[Req, Resp any](ctx context.Context, n *Node, name string, req Req) (resp Resp, ok bool, err error) {
	data, err := json.Marshal(req)
	if err != nil {
		return resp, false, fmt.Errorf("cluster: encoding a %s request: %w", name, err)
	}
	if n.msg == nil {
		return resp, false, nil // a node alone: no other node to ask
	}
	ctx, cancel := context.WithTimeout(ctx, AskTimeout)
	defer cancel()
	out, ok, err := n.msg.Ask(ctx, name, data)
	if err != nil || !ok {
		return resp, false, err
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return resp, false, fmt.Errorf("cluster: the answer to a %s request does not decode: %w", name, err)
	}
	return resp, true, nil
}
