package server

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/mcpclient"
)

// GET /commands lists the prompts of the MCP servers as slash commands,
// each with its source mcp:<server> and its arguments; /healthz names each
// server's prompts and resources, the resources (whose URIs may name the
// user's files) not to a tenant.
func TestCommandsListMCPPrompts(t *testing.T) {
	apptest.RequireNodeModules(t, "../mcpclient/testdata", "@modelcontextprotocol/server-everything")
	script, err := filepath.Abs("../mcpclient/testdata/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	p := apptest.Project{User: map[string]any{"mcp": map[string]any{"everything": map[string]any{
		"type": "local", "command": []string{"node", script, "stdio"}, "timeout": 60000}}}}
	s := New(newAgent(t, p), "admin", config.TenantToken{Token: "ann-token", TenantID: 1, UserID: "ann"})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	c := newContract(t, srv, "admin")
	_, body := c.do("GET", "/commands", "", false)
	var cmds []Command
	if err := json.Unmarshal(body, &cmds); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(cmds, func(c Command) bool { return c.Name == "mcp__everything__args-prompt" })
	if i < 0 || cmds[i].Source != "mcp:everything" || cmds[i].ArgumentHint != "<city> [state]" {
		t.Fatalf("GET /commands: %s", body)
	}
	health := func(token string) mcpclient.Status {
		t.Helper()
		c := newContract(t, srv, token)
		_, body := c.do("GET", "/healthz", "", false)
		var h Health
		if err := json.Unmarshal(body, &h); err != nil || len(h.MCP) != 1 {
			t.Fatalf("GET /healthz: %v %s", err, body)
		}
		return h.MCP[0]
	}
	if st := health("admin"); !slices.Contains(st.Prompts, "mcp__everything__simple-prompt") ||
		!slices.Contains(st.Resources, "demo://resource/static/document/architecture.md") || len(st.ResourceTemplates) == 0 {
		t.Errorf("the user's /healthz: %+v", st)
	}
	if st := health("ann-token"); len(st.Prompts) == 0 || st.Resources != nil || st.ResourceTemplates != nil {
		t.Errorf("a tenant's /healthz: %+v", st)
	}
}
