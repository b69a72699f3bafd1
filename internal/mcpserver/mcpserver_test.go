package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// redactor is a JS plugin with a tool of its own and a
// tool.execute.after hook that redacts SECRET-<digits> from every tool's
// result, failed calls' error text included.
const redactor = `export default {
  id: "redactor",
  server: () => ({
    tool: () => [{
      id: "shout", description: "Upper-cases a text.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: (args) => ({ title: "shout", output: args.text.toUpperCase() }),
    }, {
      id: "leaky", description: "Always fails, with a secret in the error.",
      parameters: { type: "object", properties: {} },
      execute: () => { throw new Error("cannot connect with SECRET-999") },
    }],
    "tool.execute.after": (input) => {
      const out = input.result.output
      if (typeof out !== "string" || !/SECRET-\d+/.test(out)) return undefined
      return { ...input, result: { ...input.result, output: out.replace(/SECRET-\d+/g, "[REDACTED]") } }
    },
  }),
}
`

// payloads records the lifecycle payloads the Go handlers saw.
type payloads struct {
	mu   sync.Mutex
	seen []plugin.HookPayload
}

func (p *payloads) add(h *plugin.HookPayload) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, *h)
}

func (p *payloads) all() []plugin.HookPayload {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// bootProject boots a project with the redactor plugin, a file holding a
// secret, a Go PreToolUse guard that denies write, and bash on "ask".
func bootProject(t testing.TB) (*app.App, *payloads) {
	t.Helper()
	seen := &payloads{}
	a, _ := apptest.Boot(t, apptest.Project{
		Plugins: []string{"./plugins/redactor.js"},
		Files: map[string]string{
			"plugins/redactor.js": redactor,
			"notes.txt":           "the key is SECRET-12345, keep it\n",
		},
		Config: map[string]any{"permission": map[string]any{"bash": "ask"}},
		Hooks: func(d *plugin.Dispatcher) error {
			deny := func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				seen.add(p)
				if p.ToolName == "write" {
					return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "writing is not allowed over MCP here"}, nil
				}
				return nil, nil
			}
			if err := d.Register(plugin.HookPreToolUse, deny, plugin.WithSource("test-guard")); err != nil {
				return err
			}
			return d.Register(plugin.HookPostToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				seen.add(p)
				return nil, nil
			}, plugin.WithSource("test-post"))
		},
	})
	return a, seen
}

// connect serves s on an in-memory transport and returns a connected
// client session (the SDK's default protocol); changed receives a value
// per tools/list_changed.
func connect(t testing.TB, s *Server) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 8)
	cs := dialProtocol(t, s, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}, "")
	return cs, changed
}

func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content of type %T", c)
		}
		b.WriteString(tc.Text)
	}
	return b.String()
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: a protocol error: %v", name, err)
	}
	return res
}

// covers H16, H17: a tools/call takes the path of a turn's tool call.
func TestToolsOverMCP(t *testing.T) {
	a, seen := bootProject(t)
	s := New(a)
	cs, _ := connect(t, s)

	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		tools[tl.Name] = tl
	}
	for _, id := range []string{"read", "write", "bash", "glob", "shout", "leaky"} {
		if tools[id] == nil {
			t.Errorf("tools/list lacks %s (has %d tools)", id, len(tools))
		}
	}
	if sh := tools["shout"]; sh != nil {
		schema, _ := json.Marshal(sh.InputSchema)
		if sh.Description != "Upper-cases a text." || !strings.Contains(string(schema), `"required":["text"]`) || !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("shout is listed as %q %s", sh.Description, schema)
		}
	}
	if len(list.Tools) != len(a.Tools.List()) {
		t.Errorf("tools/list has %d tools, the registry %d", len(list.Tools), len(a.Tools.List()))
	}

	// read works, and the JS plugin's tool.execute.after redacts its result.
	res := call(t, cs, "read", map[string]any{"path": "notes.txt"})
	out := text(t, res)
	if res.IsError || !strings.Contains(out, "the key is [REDACTED], keep it") || strings.Contains(out, "SECRET-12345") {
		t.Errorf("read: isError %v, %q", res.IsError, out)
	}
	// A plugin's tool.
	if res := call(t, cs, "shout", map[string]any{"text": "hi"}); res.IsError || text(t, res) != "HI" {
		t.Errorf("shout: isError %v, %q", res.IsError, text(t, res))
	}

	// The Go PreToolUse deny stops write before it runs: a result with
	// isError and the message, not a protocol error.
	res = call(t, cs, "write", map[string]any{"path": "out.txt", "content": "x"})
	if out := text(t, res); !res.IsError || !strings.Contains(out, "write was denied: writing is not allowed over MCP here") {
		t.Errorf("denied write: isError %v, %q", res.IsError, out)
	}
	if _, err := os.Stat(filepath.Join(a.Cwd, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("the denied write ran: %v", err)
	}

	// A failed tool: isError, its error text through tool.execute.after.
	res = call(t, cs, "leaky", nil)
	if out := text(t, res); !res.IsError || !strings.Contains(out, "cannot connect with [REDACTED]") || strings.Contains(out, "SECRET-999") {
		t.Errorf("leaky: isError %v, %q", res.IsError, out)
	}

	// Invalid arguments are the tool's error too.
	if res := call(t, cs, "shout", map[string]any{"text": 5}); !res.IsError || !strings.Contains(text(t, res), "invalid arguments for shout") {
		t.Errorf("invalid arguments: isError %v, %q", res.IsError, text(t, res))
	}

	// The payloads say where the calls came from.
	var events []string
	for _, p := range seen.all() {
		events = append(events, string(p.Event)+" "+p.ToolName)
		if p.Channel != Channel || p.SessionID != SessionID {
			t.Errorf("%s %s: channel %q, session %q", p.Event, p.ToolName, p.Channel, p.SessionID)
		}
	}
	want := []string{"PreToolUse read", "PostToolUse read", "PreToolUse shout", "PostToolUse shout", "PreToolUse write", "PreToolUse leaky"}
	if !slices.Equal(events, want) {
		t.Errorf("lifecycle events %v, want %v", events, want)
	}
}

