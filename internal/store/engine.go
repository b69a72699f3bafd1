package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// The engines a Store runs on (Engine).
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// PostgreSQL pool sizes: enough for a node's concurrent turns, far below
// the server's default max_connections (100) when a few nodes share it.
const (
	pgMaxConns     = 16
	pgConnIdleTime = 5 * time.Minute
)

// Engine is the database engine: EngineSQLite or EnginePostgres.
func (s *Store) Engine() string { return s.engine }

// OpenPostgres opens the PostgreSQL database at url (a postgres:// URL or
// a key=value connection string, as pgx takes it) and applies the
// migrations it lacks. Several nodes may open the same database at once:
// one migrates, the others wait for it (see the package doc). Unlike
// Open, it marks no session interrupted: a running session may be another
// live node's (ReapTurns).
//
// Its errors do not repeat url, which may hold a password: the caller
// names the database (logging.RedactURL).
func OpenPostgres(ctx context.Context, url string) (*Store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("store: opening the PostgreSQL database: %w", err)
	}
	db.SetMaxOpenConns(pgMaxConns)
	db.SetMaxIdleConns(pgMaxConns)
	db.SetConnMaxIdleTime(pgConnIdleTime)
	s := &Store{engine: EnginePostgres, db: db, w: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: PostgreSQL: %w", err)
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: PostgreSQL: %w", err)
	}
	return s, nil
}

// rebind is query written for this store's engine: the same on SQLite;
// on PostgreSQL each ? becomes $1, $2... in order and each ?N becomes $N.
// Text inside quotes ('...', "...") and comments is left alone.
func (s *Store) rebind(query string) string {
	if s.engine != EnginePostgres {
		return query
	}
	return dollarPlaceholders(query)
}

// dollarPlaceholders is rebind for PostgreSQL.
func dollarPlaceholders(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(query[i+1:], c)
			if end < 0 {
				b.WriteString(query[i:])
				return b.String()
			}
			// A doubled quote inside is two quoted runs back to back.
			b.WriteString(query[i : i+end+2])
			i += end + 1
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				b.WriteString(query[i:])
				return b.String()
			}
			b.WriteString(query[i : i+end])
			i += end - 1
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(query[i+1 : j])
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
