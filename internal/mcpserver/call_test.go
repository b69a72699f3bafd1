//lint:file-ignore SA1019 the client reads the server's log messages, as clients of 2025-11-25 do.

package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
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
)

// notes records what a client was sent.
type notes struct {
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	logs     []*mcp.LoggingMessageParams
	asked    []string
}

func (n *notes) options(allow bool) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			n.mu.Lock()
			n.progress = append(n.progress, r.Params)
			n.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			n.mu.Lock()
			n.logs = append(n.logs, r.Params)
			n.mu.Unlock()
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			n.mu.Lock()
			n.asked = append(n.asked, r.Params.Message)
			n.mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": allow}}, nil
		},
	}
}

// A permission question of a call is put to the MCP client that made it,
// when it answers elicitations: its yes runs the call, its no refuses it.
// While bash runs, its output comes as progress to a client that gave a
// progress token; the hooks that ran come as log messages once it set a
// level.
func TestCallAsksItsClientAndReportsProgressAndHooks(t *testing.T) {
	a, _ := bootProject(t) // bash is on "ask"
	var yes notes
	cs := dial(t, New(a), yes.options(true))
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo compiling; sleep 0.5; echo linking; sleep 0.5; touch ran"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("allowed bash failed: %s", text(t, res))
	}
	if _, err := os.Stat(filepath.Join(a.Cwd, "ran")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	yes.mu.Lock()
	if len(yes.asked) != 1 || !strings.Contains(yes.asked[0], "may bash run with") || !strings.Contains(yes.asked[0], "touch ran") {
		t.Errorf("questions asked: %q", yes.asked)
	}
	var lines []string
	for _, p := range yes.progress {
		if p.ProgressToken != "tok-1" {
			t.Errorf("progress with token %v", p.ProgressToken)
		}
		lines = append(lines, p.Message)
	}
	if len(lines) < 2 || lines[0] != fmt.Sprintf("%d bytes of output", len("compiling\n")) {
		t.Errorf("progress messages %q: bash's output did not come as it ran", lines)
	}
	yes.mu.Unlock()
	// The SDK's client hands notifications over apart from the answer: the
	// last may come just after it.
	var got string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var hooks []string
		yes.mu.Lock()
		for _, l := range yes.logs {
			m, _ := l.Data.(map[string]any)
			hooks = append(hooks, fmt.Sprint(m["message"]))
		}
		yes.mu.Unlock()
		got = strings.Join(hooks, "\n")
		if strings.Contains(got, "PreToolUse: test-guard") && strings.Contains(got, "PostToolUse: test-post") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(got, "PreToolUse: test-guard") || !strings.Contains(got, "PostToolUse: test-post") {
		t.Errorf("log messages:\n%s", got)
	}

	var no notes
	cs = dial(t, New(a), no.options(false))
	res = call(t, cs, "bash", map[string]any{"command": "touch refused"})
	if !res.IsError {
		t.Errorf("bash the client refused ran: %s", text(t, res))
	}
	if _, err := os.Stat(filepath.Join(a.Cwd, "refused")); !os.IsNotExist(err) {
		t.Errorf("the refused command ran: %v", err)
	}
	no.mu.Lock()
	if len(no.logs) != 0 {
		t.Errorf("log messages sent before the client set a level: %v", no.logs)
	}
	no.mu.Unlock()
}

// An image the read tool returns reaches the MCP client as image content,
// after the text that describes it.
func TestReadAnImageOverMCP(t *testing.T) {
	a, _ := bootProject(t)
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Cwd, "dot.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, New(a))
	res := call(t, cs, "read", map[string]any{"path": "dot.png"})
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("read dot.png: isError %v, %d contents", res.IsError, len(res.Content))
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "image/png") {
		t.Errorf("first content %#v", res.Content[0])
	}
	ic, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || ic.MIMEType != "image/png" || !bytes.Equal(ic.Data, buf.Bytes()) {
		t.Errorf("second content %#v", res.Content[1])
	}
}

// sseEvent is one server-sent event.
type sseEvent struct{ id, name, data, retry string }

// readEvents reads r's events until it ends.
func readEvents(t *testing.T, r *bufio.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var e sseEvent
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && err == nil:
			if e != (sseEvent{}) {
				out = append(out, e)
			}
			e = sseEvent{}
		case strings.HasPrefix(line, "id:"):
			e.id = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "event:"):
			e.name = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			e.data += strings.TrimSpace(line[5:])
		case strings.HasPrefix(line, "retry:"):
			e.retry = strings.TrimSpace(line[6:])
		}
		if err != nil {
			return out
		}
	}
}

