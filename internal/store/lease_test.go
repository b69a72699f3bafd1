package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
)

// A turn's lease is one node's until it expires or is released: another
// node's claim fails with ErrLeased naming the holder; the holder's own
// claim extends it; an expired lease is anyone's.
func TestClaimTurnIsExclusiveUntilExpired(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		sess, _ := a.CreateSession(ctx, Session{})
		hour := time.Now().Add(time.Hour)
		if err := a.ClaimTurn(ctx, sess.ID, "node-a", hour); err != nil {
			t.Fatal(err)
		}
		err := b.ClaimTurn(ctx, sess.ID, "node-b", hour)
		if !errors.Is(err, ErrLeased) || !strings.Contains(err.Error(), `"node-a"`) {
			t.Fatalf("a claim of a held lease: %v, want ErrLeased naming node-a", err)
		}
		if err := a.ClaimTurn(ctx, sess.ID, "node-a", hour.Add(time.Hour)); err != nil {
			t.Fatalf("the holder's claim again: %v", err)
		}
		if err := b.ClaimTurn(ctx, "ses_nope", "node-b", hour); !errors.Is(err, ErrNotFound) {
			t.Errorf("a claim of no session: %v", err)
		}
		// node-a's lease runs out (it stopped renewing).
		if err := a.ClaimTurn(ctx, sess.ID, "node-a", time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := b.ClaimTurn(ctx, sess.ID, "node-b", hour); err != nil {
			t.Fatalf("a claim of an expired lease: %v", err)
		}
		if err := a.ClaimTurn(ctx, sess.ID, "node-a", hour); !errors.Is(err, ErrLeased) {
			t.Errorf("the old holder took the lease back: %v", err)
		}
	})
}

// A refused claim names a holder whose lease was live: a lease released
// between the failed take and the read of its holder is taken instead of
// refused naming nobody. Node b takes the lease for a millisecond, every
// other millisecond, while node a claims it.
func TestClaimRefusalNamesALiveHolder(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		sess, _ := a.CreateSession(ctx, Session{})
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if b.ClaimTurn(ctx, sess.ID, "node-b", time.Now().Add(time.Hour)) == nil {
					time.Sleep(time.Millisecond)
					b.ReleaseTurn(ctx, sess.ID, "node-b")
				}
				time.Sleep(time.Millisecond)
			}
		}()
		defer func() { close(stop); <-done }()
		refused := 0
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
			err := a.ClaimTurn(ctx, sess.ID, "node-a", time.Now().Add(time.Hour))
			switch {
			case err == nil:
				if err := a.ReleaseTurn(ctx, sess.ID, "node-a"); err != nil {
					t.Fatal(err)
				}
			case errors.Is(err, ErrLeased):
				refused++
				// Three releases in a row between take and read (b's loop
				// is fast) say so rather than name a holder.
				if !strings.Contains(err.Error(), `"node-b"`) && !strings.Contains(err.Error(), "changed hands") {
					t.Fatalf("refusal %d: %v, want it to name node-b", refused, err)
				}
			default:
				t.Fatal(err)
			}
		}
		if refused == 0 {
			t.Error("no claim of a was refused: the test did not race")
		}
	})
}

// Of many nodes claiming a free lease at once, one gets it.
func TestConcurrentClaimTurnOneWins(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		nodes := []*Store{db.open(t), db.open(t)}
		sess, _ := nodes[0].CreateSession(ctx, Session{})
		var won, leased atomic.Int32
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				err := nodes[i%2].ClaimTurn(ctx, sess.ID, "node-"+string(rune('a'+i)), time.Now().Add(time.Hour))
				switch {
				case err == nil:
					won.Add(1)
				case errors.Is(err, ErrLeased):
					leased.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 || leased.Load() != 15 {
			t.Fatalf("%d claims won, %d refused; want 1 and 15", won.Load(), leased.Load())
		}
	})
}

