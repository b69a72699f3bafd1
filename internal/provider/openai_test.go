package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/config"
)

// replay serves recorded responses of the chat-completions API: the wire
// format as the provider documents it (SSE chunks, tool-call deltas, usage).
type replay struct {
	t        *testing.T
	steps    []func(w http.ResponseWriter)
	calls    atomic.Int32
	lastBody map[string]any
	lastAuth string
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	n := int(r.calls.Add(1)) - 1
	if req.URL.Path != "/v1/chat/completions" {
		r.t.Errorf("path %s", req.URL.Path)
	}
	body, _ := io.ReadAll(req.Body)
	json.Unmarshal(body, &r.lastBody)
	r.lastAuth = req.Header.Get("Authorization")
	r.steps[min(n, len(r.steps)-1)](w)
}

func sse(t *testing.T, file string) func(http.ResponseWriter) {
	data, err := os.ReadFile(filepath.Join("testdata", "openai", file))
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(data)
	}
}

func status(code int, retryAfter string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		w.Write([]byte(`{"error":{"message":"nope"}}`))
	}
}

func setup(t *testing.T, steps ...func(http.ResponseWriter)) (*replay, Model, *OpenAI, *[]time.Duration) {
	t.Helper()
	r := &replay{t: t, steps: steps}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	t.Setenv("TEST_PROVIDER_KEY", "sk-test-123456")
	cat := NewCatalog(&config.Config{Provider: map[string]config.Provider{"local": {
		Options: map[string]any{"baseURL": srv.URL + "/v1", "apiKey": "{env:TEST_PROVIDER_KEY}", "maxRetries": 2.0},
		Models:  map[string]config.Model{"m": {Limit: config.Limit{Context: 1000, Output: 100}, Options: map[string]any{"reasoningEffort": "low"}}},
	}}})
	m, err := cat.Lookup("local/m")
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	o := &OpenAI{retrier: retrier{Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}}
	return r, m, o, &waits
}

