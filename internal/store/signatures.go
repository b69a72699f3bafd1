package store

import (
	"context"
	"fmt"
	"time"
)

// The webhook receiver's replay ledger (webhook.Ledger): the signatures of
// accepted deliveries, each kept until its timestamp is too old to pass
// the timestamp check, so that a restart does not forget them.

// Signatures returns the signatures of webhook that expire after now.
func (s *Store) Signatures(ctx context.Context, webhook string, now time.Time) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT signature, expires FROM webhook_signatures WHERE webhook = ? AND expires >= ?`, webhook, now.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: webhook signatures: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var sig []byte
		var exp int64
		if err := rows.Scan(&sig, &exp); err != nil {
			return nil, fmt.Errorf("store: webhook signatures: %w", err)
		}
		out[string(sig)] = exp
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: webhook signatures: %w", err)
	}
	return out, nil
}

// RecordSignature records a signature of webhook until expires (unix
// seconds), and drops the ones expired before now.
func (s *Store) RecordSignature(ctx context.Context, webhook string, sig []byte, expires int64, now time.Time) error {
	s.writeMu.Lock()
	defer s.endWrite()
	if _, err := s.w.ExecContext(ctx, `DELETE FROM webhook_signatures WHERE expires < ?`, now.Unix()); err != nil {
		return fmt.Errorf("store: webhook signature: %w", err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT OR REPLACE INTO webhook_signatures (webhook, signature, expires) VALUES (?, ?, ?)`, webhook, sig, expires); err != nil {
		return fmt.Errorf("store: webhook signature: %w", err)
	}
	return nil
}

// ForgetSignature removes a signature of webhook, so that the same
// delivery may be sent again.
func (s *Store) ForgetSignature(ctx context.Context, webhook string, sig []byte) error {
	s.writeMu.Lock()
	defer s.endWrite()
	if _, err := s.w.ExecContext(ctx, `DELETE FROM webhook_signatures WHERE webhook = ? AND signature = ?`, webhook, sig); err != nil {
		return fmt.Errorf("store: webhook signature: %w", err)
	}
	return nil
}