// A call's event stream over HTTP starts with a priming event; a call
// that outlasts PollAfter has its stream closed with a retry: delay, and
// the client that comes back with Last-Event-ID gets the result (SEP-1699,
// as the conformance suite's server-sse-polling checks it).
func TestLongCallStreamIsPrimedClosedAndResumed(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{})
	s := New(a)
	t.Cleanup(s.Close)
	srv := httptest.NewServer(s.Handler(HTTPOptions{PollAfter: 300 * time.Millisecond}))
	t.Cleanup(srv.Close)
	post := func(session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	init := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	session := init.Header.Get("Mcp-Session-Id")
	// Its answer, as a client waits for it: the stream is primed before
	// the server has handled initialize, and a call sent before that is
	// refused ("invalid during session initialization").
	initAnswer := readEvents(t, bufio.NewReader(init.Body))
	init.Body.Close()
	if session == "" || !strings.Contains(fmt.Sprint(initAnswer), `"result"`) {
		t.Fatalf("initialize: %s, session %q, answer %+v", init.Status, session, initAnswer)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	res := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 1; echo slept"}}}`)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("tools/call answered %s %s", res.Status, ct)
	}
	first := readEvents(t, bufio.NewReader(res.Body))
	res.Body.Close()
	if len(first) < 2 || first[0].id == "" || first[0].data != "" {
		t.Fatalf("the stream did not start with a priming event: %+v", first)
	}
	last := first[len(first)-1]
	if last.retry != "1000" {
		t.Fatalf("the stream of a call past PollAfter did not end with retry: 1000: %+v", first)
	}
	if strings.Contains(fmt.Sprint(first), "slept") {
		t.Fatalf("the call finished before PollAfter: %+v", first)
	}
	lastID := first[0].id
	for _, e := range first {
		if e.id != "" {
			lastID = e.id
		}
	}
	var got []sseEvent
	for i := 0; i < 10 && !strings.Contains(fmt.Sprint(got), "slept"); i++ {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Last-Event-ID", lastID)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("resuming: %s", res.Status)
		}
		evs := readEvents(t, bufio.NewReader(res.Body))
		res.Body.Close()
		for _, e := range evs {
			if e.id != "" {
				lastID = e.id
			}
		}
		got = append(got, evs...)
	}
	var answer struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct{ Text string }
		}
	}
	for _, e := range got {
		if strings.Contains(e.data, `"id":2`) {
			if err := json.Unmarshal([]byte(e.data), &answer); err != nil {
				t.Fatal(err)
			}
		}
	}
	if answer.ID != 2 || len(answer.Result.Content) == 0 || !strings.Contains(answer.Result.Content[0].Text, "slept") {
		t.Fatalf("the resumed stream did not bring the result: %+v", got)
	}
}

// A plugin's tool that asks its user a form (ctx.ask) has it put to the
// MCP client that made the call, as the elicitation the tool wrote; what
// the client leaves out gets the form's defaults. With nobody to ask, the
// tool's promise rejects and the call fails, saying so.
func TestPluginToolFormGoesToTheCallingClient(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{
		Plugins: []string{"./asker.js"},
		Files: map[string]string{"asker.js": `export default {id: "asker", server: () => ({tool: () => [{
  id: "pick_color", description: "Asks for a color.", parameters: {type: "object", properties: {}},
  execute: async (args, ctx) => {
    const a = await ctx.ask({message: "Which color?", schema: {type: "object", properties: {
      color: {type: "string", enum: ["red", "blue"], enumNames: ["Red", "Blue"], default: "red"},
      shade: {type: "integer", default: 3}}}})
    return {title: "pick_color", output: a.action + " " + JSON.stringify(a.content)}
  },
}]})}`},
	})
	var asked *mcp.ElicitParams
	cs := dial(t, New(a), &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = r.Params
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
		},
	})
	res := call(t, cs, "pick_color", map[string]any{})
	if out := text(t, res); res.IsError || out != `accept {"color":"blue","shade":3}` {
		t.Errorf("pick_color: isError %v, %q", res.IsError, out)
	}
	if asked == nil || !strings.Contains(asked.Message, "asker asks, through Podcode: Which color?") {
		t.Fatalf("elicitation %+v", asked)
	}
	if schema, _ := json.Marshal(asked.RequestedSchema); !strings.Contains(string(schema), `"enumNames":["Red","Blue"]`) {
		t.Errorf("the schema was not passed on as the tool wrote it: %s", schema)
	}
	cs, _ = connect(t, New(a)) // a client that answers no elicitation
	res = call(t, cs, "pick_color", map[string]any{})
	if out := text(t, res); !res.IsError || !strings.Contains(out, "nobody can answer a permission question here") {
		t.Errorf("pick_color with nobody to ask: isError %v, %q", res.IsError, out)
	}
}
