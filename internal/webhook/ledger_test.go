package webhook

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/podcode/podcode/internal/enginetest"
	"github.com/podcode/podcode/internal/store"
)

// A delivery accepted by one node is refused by another sharing its
// database, as a replay (401), without running anything there or counting
// the connection as authenticated; a delivery one node failed to start
// (released) may be retried on the other. On SQLite the two Receivers
// share one Store (one server); on PostgreSQL each node has its own.
func TestReplayRefusedByAnotherNode(t *testing.T) {
	for _, engine := range []string{store.EngineSQLite, store.EnginePostgres} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			var a, b *store.Store
			if engine == store.EnginePostgres {
				url := enginetest.Postgres(t)
				a, b = openLedger(t, func() (*store.Store, error) { return store.OpenPostgres(ctx, url) }),
					openLedger(t, func() (*store.Store, error) { return store.OpenPostgres(ctx, url) })
			} else {
				path := filepath.Join(t.TempDir(), store.File)
				a = openLedger(t, func() (*store.Store, error) { return store.Open(ctx, path) })
				b = a
			}
			var verifiedB atomic.Int32
			nodeA := newFixture(t, 0, nil, func(o *Options) { o.Ledger = a })
			nodeB := newFixture(t, 0, nil, func(o *Options) {
				o.Ledger = b
				o.Verified = func(context.Context) { verifiedB.Add(1) }
			})
			body := []byte(`{"action":"opened"}`)
			h := nodeA.signed(testSecret, body)
			if status, _, raw := nodeA.post("github", body, h); status != http.StatusAccepted {
				t.Fatalf("first delivery: %d %s", status, raw)
			}
			if status, out, raw := nodeB.post("github", body, h); status != http.StatusUnauthorized || !strings.Contains(out["error"].(string), "replayed") {
				t.Fatalf("the replay on the other node: %d %s, want 401 replayed", status, raw)
			}
			nodeB.nothingRan()
			if verifiedB.Load() != 0 {
				t.Error("a replay counted as a verified delivery")
			}

			// Node A fails to start a turn: the signature is released in
			// the database, and node B accepts the retry.
			failing := errors.New("no worker")
			nodeA.startErr.Store(&failing)
			body2 := []byte(`{"action":"closed"}`)
			h2 := nodeA.signed(testSecret, body2)
			if status, _, raw := nodeA.post("github", body2, h2); status < 500 {
				t.Fatalf("failed start: %d %s", status, raw)
			}
			if status, _, raw := nodeB.post("github", body2, h2); status != http.StatusAccepted {
				t.Fatalf("the retry on the other node: %d %s", status, raw)
			}
			if status, _, raw := nodeA.post("github", body2, h2); status != http.StatusUnauthorized {
				t.Fatalf("the retry replayed on the first node: %d %s, want 401", status, raw)
			}
			if verifiedB.Load() != 1 {
				t.Errorf("%d verified deliveries on node B, want 1", verifiedB.Load())
			}
		})
	}
}

func openLedger(t *testing.T, open func() (*store.Store, error)) *store.Store {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
