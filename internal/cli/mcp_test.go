package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/app"
)

// lineRecorder keeps what passes through it, to check it line by line.
type lineRecorder struct {
	mu  sync.Mutex
	w   io.Writer
	all bytes.Buffer
}

func (l *lineRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.all.Write(p)
	l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lineRecorder) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.all.String()), "\n")
}

// `podcode mcp serve` serves the project's tools on its standard input and
// output through the plugins' hooks and the permission rules, writes
// nothing else there, and ends when its input ends.
func TestMCPServe(t *testing.T) {
	project(t, map[string]string{
		"podcode.json":    `{"plugin": ["./plugins/glob.js"], "permission": {"webfetch": "ask"}}`,
		"plugins/glob.js": glob,
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := &lineRecorder{w: outW}
	var stderr bytes.Buffer
	bootOptions = app.Options{}
	root := newRoot()
	root.SetIn(inR)
	root.SetOut(out)
	root.SetErr(&stderr)
	root.SetArgs([]string{"--trust-all", "mcp", "serve"})
	done := make(chan error, 1)
	go func() {
		err := root.Execute()
		outW.Close()
		done <- err
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name+"/"+tl.Description)
	}
	if !slices.Contains(names, "glob/a faster glob") || !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "bash/") }) {
		t.Errorf("tools/list: %v", names)
	}
	// The plugin's tool.execute.before rewrites the command.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}})
	if err != nil || res.IsError || !strings.Contains(resultText(res), "hi\nguarded") {
		t.Errorf("bash: %v %v %q", err, res.IsError, resultText(res))
	}
	// "ask" has nobody to answer: refused, saying so.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "webfetch", Arguments: map[string]any{"url": "https://example.com"}})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "nobody can answer a permission question here (standard input carries the MCP protocol): refused") {
		t.Errorf("webfetch on ask: %v %v %q", err, res.IsError, resultText(res))
	}
	cs.Close() // closes the command's standard input
	if err := <-done; err != nil {
		t.Errorf("podcode mcp serve: %v\n%s", err, stderr.String())
	}
	for _, l := range out.lines() {
		var msg map[string]any
		if json.Unmarshal([]byte(l), &msg) != nil || msg["jsonrpc"] != "2.0" {
			t.Errorf("standard output has %q, not a JSON-RPC message", l)
		}
	}
	if !strings.Contains(stderr.String(), "Nobody can answer (standard input carries the MCP protocol): refused.") {
		t.Errorf("the question is not shown on standard error:\n%s", stderr.String())
	}
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
