package cluster

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/enginetest"
	"github.com/podcode/podcode/internal/store"
)

// eachStore runs body on a SQLite store and on a PostgreSQL one.
func eachStore(t *testing.T, body func(t *testing.T, st *store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "podcode.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		body(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := store.OpenPostgres(t.Context(), enginetest.Postgres(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		body(t, st)
	})
}

// counting counts the renewals that succeeded.
type counting struct {
	Leases
	renewals atomic.Int32
}

func (c *counting) RenewTurns(ctx context.Context, node string, ids []string, until time.Time) ([]string, error) {
	got, err := c.Leases.RenewTurns(ctx, node, ids, until)
	if err == nil && len(got) > 0 {
		c.renewals.Add(1)
	}
	return got, err
}

func session(t *testing.T, st *store.Store) store.Session {
	t.Helper()
	sess, err := st.CreateSession(t.Context(), store.Session{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// await waits until ok, at most 20 s.
func await(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
	}
}

func TestClaimRefusesWhileAnotherNodeHoldsTheLease(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		sess := session(t, st)
		a := New(st, nil, Options{Name: "a", Lease: time.Minute})
		b := New(st, nil, Options{Name: "b", Lease: time.Minute})
		if err := a.Claim(t.Context(), sess.ID, func() {}); err != nil {
			t.Fatal(err)
		}
		if err := b.Claim(t.Context(), sess.ID, func() {}); !errors.Is(err, ErrBusy) {
			t.Fatalf("b's claim while a holds the lease: %v, want ErrBusy", err)
		}
		a.Release(t.Context(), sess.ID)
		if err := b.Claim(t.Context(), sess.ID, func() {}); err != nil {
			t.Fatalf("b's claim after a released: %v", err)
		}
	})
}

// A node that runs renews what it holds past the lease; once it stops
// (dies), the lease runs out and another node may claim.
func TestRunRenewsUntilTheNodeStops(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		const lease = 1500 * time.Millisecond
		sess := session(t, st)
		leases := &counting{Leases: st}
		a := New(leases, nil, Options{Name: "a", Lease: lease})
		b := New(st, nil, Options{Name: "b", Lease: lease})
		if err := a.Claim(t.Context(), sess.ID, func() {}); err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); a.Run(ctx) }()
		// Two renewals: the lease has been extended past its first end.
		await(t, "a did not renew its lease", func() bool { return leases.renewals.Load() >= 2 })
		if err := b.Claim(t.Context(), sess.ID, func() {}); !errors.Is(err, ErrBusy) {
			t.Fatalf("b claimed a lease a keeps renewing: %v", err)
		}
		stop()
		<-done
		await(t, "b could not claim the lease of a node that stopped", func() bool {
			return b.Claim(t.Context(), sess.ID, func() {}) == nil
		})
	})
}

// A running turn whose node died is marked interrupted by another node's
// reaper, which announces it once.
func TestRunReapsTheTurnsOfDeadNodes(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		const lease = time.Second
		sess := session(t, st)
		var mu sync.Mutex
		var reaped []store.Session
		a := New(st, nil, Options{Name: "a", Lease: lease})
		b := New(st, nil, Options{Name: "b", Lease: lease, Reaped: func(s store.Session) {
			mu.Lock()
			reaped = append(reaped, s)
			mu.Unlock()
		}})
		c := New(st, nil, Options{Name: "c", Lease: lease, Reaped: b.reaped})
		if err := a.Claim(t.Context(), sess.ID, func() {}); err != nil {
			t.Fatal(err)
		}
		if err := st.SetStatus(t.Context(), sess.ID, store.SessionRunning); err != nil {
			t.Fatal(err)
		}
		// a dies here: it never renews. b and c both reap.
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		var running sync.WaitGroup
		running.Go(func() { b.Run(ctx) })
		running.Go(func() { c.Run(ctx) })
		// The store marks the turn before the reaper announces it: wait for
		// both, then for the reapers to end, so a second announcement
		// would be counted.
		await(t, "the dead node's turn was not reaped", func() bool {
			mu.Lock()
			announced := len(reaped) > 0
			mu.Unlock()
			got, err := st.Session(t.Context(), store.DefaultTenant, sess.ID)
			return announced && err == nil && got.Status == store.SessionInterrupted
		})
		stop()
		running.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(reaped) != 1 || reaped[0].ID != sess.ID || reaped[0].Tenant != store.DefaultTenant {
			t.Errorf("reaped %+v, want the session once", reaped)
		}
	})
}

