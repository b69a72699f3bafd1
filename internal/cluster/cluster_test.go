package cluster

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/store"
)

// nodes returns two nodes, a and b, on one store, with lease, and a
// session of it.
func nodes(t *testing.T, lease time.Duration, reaped func(store.Session)) (a, b *Node, st *store.Store, sess store.Session) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sess, err = st.CreateSession(t.Context(), store.Session{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	a = New(st, nil, Options{Name: "a", Lease: lease})
	b = New(st, nil, Options{Name: "b", Lease: lease, Reaped: reaped})
	return a, b, st, sess
}

func TestClaimRefusesWhileAnotherNodeHoldsTheLease(t *testing.T) {
	a, b, _, sess := nodes(t, time.Minute, nil)
	if err := a.Claim(t.Context(), sess.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	err := b.Claim(t.Context(), sess.ID, func() {})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("b's claim while a holds the lease: %v, want ErrBusy", err)
	}
	a.Release(t.Context(), sess.ID)
	if err := b.Claim(t.Context(), sess.ID, func() {}); err != nil {
		t.Fatalf("b's claim after a released: %v", err)
	}
}

// A node that runs renews what it holds past the lease; once it stops
// (dies), the lease runs out and another node may claim.
func TestRunRenewsUntilTheNodeStops(t *testing.T) {
	const lease = 300 * time.Millisecond
	a, b, _, sess := nodes(t, lease, nil)
	if err := a.Claim(t.Context(), sess.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()
	time.Sleep(4 * lease) // several renewals
	if err := b.Claim(t.Context(), sess.ID, func() {}); !errors.Is(err, ErrBusy) {
		t.Fatalf("b claimed a lease a kept renewing: %v", err)
	}
	stop()
	<-done
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := b.Claim(t.Context(), sess.ID, func() {})
		if err == nil {
			break
		}
		if !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
			t.Fatalf("b could not claim the lease of a node that stopped: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A running turn whose node died is marked interrupted by another node's
// reaper, which announces it once.
func TestRunReapsTheTurnsOfDeadNodes(t *testing.T) {
	const lease = 200 * time.Millisecond
	reaped := make(chan store.Session, 4)
	a, b, st, sess := nodes(t, lease, func(s store.Session) { reaped <- s })
	if err := a.Claim(t.Context(), sess.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetStatus(t.Context(), sess.ID, store.SessionRunning); err != nil {
		t.Fatal(err)
	}
	// a dies here: it never renews.
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	go b.Run(ctx)
	select {
	case s := <-reaped:
		if s.ID != sess.ID || s.Tenant != store.DefaultTenant {
			t.Errorf("reaped %+v", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the dead node's turn was not reaped")
	}
	got, err := st.Session(t.Context(), store.DefaultTenant, sess.ID)
	if err != nil || got.Status != store.SessionInterrupted {
		t.Fatalf("status %q %v, want interrupted", got.Status, err)
	}
	select {
	case s := <-reaped:
		t.Errorf("reaped twice: %+v", s)
	case <-time.After(3 * lease):
	}
}

// A node whose lease expired and was taken over cancels its turn at its
// next renewal: two turns never go on side by side.
func TestLostLeaseCancelsTheTurn(t *testing.T) {
	const lease = 200 * time.Millisecond
	a, b, _, sess := nodes(t, lease, nil)
	turn, cancel := context.WithCancel(t.Context())
	defer cancel()
	if err := a.Claim(t.Context(), sess.ID, cancel); err != nil {
		t.Fatal(err)
	}
	// a stalls (it does not renew) until its lease has run out, and b
	// takes the session.
	deadline := time.Now().Add(10 * time.Second)
	for err := b.Claim(t.Context(), sess.ID, func() {}); err != nil; err = b.Claim(t.Context(), sess.ID, func() {}) {
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	go a.Run(ctx)
	select {
	case <-turn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a's turn goes on after b took its session")
	}
}

// failingLeases are leases whose renewals fail.
type failingLeases struct{ Leases }

func (failingLeases) RenewTurns(context.Context, string, time.Time) ([]string, error) {
	return nil, errors.New("connection refused")
}

// A node that cannot renew for longer than a lease cancels its turns: by
// then another node may have taken their sessions over.
func TestRenewalsFailingForALeaseCancelTheTurns(t *testing.T) {
	const lease = 200 * time.Millisecond
	_, _, st, sess := nodes(t, lease, nil)
	a := New(failingLeases{st}, nil, Options{Name: "a", Lease: lease})
	turn, cancel := context.WithCancel(t.Context())
	defer cancel()
	if err := a.Claim(t.Context(), sess.ID, cancel); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	go a.Run(ctx)
	select {
	case <-turn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the turn goes on although its lease could not be renewed")
	}
}
