// Package store keeps sessions and their messages in a SQL database: SQLite
// (a pure-Go driver, WAL mode) for one server, in the project's data
// directory outside the project (DataDir; Adopt moves the database an
// older Podcode kept in the project's .podcode folder), or PostgreSQL
// (OpenPostgres) shared by several servers, the nodes of one deployment.
// Both engines run the same queries (written with ? placeholders,
// rewritten to $n for PostgreSQL) and give the same results.
//
// Durability: every write is one transaction, committed before the call
// returns (a tool-call step is two: the assistant message with its
// model call's usage, AppendStep, then the result). On PostgreSQL a
// commit returns once the server flushed its WAL (synchronous_commit as
// the server has it, on by default): it survives the node and the server
// crashing. SQLite runs in WAL mode with synchronous=NORMAL, chosen on
// purpose: a commit appends the transaction to the WAL file with write(2),
// so it is in the kernel once the call returns, and a process that is
// killed (kill -9, a panic, the OOM killer) loses nothing it acknowledged.
// The WAL is fsynced at each checkpoint, so a power loss or kernel crash
// can lose the transactions committed since the last one, and never
// corrupts the database. synchronous=FULL would add an fsync to every
// commit (milliseconds on many disks) for that case only; OFF could
// corrupt the database on power loss.
//
// Schema: Open and OpenPostgres apply the migrations the database lacks
// (migrations; the table schema_version records each one applied), one
// process at a time: on PostgreSQL under a transaction-scoped advisory
// lock taken in the migration's transaction, on SQLite inside BEGIN
// IMMEDIATE. A database made before versions existed is version 0 and
// upgrades in place; one newer than this build is refused.
//
// Interrupted turns: on SQLite, Open marks the sessions a dead server
// left "running" as interrupted (the database has one server). On
// PostgreSQL a running session may belong to a live node, so Open marks
// nothing: a node running a turn holds the session's lease (ClaimTurn),
// renews its leases while it lives (RenewTurns) and releases each at the
// turn's end (ReleaseTurn); ReapTurns marks interrupted the running
// sessions whose lease expired, those of a node that died. The tool calls
// a stopped turn left without a result get one when the session's next
// turn starts (CloseOpenCalls): a provider refuses a history with an
// unanswered call. Leases compare the nodes' clocks: keep them in sync
// (NTP), with leases far longer than the skew.
//
// Scheduled jobs: ClaimTick lets exactly one node run each tick of a job.
// Webhook deliveries: ClaimSignature lets exactly one node accept each
// signature (webhook.Ledger).
//
// Connections: on SQLite, writes go through one connection (a pool of
// one) under a mutex, reads through a pool of read-only connections
// beside it (WAL lets them run during a write). Checkpoints (copying the
// WAL into the database file, with an fsync of each) run on a connection
// of their own, in the background, every checkpointEvery writes, so that
// no write waits for an fsync; the writer checkpoints itself only when
// they fall behind (backstopPages). On PostgreSQL reads and writes share
// one pool and nothing is serialised in the process: an append locks its
// session's row first (the usage UPDATE), so that two nodes appending to
// one session still number its messages 1, 2, 3... without a gap or a
// duplicate. The statements of a turn are prepared once (per connection)
// and kept until Close.
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
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
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

// Store is the database. On SQLite, writes are serialised in the process
// (SQLite allows one writer; waiting on a Go mutex is cheaper than
// retrying a busy database) and run on the one connection of w; reads run
// concurrently beside them on db (WAL). On PostgreSQL w and db are the
// same pool and writeMu is not used. Both are open from Open until Close,
// and so are the prepared statements (stmts) and, on SQLite, the
// checkpointer (checkpoints).
type Store struct {
	engine  string  // EngineSQLite or EnginePostgres
	db      *sql.DB // SQLite: read-only connections; PostgreSQL: the pool
	w       *sql.DB // SQLite: the writer, one connection, BEGIN IMMEDIATE; PostgreSQL: db
	writeMu sync.Mutex
	stmts

	// ticks counts ClaimTick calls, to prune old ticks now and then.
	ticks atomic.Int64

	// Under writeMu: writes since Open, and the checkpointer's wake-up
	// (nil once closed). ckDone is closed when the checkpointer is done.
	writes int
	ckWake chan struct{}
	ckDone chan struct{}
}

