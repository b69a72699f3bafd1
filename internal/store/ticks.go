package store

import (
	"context"
	"fmt"
	"time"
)

// Cron ticks: each node runs the same schedule, and before it runs a job's
// tick it claims it; the row (job, at) makes the claim exclusive, so each
// tick runs on exactly one node.

// tickRetention is how long a claimed tick is kept: long past any tick a
// node could still be about to claim.
const tickRetention = 7 * 24 * time.Hour

// tickPruneEvery is how many ClaimTick calls of a Store pass between two
// prunings of old ticks (its first call prunes).
const tickPruneEvery = 256

// ClaimTick claims job's tick at at for node: true for exactly one caller
// per (job, at) among all the nodes sharing the database, false for the
// others. A claim is of one tick only: a node that claimed one and
// vanished blocks no later tick. Claims of ticks more than seven days old
// (tickRetention) are pruned now and then; a tick is claimed long before.
func (s *Store) ClaimTick(ctx context.Context, job string, at time.Time, node string) (bool, error) {
	s.beginWrite()
	defer s.endWrite()
	now := time.Now()
	if (s.ticks.Add(1)-1)%tickPruneEvery == 0 {
		if _, err := s.w.ExecContext(ctx, s.rebind(`DELETE FROM cron_ticks WHERE at < ?`), millis(now.Add(-tickRetention))); err != nil {
			return false, fmt.Errorf("store: pruning old cron ticks: %w", err)
		}
	}
	res, err := s.w.ExecContext(ctx, s.rebind(`INSERT INTO cron_ticks (job, at, node, claimed_at) VALUES (?, ?, ?, ?) ON CONFLICT (job, at) DO NOTHING`),
		job, millis(at), node, millis(now))
	if err != nil {
		return false, fmt.Errorf("store: claiming tick %s of job %s: %w", at.UTC().Format(time.RFC3339), job, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: claiming tick %s of job %s: %w", at.UTC().Format(time.RFC3339), job, err)
	}
	return n == 1, nil
}
