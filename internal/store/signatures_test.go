package store

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Of many claimers of one signature on two nodes, exactly one gets it
// fresh; the same signature of another webhook is another claim.
func TestClaimSignatureOnceAcrossNodes(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		nodes := []*Store{db.open(t), db.open(t)}
		now := time.Now()
		sig := []byte{0, 1, 2, 0xff}
		var fresh atomic.Int32
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				ok, err := nodes[i%2].ClaimSignature(ctx, "github", sig, now.Unix()+300, now)
				if err != nil {
					t.Error(err)
				}
				if ok {
					fresh.Add(1)
				}
			})
		}
		wg.Wait()
		if fresh.Load() != 1 {
			t.Fatalf("%d fresh claims, want 1", fresh.Load())
		}
		if ok, err := nodes[0].ClaimSignature(ctx, "plain", sig, now.Unix()+300, now); err != nil || !ok {
			t.Errorf("another webhook: %v %v", ok, err)
		}
		got, err := nodes[1].Signatures(ctx, "github", now)
		if err != nil || len(got) != 1 || got[string(sig)] != now.Unix()+300 {
			t.Errorf("Signatures: %v %v", got, err)
		}
	})
}

// A signature whose record expired may be claimed again, and so may a
// forgotten one; a live one may not.
func TestExpiredOrForgottenSignatureClaimedAgain(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		now := time.Unix(1_800_000_000, 0)
		sig := []byte("sig")
		claim := func(at time.Time) bool {
			t.Helper()
			ok, err := s.ClaimSignature(ctx, "github", sig, now.Unix()+300, at)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !claim(now) {
			t.Fatal("first claim not fresh")
		}
		if claim(now.Add(300 * time.Second)) {
			t.Error("a live record was claimed again")
		}
		if !claim(now.Add(301 * time.Second)) {
			t.Error("an expired record could not be claimed again")
		}
		if err := s.ForgetSignature(ctx, "github", sig); err != nil {
			t.Fatal(err)
		}
		if !claim(now) {
			t.Error("a forgotten signature could not be claimed again")
		}
	})
}
