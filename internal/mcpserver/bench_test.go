package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
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

// resources/list of a project of 10,000 files, every page (500 a page),
// and resources/read of a 1 MB text file, over the in-memory transport:
// with no tool.execute.after hook the file is read whole after the read
// tool's call went through the guard.
func BenchmarkResources(b *testing.B) {
	files := map[string]string{"big.txt": strings.Repeat("a line of text, of about forty bytes.\n", 1<<20/38)}
	for i := range 10_000 {
		files[fmt.Sprintf("src/d%02d/f%04d.go", i%100, i)] = "package x\n"
	}
	a, _ := apptest.Boot(b, apptest.Project{Files: files})
	cs := dial(b, New(a), nil)
	ctx := context.Background()
	b.Run("list-10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, err := range cs.Resources(ctx, nil) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n < 10_000 {
				b.Fatalf("listed %d", n)
			}
		}
	})
	uri := fileURI(filepath.Join(a.Cwd, "big.txt"))
	b.Run("read-1MB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || len(res.Contents) != 1 || len(res.Contents[0].Text) < 1<<20-64 {
				b.Fatal(err)
			}
		}
	})
}
