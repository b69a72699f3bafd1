package store

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Of many claimers of one tick on two nodes, exactly one wins; another
// job's tick at the same time is claimed apart.
func TestClaimTickOnceAcrossNodes(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		nodes := []*Store{db.open(t), db.open(t)}
		at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				ok, err := nodes[i%2].ClaimTick(ctx, "nightly", at, "node-"+string(rune('a'+i)))
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d claimers won the tick, want 1", won.Load())
		}
		if ok, err := nodes[0].ClaimTick(ctx, "hourly", at, "node-a"); err != nil || !ok {
			t.Errorf("another job's tick: %v %v", ok, err)
		}
	})
}

// A node that won a tick and vanished blocks nothing after it: the next
// tick is claimed by another node, and the won one stays won.
func TestLaterTickClaimableAfterTheWinnerVanished(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		a, b := db.open(t), db.open(t)
		at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
		if ok, err := a.ClaimTick(ctx, "nightly", at, "node-a"); err != nil || !ok {
			t.Fatalf("first claim: %v %v", ok, err)
		}
		a.Close()
		if ok, err := b.ClaimTick(ctx, "nightly", at, "node-b"); err != nil || ok {
			t.Errorf("the vanished node's tick again: %v %v", ok, err)
		}
		if ok, err := b.ClaimTick(ctx, "nightly", at.Add(24*time.Hour), "node-b"); err != nil || !ok {
			t.Errorf("the next tick: %v %v", ok, err)
		}
	})
}

// Claims of ticks older than tickRetention are pruned, so the table does
// not grow forever.
func TestOldTicksArePruned(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		old := time.Now().Add(-tickRetention - time.Hour)
		if ok, err := s.ClaimTick(ctx, "nightly", old, "node-a"); err != nil || !ok {
			t.Fatalf("%v %v", ok, err)
		}
		// A Store's first claim prunes.
		if ok, err := db.open(t).ClaimTick(ctx, "nightly", time.Now(), "node-b"); err != nil || !ok {
			t.Fatalf("%v %v", ok, err)
		}
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM cron_ticks`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d ticks kept (%v), want the recent one", n, err)
		}
	})
}
