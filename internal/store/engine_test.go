package store

import (
	"context"
	"strings"
	"testing"
)

// Queries are written once with ? and ?N; PostgreSQL gets $N, in order
// for ?, and nothing inside quotes or comments changes.
func TestDollarPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`WHERE x = ?1 AND y = ?2 AND z = ?1 + ?12`, `WHERE x = $1 AND y = $2 AND z = $1 + $12`},
		{`UPDATE t SET a = '', b = '?' WHERE c = ?`, `UPDATE t SET a = '', b = '?' WHERE c = $1`},
		{`SELECT 'it''s ?', "col?" FROM t WHERE a = ?`, `SELECT 'it''s ?', "col?" FROM t WHERE a = $1`},
		{"SELECT ? -- why?\nFROM t WHERE a = ?", "SELECT $1 -- why?\nFROM t WHERE a = $2"},
		{`SELECT a - ? FROM t`, `SELECT a - $1 FROM t`},
		{`WHERE a = 'unterminated ?`, `WHERE a = 'unterminated ?`},
	} {
		if got := dollarPlaceholders(c.in); got != c.want {
			t.Errorf("%q\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	s := &Store{engine: EngineSQLite}
	if q := `SELECT ? WHERE a = ?1`; s.rebind(q) != q {
		t.Errorf("SQLite's query was rewritten: %q", s.rebind(q))
	}
}

// A PostgreSQL database that cannot be opened is an error that does not
// carry the URL's password, in the user part or as a parameter.
func TestOpenPostgresErrorKeepsNoPassword(t *testing.T) {
	for _, url := range []string{
		"postgres://podcode:hunter2-secret@127.0.0.1:1/podcode?connect_timeout=1",
		"postgres://podcode@127.0.0.1:1/podcode?password=hunter2-secret&connect_timeout=1",
	} {
		_, err := OpenPostgres(context.Background(), url)
		if err == nil {
			t.Fatalf("%s opened", url)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error keeps the password: %v", err)
		}
	}
}