const (
	// checkpointEvery is how many writes the checkpointer lets pass
	// between two checkpoints: about 700 pages of WAL (a message writes 5
	// to 8), near SQLite's default of 1000.
	checkpointEvery = 100
	// backstopPages is the size of the WAL (pages of 4 KiB) at which the
	// writer checkpoints itself (SQLite's automatic checkpoint): when
	// writes never pause long enough for a background checkpoint to
	// catch up, the WAL stays bounded.
	backstopPages = 4000
)

// stmts are the statements of a turn's writes and reads, prepared once:
// preparing a statement costs more than running these.
type stmts struct {
	// on w
	nextSeq, insertMessage, touchSession, updateMessage, setStatus *sql.Stmt
	// the same, fenced (WithFence): only while the node holds the lease
	touchFenced, updateMessageFenced, setStatusFenced *sql.Stmt
	// on db
	session, messages, message, lastSummary, opening, since *sql.Stmt
}

// Open opens (creating if needed) the SQLite database at path, applies
// the migrations it lacks and marks what a dead server left running as
// interrupted. A missing directory is created readable by its owner only.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	// The writer sets WAL mode (persistent in the file) and migrates the
	// schema before a reader opens. BEGIN IMMEDIATE: a transaction that
	// reads before it writes (the next seq) waits for another process's
	// write (busy_timeout) instead of failing when it upgrades its lock.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)"
	w, err := sql.Open("sqlite", dsn+"&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"+
		"&_pragma=wal_autocheckpoint("+strconv.Itoa(backstopPages)+")")
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	s := &Store{engine: EngineSQLite, w: w}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if s.db, err = sql.Open("sqlite", dsn+"&_query_only=1"); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if err := s.markInterrupted(ctx); err != nil {
		s.Close()
		return nil, err
	}
	ck, err := sql.Open("sqlite", dsn+"&_pragma=synchronous(NORMAL)")
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	ck.SetMaxOpenConns(1)
	s.ckWake, s.ckDone = make(chan struct{}, 1), make(chan struct{})
	go checkpoints(ck, path, s.ckWake, s.ckDone)
	return s, nil
}

// beginWrite starts a write: on SQLite it takes writeMu, which endWrite
// releases; on PostgreSQL the database orders the writes.
func (s *Store) beginWrite() {
	if s.engine == EngineSQLite {
		s.writeMu.Lock()
	}
}

// endWrite ends a write begun by beginWrite: on SQLite, every
// checkpointEvery writes it wakes the checkpointer, which checkpoints when
// it is not still busy with the last one.
func (s *Store) endWrite() {
	if s.engine != EngineSQLite {
		return
	}
	s.writes++
	if s.writes%checkpointEvery == 0 && s.ckWake != nil {
		select {
		case s.ckWake <- struct{}{}:
		default:
		}
	}
	s.writeMu.Unlock()
}

// checkpoints runs a passive checkpoint (one that never blocks the writer
// or a reader) on ck each time it is woken, until wake is closed; then it
// closes ck and done.
func checkpoints(ck *sql.DB, path string, wake <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer ck.Close()
	for range wake {
		if _, err := ck.Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
			// The writer's own checkpoint (backstopPages) still bounds the WAL.
			slog.Warn("store: a background checkpoint failed", "db", path, "err", err)
		}
	}
}

