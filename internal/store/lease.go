package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Turn leases: on a database several nodes share, the node that runs a
// session's turn holds the session's lease (the columns turn_node and
// turn_until, unix ms) from ClaimTurn until ReleaseTurn, renewing it
// (RenewTurns) well before it expires. A lease that expired is a dead
// node's: ReapTurns marks its session interrupted, and any node may claim
// it. The times are the nodes' clocks.

// ErrLeased is returned by ClaimTurn for a session whose lease another
// node holds; the error says which.
var ErrLeased = errors.New("turn leased by another node")

// ClaimTurn takes the lease of session sessionID's turn for node until
// until, when nobody holds it, its lease expired, or node holds it
// already (then it is extended). Otherwise it returns an error wrapping
// ErrLeased that names the holder (or says the lease changed hands three
// times while it claimed); ErrNotFound for no such session. The
// check and the take are one UPDATE: of nodes claiming at once, one wins.
func (s *Store) ClaimTurn(ctx context.Context, sessionID, node string, until time.Time) error {
	if node == "" {
		return fmt.Errorf("store: claiming the turn of session %s: empty node name", sessionID)
	}
	s.beginWrite()
	defer s.endWrite()
	// The holder is read after the take failed: a lease released or run
	// out in between is free, and taken again (a few times at most, as
	// other claims may keep winning it) rather than refused naming nobody.
	for attempt := 0; ; attempt++ {
		now := time.Now()
		res, err := s.w.ExecContext(ctx, s.rebind(`UPDATE sessions SET turn_node = ?1, turn_until = ?2
			WHERE id = ?3 AND (turn_node = '' OR turn_node = ?1 OR turn_until < ?4)`), node, millis(until), sessionID, millis(now))
		if err != nil {
			return fmt.Errorf("store: claiming the turn of session %s: %w", sessionID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("store: claiming the turn of session %s: %w", sessionID, err)
		} else if n == 1 {
			return nil
		}
		var holder string
		var held int64
		err = s.w.QueryRowContext(ctx, s.rebind(`SELECT turn_node, turn_until FROM sessions WHERE id = ?`), sessionID).Scan(&holder, &held)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: claiming the turn of session %s: %w", sessionID, err)
		}
		if holder != "" && held >= millis(now) {
			return fmt.Errorf("session %s: %w: node %q holds it until %s", sessionID, ErrLeased, holder,
				time.UnixMilli(held).UTC().Format(time.RFC3339Nano))
		}
		if attempt == 2 {
			return fmt.Errorf("session %s: %w: it changed hands while this node claimed it", sessionID, ErrLeased)
		}
	}
}

// RenewTurns extends until until the leases node holds of the sessions
// ids (the turns it runs), and returns the ids it renewed: a session of
// ids not among them was taken from it (its lease expired and another
// node reaped or claimed it). Leases recorded for node that are not in ids
// (a release that failed) are left to expire. A node calls it periodically, well within the leases' length.
func (s *Store) RenewTurns(ctx context.Context, node string, ids []string, until time.Time) ([]string, error) {
	if node == "" {
		return nil, errors.New("store: renewing turn leases: empty node name")
	}
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(ids)+2)
	args = append(args, millis(until), node)
	marks := make([]string, len(ids))
	for i, id := range ids {
		marks[i] = "?"
		args = append(args, id)
	}
	s.beginWrite()
	defer s.endWrite()
	rows, err := s.w.QueryContext(ctx, s.rebind(`UPDATE sessions SET turn_until = ? WHERE turn_node = ? AND id IN (`+strings.Join(marks, ", ")+`) RETURNING id`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: renewing the turn leases of node %s: %w", node, err)
	}
	defer rows.Close()
	var held []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: renewing the turn leases of node %s: %w", node, err)
		}
		held = append(held, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: renewing the turn leases of node %s: %w", node, err)
	}
	return held, nil
}

// TurnHolder returns the node whose live lease holds session sessionID's
// turn at now, or "" when no live lease does.
func (s *Store) TurnHolder(ctx context.Context, sessionID string, now time.Time) (string, error) {
	var node string
	var until int64
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT turn_node, turn_until FROM sessions WHERE id = ?`), sessionID).Scan(&node, &until)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: reading the turn lease of session %s: %w", sessionID, err)
	}
	if node == "" || until < millis(now) {
		return "", nil
	}
	return node, nil
}

// ReleaseTurn clears session sessionID's lease if node holds it; a lease
// another node holds (node's expired and was claimed) is left alone.
func (s *Store) ReleaseTurn(ctx context.Context, sessionID, node string) error {
	s.beginWrite()
	defer s.endWrite()
	if _, err := s.w.ExecContext(ctx, s.rebind(`UPDATE sessions SET turn_node = '', turn_until = 0 WHERE id = ? AND turn_node = ?`), sessionID, node); err != nil {
		return fmt.Errorf("store: releasing the turn of session %s: %w", sessionID, err)
	}
	return nil
}

// queryReap marks interrupted the running turns whose leases ended; it
// names the partial index's condition (runningTurns) so that SQLite uses
// it, and PostgreSQL too when it plans the statement once for any values.
const queryReap = `UPDATE sessions SET status = ?, turn_node = '', turn_until = 0, updated_at = ?
	WHERE ` + runningTurns + ` AND turn_until < ? RETURNING ` + sessionColumns

// ReapTurns marks interrupted the running sessions whose lease expired
// before now (their node died, or stopped renewing), clearing the lease,
// and returns them as they are then, so that the caller can announce it.
// One statement: of nodes reaping at once, each session is returned to
// one. A running session without a lease (a SQLite server's, which Open
// handles) is left alone.
func (s *Store) ReapTurns(ctx context.Context, now time.Time) ([]Session, error) {
	s.beginWrite()
	defer s.endWrite()
	rows, err := s.w.QueryContext(ctx, s.rebind(queryReap), SessionInterrupted, millis(time.Now()), millis(now))
	if err != nil {
		return nil, fmt.Errorf("store: reaping expired turns: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: reaping expired turns: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reaping expired turns: %w", err)
	}
	return out, nil
}

// ErrLeaseLost is returned by a fenced write (WithFence) when the node no
// longer holds the session's lease.
var ErrLeaseLost = errors.New("this node no longer holds the session's turn lease")

type fenceKey struct{}

type fence struct{ session, node string }

// WithFence returns ctx under which the writes of session sessionID's turn
// (AppendStep, AppendMessage, CloseOpenCalls, UpdateMessage, SetStatus of
// that session) take effect only while node holds the session's lease;
// otherwise they change nothing and fail with ErrLeaseLost. A turn whose
// node lost the lease (it stalled, another node reaped the session and
// took it over) thus cannot overwrite the new turn's status or slip its
// late messages into the new turn's history. Writes of other sessions (a
// sub-agent's, which has a fence of its own) are not fenced by it.
func WithFence(ctx context.Context, sessionID, node string) context.Context {
	return context.WithValue(ctx, fenceKey{}, fence{sessionID, node})
}

// fenceOf is the node that must hold sessionID's lease for a write under
// ctx, or "".
func fenceOf(ctx context.Context, sessionID string) string {
	if f, ok := ctx.Value(fenceKey{}).(fence); ok && f.session == sessionID {
		return f.node
	}
	return ""
}

// fenced is the error of a fenced write: ErrLeaseLost when it changed no
// row.
func fenced(res sql.Result, err error) error {
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: %w", err)
	} else if n == 0 {
		return ErrLeaseLost
	}
	return nil
}
