package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
)

// Whatever arguments a client sends, a call answers with a result (an
// error result for anything but a JSON object the schema accepts), never
// a panic or a protocol error.
func FuzzCallArguments(f *testing.F) {
	a, _ := apptest.Boot(f, apptest.Project{})
	err := a.Tools.Add(&tool.Def{ID: "noop", Source: "fuzz", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"additionalProperties":false}`),
		Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) {
			return tool.Result{Output: "ok"}, nil
		}})
	if err != nil {
		f.Fatal(err)
	}
	s := New(a)
	for _, seed := range []string{``, `null`, `{}`, `{"n": 1}`, `{"n": "x"}`, `[]`, `"s"`, `{"n": 1e999}`, `{"m": {}}`, `{`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := s.call(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "noop", Arguments: raw}})
		if err != nil || res == nil || len(res.Content) != 1 {
			t.Fatalf("%q: %v %v", raw, res, err)
		}
		var args map[string]any
		ok := json.Unmarshal(raw, &args) == nil && (len(args) == 0 || (len(args) == 1 && isNumber(args["n"])))
		if len(raw) == 0 {
			ok = true
		}
		if res.IsError == ok {
			t.Errorf("%q: isError %v: %s", raw, res.IsError, res.Content[0].(*mcp.TextContent).Text)
		}
	})
}

func isNumber(v any) bool { _, ok := v.(float64); return ok }

// Whatever schema a plugin's tool declares, listing it neither panics nor
// stops the other tools being listed.
func FuzzToolSchemas(f *testing.F) {
	a, _ := apptest.Boot(f, apptest.Project{})
	s := New(a)
	for _, seed := range []string{``, `{}`, `{"type":"string"}`, `{"type":"object","properties":{"h":{"type":"object","x-mcp-header":"X"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, `[`, `null`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		err := a.Tools.Add(&tool.Def{ID: "fuzzed", Source: "fuzz", Parameters: json.RawMessage(schema),
			Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) { return tool.Result{}, nil }})
		if err != nil {
			t.Fatal(err)
		}
		s.ToolsChanged()
		s.mu.Lock()
		_, read := s.listed["read"]
		s.mu.Unlock()
		if !read {
			t.Fatalf("%q: read is no longer listed", schema)
		}
	})
}