// RenewTurns extends the leases of its node that it names, and only those;
// it returns the ones it renewed.
func TestRenewTurnsExtendsTheNodesLeases(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		past, hour := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
		var ids []string
		// node-a, node-a, node-c, and node-a's that it no longer runs (a
		// release that failed, a crashed process of the same name).
		for _, node := range []string{"node-a", "node-a", "node-c", "node-a"} {
			sess, _ := s.CreateSession(ctx, Session{})
			if err := s.ClaimTurn(ctx, sess.ID, node, past); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, sess.ID)
		}
		held, err := s.RenewTurns(ctx, "node-a", ids[:3], hour)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Sort(held); !slices.Equal(held, slices.Sorted(slices.Values(ids[:2]))) {
			t.Errorf("renewed %v, want node-a's %v", held, ids[:2])
		}
		for _, id := range ids[:2] {
			if err := s.ClaimTurn(ctx, id, "node-b", hour); !errors.Is(err, ErrLeased) {
				t.Errorf("session %s: a renewed lease was taken: %v", id, err)
			}
		}
		if err := s.ClaimTurn(ctx, ids[2], "node-b", hour); err != nil {
			t.Errorf("another node's expired lease was renewed: %v", err)
		}
		if err := s.ClaimTurn(ctx, ids[3], "node-b", hour); err != nil {
			t.Errorf("a lease the node did not name was renewed: %v", err)
		}
	})
}

// Under WithFence, a turn's writes take effect only while its node holds
// the lease: once another node took the session over, they change nothing
// and say so.
func TestFencedWritesNeedTheLease(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		sess, _ := s.CreateSession(ctx, Session{})
		if err := s.ClaimTurn(ctx, sess.ID, "node-a", time.Now().Add(-time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		a := WithFence(ctx, sess.ID, "node-a")
		m := &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: "from a"}
		if err := s.AppendMessage(a, m); err != nil {
			t.Fatalf("a fenced append while holding the lease: %v", err)
		}
		if err := s.SetStatus(a, sess.ID, SessionRunning); err != nil {
			t.Fatal(err)
		}
		// node-a's lease expired; node-b takes the session.
		if err := s.ClaimTurn(ctx, sess.ID, "node-b", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		late := &chat.Message{SessionID: sess.ID, Role: chat.RoleAssistant, Text: "late"}
		if err := s.AppendMessage(a, late); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("a late append: %v, want ErrLeaseLost", err)
		}
		if err := s.SetStatus(a, sess.ID, SessionIdle); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("a late status: %v, want ErrLeaseLost", err)
		}
		m.Text = "rewritten late"
		if err := s.UpdateMessage(a, m); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("a late rewrite: %v, want ErrLeaseLost", err)
		}
		msgs, _ := s.Messages(ctx, sess.ID)
		got, _ := s.Session(ctx, DefaultTenant, sess.ID)
		if len(msgs) != 1 || msgs[0].Text != "from a" || got.Status != SessionRunning {
			t.Errorf("after the late writes: status %q, messages %+v", got.Status, msgs)
		}
		if err := s.AppendMessage(WithFence(ctx, sess.ID, "node-b"), &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: "from b"}); err != nil {
			t.Errorf("the new holder's append: %v", err)
		}
		// The fence is the session's: another session's writes (a
		// sub-agent's) under the same context are not fenced by it.
		child, _ := s.CreateSession(ctx, Session{ParentID: sess.ID})
		if err := s.AppendMessage(a, &chat.Message{SessionID: child.ID, Role: chat.RoleUser, Text: "task"}); err != nil {
			t.Errorf("another session's append under the fence: %v", err)
		}
	})
}

// ReleaseTurn frees the lease of its holder only.
func TestReleaseTurnOnlyByTheHolder(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		sess, _ := s.CreateSession(ctx, Session{})
		hour := time.Now().Add(time.Hour)
		if err := s.ClaimTurn(ctx, sess.ID, "node-a", hour); err != nil {
			t.Fatal(err)
		}
		if err := s.ReleaseTurn(ctx, sess.ID, "node-b"); err != nil {
			t.Fatal(err)
		}
		if err := s.ClaimTurn(ctx, sess.ID, "node-b", hour); !errors.Is(err, ErrLeased) {
			t.Fatalf("released by another node: %v", err)
		}
		if err := s.ReleaseTurn(ctx, sess.ID, "node-a"); err != nil {
			t.Fatal(err)
		}
		if err := s.ClaimTurn(ctx, sess.ID, "node-b", hour); err != nil {
			t.Fatalf("after the holder released it: %v", err)
		}
	})
}

