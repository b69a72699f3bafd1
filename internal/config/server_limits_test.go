package config

import (
	"strings"
	"testing"
)

// The server's limits come from the user's file alone: a cloned project
// cannot raise the connection caps or lengthen the timeouts.
func TestServerLimitsUserOnly(t *testing.T) {
	cwd := setup(t, `{"server": {"max_conns": 64, "write_timeout_ms": 5000}}`,
		`{"server": {"max_conns": 100000, "idle_timeout_ms": 86400000}}`)
	cfg, err := Load(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Server.ServerLimits; got != (ServerLimits{MaxConns: 64, WriteTimeoutMs: 5000}) {
		t.Errorf("merged %+v", got)
	}
	for _, key := range []string{"server.max_conns", "server.idle_timeout_ms"} {
		if !strings.Contains(strings.Join(cfg.Warnings, "\n"), `key "`+key+`": ignored in a project's file`) {
			t.Errorf("no warning for the project's %s: %v", key, cfg.Warnings)
		}
	}
	_, err = Parse("podcode.json", []byte("{\n  \"server\": {\"events_queue\": -1}\n}"), false)
	if err == nil || !strings.Contains(err.Error(), `podcode.json:2:30: key "server.events_queue": -1: must not be negative`) {
		t.Errorf("a negative limit: %v", err)
	}
}
