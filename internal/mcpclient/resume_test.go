package mcpclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// cutServer is a streamable-HTTP MCP server, in the protocol's wire format
// (2025-06-18), that answers a tool call on an SSE stream it closes after a
// priming event (an id and a retry: delay, no data), as a server behind a
// proxy that drops long streams does; the answer comes on the GET that
// resumes the stream with Last-Event-ID.
type cutServer struct {
	mu      sync.Mutex
	callID  json.RawMessage // the tools/call request's id
	resumed []string        // the Last-Event-IDs of the GETs that resumed
}

func (c *cutServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		last := r.Header.Get("Last-Event-ID")
		c.mu.Lock()
		id := c.callID
		if last != "" {
			c.resumed = append(c.resumed, last)
		}
		c.mu.Unlock()
		if last != "call-1" || id == nil {
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: call-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"answered after the cut\"}]}}\n\n", id)
		return
	}
	if r.Method == http.MethodDelete {
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &req)
	w.Header().Set("Mcp-Session-Id", "cut-1")
	switch req.Method {
	case "initialize":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"cut","version":"1"}}}`, req.ID)
	case "tools/list":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}}`, req.ID)
	case "tools/call":
		c.mu.Lock()
		c.callID = req.ID
		c.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: call-1\nretry: 50\ndata: \n\n") // then the stream ends, the call unanswered
	default:
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted) // a notification
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
	}
}

// A call whose stream the server closes mid-call is resumed with
// Last-Event-ID after the server's retry: delay, and gets its answer.
func TestResumeACutStream(t *testing.T) {
	cut := &cutServer{}
	srv := httptest.NewServer(cut)
	defer srv.Close()
	set, reg, _ := start(t, Spec{Name: "cut", Transport: HTTP, URL: srv.URL, Timeout: 10 * time.Second})
	eventually(t, "the server ready", func() bool { return set.Servers()[0].Status().State == StateReady })
	res, err := call(t, reg, "cut_slow", map[string]any{})
	if err != nil || !strings.Contains(res.Output, "answered after the cut") {
		t.Fatalf("the call: %v %+v", err, res)
	}
	cut.mu.Lock()
	defer cut.mu.Unlock()
	if len(cut.resumed) != 1 || cut.resumed[0] != "call-1" {
		t.Errorf("resumed with %q, want once with the priming event's id", cut.resumed)
	}
}
