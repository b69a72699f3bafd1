//lint:file-ignore SA1019 the test server uses sampling, deprecated from protocol 2026-07-28 (SEP-2577), not removed.
package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/apptest"
)

// askingMCPServer is a Go SDK MCP server on loopback whose tool "ask"
// elicits a form (SEP-1034's fields, all with defaults) and "sample" has
// the client's model answer; each returns what it got as JSON.
func askingMCPServer(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "asking", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},
		"status":{"type":"string","enum":["active","inactive"],"default":"active"},"verified":{"type":"boolean","default":true}}}`)
	reply := func(v any, err error) (*sdk.CallToolResult, error) {
		if err != nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "failed: " + err.Error()}}}, nil
		}
		b, _ := json.Marshal(v)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
	}
	srv.AddTool(&sdk.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return reply(req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Who are you?", RequestedSchema: schema}))
	})
	srv.AddTool(&sdk.Tool{Name: "sample", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return reply(req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 100,
			Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Name a colour."}}}}))
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// apiEvent is one event of /events.
type apiEvent struct {
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
}

// followEvents reads /events into a channel until the test ends.
func followEvents(t *testing.T, srv *httptest.Server, token string) <-chan apiEvent {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan apiEvent, 256)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				var ev apiEvent
				if json.Unmarshal(data, &ev) == nil {
					out <- ev
				}
			}
		}
	}()
	return out
}

func waitEvent(t *testing.T, events <-chan apiEvent, typ string) apiEvent {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Type == typ {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s within 30 s", typ)
		}
	}
}

// lastToolOutput is the output of the last tool result of session id.
func lastToolOutput(t *testing.T, srv *httptest.Server, token, id string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+"/sessions/"+id+"/messages", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var msgs []struct {
		Result *struct {
			Output string `json:"output"`
		} `json:"result"`
	}
	decodeJSON(res, &msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Result != nil {
			return msgs[i].Result.Output
		}
	}
	t.Fatalf("no tool result in %d messages", len(msgs))
	return ""
}

// An MCP server's questions during an API turn, end to end: Podcode's
// client, the guard, the API's asker, /events and /permissions. A form
// comes with permission.asked's question.form; values that do not fit it
// answer 400 and the question waits; the answer reaches the server
// completed with the defaults. A sampling request asks yes/no first, then
// the session's model answers through chat.params (a plugin sees agent
// mcp:probe and caps nothing: Podcode's cap stands).
func TestMCPServerQuestionsThroughTheAPI(t *testing.T) {
	const token = "forms-token"
	p := apptest.Project{
		User: map[string]any{"mcp": map[string]any{"probe": map[string]any{"type": "remote", "url": askingMCPServer(t) + "/mcp"}}},
		Files: map[string]string{"watch.js": `let seen = [];
export default { id: "watch", server: () => ({
  "chat.params": (p) => { seen.push(p.agent + " " + p.sessionID + " " + p.maxOutputTokens); return { ...p, maxOutputTokens: 1e9 } },
  tool: () => [{ id: "seen", description: "what chat.params saw", parameters: { type: "object" },
    execute: () => ({ title: "seen", output: seen.join("\n") }) }],
}) }`},
		Plugins: []string{"./watch.js"},
	}
	s := New(newAgent(t, p), token)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	c := newContract(t, srv, token)
	events := followEvents(t, srv, token)
	sess := c.want(201, "POST", "/sessions", `{}`)
	id := sess["id"].(string)

	c.want(202, "POST", "/sessions/"+id+"/messages", `{"text": "/tool probe_ask {}", "async": true}`)
	asked := waitEvent(t, events, EventPermissionAsked)
	q, _ := asked.Properties["question"].(map[string]any)
	form, _ := q["form"].(map[string]any)
	if q["sessionID"] != id || q["tool"] != "probe_ask" || form["server"] != "probe" || form["message"] != "Who are you?" {
		t.Fatalf("the question: %v", q)
	}
	if fields, _ := form["fields"].([]any); len(fields) != 4 {
		t.Fatalf("the form's fields: %v", form["fields"])
	}
	qid := q["id"].(string)
	if code, body := call(t, srv, "POST", "/permissions/"+qid, token, `{"action": "accept", "content": {"age": "old"}}`); code != 400 || !strings.Contains(fmt.Sprint(body), `field \"age\"`) && !strings.Contains(fmt.Sprint(body), `field "age"`) {
		t.Fatalf("values that do not fit: %d %v", code, body)
	}
	if code, body := call(t, srv, "POST", "/permissions/"+qid, token, `{"action": "accept", "content": {"name": "Ann", "verified": false}}`); code != 200 {
		t.Fatalf("the answer: %d %v", code, body)
	}
	waitEvent(t, events, "turn.finished")
	if out := lastToolOutput(t, srv, token, id); out != `{"action":"accept","content":{"age":30,"name":"Ann","status":"active","verified":false}}` {
		t.Fatalf("the server got %s", out)
	}

	// Declined with allow false, as a yes/no client answers.
	c.want(202, "POST", "/sessions/"+id+"/messages", `{"text": "/tool probe_ask {}", "async": true}`)
	q, _ = waitEvent(t, events, EventPermissionAsked).Properties["question"].(map[string]any)
	c.want(200, "POST", "/permissions/"+q["id"].(string), `{"allow": false}`)
	waitEvent(t, events, "turn.finished")
	if out := lastToolOutput(t, srv, token, id); out != `{"action":"decline"}` {
		t.Fatalf("the server got %s", out)
	}

	c.want(202, "POST", "/sessions/"+id+"/messages", `{"text": "/tool probe_sample {}", "async": true}`)
	q, _ = waitEvent(t, events, EventPermissionAsked).Properties["question"].(map[string]any)
	if q["form"] != nil || q["tool"] != "probe_sample" || !strings.Contains(fmt.Sprint(q["reason"]), "wants the model to answer") {
		t.Fatalf("the sampling question: %v", q)
	}
	if code, body := call(t, srv, "POST", "/permissions/"+q["id"].(string), token, `{"allow": true, "content": {"x": 1}}`); code != 400 {
		t.Fatalf("content for a yes/no question: %d %v", code, body)
	}
	c.want(200, "POST", "/permissions/"+q["id"].(string), `{"allow": true}`)
	waitEvent(t, events, "turn.finished")
	out := lastToolOutput(t, srv, token, id)
	if !strings.Contains(out, `"text":"You said: Name a colour."`) || !strings.Contains(out, `"model":"offline/echo"`) {
		t.Fatalf("the server got %s", out)
	}
	c.want(200, "POST", "/sessions/"+id+"/messages", `{"text": "/tool seen {}"}`)
	if seen := lastToolOutput(t, srv, token, id); !strings.Contains(seen, "mcp:probe "+id+" 100") {
		t.Fatalf("chat.params saw %q, not the sampling call", seen)
	}
	s.Wait()
}
