package config

import (
	"strings"
	"testing"
)

// The user's many-node settings are read, and mistakes in them are named
// with their key.
func TestClusterSettings(t *testing.T) {
	cfg := loadBoth(t, `{"store": {"url": "postgres://podcode@db.internal/podcode"}, "bus": {"url": "nats://bus.internal:4222"},
		"cluster": {"node": "a", "lease_ms": 3000}}`, "")
	if cfg.Store.URL != "postgres://podcode@db.internal/podcode" || cfg.Bus.URL != "nats://bus.internal:4222" || cfg.Cluster != (Cluster{Node: "a", LeaseMs: 3000}) {
		t.Fatalf("store %+v bus %+v cluster %+v", cfg.Store, cfg.Bus, cfg.Cluster)
	}
	for _, c := range []struct{ user, key, want string }{
		{`{"store": {"url": "mysql://root:hunter2@db/x"}}`, "store.url", "want a postgres:// URL"},
		{`{"store": {"url": "postgres://db/x"}, "bus": {"url": "redis://q"}}`, "bus.url", "want a nats:// URL"},
		{`{"bus": {"url": "nats://q:4222"}}`, "bus.url", "needs store.url"},
		{`{"cluster": {"lease_ms": -1}}`, "cluster.lease_ms", "want at least 1000"},
		{`{"cluster": {"lease_ms": 50}}`, "cluster.lease_ms", "want at least 1000"},
		{`{"store": {"url": "postgres://db/x"}, "bus": {"url": "nats://q:4222", "stream": "a.b"}}`, "bus.stream", "letters, digits"},
	} {
		_, err := Load(setup(t, c.user, ""))
		if err == nil || !strings.Contains(err.Error(), `"`+c.key+`"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want key %q and %q", c.user, err, c.key, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}

// A URL taken whole from the environment is checked when it is opened.
func TestClusterURLsFromTheEnvironment(t *testing.T) {
	cfg := loadBoth(t, `{"store": {"url": "{env:DATABASE_URL}"}, "bus": {"url": "{env:NATS_URL}"}}`, "")
	if cfg.Store.URL != "{env:DATABASE_URL}" || cfg.Bus.URL != "{env:NATS_URL}" {
		t.Fatalf("store %+v bus %+v", cfg.Store, cfg.Bus)
	}
}
