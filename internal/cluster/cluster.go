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
	RenewTurns(ctx context.Context, node string, until time.Time) (held []string, err error)
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

// Options configure a Node.
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
	lease  time.Duration
	leases Leases
	msg    Messenger
	log    *slog.Logger
	reaped func(store.Session)

	mu   sync.Mutex
	held map[string]context.CancelFunc // the leases this node holds: their turns' cancels

	lastRenewed time.Time // see renew
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
		held: map[string]context.CancelFunc{}}
	if n.name == "" {
		n.name = DefaultName()
	}
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

// Lease is how long a lease lasts without renewal.
func (n *Node) Lease() time.Duration { return n.lease }

// ErrBusy is in the error of a Claim that another node's live lease
// refused.
var ErrBusy = errors.New("a turn of this session is running on another node")

// Claim takes the lease of sessionID's turn for this node. It fails with
// an error wrapping ErrBusy while another node's lease is live. cancel
// ends the turn: Run calls it when the lease is lost (see Run).
func (n *Node) Claim(ctx context.Context, sessionID string, cancel context.CancelFunc) error {
	if err := n.leases.ClaimTurn(ctx, sessionID, n.name, time.Now().Add(n.lease)); err != nil {
		if errors.Is(err, store.ErrLeased) {
			return fmt.Errorf("%w: %w", ErrBusy, err)
		}
		return err
	}
	n.mu.Lock()
	n.held[sessionID] = cancel
	n.mu.Unlock()
	return nil
}

// Release gives sessionID's lease back (the turn ended). It runs even when
// ctx is done: a lease left behind would hold the session until it expires.
func (n *Node) Release(ctx context.Context, sessionID string) {
	n.mu.Lock()
	delete(n.held, sessionID)
	n.mu.Unlock()
	if err := n.leases.ReleaseTurn(context.WithoutCancel(ctx), sessionID, n.name); err != nil {
		n.log.Warn("cluster: releasing a turn's lease failed; it expires by itself", "session", sessionID, "error", err.Error())
	}
}

// Run renews this node's leases every third of the lease while it holds
// any, and reaps the turns of dead nodes every half lease, until ctx ends.
//
// A turn whose lease is lost is cancelled, so that it never runs beside
// the turn of the node that took the session over: a lease the renewal
// did not find is lost (another node reaped or claimed it after it
// expired), and so is every lease when renewals have failed for longer
// than a lease.
func (n *Node) Run(ctx context.Context) {
	renew := time.NewTicker(n.lease / 3)
	defer renew.Stop()
	reap := time.NewTicker(n.lease / 2)
	defer reap.Stop()
	n.lastRenewed = time.Now()
	n.reap(ctx) // what a node that died before this one started left
	for {
		select {
		case <-ctx.Done():
			return
		case <-renew.C:
			n.renew(ctx)
		case <-reap.C:
			n.reap(ctx)
		}
	}
}

// renew renews the leases this node holds and cancels the turns of those
// it lost. lastRenewed is when the last renewal that succeeded began (the
// leases it renewed last until then plus the lease); only Run's goroutine
// uses it.
func (n *Node) renew(ctx context.Context) {
	n.mu.Lock()
	none := len(n.held) == 0
	n.mu.Unlock()
	start := time.Now()
	if none {
		n.lastRenewed = start
		return
	}
	renewed, err := n.leases.RenewTurns(ctx, n.name, start.Add(n.lease))
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		if time.Since(n.lastRenewed) < n.lease {
			n.log.Warn("cluster: renewing this node's leases failed; retrying", "error", err.Error())
			return
		}
		n.lose(nil, "cluster: this node could not renew its leases for longer than a lease; its turns are cancelled, as another node may take their sessions over", err)
		return
	}
	n.lastRenewed = start
	n.lose(renewed, "cluster: this node lost the lease of a turn (it expired and another node took the session over); the turn is cancelled", nil)
}

// lose cancels the turns this node holds that are not in kept, logging
// why.
func (n *Node) lose(kept []string, why string, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for id, cancel := range n.held {
		if slices.Contains(kept, id) {
			continue
		}
		attrs := []any{"session", id}
		if err != nil {
			attrs = append(attrs, "error", err.Error())
		}
		n.log.Error(why, attrs...)
		cancel()
		delete(n.held, id)
	}
}

func (n *Node) reap(ctx context.Context) {
	sessions, err := n.leases.ReapTurns(ctx, time.Now())
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
