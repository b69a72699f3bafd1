package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	mcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/apptest"
)

// An MCP server's form during an editor's prompt is a
// session/request_permission about the call: "Accept with the defaults"
// sends the schema's defaults, "Decline" declines, a cancelled question
// cancels.
func TestMCPFormAskedAsPermission(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30}}}`)})
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "got " + string(b)}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "open", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", URL: "https://login.example.com/sign-in", ElicitationID: "e1", Message: "Sign in."})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "opened: " + res.Action}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	e := serve(t, apptest.Project{User: map[string]any{"mcp": map[string]any{"probe": map[string]any{"type": "remote", "url": ts.URL + "/mcp"}}}},
		sdk.ClientCapabilities{})
	id := e.newSession(t)
	for _, c := range []struct {
		outcome sdk.RequestPermissionOutcome
		want    string
	}{
		{sdk.NewRequestPermissionOutcomeSelected("allow"), `got {"action":"accept","content":{"age":30,"name":"John Doe"}}`},
		{sdk.NewRequestPermissionOutcomeSelected("reject"), `got {"action":"decline"}`},
		{sdk.NewRequestPermissionOutcomeCancelled(), `got {"action":"cancel"}`},
	} {
		e.cl.mu.Lock()
		e.cl.asked = nil
		e.cl.answer = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			return sdk.RequestPermissionResponse{Outcome: c.outcome}, nil
		}
		e.cl.mu.Unlock()
		if stop, err := e.prompt(t, id, `/tool probe_ask {}`); err != nil || stop != sdk.StopReasonEndTurn {
			t.Fatalf("%v %v", stop, err)
		}
		got := strings.Join(describeAll(e.cl.take()), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("updates:\n%s\nwithout %s", got, c.want)
		}
		// The question titled the call; its end has its own title back.
		if !strings.Contains(got, "tool_call_update completed title(probe_ask) text(got ") {
			t.Errorf("the call's final update does not restore its title:\n%s", got)
		}
		e.cl.mu.Lock()
		asked := e.cl.asked
		e.cl.mu.Unlock()
		if len(asked) != 1 || asked[0].Options[0].Name != "Accept with the defaults" || asked[0].Options[1].Name != "Decline" ||
			asked[0].ToolCall.Title == nil || *asked[0].ToolCall.Title != "the MCP server probe asks: Who are you?" {
			t.Fatalf("asked %+v", asked)
		}
	}

	// A page to open (URL mode) is asked about on the running call, the
	// question naming the page; allow accepts.
	e.cl.mu.Lock()
	e.cl.asked = nil
	e.cl.answer = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow")}, nil
	}
	e.cl.mu.Unlock()
	if stop, err := e.prompt(t, id, `/tool probe_open {}`); err != nil || stop != sdk.StopReasonEndTurn {
		t.Fatalf("%v %v", stop, err)
	}
	got := strings.Join(describeAll(e.cl.take()), "\n")
	e.cl.mu.Lock()
	asked := e.cl.asked
	e.cl.mu.Unlock()
	if len(asked) != 1 || asked[0].ToolCall.Title == nil ||
		!strings.HasPrefix(*asked[0].ToolCall.Title, "the MCP server probe asks you to open https://login.example.com/sign-in, a page of login.example.com (yes: you open it yourself") ||
		!strings.Contains(got, "tool_call_update completed title(probe_open) text(opened: accept)") {
		t.Fatalf("asked %+v; updates:\n%s", asked, got)
	}
}

// A question another tool asks while a call runs (a plugin's process,
// under a "plugin_exec": "ask" rule) is about that process: it does not
// take the running call's title as an MCP server's question does.
func TestPluginProcessQuestionKeepsTheCallsTitle(t *testing.T) {
	const runner = `import cp from "node:child_process"
export default { id: "runner", server: () => ({ tool: () => [{
  id: "run", description: "run a command", parameters: { type: "object", properties: {} },
  async execute() { return { title: "ran", output: await new Promise((res, rej) => cp.exec("echo from-plugin", (e, out) => e ? rej(e) : res(out))) } },
}] }) }`
	e := serve(t, apptest.Project{User: map[string]any{"permission": map[string]any{"plugin_exec": "ask"}},
		Files: map[string]string{".podcode/plugins/runner.js": runner}}, sdk.ClientCapabilities{})
	id := e.newSession(t)
	if stop, err := e.prompt(t, id, `/tool run {}`); err != nil || stop != sdk.StopReasonEndTurn {
		t.Fatalf("%v %v", stop, err)
	}
	got := strings.Join(describeAll(e.cl.take()), "\n")
	e.cl.mu.Lock()
	asked := e.cl.asked
	e.cl.mu.Unlock()
	if len(asked) != 1 || asked[0].ToolCall.Title == nil || *asked[0].ToolCall.Title != "run" ||
		!strings.Contains(fmt.Sprint(asked[0].ToolCall.RawInput), "echo from-plugin") {
		t.Fatalf("asked %+v", asked)
	}
	if !strings.Contains(got, "tool_call_update completed text(from-plugin)") || strings.Contains(got, "title(") {
		t.Errorf("updates:\n%s", got)
	}
}
