package app

import (
	"slices"
	"testing"

	"github.com/podcode/podcode/internal/config"
)

// A remote MCP server's client secret (the user's oauth entry) is one of
// the secrets redacted from what is logged and stored, as written and
// expanded.
func TestMCPOAuthSecretIsRedacted(t *testing.T) {
	t.Setenv("PODCODE_TEST_MCP_SECRET", "s3cret-from-env-4d1f")
	cfg, err := config.Parse("/u/podcode.json", []byte(`{"mcp": {
		"a": {"type": "remote", "url": "https://a/mcp", "oauth": {"clientId": "c", "clientSecret": "literal-s3cret-9a2b"}},
		"b": {"type": "remote", "url": "https://b/mcp", "oauth": {"clientId": "c", "clientSecret": "{env:PODCODE_TEST_MCP_SECRET}"}}
	}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	s := Secrets(cfg)
	for _, want := range []string{"literal-s3cret-9a2b", "s3cret-from-env-4d1f"} {
		if !slices.Contains(s, want) {
			t.Errorf("Secrets lacks %q", want)
		}
	}
}
