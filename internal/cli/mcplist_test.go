package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// `podcode mcp list` and `plugin list` show each MCP server with its state,
// its tools (as registered, <server>_<tool>) and its error; an untrusted
// project's server is listed as such and not started.
func TestMCPList(t *testing.T) {
	probe, err := filepath.Abs("../mcpclient/testdata/servers/probe.mjs")
	if err != nil {
		t.Fatal(err)
	}
	// The probe's timeout gives node time to start on a loaded machine.
	project(t, map[string]string{
		"podcode.json": `{"mcp": {"probe": {"type": "local", "command": ["node", "` + probe + `"], "timeout": 60000}}}`,
		".mcp.json":    `{"mcpServers": {"gone": {"command": "/nonexistent/server"}}}`,
	})
	out, err := run(t, "--trust-all", "mcp", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Servers []struct {
			Name, State, Error, Origin string
			Tools                      []string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(list.Servers) != 2 {
		t.Fatalf("servers: %s", out)
	}
	for _, s := range list.Servers {
		switch s.Name {
		case "gone":
			if s.State != "retrying" || !strings.Contains(s.Error, "/nonexistent/server") {
				t.Errorf("gone: %+v", s)
			}
		case "probe":
			if s.State != "ready" || !slices.Contains(s.Tools, "probe_shout") || !strings.HasSuffix(s.Origin, "podcode.json:1") {
				t.Errorf("probe: %+v", s)
			}
		}
	}
	text, err := run(t, "--trust-all", "plugin", "list")
	if err != nil || !strings.Contains(text, "MCP servers:") || !strings.Contains(text, "probe_shout") {
		t.Errorf("plugin list: %v\n%s", err, text)
	}
	text, err = run(t, "mcp", "list")
	if err != nil || !strings.Contains(text, "untrusted") || strings.Contains(text, "probe_shout") {
		t.Errorf("untrusted: %v\n%s", err, text)
	}
}

// `podcode mcp list` counts each server's prompts and resources, and
// --json names them: the commands of its prompts, its resources' URIs and
// its templates.
func TestMCPListPromptsAndResources(t *testing.T) {
	everything, err := filepath.Abs("../mcpclient/testdata/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	project(t, map[string]string{
		"podcode.json": `{"mcp": {"everything": {"type": "local", "command": ["node", "` + everything + `", "stdio"], "timeout": 60000}}}`,
	})
	out, err := run(t, "--trust-all", "mcp", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Servers []struct {
			Prompts, Resources, ResourceTemplates []string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Servers) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	s := list.Servers[0]
	if !slices.Contains(s.Prompts, "mcp__everything__args-prompt") || !slices.Contains(s.Resources, "demo://resource/static/document/architecture.md") ||
		!slices.Contains(s.ResourceTemplates, "demo://resource/dynamic/text/{resourceId}") {
		t.Fatalf("%+v", s)
	}
	text, err := run(t, "--trust-all", "mcp", "list")
	if err != nil || !strings.Contains(text, "PROMPTS") || !strings.Contains(text, "RESOURCES") {
		t.Fatalf("%v\n%s", err, text)
	}
	// The server's line: its prompts counted, then its resources and templates.
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "everything ") {
			f := strings.Fields(line)
			if want := strconv.Itoa(len(s.Prompts)); !slices.Contains(f, want) || !slices.Contains(f, strconv.Itoa(len(s.Resources)+len(s.ResourceTemplates))) {
				t.Errorf("the counts are not on the line: %q", line)
			}
		}
	}
}