// Two processes given one name (one user config read by two servers)
// hold leases of their own: neither passes the other's claim or fence. A
// process that replaces a dead one under its name does not take over the
// dead one's turns: it reaps them once their leases have run out.
func TestOneNameTwoProcessesHoldTheirOwnLeases(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		const lease = time.Second
		sess := session(t, st)
		reaped := make(chan store.Session, 1)
		a := New(st, nil, Options{Name: "podcode-1", Lease: lease})
		again := New(st, nil, Options{Name: "podcode-1", Lease: lease, Reaped: func(s store.Session) { reaped <- s }})
		if a.Holder() == again.Holder() || !strings.HasPrefix(a.Holder(), "podcode-1#") {
			t.Fatalf("holders %q and %q: want the name and a token of each", a.Holder(), again.Holder())
		}
		if err := a.Claim(t.Context(), sess.ID, func() {}); err != nil {
			t.Fatal(err)
		}
		if err := st.SetStatus(t.Context(), sess.ID, store.SessionRunning); err != nil {
			t.Fatal(err)
		}
		if err := again.Claim(t.Context(), sess.ID, func() {}); !errors.Is(err, ErrBusy) {
			t.Fatalf("a claim under the same name while the other process holds the lease: %v, want ErrBusy", err)
		}
		msg := func() *chat.Message {
			return &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: "hi"}
		}
		if _, err := st.AppendStep(store.WithFence(t.Context(), sess.ID, again.Holder()), msg(), chat.Usage{}); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a write fenced by the other process of the name: %v, want ErrLeaseLost", err)
		}
		if _, err := st.AppendStep(store.WithFence(t.Context(), sess.ID, a.Holder()), msg(), chat.Usage{}); err != nil {
			t.Fatalf("a write fenced by the holder: %v", err)
		}
		// a dies without renewing; the process that replaces it reaps its
		// turn once the lease has run out, then may run the session.
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		go again.Run(ctx)
		select {
		case got := <-reaped:
			if got.ID != sess.ID {
				t.Fatalf("reaped %s, want %s", got.ID, sess.ID)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the dead process's turn was not reaped")
		}
		if err := again.Claim(t.Context(), sess.ID, func() {}); err != nil {
			t.Fatalf("a claim after the reap: %v", err)
		}
	})
}

// A node whose lease expired and was taken over cancels its turn at its
// next renewal: two turns never go on side by side.
func TestLostLeaseCancelsTheTurn(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		const lease = time.Second
		sess := session(t, st)
		a := New(st, nil, Options{Name: "a", Lease: lease})
		b := New(st, nil, Options{Name: "b", Lease: lease})
		turn, cancel := context.WithCancel(t.Context())
		defer cancel()
		if err := a.Claim(t.Context(), sess.ID, cancel); err != nil {
			t.Fatal(err)
		}
		// a stalls (it does not renew) until its lease has run out, and b
		// takes the session.
		await(t, "b could not take the session", func() bool { return b.Claim(t.Context(), sess.ID, func() {}) == nil })
		if turn.Err() != nil {
			t.Fatal("a's turn ended before a knew")
		}
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		go a.Run(ctx)
		await(t, "a's turn goes on after b took its session", func() bool { return turn.Err() != nil })
	})
}

