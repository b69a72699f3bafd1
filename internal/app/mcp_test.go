package app_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

// probeServer is the MCP test server of package mcpclient, as a user's
// podcode.json declares it, logging its calls to the returned file.
func probeServer(t *testing.T) (map[string]any, string) {
	t.Helper()
	script, err := filepath.Abs("../mcpclient/testdata/servers/probe.mjs")
	if err != nil {
		t.Fatal(err)
	}
	apptest.RequireNodeModules(t, "../mcpclient/testdata", "@modelcontextprotocol/sdk", "zod")
	logFile := filepath.Join(t.TempDir(), "probe.jsonl")
	return map[string]any{"type": "local", "command": []string{"node", script}, "environment": map[string]string{"PROBE_LOG": logFile}}, logFile
}

// The probe's calls so far.
func probeCalls(t *testing.T, logFile string) string {
	t.Helper()
	b, err := os.ReadFile(logFile)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

const mcpHooksPlugin = `export default {
  id: "mcp-hooks",
  server() {
    return {
      "tool.execute.before": (input) => {
        if (input.toolID !== "probe_shout") return undefined
        return { ...input, args: { ...input.args, text: input.args.text + " rewritten" } }
      },
      "tool.execute.after": (input) => {
        if (typeof input.result.output !== "string") return undefined
        return { ...input, result: { ...input.result, output: input.result.output.replaceAll("SECRET", "[redacted]") } }
      },
    }
  },
}
`

// An MCP tool called by the offline model goes through every hook, as a
// built-in does: a JS plugin rewrites its arguments and redacts its output;
// a Go PreToolUse deny and a .claude hook whose matcher names the tool the
// Claude Code way (mcp__probe__shout) stop it before the server sees it;
// a permission rule over mcp_* asks.
func TestMCPToolThroughEveryHook(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	server, logFile := probeServer(t)
	claudeInput := filepath.Join(t.TempDir(), "claude-input.json")
	p := apptest.Project{
		Plugins: []string{"./plugins/mcp-hooks.js"},
		Files: map[string]string{
			"plugins/mcp-hooks.js": mcpHooksPlugin,
			".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "mcp__probe__.*", "hooks": [{"type": "command",
				"command": "cat > ` + claudeInput + `; grep -q claude-block ` + claudeInput + ` && { echo blocked by the claude hook >&2; exit 2; }; exit 0"}]}]}}`,
		},
		User: map[string]any{"mcp": map[string]any{"probe": server}},
		Hooks: func(d *plugin.Dispatcher) error {
			return d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				if strings.Contains(p.ToolInput, "go-block") {
					return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "blocked by the Go hook (" + p.Extra[plugin.ExtraToolAlias].(string) + ")"}, nil
				}
				return nil, nil
			})
		},
	}
	a, _ := apptest.Boot(t, p)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ag := agent.New(a, st)
	run := func(prompt string) *agent.TurnResult {
		t.Helper()
		sess, err := ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: prompt, Channel: "cli"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	toolOutput := func(res *agent.TurnResult) string {
		for _, m := range res.Messages {
			if m.Result != nil {
				return m.Result.Output
			}
		}
		t.Fatalf("no tool result in %+v", res.Messages)
		return ""
	}

	res := run(`/tool probe_shout {"text": "hello SECRET"}`)
	if out := toolOutput(res); !strings.HasPrefix(out, "HELLO [redacted] REWRITTEN (pid ") {
		t.Fatalf("the tool's output through the hooks: %q", out)
	}
	if calls := probeCalls(t, logFile); !strings.Contains(calls, `"text":"hello SECRET rewritten"`) {
		t.Fatalf("the server did not get the rewritten arguments: %s", calls)
	}
	if in := readFile(t, claudeInput); !strings.Contains(in, `"tool_name":"mcp__probe__shout"`) {
		t.Fatalf("the .claude hook's input: %s", in)
	}

	for _, c := range []struct{ text, want string }{
		{"go-block", "blocked by the Go hook (mcp__probe__shout)"},
		{"claude-block", "blocked by the claude hook"},
	} {
		res := run(`/tool probe_shout {"text": "` + c.text + `"}`)
		if out := toolOutput(res); !strings.Contains(out, c.want) {
			t.Errorf("%s: the tool's output %q does not say %q", c.text, out, c.want)
		}
		if calls := probeCalls(t, logFile); strings.Contains(calls, c.text) {
			t.Errorf("%s: the server saw a call that a hook denied: %s", c.text, calls)
		}
	}
}

// A permission rule over Claude Code's names (mcp_*) or over Podcode's
// ids (probe_*) applies to MCP tools.
func TestMCPPermissionRules(t *testing.T) {
	server, logFile := probeServer(t)
	for _, rule := range []string{"mcp_*", "mcp__probe__shout", "probe_*"} {
		a, _ := apptest.Boot(t, apptest.Project{User: map[string]any{"mcp": map[string]any{"probe": server},
			"permission": map[string]string{rule: "deny"}}})
		_, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "probe_shout", map[string]any{"text": "rule " + rule})
		if err == nil || !strings.Contains(err.Error(), "permission rule") {
			t.Errorf("%s: %v", rule, err)
		}
		if strings.Contains(probeCalls(t, logFile), "rule "+rule) {
			t.Errorf("%s: the server saw a denied call", rule)
		}
	}
}

// A project's MCP servers (.mcp.json, the project's podcode.json) are
// project code: not started until trusted, and shown as skipped.
func TestUntrustedProjectMCPServerDoesNotStart(t *testing.T) {
	server, logFile := probeServer(t)
	command := server["command"].([]string)
	mcpJSON := `{"mcpServers": {"probe": {"command": "` + command[0] + `", "args": ["` + command[1] + `"], "env": {"PROBE_LOG": "` + logFile + `"}}}}`
	for _, trusted := range []bool{false, true} {
		a, logs := apptest.Boot(t, apptest.Project{Untrusted: !trusted, Files: map[string]string{".mcp.json": mcpJSON}})
		st := a.MCP.Servers()[0].Status()
		if !trusted {
			if st.State != mcpclient.StateUntrusted || len(st.Tools) != 0 {
				t.Fatalf("untrusted: %+v", st)
			}
			if _, ok := a.Tools.Get("probe_shout"); ok {
				t.Fatal("an untrusted server's tool is registered")
			}
			if probeCalls(t, logFile) != "" {
				t.Fatal("the untrusted server ran")
			}
			if _, ok := logs.Find(".mcp.json#probe"); !ok {
				t.Errorf("the skipped server is not named in the log: %q", logs.Lines())
			}
			continue
		}
		if st.State != mcpclient.StateReady {
			t.Fatalf("trusted: %+v", st)
		}
	}
}

// Cancelling a turn cancels the MCP call in flight: the server is told.
func TestCancelledTurnCancelsMCPCall(t *testing.T) {
	server, logFile := probeServer(t)
	a, _ := apptest.Boot(t, apptest.Project{User: map[string]any{"mcp": map[string]any{"probe": server}}})
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ag := agent.New(a, st)
	sess, _ := ag.NewSession(context.Background(), agent.SessionRequest{})
	started := make(chan struct{})
	var once sync.Once
	a.Bus.Subscribe("tool.call.started", "test", func(bus.Event) { once.Do(func() { close(started) }) })
	done := make(chan error, 1)
	go func() {
		_, err := ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: `/tool probe_wait {"ms": 600000}`})
		done <- err
	}()
	<-started
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(probeCalls(t, logFile), `"call":"wait"`) {
		if time.Now().After(deadline) {
			t.Fatal("the server never got the call")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !ag.Cancel(sess.ID) {
		t.Fatal("no turn to cancel")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the turn ended with %v", err)
	}
	for !strings.Contains(probeCalls(t, logFile), `"cancelled":"wait"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the server was not told of the cancel: %s", probeCalls(t, logFile))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A project's server is trusted as written: its entry and the script its
