// Package apptest boots Podcode in a throw-away project for tests: a temp
// directory with a podcode.json, an empty user config folder, and a logger
// that keeps every line for assertions.
package apptest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/plugin"
)

// Project describes the project to boot.
type Project struct {
	Plugins      []string       // plugin specifiers for podcode.json (absolute paths are simplest)
	PluginConfig map[string]any // plugin_config
	Config       map[string]any // more podcode.json keys
	Files        map[string]string
	HookTimeout  time.Duration // 0: the real default (5 s)
	JobLimit     time.Duration
	BootTimeout  time.Duration
	UserDir      string // the user's Podcode folder; "" for an empty one
	DataDir      string // the data directory (database, tenants' workspaces); "" for a new temporary one
	// User holds the keys of the user's podcode.json, written into
	// UserDir at boot: what a project's file may not set (endpoints, keys,
	// server.*) goes here.
	User  map[string]any
	Hooks func(*plugin.Dispatcher) error
	// Env are environment variables set for the test (t.Setenv) after the
	// environment's provider keys were cleared: a provider's key, say.
	Env map[string]string
	// Untrusted boots without trusting the project's code, as a user who
	// never ran `podcode trust` would; by default the project is trusted,
	// as the tests' own fixtures are.
	Untrusted bool
	// PluginAPI is app.Options.PluginAPI: what answers opencode plugins'
	// client while they start.
	PluginAPI func(a *app.App) http.Handler
}

// Logs keeps log records; see logtest.Logs.
type Logs = logtest.Logs

// Dir writes the project and returns its directory.
func Dir(t testing.TB, p Project) string {
	t.Helper()
	clearProviderKeys(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{}
	for k, v := range p.Config {
		cfg[k] = v
	}
	if len(p.Plugins) > 0 {
		cfg["plugin"] = p.Plugins
	}
	if p.PluginConfig != nil {
		cfg["plugin_config"] = p.PluginConfig
	}
	data, _ := json.MarshalIndent(cfg, "", "  ")
	files := map[string]string{"podcode.json": string(data)}
	for name, content := range p.Files {
		files[name] = content
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Boot writes the project and boots Podcode in it, as the server would.
func Boot(t testing.TB, p Project) (*app.App, *Logs) {
	t.Helper()
	return BootDir(t, Dir(t, p), p)
}

// BootDir boots Podcode in an existing project directory.
func BootDir(t testing.TB, dir string, p Project) (*app.App, *Logs) {
	t.Helper()
	clearProviderKeys(t)
	for k, v := range p.Env {
		t.Setenv(k, v)
	}
	logs := &Logs{}
	if p.UserDir == "" {
		p.UserDir = t.TempDir() // nothing from the real user's config
	}
	if p.User != nil {
		data, _ := json.MarshalIndent(p.User, "", "  ")
		if err := os.WriteFile(filepath.Join(p.UserDir, "podcode.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if p.DataDir == "" {
		p.DataDir = t.TempDir() // nothing written to the real user's data folder
	}
	claudeDir := ""
	if os.Getenv("CLAUDE_CONFIG_DIR") == "" {
		claudeDir = "-" // nothing from the real user's ~/.claude
	}
	a, err := app.Boot(context.Background(), dir, app.Options{Logger: logs.Logger(), BundleCache: "-", ClaudeDir: claudeDir,
		HookTimeout: p.HookTimeout, JobLimit: p.JobLimit, BootTimeout: p.BootTimeout, UserDir: p.UserDir, DataDir: p.DataDir, Hooks: p.Hooks, TrustAll: !p.Untrusted,
		PluginAPI: p.PluginAPI})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, logs
}

// Fixture returns the absolute path of a file under the calling package's
// testdata folder.
func Fixture(t testing.TB, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// RequireNodeModules fails t, saying what to run, when dir lacks the npm
// packages its fixtures import.
func RequireNodeModules(t testing.TB, dir string, packages ...string) {
	t.Helper()
	for _, pkg := range packages {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			abs, _ := filepath.Abs(dir)
			t.Fatalf("npm package %s is not installed: run `npm ci` in %s (scripts/test does)", pkg, abs)
		}
	}
}

// EverythingScript is the absolute path of the MCP project's example
// server of every feature (run: node <it> stdio), installed in package
// mcpclient's testdata, for a test of a package beside it under internal/;
// t fails, saying what to run, when it is not installed.
func EverythingScript(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "mcpclient", "testdata")
	RequireNodeModules(t, dir, "@modelcontextprotocol/server-everything")
	script, err := filepath.Abs(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// LinkNodeModules makes the npm packages installed in the calling
// package's testdata folder the project dir's, as a project that installed
// them would have them.
func LinkNodeModules(t testing.TB, dir string) {
	t.Helper()
	modules, err := filepath.Abs(filepath.Join("testdata", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
}

// clearProviderKeys unsets, for the test, the environment's provider keys
// and cloud credentials: a key there would make a real provider's model
// the default, and the test's turns would reach it with the user's key.
// A test that wants one gives it in Project.Env.
func clearProviderKeys(t testing.TB) {
	for _, name := range provider.KeyVariables() {
		if os.Getenv(name) != "" {
			t.Setenv(name, "")
		}
	}
}