// A claim made while a renewal is under way is not taken for lost.
func TestClaimDuringARenewalIsKept(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		const lease = 1500 * time.Millisecond
		first, second := session(t, st), session(t, st)
		gate := &gated{Leases: st, entered: make(chan struct{}), release: make(chan struct{})}
		a := New(gate, nil, Options{Name: "a", Lease: lease})
		if err := a.Claim(t.Context(), first.ID, func() {}); err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		go a.Run(ctx)
		<-gate.entered // a renewal of first is under way
		turn, cancel := context.WithCancel(t.Context())
		defer cancel()
		if err := a.Claim(t.Context(), second.ID, cancel); err != nil {
			t.Fatal(err)
		}
		close(gate.release)
		await(t, "no renewal after the claim", func() bool { return gate.calls.Load() >= 2 })
		if turn.Err() != nil {
			t.Fatal("the turn claimed during a renewal was cancelled as lost")
		}
	})
}

// gated holds the first renewal until release.
type gated struct {
	Leases
	entered, release chan struct{}
	calls            atomic.Int32
}

func (g *gated) RenewTurns(ctx context.Context, node string, ids []string, until time.Time) ([]string, error) {
	if g.calls.Add(1) == 1 {
		close(g.entered)
		<-g.release
	}
	return g.Leases.RenewTurns(ctx, node, ids, until)
}

// failingLeases are leases whose renewals fail, or hang until their
// context ends.
type failingLeases struct {
	Leases
	hang bool
}

func (f failingLeases) RenewTurns(ctx context.Context, _ string, _ []string, _ time.Time) ([]string, error) {
	if f.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, errors.New("connection refused")
}

// A node that cannot renew cancels its turns before their leases end: by
// then another node may take their sessions over. A renewal that hangs
// counts as failing.
func TestRenewalsFailingCancelTheTurnsBeforeTheLeaseEnds(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		for _, hang := range []bool{false, true} {
			const lease = time.Second
			sess := session(t, st)
			a := New(failingLeases{Leases: st, hang: hang}, nil, Options{Name: "a", Lease: lease})
			turn, cancel := context.WithCancel(t.Context())
			defer cancel()
			claimed := time.Now()
			if err := a.Claim(t.Context(), sess.ID, cancel); err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(t.Context())
			go a.Run(ctx)
			await(t, "the turn goes on although its lease could not be renewed", func() bool { return turn.Err() != nil })
			stop()
			// Given up before the lease's end, which another node waits for.
			b := New(st, nil, Options{Name: "b", Lease: lease})
			if time.Since(claimed) < lease {
				if err := b.Claim(t.Context(), sess.ID, func() {}); !errors.Is(err, ErrBusy) {
					t.Errorf("hang=%v: the lease ended before the turn was cancelled: %v", hang, err)
				}
			}
		}
	})
}

// hangingReaps are leases whose reaps hang until their context ends.
type hangingReaps struct{ Leases }

func (hangingReaps) ReapTurns(ctx context.Context, _ time.Time) ([]store.Session, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A reap that hangs (the database cut off, a lock wait) holds back no
// renewal: the node keeps its turns' leases, and no other node can take
// their sessions.
func TestHangingReapsHoldBackNoRenewal(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store.Store) {
		const lease = time.Second
		sess := session(t, st)
		a := New(hangingReaps{st}, nil, Options{Name: "a", Lease: lease})
		turn, cancel := context.WithCancel(t.Context())
		defer cancel()
		if err := a.Claim(t.Context(), sess.ID, cancel); err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(t.Context())
		defer stop()
		go a.Run(ctx)
		time.Sleep(2 * lease)
		if turn.Err() != nil {
			t.Fatal("the turn was cancelled: its lease was not renewed")
		}
		b := New(st, nil, Options{Name: "b", Lease: lease})
		if err := b.Claim(t.Context(), sess.ID, func() {}); !errors.Is(err, ErrBusy) {
			t.Errorf("another node took the session of a live node: %v", err)
		}
	})
}
