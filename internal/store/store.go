// Package store keeps sessions and their messages in SQLite (a pure-Go
// driver, WAL mode), in the project's data directory outside the project
// (DataDir; Adopt moves the database an older Podcode kept in the
// project's .podcode folder).
//
// Durability: every write is its own transaction, committed before the
// call returns, so whatever Podcode acknowledged survives a crash. On open,
// sessions left "running" by a server that died are marked interrupted;
// the tool calls their turns left without a result get one when the
// session's next turn starts (CloseOpenCalls): a provider refuses a
// history with an unanswered call.
//
// Tenancy: every session has an owner (its tenant: see TenantKey); lookups
// by a tenant never see another tenant's sessions.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	_ "modernc.org/sqlite"

	"github.com/podcode/podcode/internal/chat"
)

// DefaultTenant owns the sessions of the server's own token (or of no
// token): tenant id 0.
const DefaultTenant = "default"

// TenantKey is the store's owner of tenant id's sessions: DefaultTenant
// for 0, else the id in decimal.
func TenantKey(id int64) string {
	if id == 0 {
		return DefaultTenant
	}
	return strconv.FormatInt(id, 10)
}

// TenantID is the tenant id a TenantKey stands for (0 for DefaultTenant).
func TenantID(key string) int64 {
	id, _ := strconv.ParseInt(key, 10, 64)
	return id
}

// Session statuses.
const (
	SessionIdle        = "idle"
	SessionRunning     = "running" // a turn is under way
	SessionInterrupted = "interrupted"
	SessionClosed      = "closed"
)

// ErrNotFound is returned for a session or message that does not exist (or
// belongs to another tenant).
var ErrNotFound = errors.New("not found")

// Session is one conversation.
type Session struct {
	ID        string     `json:"id"`
	Tenant    string     `json:"tenant"`
	ParentID  string     `json:"parentID,omitempty"` // the session that started this sub-agent
	Title     string     `json:"title"`
	Model     string     `json:"model"`
	Channel   string     `json:"channel"`
	Status    string     `json:"status"`
	Usage     chat.Usage `json:"usage"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// Store is the database. Writes are serialised in the process (SQLite
// allows one writer; waiting on a Go mutex is cheaper than retrying a busy
// database), reads run concurrently beside them (WAL).
type Store struct {
	db      *sql.DB
	writeMu sync.Mutex
}

const schema = `
CREATE TABLE IF NOT EXISTS sessions (
	id TEXT PRIMARY KEY,
	tenant TEXT NOT NULL DEFAULT 'default',
	parent_id TEXT NOT NULL DEFAULT '',
	title TEXT NOT NULL DEFAULT '',
	model TEXT NOT NULL DEFAULT '',
	channel TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL DEFAULT 'idle',
	usage_input INTEGER NOT NULL DEFAULT 0,
	usage_output INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_tenant ON sessions (tenant, created_at);
CREATE TABLE IF NOT EXISTS messages (
	id TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	role TEXT NOT NULL,
	status TEXT NOT NULL,
	body TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (session_id, seq)
);
CREATE INDEX IF NOT EXISTS messages_role ON messages (session_id, role, seq);
CREATE TABLE IF NOT EXISTS webhook_signatures (
	webhook TEXT NOT NULL,
	signature BLOB NOT NULL,
	expires INTEGER NOT NULL,
	PRIMARY KEY (webhook, signature)
);
`

// Open opens (creating if needed) the database at path and marks what a
// dead server left running as interrupted. A missing directory is created
// readable by its owner only.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: creating the schema in %s: %w", path, err)
	}
	s := &Store{db: db}
	if err := s.markInterrupted(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) markInterrupted(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE sessions SET status = ? WHERE status = ?`, SessionInterrupted, SessionRunning); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func millis(t time.Time) int64 { return t.UnixMilli() }

// CreateSession stores a new session; ID, tenant, status and times are
// filled in when empty.
func (s *Store) CreateSession(ctx context.Context, sess Session) (Session, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	now := time.Now().UTC().Truncate(time.Millisecond)
	if sess.ID == "" {
		sess.ID = chat.NewID("ses")
	}
	if sess.Tenant == "" {
		sess.Tenant = DefaultTenant
	}
	if sess.Status == "" {
		sess.Status = SessionIdle
	}
	sess.CreatedAt, sess.UpdatedAt = now, now
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions (id, tenant, parent_id, title, model, channel, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, sess.ID, sess.Tenant, sess.ParentID, sess.Title, sess.Model, sess.Channel, sess.Status, millis(now), millis(now))
	if err != nil {
		return Session{}, fmt.Errorf("store: creating session: %w", err)
	}
	return sess, nil
}

const sessionColumns = `id, tenant, parent_id, title, model, channel, status, usage_input, usage_output, created_at, updated_at`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var sess Session
	var created, updated int64
	err := row.Scan(&sess.ID, &sess.Tenant, &sess.ParentID, &sess.Title, &sess.Model, &sess.Channel, &sess.Status,
		&sess.Usage.Input, &sess.Usage.Output, &created, &updated)
	sess.CreatedAt, sess.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return sess, err
}

// Session returns the tenant's session id.
func (s *Store) Session(ctx context.Context, tenant, id string) (Session, error) {
	sess, err := scanSession(s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ? AND tenant = ?`, id, tenant))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: %w", err)
	}
	return sess, nil
}

// Sessions lists the tenant's sessions, newest first.
func (s *Store) Sessions(ctx context.Context, tenant string) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE tenant = ? ORDER BY created_at DESC, id DESC`, tenant)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}

