package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// bearer adds a token to every request of an MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpClient connects the Go SDK's client to srv's /mcp with token.
func mcpClient(t *testing.T, srv *httptest.Server, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// postMCP posts one JSON-RPC message to /mcp.
func postMCP(t *testing.T, srv *httptest.Server, token, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// /mcp is behind the token, and every call goes through the guard, as
// the token's tenant and user, on channel mcp, in the tenant's workspace;
// a session serves only the tenant and user that opened it.
func TestMCPBehindTokenAndGuard(t *testing.T) {
	var mu sync.Mutex
	var seen []plugin.HookPayload
	ag := newAgent(t, apptest.Project{Hooks: func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			mu.Lock()
			seen = append(seen, *p)
			mu.Unlock()
			if strings.Contains(p.ToolInput, "forbidden") {
				return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "not this file"}, nil
			}
			return nil, nil
		}, plugin.WithSource("test-guard"))
	}})
	const own, ann, bob = "server-token-0123456789", "ann-token-0123456789", "bob-token-0123456789"
	srv := httptest.NewServer(New(ag, own, config.TenantToken{Token: ann, TenantID: 7, UserID: "ann"},
		config.TenantToken{Token: bob, TenantID: 8, UserID: "bob"}).Handler())
	t.Cleanup(srv.Close)

	for _, token := range []string{"", "wrong"} {
		if res := postMCP(t, srv, token, "", initialize); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST /mcp with token %q: %d", token, res.StatusCode)
		}
	}

	cs := mcpClient(t, srv, ann)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "made.txt", "content": "x"}})
	if err != nil || res.IsError {
		t.Fatalf("write as ann: %v %q", err, mcpText(res))
	}
	if _, err := os.Stat(filepath.Join(ag.App.DataDir, "tenants", "7", "made.txt")); err != nil {
		t.Errorf("ann's write is not in her workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ag.App.Cwd, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("ann's write landed in the project: %v", err)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "forbidden.txt", "content": "x"}})
	if err != nil || !res.IsError || !strings.Contains(mcpText(res), "write was denied: not this file") {
		t.Errorf("denied write: %v %v %q", err, res.IsError, mcpText(res))
	}
	mu.Lock()
	for _, p := range seen {
		if p.Channel != "mcp" || p.TenantID != 7 || p.UserID != "ann" {
			t.Errorf("PreToolUse payload: channel %q, tenant %d, user %q", p.Channel, p.TenantID, p.UserID)
		}
	}
	if len(seen) != 2 {
		t.Errorf("PreToolUse ran %d times, want 2", len(seen))
	}
	mu.Unlock()

	// ann's session is not bob's, nor the server token's.
	res1 := postMCP(t, srv, ann, "", initialize)
	id := res1.Header.Get("Mcp-Session-Id")
	if res1.StatusCode != 200 || id == "" {
		t.Fatalf("initialize as ann: %d, session %q", res1.StatusCode, id)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, other := range []string{bob, own} {
		if res := postMCP(t, srv, other, id, list); res.StatusCode != http.StatusNotFound {
			body, _ := io.ReadAll(res.Body)
			t.Errorf("ann's session with another token: %d %s", res.StatusCode, body)
		}
	}
	if res := postMCP(t, srv, ann, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); res.StatusCode != http.StatusAccepted {
		t.Errorf("ann's own session: %d", res.StatusCode)
	}

	// Bodies are bounded as the API's are.
	if res := postMCP(t, srv, ann, "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", MaxBody)+`"}}`); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body past MaxBody: %d", res.StatusCode)
	}
}

// Stopping the server ends its MCP sessions, and cancels their calls in
// flight, within the shutdown's bound: each call is answered (cancelled)
// before its session ends.
func TestShutdownEndsMCPSessions(t *testing.T) {
	started := make(chan struct{})
	hang := &tool.Def{ID: "hang", Source: "test", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(ctx context.Context, _ tool.Call, _ map[string]any) (tool.Result, error) {
			close(started)
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}}
	rs := serveReal(t, Limits{}, apptest.Project{}, func(s *Server) {
		if err := s.Agent.App.Tools.Add(hang); err != nil {
			t.Fatal(err)
		}
		s.MCP().ToolsChanged()
	}, "tok")
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: rs.url() + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{"tok"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Closing the client waits for its call: on failure, not the test.
	defer func() { go cs.Close() }()
	ended := make(chan struct{})
	var res *mcp.CallToolResult
	var callErr error
	go func() {
		res, callErr = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hang"})
		close(ended)
	}()
	select {
	case <-started:
	case <-time.After(bound):
		t.Fatal("the call did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := rs.hs.Shutdown(ctx); err != nil {
		t.Fatalf("shutting down with an MCP session and a call open: %v", err)
	}
	select {
	case <-ended:
	case <-time.After(bound):
		t.Fatal("the call in flight did not end")
	}
	// The client got the call's end from the server (cancelled), not a
	// cut stream it tried to resume from a server that was gone.
	if callErr != nil || res == nil || !res.IsError {
		t.Errorf("the call in flight ended with %+v, %v; want the server's answer that it was cancelled", res, callErr)
	}
}
