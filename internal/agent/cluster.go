package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podcode/podcode/internal/cluster"
	"github.com/podcode/podcode/internal/store"
)

// JoinCluster makes the agent one node of many (see package cluster): its
// turns claim their session's lease first, a cancel asked of another node
// reaches the turn here, and the turns of dead nodes that this node reaps
// end with turn.finished "interrupted". Call it before the first turn.
func (a *Agent) JoinCluster(n *cluster.Node) (stop func()) {
	a.Node = n
	return cluster.Handle(n, "cancel", func(_ context.Context, req cancelRequest) (cancelAnswer, bool) {
		if !a.Cancel(req.SessionID) {
			return cancelAnswer{}, false // not here: another node's, or none
		}
		return cancelAnswer{Cancelled: true}, true
	})
}

type cancelRequest struct {
	SessionID string `json:"sessionID"`
}

type cancelAnswer struct {
	Cancelled bool `json:"cancelled"`
}

// Reaped announces that a dead node's turn in sess was marked interrupted
// (cluster.Options.Reaped).
func (a *Agent) Reaped(sess store.Session) {
	a.App.Bus.PublishFor(sess.Tenant, EventTurnFinished, map[string]any{"sessionID": sess.ID, "status": "interrupted",
		"error": "the node running the turn stopped before it ended"})
}

// claim takes sess's lease for this node and returns the session as it is
// now: another node's turn may have changed it since it was read. cancel
// ends the turn if the lease is lost.
func (a *Agent) claim(ctx context.Context, sess store.Session, cancel context.CancelFunc) (store.Session, error) {
	if err := a.Node.Claim(ctx, sess.ID, cancel); err != nil {
		if errors.Is(err, cluster.ErrBusy) {
			return sess, fmt.Errorf("%w: %w", ErrBusy, err)
		}
		return sess, err
	}
	now, err := a.Store.Session(ctx, sess.Tenant, sess.ID)
	if err != nil {
		a.Node.Release(ctx, sess.ID)
		return sess, err
	}
	return now, nil
}

// CancelAnywhere cancels the turn running in sess, on this node or, when
// the agent is a node of many, on the node that runs it. It reports
// whether a turn was cancelled.
func (a *Agent) CancelAnywhere(ctx context.Context, sess store.Session) bool {
	if a.Cancel(sess.ID) {
		return true
	}
	if a.Node == nil {
		return false
	}
	// A session whose lease no other live node holds has no turn to
	// cancel there: no need to wait for silence from every node.
	holder, err := a.Store.TurnHolder(ctx, sess.ID, time.Now())
	if err != nil {
		a.App.Log.Warn("agent: finding the node that runs a turn, to cancel it, failed", "session", sess.ID, "error", err.Error())
		return false
	}
	if holder == "" || holder == a.Node.Holder() {
		return false
	}
	ans, ok, err := cluster.Ask[cancelRequest, cancelAnswer](ctx, a.Node, "cancel", cancelRequest{SessionID: sess.ID})
	if err != nil {
		a.App.Log.Warn("agent: asking the other nodes to cancel a turn failed", "session", sess.ID, "error", err.Error())
	}
	return ok && ans.Cancelled
}
