package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/mcpclient/oauthtest"
)

// `podcode mcp auth` signs in to a server that asks for OAuth, the URL
// opened with $BROWSER; `mcp list` then shows the server ready; `mcp
// logout` forgets the token, and `mcp list` then says the server needs
// authorization, and how.
func TestMCPAuthAndLogout(t *testing.T) {
	as := oauthtest.NewAuthServer(t)
	ps := oauthtest.NewServer(t, as)
	project(t, nil)
	userDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "podcode")
	os.MkdirAll(userDir, 0o700)
	cfg := fmt.Sprintf(`{"mcp": {"prot": {"type": "remote", "url": %q, "timeout": 2000}}}`, ps.URL)
	if err := os.WriteFile(filepath.Join(userDir, "podcode.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// The test binary is the browser: it follows the URL it is given.
	oauthtest.UseTestBrowser(t)
	out, err := run(t, "mcp", "auth", "prot")
	if err != nil || !strings.Contains(out, "prot") || !strings.Contains(out, "ready") {
		t.Fatalf("mcp auth: %v\n%s", err, out)
	}
	out, err = run(t, "mcp", "list", "--json")
	var list struct {
		Servers []struct{ Name, State string }
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list.Servers) != 1 || list.Servers[0].State != "ready" {
		t.Fatalf("mcp list: %v\n%s", err, out)
	}
	if n := len(as.Authorizes()); n != 1 {
		t.Errorf("%d authorization requests, want 1", n)
	}

	out, err = run(t, "mcp", "logout", "prot")
	if err != nil || !strings.Contains(out, "Forgot the token kept for prot") {
		t.Fatalf("mcp logout: %v\n%s", err, out)
	}
	t.Setenv("BROWSER", "")
	out, err = run(t, "mcp", "list")
	if err != nil || !strings.Contains(out, "needs authorization: open http://127.0.0.1:") || !strings.Contains(out, `run "podcode mcp auth prot"`) {
		t.Fatalf("mcp list after logout: %v\n%s", err, out)
	}
	if _, err := run(t, "mcp", "auth", "nope"); err == nil || !strings.Contains(err.Error(), "known: prot") {
		t.Errorf("mcp auth of an unknown server: %v", err)
	}
}

// TestHelperBrowser is the browser of this package's tests' $BROWSER
// (oauthtest.UseTestBrowser).
func TestHelperBrowser(t *testing.T) { oauthtest.ActAsBrowser(t) }