// A permission "ask" has nobody to answer over MCP: the call is refused,
// saying so.
func TestAskIsRefusedOverMCP(t *testing.T) {
	a, _ := bootProject(t)
	cs, _ := connect(t, New(a))
	res := call(t, cs, "bash", map[string]any{"command": "touch ran"})
	if out := text(t, res); !res.IsError || !strings.Contains(out, "bash needs permission") || !strings.Contains(out, "nobody can answer") {
		t.Errorf("bash on ask: isError %v, %q", res.IsError, out)
	}
	if _, err := os.Stat(filepath.Join(a.Cwd, "ran")); !os.IsNotExist(err) {
		t.Errorf("the refused command ran: %v", err)
	}
}

// The loop guard does not count MCP calls: the same call many times in a
// row runs every time.
func TestRepeatedCallsRun(t *testing.T) {
	a, _ := bootProject(t)
	cs, _ := connect(t, New(a))
	for i := range 5 {
		if res := call(t, cs, "shout", map[string]any{"text": "again"}); res.IsError {
			t.Fatalf("call %d: %q", i+1, text(t, res))
		}
	}
}

// ToolsChanged lists a tool added to the registry, and tells the client.
func TestToolsChanged(t *testing.T) {
	a, _ := bootProject(t)
	s := New(a)
	cs, changed := connect(t, s)
	err := a.Tools.Add(&tool.Def{ID: "late", Description: "added after start", Source: "test", Parameters: json.RawMessage(`{"properties": {}}`),
		Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) {
			return tool.Result{Output: "late ran"}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	s.ToolsChanged()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Tools, func(tl *mcp.Tool) bool { return tl.Name == "late" }) {
		t.Error("the new tool is not listed")
	}
	if res := call(t, cs, "late", nil); res.IsError || text(t, res) != "late ran" {
		t.Errorf("late: %v %q", res.IsError, text(t, res))
	}
}

// A tool whose schema is not an object schema is left out with a
// warning, not the server.
func TestDescribeRefusesNonObjectSchemas(t *testing.T) {
	for schema, ok := range map[string]bool{``: true, `{"properties":{}}`: true, `{"type":"object"}`: true,
		`{"type":"string"}`: false, `[1]`: false, `null`: false, `"x"`: false} {
		_, err := describe(&tool.Def{ID: "t", Parameters: json.RawMessage(schema)})
		if (err == nil) != ok {
			t.Errorf("%s: %v", schema, err)
		}
	}
}

// The tools of the MCP servers Podcode uses are served too, and follow
// their servers: a tool a server adds while connected (tools/list_changed
// to Podcode) reaches Podcode's own clients (tools/list_changed to them),
// with no call of ToolsChanged by hand.
func TestServesMCPToolsItUses(t *testing.T) {
	script, err := filepath.Abs("../mcpclient/testdata/servers/probe.mjs")
	if err != nil {
		t.Fatal(err)
	}
	apptest.RequireNodeModules(t, "../mcpclient/testdata", "@modelcontextprotocol/sdk", "zod")
	a, _ := apptest.Boot(t, apptest.Project{User: map[string]any{"mcp": map[string]any{
		"probe": map[string]any{"type": "local", "command": []string{"node", script}}}}})
	s := New(a)
	t.Cleanup(s.Close)
	cs, changed := connect(t, s)
	if res := call(t, cs, "probe_shout", map[string]any{"text": "through two hops"}); res.IsError || !strings.HasPrefix(text(t, res), "THROUGH TWO HOPS") {
		t.Fatalf("probe_shout: %v %q", res.IsError, text(t, res))
	}
	call(t, cs, "probe_grow", nil)
	deadline := time.After(20 * time.Second)
	for {
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(list.Tools, func(tl *mcp.Tool) bool { return tl.Name == "probe_added" }) {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("probe_added never listed")
		}
	}
	if res := call(t, cs, "probe_added", nil); res.IsError || text(t, res) != "added answers" {
		t.Errorf("probe_added: %v %q", res.IsError, text(t, res))
	}
}