// ReapTurns interrupts the running sessions whose lease expired, once,
// with their tenant, clearing the lease; live leases, idle sessions and
// running sessions without a lease are left alone.
func TestReapTurnsInterruptsExpiredRunningSessions(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		nodes := []*Store{db.open(t), db.open(t)}
		s := nodes[0]
		now := time.Now()
		mk := func(status, node string, until time.Time) string {
			sess, err := s.CreateSession(ctx, Session{Tenant: "7", Status: status})
			if err != nil {
				t.Fatal(err)
			}
			if node != "" {
				if err := s.ClaimTurn(ctx, sess.ID, node, until); err != nil {
					t.Fatal(err)
				}
			}
			return sess.ID
		}
		dead1 := mk(SessionRunning, "node-dead", now.Add(-time.Minute))
		dead2 := mk(SessionRunning, "node-dead", now.Add(-time.Second))
		live := mk(SessionRunning, "node-live", now.Add(time.Hour))
		idle := mk(SessionIdle, "node-dead", now.Add(-time.Minute))
		unleased := mk(SessionRunning, "", time.Time{})

		// Two nodes reap at once: each session is returned to one.
		var mu sync.Mutex
		var reaped []Session
		var wg sync.WaitGroup
		for _, n := range nodes {
			wg.Go(func() {
				got, err := n.ReapTurns(ctx, now)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				reaped = append(reaped, got...)
				mu.Unlock()
			})
		}
		wg.Wait()
		ids := map[string]bool{}
		for _, r := range reaped {
			if r.Status != SessionInterrupted || r.Tenant != "7" || ids[r.ID] {
				t.Errorf("reaped %+v", r)
			}
			ids[r.ID] = true
		}
		if len(reaped) != 2 || !ids[dead1] || !ids[dead2] {
			t.Fatalf("reaped %v, want %s and %s", ids, dead1, dead2)
		}
		for id, want := range map[string]string{dead1: SessionInterrupted, live: SessionRunning, idle: SessionIdle, unleased: SessionRunning} {
			if got, _ := s.Session(ctx, "7", id); got.Status != want {
				t.Errorf("session %s: %s, want %s", id, got.Status, want)
			}
		}
		// The lease is cleared: any node may run the session's next turn.
		if err := s.ClaimTurn(ctx, dead1, "node-b", now.Add(time.Hour)); err != nil {
			t.Errorf("claiming a reaped session: %v", err)
		}
		if again, err := s.ReapTurns(ctx, now); err != nil || len(again) != 0 {
			t.Errorf("reaped twice: %v %v", again, err)
		}
	})
}

// TurnHolder names the node of a live lease, and nobody for an expired or
// released one.
func TestTurnHolder(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		sess, _ := s.CreateSession(ctx, Session{})
		now := time.Now()
		if got, err := s.TurnHolder(ctx, sess.ID, now); err != nil || got != "" {
			t.Fatalf("a session never leased: %q %v", got, err)
		}
		if err := s.ClaimTurn(ctx, sess.ID, "node-a", now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.TurnHolder(ctx, sess.ID, now); err != nil || got != "node-a" {
			t.Errorf("a live lease: %q %v, want node-a", got, err)
		}
		if got, err := s.TurnHolder(ctx, sess.ID, now.Add(2*time.Minute)); err != nil || got != "" {
			t.Errorf("an expired lease: %q %v, want nobody", got, err)
		}
		if err := s.ReleaseTurn(ctx, sess.ID, "node-a"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.TurnHolder(ctx, sess.ID, now); err != nil || got != "" {
			t.Errorf("a released lease: %q %v, want nobody", got, err)
		}
		if _, err := s.TurnHolder(ctx, "ses_missing", now); !errors.Is(err, ErrNotFound) {
			t.Errorf("a missing session: %v, want ErrNotFound", err)
		}
	})
}
