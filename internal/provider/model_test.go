package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/config"
)

func TestCatalog(t *testing.T) {
	c := NewCatalog(nil)
	m, err := c.Default()
	if err != nil || m.Name() != "offline/echo" || m.Limit != (config.Limit{Context: 128000, Output: 4096}) {
		t.Fatalf("default %+v %v", m, err)
	}
	c = NewCatalog(&config.Config{Model: "acme/big", Provider: map[string]config.Provider{
		"acme":    {Options: map[string]any{"baseURL": "u", "a": 1}, Models: map[string]config.Model{"big": {Limit: config.Limit{Context: 1000, Output: 10}, Options: map[string]any{"a": 2}, Reasoning: true}}},
		"offline": {Models: map[string]config.Model{"echo": {Limit: config.Limit{Output: 100}}}},
	}})
	m, err = c.Default()
	if err != nil || m.Name() != "acme/big" || !m.Reasoning || m.Options["a"] != 2 || m.Options["baseURL"] != nil || m.Connection.BaseURL != "u" {
		t.Errorf("acme/big %+v %v", m, err)
	}
	if e, _ := c.Lookup("offline/echo"); e.Limit.Context != 128000 || e.Limit.Output != 100 {
		t.Errorf("a config limit overrides only what it sets: %+v", e.Limit)
	}
	if _, err := c.Lookup("acme/small"); err == nil || !strings.Contains(err.Error(), "provider.acme.models.small") {
		t.Errorf("unknown model: %v", err)
	}
	if _, err := c.Lookup("nonsense"); err == nil {
		t.Error("a name without provider accepted")
	}
	if strings.Join(c.Names(), ",") != "acme/big,offline/echo" {
		t.Errorf("names %v", c.Names())
	}
}

// A project's model is taken only if it names a model the catalog knows
// (the user's, Podcode's, or one the project's trusted settings define):
// a cloned repository cannot make Podcode call a model the user never set
// up, with the user's key.
func TestProjectPicksOnlyKnownModels(t *testing.T) {
	load := func(user, project string) *config.Config {
		t.Helper()
		root := t.TempDir()
		for dir, content := range map[string]string{"user": user, "project": project} {
			os.MkdirAll(filepath.Join(root, dir), 0o755)
			os.WriteFile(filepath.Join(root, dir, config.FileName), []byte(content), 0o644)
		}
		cfg, err := config.LoadFrom(filepath.Join(root, "project"), filepath.Join(root, "user"))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	const user = `{"model": "acme/big", "provider": {"acme": {"options": {"baseURL": "http://127.0.0.1:1"}, "models": {"big": {}, "small": {}}}}}`
	for _, c := range []struct{ project, want, warn string }{
		{`{"model": "acme/small"}`, "acme/small", ""},
		{`{"model": "offline/echo"}`, "offline/echo", ""},
		{`{"model": "openai/o1-pro"}`, "acme/big", `podcode.json:1:2: key "model": "openai/o1-pro" ignored: a project's file may only pick a model`},
		{`{"model": "acme/huge", "provider": {"acme": {"models": {"huge": {"limit": {"output": 10}}}}}}`, "acme/big", `"acme/huge" ignored`},
	} {
		c2 := NewCatalog(load(user, c.project))
		m, err := c2.Default()
		if err != nil || m.Name() != c.want {
			t.Errorf("%s: %s %v, want %s", c.project, m.Name(), err, c.want)
		}
		if w := strings.Join(c2.Warnings, "\n"); (c.warn == "") != (w == "") || !strings.Contains(w, c.warn) {
			t.Errorf("%s: warnings %q, want %q", c.project, w, c.warn)
		}
	}
	// Trusted, the project's own model is known.
	cfg := load(user, `{"model": "acme/huge", "provider": {"acme": {"models": {"huge": {"limit": {"output": 10}}}}}}`)
	if err := cfg.ApplyTrusted(); err != nil {
		t.Fatal(err)
	}
	if m, _ := NewCatalog(cfg).Default(); m.Name() != "acme/huge" || m.Connection.BaseURL != "http://127.0.0.1:1" {
		t.Errorf("trusted: %+v", m)
	}
}

// A replay the project's file names runs only as it was when trusted at
// start-up: a recording changed afterwards (by a tool call, say, before
// the first offline turn loads it) is refused. The user's own replay is
// not pinned.
func TestProjectReplayPinned(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	os.MkdirAll(project, 0o755)
	os.WriteFile(filepath.Join(project, config.FileName), []byte(`{"provider": {"offline": {"options": {"replay": "turn.jsonl"}}}}`), 0o644)
	os.WriteFile(filepath.Join(project, "turn.jsonl"), []byte(`{"text": "as trusted"}`+"\n"), 0o644)
	cfg, err := config.LoadFrom(project, filepath.Join(root, "user"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ApplyTrusted(); err != nil {
		t.Fatal(err)
	}
	m, _ := NewCatalog(cfg).Default()
	if m.Connection.Replay != filepath.Join(project, "turn.jsonl") || m.Connection.ReplaySum == "" {
		t.Fatalf("connection %+v", m.Connection)
	}
	if _, err := For(m); err != nil {
		t.Errorf("as trusted: %v", err)
	}
	os.WriteFile(filepath.Join(project, "turn.jsonl"), []byte(`{"toolCalls": [{"tool": "bash", "args": {"command": "id"}}]}`+"\n"), 0o644)
	if _, err := For(m); err == nil || !strings.Contains(err.Error(), "changed since the project's configuration was trusted") {
		t.Errorf("changed: %v", err)
	}
	os.Remove(filepath.Join(project, "turn.jsonl"))
	if _, err := For(m); err == nil {
		t.Error("a removed recording loaded")
	}
	user := NewCatalog(&config.Config{Provider: map[string]config.Provider{"offline": {Options: map[string]any{"replay": "turn.jsonl"}}}})
	if m, _ := user.Default(); m.Connection.ReplaySum != "" || m.Connection.Replay != "turn.jsonl" {
		t.Errorf("the user's replay %+v", m.Connection)
	}
}
