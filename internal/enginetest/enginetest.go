// Package enginetest gives tests the real engines of a many-node
// deployment: a database of their own on a PostgreSQL server and a NATS
// server, both started by scripts/engines (which scripts/test runs).
//
// Where the engines are not running, the tests that need them are skipped,
// unless PODCODE_TEST_ENGINES=required (scripts/test sets it): then they
// fail, so that a CI run cannot pass without them.
package enginetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// The variables scripts/engines exports.
const (
	EnvPostgres = "PODCODE_TEST_POSTGRES"
	EnvNATS     = "PODCODE_TEST_NATS"
	EnvRequired = "PODCODE_TEST_ENGINES"
)

func need(t testing.TB, env, what string) string {
	t.Helper()
	v := os.Getenv(env)
	if v != "" {
		return v
	}
	if os.Getenv(EnvRequired) == "required" {
		t.Fatalf("%s is not set: %s is required (start it with: eval \"$(scripts/engines start)\")", env, what)
	}
	t.Skipf("%s is not set: no %s (start one with: eval \"$(scripts/engines start)\")", env, what)
	return ""
}

// Postgres returns the URL of a new, empty database on the test server,
// dropped when the test ends.
func Postgres(t testing.TB) string {
	t.Helper()
	base := need(t, EnvPostgres, "PostgreSQL server")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvPostgres, err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatalf("creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("dropping database %s: %v", name, err)
		}
		admin.Close()
	})
	u.Path = "/" + name
	return u.String()
}

// NATS returns the URL of the test NATS server (JetStream enabled). Tests
// share it: each should name its subjects and streams apart (see Prefix).
func NATS(t testing.TB) string {
	t.Helper()
	return need(t, EnvNATS, "NATS server")
}

// Prefix is a name no other test uses, for a test's subjects and streams
// on the shared NATS server.
func Prefix() string {
	var b [6]byte
	rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:])
}