// command runs in the project. Trusted, it starts; once the script or the
// entry changes, it is untrusted again and does not start.
func TestProjectMCPServerTrustCoversItsScript(t *testing.T) {
	apptest.RequireNodeModules(t, "../mcpclient/testdata", "@modelcontextprotocol/sdk", "zod")
	probe, err := os.ReadFile("../mcpclient/testdata/servers/probe.mjs")
	if err != nil {
		t.Fatal(err)
	}
	// The script imports the SDK from a node_modules beside it: a link to
	// the test servers' (left out of fingerprints, as node_modules is).
	modules, _ := filepath.Abs("../mcpclient/testdata/node_modules")
	p := apptest.Project{Untrusted: true, UserDir: t.TempDir(), Files: map[string]string{
		"tools/probe.mjs": string(probe),
		".mcp.json":       `{"mcpServers": {"probe": {"command": "node", "args": ["./tools/probe.mjs"]}}}`,
	}}
	dir := apptest.Dir(t, p)
	if err := os.Symlink(modules, filepath.Join(dir, "tools", "node_modules")); err != nil {
		t.Fatal(err)
	}
	survey, _ := apptest.BootDir(t, dir, p)
	// The server, and the folder its script imports from (node's imports
	// are reads that cannot be known).
	var items []trust.Item
	for _, it := range survey.Trust.Asked() {
		if it.Item.Kind == trust.KindMCP {
			items = append(items, it.Item)
		}
	}
	if len(items) != 2 || items[0].Name != ".mcp.json#probe" || !slices.Contains(items[0].Runs, "tools/probe.mjs") {
		t.Fatalf("asked about %+v", survey.Trust.Asked())
	}
	if err := survey.Trust.Store.Record(dir, items); err != nil {
		t.Fatal(err)
	}
	a, _ := apptest.BootDir(t, dir, p)
	if st := a.MCP.Servers()[0].Status(); st.State != mcpclient.StateReady {
		t.Fatalf("trusted: %+v", st)
	}
	appendTo(t, filepath.Join(dir, "tools", "probe.mjs"), "\n// changed\n")
	b, _ := apptest.BootDir(t, dir, p)
	if st := b.MCP.Servers()[0].Status(); st.State != mcpclient.StateUntrusted || !strings.Contains(st.Error, "changed since it was trusted") {
		t.Fatalf("after the script changed: %+v", st)
	}
}

