package enginetest

import (
	"context"
	"database/sql"
	"testing"
)

func TestPostgresGivesAnEmptyDatabase(t *testing.T) {
	u := Postgres(t)
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("a new database has %d tables", n)
	}
}
