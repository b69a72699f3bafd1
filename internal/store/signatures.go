package store

import (
	"context"
	"fmt"
	"time"
)

// The webhook receiver's replay ledger (webhook.Ledger): the signatures of
// accepted deliveries, each kept until its timestamp is too old to pass
// the timestamp check, so that a restart does not forget them, and so that
// nodes sharing the database refuse each other's replays (ClaimSignature).

// Signatures returns the signatures of webhook that expire after now.
func (s *Store) Signatures(ctx context.Context, webhook string, now time.Time) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT signature, expires FROM webhook_signatures WHERE webhook = ? AND expires >= ?`), webhook, now.Unix())
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

// ClaimSignature records a signature of webhook until expires (unix
// seconds) and reports whether this call recorded it: fresh is true for
// the first claimer of a signature, and for the first to claim again one
// whose record expired (before now); false while a live record exists,
// whoever made it (a replay, here or on another node). It is one
// statement, atomic between nodes sharing the database. It also drops the
// records expired before now.
func (s *Store) ClaimSignature(ctx context.Context, webhook string, sig []byte, expires int64, now time.Time) (fresh bool, err error) {
	s.beginWrite()
	defer s.endWrite()
	if _, err := s.w.ExecContext(ctx, s.rebind(`DELETE FROM webhook_signatures WHERE expires < ?`), now.Unix()); err != nil {
		return false, fmt.Errorf("store: webhook signature: %w", err)
	}
	// An expired record still there (another node's delete not yet
	// committed) is taken over; a live one is not.
	res, err := s.w.ExecContext(ctx, s.rebind(`INSERT INTO webhook_signatures (webhook, signature, expires) VALUES (?, ?, ?)
		ON CONFLICT (webhook, signature) DO UPDATE SET expires = excluded.expires WHERE webhook_signatures.expires < ?`),
		webhook, sig, expires, now.Unix())
	if err != nil {
		return false, fmt.Errorf("store: webhook signature: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: webhook signature: %w", err)
	}
	return n == 1, nil
}

// ForgetSignature removes a signature of webhook, so that the same
// delivery may be sent again.
func (s *Store) ForgetSignature(ctx context.Context, webhook string, sig []byte) error {
	s.beginWrite()
	defer s.endWrite()
	if _, err := s.w.ExecContext(ctx, s.rebind(`DELETE FROM webhook_signatures WHERE webhook = ? AND signature = ?`), webhook, sig); err != nil {
		return fmt.Errorf("store: webhook signature: %w", err)
	}
	return nil
}
