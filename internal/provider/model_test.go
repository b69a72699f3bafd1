package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/chat"
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
	if _, err := For(m, nil); err != nil {
		t.Errorf("as trusted: %v", err)
	}
	os.WriteFile(filepath.Join(project, "turn.jsonl"), []byte(`{"toolCalls": [{"tool": "bash", "args": {"command": "id"}}]}`+"\n"), 0o644)
	if _, err := For(m, nil); err == nil || !strings.Contains(err.Error(), "changed since the project's configuration was trusted") {
		t.Errorf("changed: %v", err)
	}
	os.Remove(filepath.Join(project, "turn.jsonl"))
	if _, err := For(m, nil); err == nil {
		t.Error("a removed recording loaded")
	}
	user := NewCatalog(&config.Config{Provider: map[string]config.Provider{"offline": {Options: map[string]any{"replay": "turn.jsonl"}}}})
	if m, _ := user.Default(); m.Connection.ReplaySum != "" || m.Connection.Replay != "turn.jsonl" {
		t.Errorf("the user's replay %+v", m.Connection)
	}
}

// A provider's key in the environment goes to that provider only: a
// provider of the user's own (an endpoint of theirs, whatever API it
// speaks) never reads another's variable; the catalog's providers read
// their own, and an explicit apiKey wins.
func TestKeysGoOnlyToTheirProvider(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant")
	t.Setenv("GEMINI_API_KEY", "gm")
	t.Setenv("XAI_API_KEY", "xai")
	cat := NewCatalog(&config.Config{Provider: map[string]config.Provider{
		"local":  {Options: map[string]any{"baseURL": "http://127.0.0.1:1/v1"}, Models: map[string]config.Model{"m": {}}},
		"mine":   {Options: map[string]any{"api": APIAnthropic, "baseURL": "http://127.0.0.1:2"}, Models: map[string]config.Model{"c": {}}},
		"gproxy": {Options: map[string]any{"api": APIGemini, "baseURL": "http://127.0.0.1:3"}, Models: map[string]config.Model{"g": {}}},
		"openai": {Options: map[string]any{"apiKey": "sk-explicit"}},
	}})
	for name, want := range map[string]string{"local/m": "", "mine/c": "", "gproxy/g": "", "anthropic/claude-haiku-4-5": "sk-ant",
		"gemini/gemini-2.5-flash": "gm", "xai/grok-4.5": "xai", "openai/gpt-5.4": "sk-explicit"} {
		m, err := cat.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Connection.APIKey != want {
			t.Errorf("%s: key %q, want %q", name, m.Connection.APIKey, want)
		}
	}
	if m, _ := cat.Lookup("xai/grok-4.5"); m.Connection.BaseURL != "https://api.x.ai/v1" || m.Connection.API != APIChat || m.Connection.KeyEnv != "XAI_API_KEY" {
		t.Errorf("xai: %+v", m.Connection)
	}
	// A catalog provider of another service, at its own endpoint, with no
	// variable of its own (a login flow) reads none: never the variable of
	// the API it speaks.
	for _, api := range []string{APIChat, APIAnthropic} {
		if c := connection("other", nil, &knownProvider{id: "other", api: api, endpoint: "https://other.example/v1"}); c.APIKey != "" {
			t.Errorf("%s: key %q", api, c.APIKey)
		}
	}
	// Gemini's key may be in either of Google's variables.
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "gk")
	if m, _ := NewCatalog(nil).Lookup("gemini/gemini-2.5-flash"); m.Connection.APIKey != "gk" {
		t.Errorf("GOOGLE_API_KEY: %+v", m.Connection)
	}
}

// The catalog: a model known by its id or its undated alias, with its
// limits, reasoning and prices; the user's file overrides what it sets
// (limits, prices); a model nobody knows is an error naming the closest.
func TestEmbeddedCatalog(t *testing.T) {
	cat := NewCatalog(&config.Config{Provider: map[string]config.Provider{"anthropic": {Models: map[string]config.Model{
		"claude-haiku-4-5": {Limit: config.Limit{Output: 1000}, Cost: &config.Cost{Input: 9, Output: 9}}}}}})
	m, err := cat.Lookup("anthropic/claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	if m.ModelID != "claude-sonnet-4-5" || m.Limit.Context != 200000 || m.Limit.Output != 64000 || !m.Reasoning || m.Price.Input != 3 ||
		m.Price.CacheRead != 0.3 || m.Price.CacheWrite != 3.75 || m.Connection.API != APIAnthropic {
		t.Errorf("sonnet 4.5 %+v", m)
	}
	if m, _ := cat.Lookup("anthropic/claude-haiku-4-5"); m.Limit.Output != 1000 || m.Limit.Context != 200000 || m.Price.Input != 9 || m.Price.CacheRead != 0 {
		t.Errorf("haiku, overridden: %+v", m)
	}
	if got := m.Cost(chat.Usage{Input: 1_000_000, CacheRead: 600_000, CacheWrite: 100_000, Output: 10_000}); fmt.Sprintf("%.4f", got) != "1.6050" {
		t.Errorf("cost %v: 300k fresh × 3 + 600k read × 0.3 + 100k written × 3.75 + 10k out × 15, per million", got)
	}
	if _, err := cat.Lookup("anthropic/claude-sonet-4-5"); err == nil || !strings.Contains(err.Error(), "closest: claude-sonnet-4-") ||
		!strings.Contains(err.Error(), "podcode models anthropic") {
		t.Errorf("a typo: %v", err)
	}
	if len(Known()) < 20 {
		t.Errorf("%d providers", len(Known()))
	}
}

// A provider that needs a key, with none set, says which variable to set,
// before anything is sent.
func TestNoKeySaysWhichToSet(t *testing.T) {
	for _, c := range []struct{ model, env string }{{"anthropic/claude-haiku-4-5", "ANTHROPIC_API_KEY"}, {"openai/gpt-5.4", "OPENAI_API_KEY"},
		{"gemini/gemini-2.5-flash", "GEMINI_API_KEY"}} {
		for _, name := range KeyVariables() {
			t.Setenv(name, "")
		}
		m, err := NewCatalog(nil).Lookup(c.model)
		if err != nil {
			t.Fatal(err)
		}
		p, err := For(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Stream(context.Background(), Request{Model: m, Messages: []chat.Message{{Role: chat.RoleUser, Text: "hi"}}}, func(Event) {})
		if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "set "+c.env) {
			t.Errorf("%s: %v", c.model, err)
		}
	}
}

// catalogIDs, which spares a boot the reading of the catalog, is the
// catalog's list of providers, sorted.
func TestCatalogIDs(t *testing.T) {
	if got := slices.Sorted(maps.Keys(knownProviders())); !slices.Equal(got, catalogIDs) {
		t.Errorf("the embedded catalog's providers are %q; update catalogIDs", got)
	}
}