func TestOpenAIText(t *testing.T) {
	r, m, o, _ := setup(t, sse(t, "text.sse"))
	var deltas []string
	temp := 0.2
	res, err := o.Stream(context.Background(), Request{Model: m, Params: Params{Temperature: &temp, MaxOutputTokens: 100, Options: m.Options}, System: "be brief",
		Messages: []chat.Message{{Role: chat.RoleUser, Text: "hi"}},
		Tools:    []ToolSpec{{Name: "read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object"}`)}}},
		func(e Event) { deltas = append(deltas, e.TextDelta) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello, world." || res.StopReason != "stop" || res.Usage != (chat.Usage{Input: 12, Output: 4}) || strings.Join(deltas, "|") != "Hello|, world." {
		t.Errorf("%+v %q", res, deltas)
	}
	b := r.lastBody
	if r.lastAuth != "Bearer sk-test-123456" || b["model"] != "m" || b["stream"] != true || b["max_tokens"] != 100.0 || b["temperature"] != 0.2 ||
		b["reasoning_effort"] != "low" || b["apiKey"] != nil || b["baseURL"] != nil {
		t.Errorf("request: auth %q body %v", r.lastAuth, b)
	}
	msgs := b["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" {
		t.Errorf("messages %v", msgs)
	}
	if tools := b["tools"].([]any); tools[0].(map[string]any)["function"].(map[string]any)["name"] != "read" {
		t.Errorf("tools %v", tools)
	}
}

func TestOpenAIToolCalls(t *testing.T) {
	r, m, o, _ := setup(t, sse(t, "tools.sse"))
	history := []chat.Message{{Role: chat.RoleUser, Text: "go"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_0", Tool: "glob", Args: json.RawMessage(`{"pattern":"*"}`)}}},
		{Role: chat.RoleTool, Result: &chat.Result{CallID: "call_0", Tool: "glob", Output: "a.go"}}}
	var events []string
	res, err := o.Stream(context.Background(), Request{Model: m, Messages: history}, func(e Event) {
		if e.ToolCall != nil {
			events = append(events, e.ToolCall.Tool)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].ID != "call_abc" || string(res.ToolCalls[0].Args) != `{"path": "notes.txt"}` ||
		res.ToolCalls[1].Tool != "bash" || string(res.ToolCalls[1].Args) != `{"command": "ls"}` || res.StopReason != "tool_calls" {
		t.Errorf("%+v", res)
	}
	if strings.Join(events, ",") != "read,bash" || res.Usage.Input != 80 {
		t.Errorf("events %v usage %v", events, res.Usage)
	}
	msgs := r.lastBody["messages"].([]any)
	if tc := msgs[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any); tc["id"] != "call_0" ||
		tc["function"].(map[string]any)["arguments"] != `{"pattern":"*"}` {
		t.Errorf("assistant tool call %v", tc)
	}
	if tm := msgs[2].(map[string]any); tm["role"] != "tool" || tm["tool_call_id"] != "call_0" || tm["content"] != "a.go" {
		t.Errorf("tool message %v", tm)
	}
}

func TestOpenAIFailures(t *testing.T) {
	ctx := context.Background()
	req := func(m Model) Request {
		return Request{Model: m, Messages: []chat.Message{{Role: chat.RoleUser, Text: "hi"}}}
	}
	noop := func(Event) {}

	r, m, o, _ := setup(t, status(401, ""))
	_, err := o.Stream(ctx, req(m), noop)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 401 || !strings.Contains(err.Error(), "refused the API key") || r.calls.Load() != 1 {
		t.Errorf("401: %v after %d calls", err, r.calls.Load())
	}

	r, m, o, waits := setup(t, status(429, "7"), status(503, ""), sse(t, "text.sse"))
	res, err := o.Stream(ctx, req(m), noop)
	if err != nil || res.Text != "Hello, world." || r.calls.Load() != 3 {
		t.Fatalf("429 then 503 then success: %v after %d calls", err, r.calls.Load())
	}
	if len(*waits) != 2 || (*waits)[0] != 7*time.Second || (*waits)[1] != time.Second {
		t.Errorf("waits %v: Retry-After must be honoured, then back off", *waits)
	}

	r, m, o, _ = setup(t, status(500, ""))
	if _, err := o.Stream(ctx, req(m), noop); !errors.As(err, &se) || se.Status != 500 || r.calls.Load() != 3 {
		t.Errorf("5xx: bounded retries: %v after %d calls", err, r.calls.Load())
	}

	for _, f := range []string{"cut.sse", "malformed.sse"} {
		_, m, o, _ := setup(t, sse(t, f))
		if _, err := o.Stream(ctx, req(m), noop); !errors.Is(err, ErrStream) {
			t.Errorf("%s: %v", f, err)
		}
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, m, o, _ = setup(t, sse(t, "text.sse"))
	if _, err := o.Stream(cancelled, req(m), noop); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func FuzzReadStream(f *testing.F) {
	for _, name := range []string{"text.sse", "tools.sse", "cut.sse", "malformed.sse"} {
		data, _ := os.ReadFile(filepath.Join("testdata", "openai", name))
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := readStream(strings.NewReader(string(data)), func(Event) {})
		if err != nil {
			return
		}
		for _, c := range res.ToolCalls {
			if !json.Valid(c.Args) || c.ID == "" {
				t.Fatalf("bad tool call %+v", c)
			}
		}
	})
}

// A provider that nothing listens for is said as such: which provider,
// which endpoint, that it was retried, and what to check.
func TestUnreachableProviderSaysWhatToCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	cat := NewCatalog(&config.Config{Provider: map[string]config.Provider{"local": {
		Options: map[string]any{"baseURL": "http://" + addr + "/v1", "maxRetries": 2.0},
		Models:  map[string]config.Model{"m": {}},
	}}})
	m, err := cat.Lookup("local/m")
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	o := &OpenAI{retrier: retrier{Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}}
	_, err = o.Stream(context.Background(), Request{Model: m, Messages: []chat.Message{{Role: chat.RoleUser, Text: "hi"}}}, func(Event) {})
	var ne *NetError
	if !errors.As(err, &ne) || len(waits) != 2 {
		t.Fatalf("%v (retries waited %v)", err, waits)
	}
	want := "could not reach local at http://" + addr + "/v1 (retried 2 times): "
	if !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "; check that it is running and that provider.local.options.baseURL is right") {
		t.Errorf("the error: %v", err)
	}
}
