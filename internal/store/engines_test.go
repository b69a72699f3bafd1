package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/podcode/podcode/internal/enginetest"
)

// testDB is one engine's database for a test; each open is a new Store on
// it (a restart, or another node).
type testDB struct {
	engine string
	path   string // SQLite: the database file
	url    string // PostgreSQL: the database
}

func (d testDB) open(t testing.TB) *Store {
	t.Helper()
	if d.engine == EnginePostgres {
		return openPostgres(t, d.url)
	}
	return open(t, d.path)
}

// eachEngine runs body as the subtests "sqlite" and "postgres", each on a
// new, empty database; "postgres" is skipped without a PostgreSQL server
// (enginetest).
func eachEngine(t *testing.T, body func(t *testing.T, db testDB)) {
	t.Helper()
	t.Run(EngineSQLite, func(t *testing.T) {
		body(t, testDB{engine: EngineSQLite, path: filepath.Join(t.TempDir(), File)})
	})
	t.Run(EnginePostgres, func(t *testing.T) {
		body(t, testDB{engine: EnginePostgres, url: enginetest.Postgres(t)})
	})
}

func open(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t testing.TB, url string) *Store {
	t.Helper()
	s, err := OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
