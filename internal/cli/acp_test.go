package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/app"
)

// lineWriter hands each line written to it to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line) // not a whole line yet
			return len(p), nil
		}
		w.lines <- line
	}
}

// podcode acp writes only the protocol on standard output, answers
// initialize, and ends when its input ends.
func TestACPCommandSpeaksOnlyTheProtocol(t *testing.T) {
	dir := project(t, map[string]string{})
	in, feed := io.Pipe()
	out := &lineWriter{lines: make(chan string, 16)}
	var errOut bytes.Buffer
	bootOptions = app.Options{}
	root := newRoot()
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"acp"})
	done := make(chan error, 1)
	go func() { done <- root.Execute() }()

	send := func(v any) {
		b, _ := json.Marshal(v)
		feed.Write(append(b, '\n'))
	}
	next := func() map[string]any {
		t.Helper()
		select {
		case line := <-out.lines:
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("not a JSON-RPC message on stdout: %q", line)
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer; stderr:\n%s", errOut.String())
		}
		return nil
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}})
	res := next()
	if r, _ := res["result"].(map[string]any); r == nil || r["protocolVersion"] != float64(1) {
		t.Errorf("initialize: %v", res)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": dir, "mcpServers": []any{}}})
	res = next()
	if r, _ := res["result"].(map[string]any); r == nil || !strings.HasPrefix(r["sessionId"].(string), "ses_") {
		t.Errorf("session/new: %v", res)
	}
	feed.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("podcode acp: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("podcode acp did not end with its input")
	}
	// Nothing else came on stdout (the log goes to stderr).
	select {
	case line := <-out.lines:
		t.Errorf("more on stdout: %q", line)
	default:
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.buf.Len() != 0 {
		t.Errorf("more on stdout: %q", out.buf.String())
	}
}