// The reference filesystem server, as its users declare it: its reads go
// through the plugins' redaction, and a permission rule on its write tool
// keeps the file untouched.
func TestFilesystemServer(t *testing.T) {
	apptest.RequireNodeModules(t, "../mcpclient/testdata", "@modelcontextprotocol/server-filesystem")
	server, err := filepath.Abs("../mcpclient/testdata/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	dir := apptest.Dir(t, apptest.Project{Plugins: []string{"./plugins/mcp-hooks.js"}, Files: map[string]string{
		"plugins/mcp-hooks.js": mcpHooksPlugin,
		"notes.txt":            "the SECRET plan\n",
	}})
	a, _ := apptest.BootDir(t, dir, apptest.Project{User: map[string]any{
		"mcp":        map[string]any{"filesystem": map[string]any{"type": "local", "command": []string{"node", server, dir}}},
		"permission": map[string]string{"mcp__filesystem__write_file": "deny"},
	}})
	ctx := context.Background()
	res, _, err := a.Runner.CallTool(ctx, tool.Call{}, "filesystem_read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	if err != nil || !strings.Contains(res.Output, "the [redacted] plan") {
		t.Fatalf("read_text_file: %+v %v", res, err)
	}
	_, _, err = a.Runner.CallTool(ctx, tool.Call{}, "filesystem_write_file", map[string]any{"path": filepath.Join(dir, "notes.txt"), "content": "overwritten"})
	if err == nil || !strings.Contains(err.Error(), "mcp__filesystem__write_file") {
		t.Fatalf("write_file: %v", err)
	}
	if got := readFile(t, filepath.Join(dir, "notes.txt")); got != "the SECRET plan\n" {
		t.Fatalf("the denied write reached the file: %q", got)
	}
}
