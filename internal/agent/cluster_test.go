package agent_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/cluster"
	"github.com/podcode/podcode/internal/provider/openaitest"
	"github.com/podcode/podcode/internal/store"
)

// A turn whose lease another node took is cancelled, and says nothing
// more of the session: turn.finished is the new holder's to announce (the
// node that reaped the turn did; a turn of its own may be under way).
func TestATurnThatLostItsLeaseAnnouncesNothing(t *testing.T) {
	srv := openaitest.New(t, openaitest.Answer{Calls: []openaitest.Call{{Name: "bash", Args: `{"command": "sleep 30"}`}}})
	e := newEnv(t, onOpenAI(srv, nil))
	const lease = time.Second
	a := cluster.New(e.st, nil, cluster.Options{Name: "a", Lease: lease})
	e.ag.JoinCluster(a)
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	var finished atomic.Int32
	e.ag.App.Bus.Subscribe(agent.EventTurnFinished, "test", func(bus.Event) { finished.Add(1) })
	done := e.runUntilATool(sess.ID, "wait")
	// a does not renew (its Run is not started) until b has taken the
	// session, as a stalled node would.
	b := cluster.New(e.st, nil, cluster.Options{Name: "b", Lease: time.Hour})
	deadline := time.Now().Add(10 * time.Second)
	for b.Claim(t.Context(), sess.ID, func() {}) != nil {
		if time.Now().After(deadline) {
			t.Fatal("b could not take the session")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	go a.Run(ctx)
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the turn ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the turn goes on after b took its session")
	}
	if n := finished.Load(); n != 0 {
		t.Errorf("the turn that lost its lease announced turn.finished %d times", n)
	}
}

// When turn.finished goes out, the session is free: not running here and
// its lease released, so that a client that saw it may post the next turn
// at once, on this node or another.
func TestSessionIsFreeWhenTurnFinishedGoesOut(t *testing.T) {
	srv := openaitest.New(t, openaitest.Answer{Text: "done"})
	e := newEnv(t, onOpenAI(srv, nil))
	e.ag.JoinCluster(cluster.New(e.st, nil, cluster.Options{Name: "a", Lease: time.Minute}))
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	var running atomic.Bool
	var holder atomic.Value
	e.ag.App.Bus.Subscribe(agent.EventTurnFinished, "test", func(bus.Event) {
		running.Store(e.ag.Cancel(sess.ID)) // true while the turn still holds the session
		h, _ := e.st.TurnHolder(context.Background(), sess.ID, time.Now())
		holder.Store(h)
	})
	if _, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: "hi", Channel: "cli"}); err != nil {
		t.Fatal(err)
	}
	if running.Load() || holder.Load() != "" {
		t.Errorf("at turn.finished the turn still ran here: %v, the lease was held by %q", running.Load(), holder.Load())
	}
}

// While another node runs the session's turn, a message injected here is
// refused as busy, even while a turn of this node tries for the session
// (it never holds it): none is taken and then dropped.
func TestInjectIntoASessionOfAnotherNodeIsBusy(t *testing.T) {
	e := newEnv(t, apptest.Project{})
	e.ag.JoinCluster(cluster.New(e.st, nil, cluster.Options{Name: "a", Lease: time.Hour}))
	ctx := context.Background()
	sess, err := e.ag.NewSession(ctx, agent.SessionRequest{Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	b := cluster.New(e.st, nil, cluster.Options{Name: "b", Lease: time.Hour})
	if err := b.Claim(ctx, sess.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetStatus(ctx, sess.ID, store.SessionRunning); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		done := make(chan error, 1)
		go func() {
			_, err := e.ag.Run(ctx, agent.TurnRequest{SessionID: sess.ID, Prompt: "hello", Channel: "api"})
			done <- err
		}()
	inject:
		for {
			if m, err := e.ag.Inject(ctx, "", sess.ID, "note"); !errors.Is(err, agent.ErrBusy) {
				t.Fatalf("inject while b runs the session: %+v %v", m, err)
			}
			select {
			case err := <-done:
				if !errors.Is(err, agent.ErrBusy) {
					t.Fatalf("a's turn: %v", err)
				}
				break inject
			default:
			}
		}
	}
	msgs, err := e.st.Messages(ctx, sess.ID)
	if err != nil || len(msgs) != 0 {
		t.Errorf("messages stored: %d %v", len(msgs), err)
	}
}
