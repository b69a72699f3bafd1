package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
)

// unversionedSchema is the schema Podcode created before schema versions
// existed, as it was.
const unversionedSchema = `
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

// A SQLite database made before schema versions existed is upgraded in
// place at Open: its sessions, messages and signatures are kept, and the
// new columns and tables work.
func TestOpenUpgradesAnUnversionedDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), File)
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(unversionedSchema + `
INSERT INTO sessions (id, tenant, title, status, usage_input, created_at, updated_at) VALUES ('ses_old', 'default', 'old', 'idle', 5, 1, 2);
INSERT INTO messages (id, session_id, seq, role, status, body, created_at) VALUES ('msg_old', 'ses_old', 1, 'user', 'complete', '{"id":"msg_old","sessionID":"ses_old","seq":1,"role":"user","text":"hello"}', 1);
INSERT INTO webhook_signatures (webhook, signature, expires) VALUES ('github', X'0102', 4000000000);`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}

	s := open(t, path)
	if v, err := s.schemaVersion(ctx); err != nil || v != len(migrations) {
		t.Fatalf("schema version %d (%v), want %d", v, err, len(migrations))
	}
	sess, err := s.Session(ctx, DefaultTenant, "ses_old")
	if err != nil || sess.Title != "old" || sess.Usage.Input != 5 {
		t.Fatalf("the old session: %+v %v", sess, err)
	}
	m := &chat.Message{SessionID: "ses_old", Role: chat.RoleAssistant, Text: "hi"}
	if err := s.AppendMessage(ctx, m); err != nil || m.Seq != 2 {
		t.Fatalf("appending to the old session: seq %d, %v", m.Seq, err)
	}
	if msgs, _ := s.Messages(ctx, "ses_old"); len(msgs) != 2 || msgs[0].Text != "hello" {
		t.Errorf("messages %+v", msgs)
	}
	if fresh, err := s.ClaimSignature(ctx, "github", []byte{1, 2}, 4000000000, time.Now()); err != nil || fresh {
		t.Errorf("the old signature claimed again: %v %v", fresh, err)
	}
	if err := s.ClaimTurn(ctx, "ses_old", "node-a", time.Now().Add(time.Hour)); err != nil {
		t.Errorf("a lease on the old session: %v", err)
	}
	if ok, err := s.ClaimTick(ctx, "nightly", time.Now(), "node-a"); err != nil || !ok {
		t.Errorf("a tick: %v %v", ok, err)
	}
	s.Close()
	if s := open(t, path); s != nil {
		if v, _ := s.schemaVersion(ctx); v != len(migrations) {
			t.Errorf("reopened at version %d", v)
		}
	}
}

// Servers starting at once on a fresh database all open it; the
// migrations ran once: on PostgreSQL the advisory lock, on SQLite BEGIN
// IMMEDIATE, makes the others wait, then find the schema current.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		const nodes = 6
		var wg sync.WaitGroup
		stores := make([]*Store, nodes)
		for i := range nodes {
			wg.Go(func() {
				var s *Store
				var err error
				if db.engine == EnginePostgres {
					s, err = OpenPostgres(ctx, db.url)
				} else {
					s, err = Open(ctx, db.path)
				}
				if err != nil {
					t.Errorf("node %d: %v", i, err)
					return
				}
				stores[i] = s
			})
		}
		wg.Wait()
		for _, s := range stores {
			if s != nil {
				defer s.Close()
			}
		}
		if t.Failed() {
			return
		}
		var rows, max int
		if err := stores[0].db.QueryRowContext(ctx, `SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&rows, &max); err != nil {
			t.Fatal(err)
		}
		if rows != len(migrations) || max != len(migrations) {
			t.Errorf("schema_version has %d rows up to %d, want %d", rows, max, len(migrations))
		}
	})
}

// A database whose schema is newer than this build knows is refused, not
// used with queries that may no longer fit it.
func TestOpenRefusesANewerSchema(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		next := len(migrations) + 1
		if _, err := s.w.ExecContext(ctx, s.rebind(`INSERT INTO schema_version (version, applied_at) VALUES (?, 0)`), next); err != nil {
			t.Fatal(err)
		}
		s.Close()
		var err error
		if db.engine == EnginePostgres {
			_, err = OpenPostgres(ctx, db.url)
		} else {
			_, err = Open(ctx, db.path)
		}
		if err == nil || !strings.Contains(err.Error(), "newer than this Podcode knows") {
			t.Fatalf("opening a newer schema: %v", err)
		}
	})
}
