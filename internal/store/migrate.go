package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// migrations are the schema's versions: migrations[i] brings a database
// from version i to i+1. Each is a list of statements, written for SQLite
// and translated for PostgreSQL by ddl. Never change one that shipped: add
// the next.
var migrations = [][]string{
	// 1: sessions, messages, webhook signatures. IF NOT EXISTS: a database
	// created before schema versions existed has them already.
	{
		`CREATE TABLE IF NOT EXISTS sessions (
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
)`,
		`CREATE INDEX IF NOT EXISTS sessions_tenant ON sessions (tenant, created_at)`,
		`CREATE TABLE IF NOT EXISTS messages (
	id TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq INTEGER NOT NULL,
	role TEXT NOT NULL,
	status TEXT NOT NULL,
	body TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (session_id, seq)
)`,
		`CREATE INDEX IF NOT EXISTS messages_role ON messages (session_id, role, seq)`,
		`CREATE TABLE IF NOT EXISTS webhook_signatures (
	webhook TEXT NOT NULL,
	signature BLOB NOT NULL,
	expires INTEGER NOT NULL,
	PRIMARY KEY (webhook, signature)
)`,
	},
	// 2: turn leases (ClaimTurn) and cron ticks (ClaimTick).
	{
		`ALTER TABLE sessions ADD COLUMN turn_node TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE sessions ADD COLUMN turn_until INTEGER NOT NULL DEFAULT 0`,
		`CREATE INDEX sessions_turn ON sessions (turn_node, turn_until)`,
		`CREATE TABLE cron_ticks (
	job TEXT NOT NULL,
	at INTEGER NOT NULL,
	node TEXT NOT NULL,
	claimed_at INTEGER NOT NULL,
	PRIMARY KEY (job, at)
)`,
	},
	// 3: the reaper's and the signature pruning's lookups, without a scan
	// of every session or signature.
	{
		`CREATE INDEX sessions_running ON sessions (turn_until) WHERE ` + runningTurns,
		`CREATE INDEX webhook_signatures_expires ON webhook_signatures (expires)`,
	},
	// 4: the lookups by role (a turn's start: the last summary, the
	// context before the first user message) index only the rare roles:
	// an index of every message cost each append a page of its own.
	{
		`DROP INDEX messages_role`,
		`CREATE INDEX messages_rare_roles ON messages (session_id, role, seq) WHERE ` + rareRoles,
	},
	// 5: a session's usage counts its prompt cache's reads and writes, its
	// thinking and its cost (US dollars), as chat.Usage does.
	{
		`ALTER TABLE sessions ADD COLUMN usage_cache_read INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE sessions ADD COLUMN usage_cache_write INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE sessions ADD COLUMN usage_reasoning INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE sessions ADD COLUMN usage_cost DOUBLE PRECISION NOT NULL DEFAULT 0`,
	},
}

// runningTurns is the condition of the partial index sessions_running,
// which the reaper's query repeats word for word (see rareRoles). Migration
// 3 is written with it: never change it.
const runningTurns = `status = 'running' AND turn_node != ''`

// rareRoles is the condition of the partial index messages_rare_roles.
// A query that should use the index repeats it word for word: SQLite
// uses a partial index only for a query whose WHERE contains its
// condition's terms (it does not infer role != 'tool' from role = 'user').
// Migration 4 is written with it: never change it; a new condition is a
// new index in a new migration.
const rareRoles = `role NOT IN ('assistant', 'tool')`

// migrationLock is the key of the PostgreSQL advisory lock that migrations
// run under ("podcode!" in ASCII): one per database.
const migrationLock int64 = 0x706f64636f646521

// pgTypes translates the types of a migration for PostgreSQL: its INTEGER
// is 32 bits, and it has no BLOB.
var pgTypes = strings.NewReplacer(" INTEGER ", " BIGINT ", " BLOB ", " BYTEA ")

// ddl is a migration's statement for this store's engine.
func (s *Store) ddl(stmt string) string {
	if s.engine == EnginePostgres {
		return pgTypes.Replace(stmt)
	}
	return stmt
}

// migrate applies the migrations the database lacks, in one transaction
// on w, which only one process runs at a time: on PostgreSQL it first
// takes an advisory lock held until the transaction ends (another node
// opening the same database waits there, then finds the schema current);
// on SQLite the transaction is BEGIN IMMEDIATE (w's _txlock), which takes
// the database's write lock at once.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.beginMigration(ctx)
	if err != nil {
		return fmt.Errorf("migrating the schema: beginning: %w", err)
	}
	defer tx.Rollback()
	if s.engine == EnginePostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("migrating the schema: taking the migration lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, s.ddl(`CREATE TABLE IF NOT EXISTS schema_version (
	version INTEGER PRIMARY KEY,
	applied_at INTEGER NOT NULL
)`)); err != nil {
		return fmt.Errorf("migrating the schema: creating schema_version: %w", err)
	}
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&version); err != nil {
		return fmt.Errorf("migrating the schema: reading its version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("the database's schema is version %d, newer than this Podcode knows (%d): upgrade Podcode", version, len(migrations))
	}
	if version == len(migrations) {
		return nil
	}
	for v := version + 1; v <= len(migrations); v++ {
		for _, stmt := range migrations[v-1] {
			if _, err := tx.ExecContext(ctx, s.ddl(stmt)); err != nil {
				return fmt.Errorf("migrating the schema to version %d: %w", v, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO schema_version (version, applied_at) VALUES (?, ?)`), v, millis(time.Now())); err != nil {
			return fmt.Errorf("migrating the schema to version %d: %w", v, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating the schema to version %d: %w", len(migrations), err)
	}
	return nil
}

// schemaVersion is the version of the database's schema: len(migrations)
// once Open returned.
func (s *Store) schemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: reading the schema version: %w", err)
	}
	return v, nil
}

// sqliteBusyRetries bounds beginMigration's retries (sqliteBusyPause
// apart): about busy_timeout.
const (
	sqliteBusyRetries = 1000
	sqliteBusyPause   = 10 * time.Millisecond
)

// beginMigration begins the migration's transaction. On SQLite a process
// opening a new database while another switches it to WAL mode gets
// SQLITE_BUSY at once, without its busy timeout: it tries again.
func (s *Store) beginMigration(ctx context.Context) (*sql.Tx, error) {
	for i := 0; ; i++ {
		tx, err := s.w.BeginTx(ctx, nil)
		var e *sqlite.Error
		if err == nil || s.engine != EngineSQLite || !errors.As(err, &e) || e.Code()&0xff != sqlite3.SQLITE_BUSY || i == sqliteBusyRetries {
			return tx, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(sqliteBusyPause):
		}
	}
}