func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		db    *sql.DB
		stmt  **sql.Stmt
		query string
	}{
		{s.w, &s.nextSeq, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?`},
		{s.w, &s.insertMessage, `INSERT INTO messages (id, session_id, seq, role, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`},
		{s.w, &s.touchSession, `UPDATE sessions SET usage_input = usage_input + ?, usage_output = usage_output + ?, usage_cache_read = usage_cache_read + ?, usage_cache_write = usage_cache_write + ?, usage_reasoning = usage_reasoning + ?, usage_cost = usage_cost + ?, updated_at = ? WHERE id = ?`},
		// A row rewritten with the same bytes dirties no page (SQLite
		// compares them): a turn's end that re-stores its last message
		// when no hook ran writes nothing to the WAL.
		{s.w, &s.updateMessage, `UPDATE messages SET status = ?, body = ? WHERE id = ?`},
		{s.w, &s.setStatus, `UPDATE sessions SET status = ?, updated_at = ? WHERE id = ?`},
		{s.w, &s.touchFenced, `UPDATE sessions SET usage_input = usage_input + ?, usage_output = usage_output + ?, usage_cache_read = usage_cache_read + ?, usage_cache_write = usage_cache_write + ?, usage_reasoning = usage_reasoning + ?, usage_cost = usage_cost + ?, updated_at = ? WHERE id = ? AND turn_node = ?`},
		{s.w, &s.updateMessageFenced, `UPDATE messages SET status = ?, body = ? WHERE id = ? AND session_id IN (SELECT id FROM sessions WHERE turn_node = ?)`},
		{s.w, &s.setStatusFenced, `UPDATE sessions SET status = ?, updated_at = ? WHERE id = ? AND turn_node = ?`},
		{s.db, &s.session, `SELECT ` + sessionColumns + ` FROM sessions WHERE id = ? AND tenant = ?`},
		{s.db, &s.messages, `SELECT body FROM messages WHERE session_id = ? ORDER BY seq`},
		{s.db, &s.message, `SELECT body FROM messages WHERE session_id = ? AND id = ?`},
		{s.db, &s.lastSummary, queryLastSummary},
		{s.db, &s.opening, queryOpening},
		{s.db, &s.since, `SELECT body FROM messages WHERE session_id = ? AND seq > ? AND role != ? ORDER BY seq`},
	} {
		st, err := p.db.PrepareContext(ctx, s.rebind(p.query))
		if err != nil {
			return fmt.Errorf("preparing %q: %w", p.query, err)
		}
		*p.stmt = st
	}
	return nil
}

// Close closes the database (the checkpointer, once it is done, the
// statements, then the connections).
func (s *Store) Close() error {
	if s.engine == EnginePostgres {
		s.closeStmts()
		return s.db.Close()
	}
	s.writeMu.Lock()
	if s.ckWake != nil {
		close(s.ckWake)
		s.ckWake = nil
	}
	s.writeMu.Unlock()
	if s.ckDone != nil {
		<-s.ckDone
	}
	s.closeStmts()
	var err error
	if s.db != nil {
		err = s.db.Close()
	}
	return errors.Join(err, s.w.Close())
}

func (s *Store) closeStmts() {
	for _, st := range []*sql.Stmt{s.nextSeq, s.insertMessage, s.touchSession, s.updateMessage, s.setStatus,
		s.touchFenced, s.updateMessageFenced, s.setStatusFenced, s.session, s.messages, s.message, s.lastSummary, s.opening, s.since} {
		if st != nil {
			st.Close()
		}
	}
}

// markInterrupted marks every running session interrupted: SQLite only,
// at Open, before this server runs a turn.
func (s *Store) markInterrupted(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE sessions SET status = ? WHERE status = ?`, SessionInterrupted, SessionRunning); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func millis(t time.Time) int64 { return t.UnixMilli() }

// CreateSession stores a new session; ID, tenant, status and times are
// filled in when empty.
func (s *Store) CreateSession(ctx context.Context, sess Session) (Session, error) {
	s.beginWrite()
	defer s.endWrite()
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
	_, err := s.w.ExecContext(ctx, s.rebind(`INSERT INTO sessions (id, tenant, parent_id, title, model, channel, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`), sess.ID, sess.Tenant, sess.ParentID, sess.Title, sess.Model, sess.Channel, sess.Status, millis(now), millis(now))
	if err != nil {
		return Session{}, fmt.Errorf("store: creating session: %w", err)
	}
	return sess, nil
}

const sessionColumns = `id, tenant, parent_id, title, model, channel, status, usage_input, usage_output, usage_cache_read, usage_cache_write, usage_reasoning, usage_cost, created_at, updated_at`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var sess Session
	var created, updated int64
	err := row.Scan(&sess.ID, &sess.Tenant, &sess.ParentID, &sess.Title, &sess.Model, &sess.Channel, &sess.Status,
		&sess.Usage.Input, &sess.Usage.Output, &sess.Usage.CacheRead, &sess.Usage.CacheWrite, &sess.Usage.Reasoning, &sess.Usage.Cost, &created, &updated)
	sess.CreatedAt, sess.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return sess, err
}

// Session returns the tenant's session id.
func (s *Store) Session(ctx context.Context, tenant, id string) (Session, error) {
	sess, err := scanSession(s.session.QueryRowContext(ctx, id, tenant))
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
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT `+sessionColumns+` FROM sessions WHERE tenant = ? ORDER BY created_at DESC, id DESC`), tenant)
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
	s.beginWrite()
	defer s.endWrite()
	res, err := s.w.ExecContext(ctx, s.rebind(`DELETE FROM sessions WHERE id = ? AND tenant = ?`), id, tenant)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return nil
}

// SetStatus records a session's status (fenced: see WithFence).
func (s *Store) SetStatus(ctx context.Context, id, status string) error {
	s.beginWrite()
	defer s.endWrite()
	if node := fenceOf(ctx, id); node != "" {
		return fenced(s.setStatusFenced.ExecContext(ctx, status, millis(time.Now()), id, node))
	}
	_, err := s.setStatus.ExecContext(ctx, status, millis(time.Now()), id)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// NameSession gives a session that has no title the title t; a title it
// has is kept (its creator's, or the first prompt's).
func (s *Store) NameSession(ctx context.Context, id, t string) error {
	s.beginWrite()
	defer s.endWrite()
	if _, err := s.w.ExecContext(ctx, s.rebind(`UPDATE sessions SET title = ? WHERE id = ? AND title = ''`), t, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// AppendMessage stores m as the session's next message, filling in its ID,
// sequence number and time.
func (s *Store) AppendMessage(ctx context.Context, m *chat.Message) error {
	_, err := s.AppendStep(ctx, m, chat.Usage{})
	return err
}

// AppendStep is AppendMessage that also adds a model call's usage to the
// session's, in the same transaction: a step's assistant message and its
// tokens are stored together, or not at all. It returns the JSON stored
// for m (what the bus announces: encoded once).
func (s *Store) AppendStep(ctx context.Context, m *chat.Message, usage chat.Usage) (json.RawMessage, error) {
	s.beginWrite()
	defer s.endWrite()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	body, err := s.appendTx(ctx, tx, m, usage)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: appending message: %w", err)
	}
	return body, nil
}

// appendTx is AppendStep within tx (on SQLite the caller holds writeMu).
// The session's row is updated (its usage) before the next seq is read:
// on PostgreSQL that UPDATE locks the row until the transaction ends, so a
// concurrent append to the same session, from this node or another, reads
// its seq only after this one committed (READ COMMITTED takes a new
// snapshot per statement).
func (s *Store) appendTx(ctx context.Context, tx *sql.Tx, m *chat.Message, usage chat.Usage) (json.RawMessage, error) {
	if m.ID == "" {
		m.ID = chat.NewID("msg")
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now().UTC().Truncate(time.Millisecond)
	}
	if m.Status == "" {
		m.Status = chat.StatusComplete
	}
	if node := fenceOf(ctx, m.SessionID); node != "" {
		if err := fenced(tx.StmtContext(ctx, s.touchFenced).ExecContext(ctx, usageArgs(usage, millis(time.Now()), m.SessionID, node)...)); err != nil {
			return nil, err
		}
	} else if _, err := tx.StmtContext(ctx, s.touchSession).ExecContext(ctx, usageArgs(usage, millis(time.Now()), m.SessionID)...); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := tx.StmtContext(ctx, s.nextSeq).QueryRowContext(ctx, m.SessionID).Scan(&m.Seq); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("store: encoding message: %w", err)
	}
	if _, err := tx.StmtContext(ctx, s.insertMessage).ExecContext(ctx,
		m.ID, m.SessionID, m.Seq, m.Role, m.Status, string(body), millis(m.CreatedAt)); err != nil {
		return nil, fmt.Errorf("store: appending message: %w", err)
	}
	return body, nil
}

// usageArgs are the arguments of touchSession and touchFenced: usage's
// counts, in the order of their SET, then rest.
func usageArgs(u chat.Usage, rest ...any) []any {
	return append([]any{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, u.Cost}, rest...)
}

// CloseOpenCalls answers the tool calls a stopped turn left without a
// result (chat.OpenCalls: those of the session's last assistant message,
// when only tool messages follow it), so that the history a provider is
// sent pairs every call with a result: for each it appends
// chat.Unfinished(call, why), in the calls' order, and returns what it
// appended. The check and the appends are one transaction.
func (s *Store) CloseOpenCalls(ctx context.Context, sessionID, why string) ([]chat.Message, error) {
	s.beginWrite()
	defer s.endWrite()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	// Only the tail matters: the last message that is not a tool result,
	// and the results after it.
	// PostgreSQL: the session's row locked first (as appendTx's update
	// does), so that another node's append waits until this transaction
	// ends and the tail read is the tail appended to; locked, not
	// written. SQLite's BEGIN IMMEDIATE already holds the database's
	// write lock.
	if s.engine == EnginePostgres {
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE`, sessionID); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	tail, err := scanMessages(tx.QueryContext(ctx, s.rebind(`SELECT body FROM messages WHERE session_id = ? AND seq >= COALESCE(
		(SELECT MAX(seq) FROM messages WHERE session_id = ? AND role != ?), 0) ORDER BY seq`), sessionID, sessionID, chat.RoleTool))
	if err != nil {
		return nil, err
	}
	var added []chat.Message
	for _, c := range chat.OpenCalls(tail) {
		m := chat.Unfinished(c, why)
		m.SessionID = sessionID
		if _, err := s.appendTx(ctx, tx, &m, chat.Usage{}); err != nil {
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

// UpdateMessage rewrites a stored message (its hooks, status, text);
// fenced: see WithFence.
func (s *Store) UpdateMessage(ctx context.Context, m *chat.Message) error {
	s.beginWrite()
	defer s.endWrite()
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("store: encoding message: %w", err)
	}
	if node := fenceOf(ctx, m.SessionID); node != "" {
		return fenced(s.updateMessageFenced.ExecContext(ctx, m.Status, string(body), m.ID, node))
	}
	_, err = s.updateMessage.ExecContext(ctx, m.Status, string(body), m.ID)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Messages returns a session's messages in order.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]chat.Message, error) {
	return scanMessages(s.messages.QueryContext(ctx, sessionID))
}

// The lookups by role of Recent, which a turn's start runs. Each names
// the partial index's condition (rareRoles) so that SQLite uses it.
const (
	queryLastSummary = `SELECT body FROM messages WHERE session_id = ? AND role = ? AND ` + rareRoles + ` ORDER BY seq DESC LIMIT 1`
	queryOpening     = `SELECT body FROM messages WHERE session_id = ?1 AND role = ?2 AND ` + rareRoles + ` AND seq <= ?3
		AND seq < COALESCE((SELECT MIN(seq) FROM messages WHERE session_id = ?1 AND role = ?4 AND ` + rareRoles + `), ?3 + 1) ORDER BY seq`
)

// Recent returns what a model sees of a session: its latest summary (if
// any) and every message after what that summary covers, in order. A long
// session that was compacted is not read whole.
func (s *Store) Recent(ctx context.Context, sessionID string) ([]chat.Message, error) {
	last, err := scanMessages(s.lastSummary.QueryContext(ctx, sessionID, chat.RoleSummary))
	if err != nil {
		return nil, err
	}
	if len(last) == 0 {
		return s.Messages(ctx, sessionID)
	}
	// What hooks gave the model when the session started (context messages
	// before its first user message) is never summarized: it comes first.
	opening, err := scanMessages(s.opening.QueryContext(ctx, sessionID, chat.RoleContext, last[0].Through, chat.RoleUser))
	if err != nil {
		return nil, err
	}
	rest, err := scanMessages(s.since.QueryContext(ctx, sessionID, last[0].Through, chat.RoleSummary))
	if err != nil {
		return nil, err
	}
	return append(append(opening, last...), rest...), nil
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
	err := s.message.QueryRowContext(ctx, sessionID, id).Scan(&body)
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
