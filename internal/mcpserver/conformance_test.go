package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
)

// The official MCP conformance suite's server scenarios, run as a user
// would run them, against `podcode serve` in a project whose plugin and
// commands provide the tools and prompts the suite asks for by name. The
// scenarios that need what only the suite's own server has are listed,
// with why, in testdata/conformance/server-baseline.yml: any other failure
// fails the test, and so does a listed scenario that passes.
func TestConformanceSuiteServerScenarios(t *testing.T) {
	suite := apptest.RequireConformance(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/conformance/project")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"), "HOME="+home,
		"PODCODE_TRUST_ALL=1", "PODCODE_API_TOKEN=")
	// The user's config: a call's stream is closed after half a second,
	// so that the suite's test_reconnection (two seconds) is resumed.
	userDir := filepath.Join(home, "config", "podcode")
	if err := os.MkdirAll(userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userDir, "podcode.json"), []byte(`{"server": {"mcp_poll_after_ms": 500}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := serve(t, apptest.Binary(t, apptest.Podcode), dir, env, "")

	baseline, _ := filepath.Abs("testdata/conformance/server-baseline.yml")
	results := t.TempDir()
	out, err := suite.Command(env, "server", "--suite", "all", "--url", base+"/mcp", "--expected-failures", baseline, "-o", results).CombinedOutput()
	if err != nil {
		t.Errorf("the conformance suite %s's server scenarios: %v", suite.Version, err)
	}
	// The suite's own baseline check lets a listed scenario that passes
	// by: this one does not.
	expected := baselineScenarios(t, baseline)
	outcomes, err := apptest.ReadConformanceChecks(results, "server-")
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) < 30 {
		t.Errorf("the suite ran %d server scenarios, want all 32 of 0.1.16", len(outcomes))
	}
	for name, checks := range outcomes {
		var failed []string
		for _, c := range checks {
			if c.Failed() {
				failed = append(failed, c.String())
			}
		}
		switch {
		case len(failed) > 0 && !expected[name]:
			t.Errorf("scenario %s failed:\n%s", name, strings.Join(failed, "\n"))
		case len(failed) == 0 && expected[name]:
			t.Errorf("scenario %s passes: take it out of %s", name, filepath.Base(baseline))
		}
	}
	if t.Failed() {
		t.Logf("%s", out)
	}
}

// baselineScenarios are the scenarios a baseline file lists (its
// "  - name # why" lines).
func baselineScenarios(t *testing.T, path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			out[strings.TrimSpace(name)] = true
		}
	}
	return out
}