// DeleteSession deletes the tenant's session and its messages.
func (s *Store) DeleteSession(ctx context.Context, tenant, id string) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	res, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE id = ? AND tenant = ?`, id, tenant)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return nil
}

// SetStatus records a session's status.
func (s *Store) SetStatus(ctx context.Context, id, status string) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.db.ExecContext(ctx, `UPDATE sessions SET status = ?, updated_at = ? WHERE id = ?`, status, millis(time.Now()), id)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// AddUsage adds tokens to a session's usage.
func (s *Store) AddUsage(ctx context.Context, id string, u chat.Usage) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.db.ExecContext(ctx, `UPDATE sessions SET usage_input = usage_input + ?, usage_output = usage_output + ?, updated_at = ? WHERE id = ?`,
		u.Input, u.Output, millis(time.Now()), id)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// AppendMessage stores m as the session's next message, filling in its ID,
// sequence number and time.
func (s *Store) AppendMessage(ctx context.Context, m *chat.Message) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	if err := appendTx(ctx, tx, m); err != nil {
		return err
	}
	return tx.Commit()
}

// appendTx is AppendMessage within tx; the caller holds writeMu.
func appendTx(ctx context.Context, tx *sql.Tx, m *chat.Message) error {
	if m.ID == "" {
		m.ID = chat.NewID("msg")
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now().UTC().Truncate(time.Millisecond)
	}
	if m.Status == "" {
		m.Status = chat.StatusComplete
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?`, m.SessionID).Scan(&m.Seq); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("store: encoding message: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages (id, session_id, seq, role, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.SessionID, m.Seq, m.Role, m.Status, string(body), millis(m.CreatedAt)); err != nil {
		return fmt.Errorf("store: appending message: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, millis(time.Now()), m.SessionID); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// CloseOpenCalls answers the tool calls a stopped turn left without a
// result (chat.OpenCalls: those of the session's last assistant message,
// when only tool messages follow it), so that the history a provider is
// sent pairs every call with a result: for each it appends
// chat.Unfinished(call, why), in the calls' order, and returns what it
// appended. The check and the appends are one transaction.
func (s *Store) CloseOpenCalls(ctx context.Context, sessionID, why string) ([]chat.Message, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	// Only the tail matters: the last message that is not a tool result,
	// and the results after it.
	tail, err := scanMessages(tx.QueryContext(ctx, `SELECT body FROM messages WHERE session_id = ? AND seq >= COALESCE(
		(SELECT MAX(seq) FROM messages WHERE session_id = ? AND role != ?), 0) ORDER BY seq`, sessionID, sessionID, chat.RoleTool))
	if err != nil {
		return nil, err
	}
	var added []chat.Message
	for _, c := range chat.OpenCalls(tail) {
		m := chat.Unfinished(c, why)
		m.SessionID = sessionID
		if err := appendTx(ctx, tx, &m); err != nil {
			return nil, err
		}
		added = append(added, m)
	}
	if len(added) == 0 {
		return nil, nil
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return added, nil
}

// UpdateMessage rewrites a stored message (its hooks, status, text).
func (s *Store) UpdateMessage(ctx context.Context, m *chat.Message) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("store: encoding message: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `UPDATE messages SET status = ?, body = ? WHERE id = ?`, m.Status, string(body), m.ID)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Messages returns a session's messages in order.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]chat.Message, error) {
	return s.messages(ctx, `SELECT body FROM messages WHERE session_id = ? ORDER BY seq`, sessionID)
}

// Recent returns what a model sees of a session: its latest summary (if
// any) and every message after what that summary covers, in order. A long
// session that was compacted is not read whole.
func (s *Store) Recent(ctx context.Context, sessionID string) ([]chat.Message, error) {
	last, err := s.messages(ctx, `SELECT body FROM messages WHERE session_id = ? AND role = ? ORDER BY seq DESC LIMIT 1`, sessionID, chat.RoleSummary)
	if err != nil {
		return nil, err
	}
	if len(last) == 0 {
		return s.Messages(ctx, sessionID)
	}
	// What hooks gave the model when the session started (context messages
	// before its first user message) is never summarized: it comes first.
	opening, err := s.messages(ctx, `SELECT body FROM messages WHERE session_id = ? AND role = ? AND seq <= ?
		AND seq < COALESCE((SELECT MIN(seq) FROM messages WHERE session_id = ? AND role = ?), ?) ORDER BY seq`,
		sessionID, chat.RoleContext, last[0].Through, sessionID, chat.RoleUser, last[0].Through+1)
	if err != nil {
		return nil, err
	}
	rest, err := s.messages(ctx, `SELECT body FROM messages WHERE session_id = ? AND seq > ? AND role != ? ORDER BY seq`, sessionID, last[0].Through, chat.RoleSummary)
	if err != nil {
		return nil, err
	}
	return append(append(opening, last...), rest...), nil
}

func (s *Store) messages(ctx context.Context, query string, args ...any) ([]chat.Message, error) {
	return scanMessages(s.db.QueryContext(ctx, query, args...))
}

// scanMessages decodes the message bodies a query returned.
func scanMessages(rows *sql.Rows, err error) ([]chat.Message, error) {
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	out := []chat.Message{}
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		var m chat.Message
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return nil, fmt.Errorf("store: decoding a message: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Message returns one message of a session.
func (s *Store) Message(ctx context.Context, sessionID, id string) (chat.Message, error) {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT body FROM messages WHERE session_id = ? AND id = ?`, sessionID, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return chat.Message{}, fmt.Errorf("message %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return chat.Message{}, fmt.Errorf("store: %w", err)
	}
	var m chat.Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return chat.Message{}, fmt.Errorf("store: decoding message %s: %w", id, err)
	}
	return m, nil
}
