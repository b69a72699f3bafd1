package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
)

// bootNoop boots a project without plugins and adds noop, a Go tool that
// does nothing: what remains is the cost of the path around a tool.
func bootNoop(b *testing.B) *app.App {
	a, _ := apptest.Boot(b, apptest.Project{})
	err := a.Tools.Add(&tool.Def{ID: "noop", Source: "bench", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`),
		Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) {
			return tool.Result{Output: "ok"}, nil
		}})
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// One tools/call of a trivial tool through the server, client and server
// in one process over the in-memory transport.
func BenchmarkCallToolOverMCP(b *testing.B) {
	cs, _ := connect(b, New(bootNoop(b)))
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{"n": 1}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// The same call straight through the Runner, as a turn makes it: the
// difference to BenchmarkCallToolOverMCP is what MCP adds.
func BenchmarkCallToolDirect(b *testing.B) {
	a := bootNoop(b)
	ctx := context.Background()
	call := tool.Call{SessionID: SessionID, CallID: "call_bench"}
	b.ReportAllocs()
	for b.Loop() {
		args := map[string]any{"n": 1.0}
		if _, _, err := a.Runner.CallTool(ctx, call, "noop", args); err != nil {
			b.Fatal(err)
		}
		a.Guard.Reset(SessionID)
	}
}
