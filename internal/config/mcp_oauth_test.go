package config

import (
	"strings"
	"testing"
)

// A remote server's oauth is the user's: false, or the client the user
// signs in as; a project's is ignored with a warning that names it, and
// its server stays declared.
func TestMCPOAuth(t *testing.T) {
	cwd := setup(t, `{"mcp": {
		"off":  {"type": "remote", "url": "https://a/mcp", "oauth": false},
		"mine": {"type": "remote", "url": "https://b/mcp", "oauth": {"clientId": "c", "clientSecret": "{env:SECRET}", "issuer": "https://login.example", "scope": "x y"}},
		"cimd": {"type": "remote", "url": "https://c/mcp", "oauth": {"clientId": "https://me.example/client.json"}}
	}}`, `{"mcp": {"theirs": {"type": "remote", "url": "https://d/mcp", "oauth": {"clientId": "c", "clientSecret": "s"}}}}`)
	cfg, err := Load(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.MCP["off"].OAuth; o == nil || !o.Disabled {
		t.Errorf("off: %+v", o)
	}
	if o := cfg.MCP["mine"].OAuth; o == nil || o.ClientID != "c" || o.ClientSecret != "{env:SECRET}" || o.Issuer != "https://login.example" || o.Scope != "x y" {
		t.Errorf("mine: %+v", o)
	}
	if o := cfg.MCP["cimd"].OAuth; o == nil || o.ClientID != "https://me.example/client.json" {
		t.Errorf("cimd: %+v", o)
	}
	theirs, ok := cfg.MCP["theirs"]
	if !ok || theirs.OAuth != nil {
		t.Errorf("the project's server: %+v (declared %v)", theirs, ok)
	}
	warned := false
	for _, w := range cfg.Warnings {
		warned = warned || strings.Contains(w, "mcp.theirs.oauth") && strings.Contains(w, "ignored in a project's file")
	}
	if !warned {
		t.Errorf("no warning names the project's oauth: %q", cfg.Warnings)
	}
}

// An oauth entry that cannot be used is an error that names it.
func TestMCPOAuthInvalid(t *testing.T) {
	for _, c := range []struct{ entry, want string }{
		{`{"type": "local", "command": ["x"], "oauth": false}`, "oauth is for a remote MCP server"},
		{`{"type": "remote", "url": "https://a", "oauth": {"clientSecret": "s"}}`, "a clientSecret needs its clientId"},
		{`{"type": "remote", "url": "https://a", "oauth": {"clientId": "http://me.example/c.json"}}`, "is https, with a path"},
		{`{"type": "remote", "url": "https://a", "oauth": {"clientId": "https://me.example"}}`, "is https, with a path"},
		{`{"type": "remote", "url": "https://a", "oauth": {"clientId": "https://me.example/c.json", "clientSecret": "s"}}`, "takes no clientSecret"},
		{`{"type": "remote", "url": "https://a", "oauth": {"issuer": "login.example"}}`, "is not an http(s) URL"},
		{`{"type": "remote", "url": "https://a", "oauth": {"issuer": "https://login.example"}}`, "it needs one (not a URL clientId)"},
		{`{"type": "remote", "url": "https://a", "oauth": {"issuer": "https://login.example", "clientId": "https://me.example/c.json"}}`, "it needs one (not a URL clientId)"},
		{`{"type": "remote", "url": "https://a", "oauth": {"client_id": "c"}}`, "unknown field"},
		{`{"type": "remote", "url": "https://a", "oauth": "yes"}`, "want an object, found a JSON string"},
	} {
		_, err := Parse("/u/podcode.json", []byte(`{"mcp": {"s": `+c.entry+`}}`), false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.entry, err, c.want)
		}
	}
}
