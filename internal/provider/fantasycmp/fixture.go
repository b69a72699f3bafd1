// Package fantasycmp measures the cost of one model-call step through
// Podcode's providers and through charm.land/fantasy's (see README.md).
// This file and fantasy.go are what both sides share: the step's history,
// tools and canned answers, the transports, and fantasy's side of a step;
// the benchmarks are in the _test.go files.
package fantasycmp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

// The step every benchmark makes: the model is called in the middle of a
// tool loop, with the whole history so far.
const (
	Pairs      = 50   // assistant tool calls, each answered by a tool result
	ResultSize = 1024 // bytes of each tool result
	SystemSize = 2048 // bytes of the system prompt
	MaxTokens  = 8192 // the output limit every request asks for
	Key        = "sk-test"
)

// History is a user prompt, then Pairs pairs of an assistant message (a
// sentence and a call of read) and the call's result: 1 + 2*Pairs
// messages, every tool call answered.
func History() []chat.Message {
	msgs := []chat.Message{{Role: chat.RoleUser, Text: "Find where the session store opens its database and make it retry on SQLITE_BUSY."}}
	for i := range Pairs {
		id := fmt.Sprintf("toolu_%03d", i)
		path := fmt.Sprintf("internal/store/file%02d.go", i)
		msgs = append(msgs,
			chat.Message{Role: chat.RoleAssistant, Text: "Let me read " + path + ".",
				ToolCalls: []chat.ToolCall{{ID: id, Tool: "read", Args: json.RawMessage(`{"path":"` + path + `","offset":1,"limit":400}`)}}},
			chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: id, Tool: "read", Output: fileText(path, ResultSize)}})
	}
	return msgs
}

// fileText is n bytes of numbered Go-like lines, different for each path.
func fileText(path string, n int) string {
	var b strings.Builder
	for line := 1; b.Len() < n; line++ {
		fmt.Fprintf(&b, "%5d\tfunc (s *Store) step%d(ctx context.Context) error { return s.db.ExecContext(ctx, %q) }\n", line, line, path)
	}
	return b.String()[:n]
}

// System is SystemSize bytes of instructions.
func System() string {
	var b strings.Builder
	for i := 1; b.Len() < SystemSize; i++ {
		fmt.Fprintf(&b, "Rule %d: read the code before you change it, keep changes small, run the tests, and say what you did.\n", i)
	}
	return b.String()[:SystemSize]
}

// A Tool is a tool as an agent offers it: Podcode's provider.ToolSpec
// (kept apart from it so that this package does not import Podcode's
// providers and the SDK versions they pin).
type Tool struct {
	Name, Description string
	Parameters        json.RawMessage // a JSON schema
}

// Tools are ten tools with small schemas.
func Tools() []Tool {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	num := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
	tool := func(name, desc string, props map[string]any, required ...string) Tool {
		schema, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
		if err != nil {
			panic(err)
		}
		return Tool{Name: name, Description: desc, Parameters: schema}
	}
	return []Tool{
		tool("read", "Read a file of the project.", map[string]any{"path": str("the file"), "offset": num("first line"), "limit": num("lines")}, "path"),
		tool("write", "Write a file of the project.", map[string]any{"path": str("the file"), "content": str("its new content")}, "path", "content"),
		tool("edit", "Replace a string in a file.", map[string]any{"path": str("the file"), "old": str("the text"), "new": str("its replacement")}, "path", "old", "new"),
		tool("bash", "Run a shell command.", map[string]any{"command": str("the command"), "timeout": num("milliseconds")}, "command"),
		tool("grep", "Search files for a pattern.", map[string]any{"pattern": str("a regexp"), "path": str("where")}, "pattern"),
		tool("glob", "List files matching a pattern.", map[string]any{"pattern": str("a glob")}, "pattern"),
		tool("ls", "List a directory.", map[string]any{"path": str("the directory")}),
		tool("webfetch", "Fetch a URL.", map[string]any{"url": str("the URL"), "format": str("text or markdown")}, "url"),
		tool("todo", "Update the todo list.", map[string]any{"items": map[string]any{"type": "array", "items": str("a task")}}, "items"),
		tool("task", "Hand a task to a subagent.", map[string]any{"prompt": str("what to do"), "agent": str("which agent")}, "prompt"),
	}
}

// Loopback starts a server on 127.0.0.1 that reads each request's body
// and answers it with stream in a single write.
func Loopback(tb testing.TB, stream []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Content-Length", strconv.Itoa(len(stream)))
		w.Write(stream)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// MemoryURL is the base URL of requests that a Memory transport answers;
// it is never dialled.
const MemoryURL = "http://model.invalid"

// Memory is an http.RoundTripper that answers every request with Stream,
// with no network and no server: it reads the body (keeping the last one
// when Keep is set) and hands back Stream.
type Memory struct {
	Stream []byte
	Keep   bool

	mu   sync.Mutex
	last []byte
}

func (m *Memory) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	var err error
	if m.Keep {
		body, err = io.ReadAll(r.Body)
	} else {
		_, err = io.Copy(io.Discard, r.Body)
	}
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if m.Keep {
		m.mu.Lock()
		m.last = body
		m.mu.Unlock()
	}
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: r,
		Header:        http.Header{"Content-Type": {"text/event-stream"}},
		ContentLength: int64(len(m.Stream)), Body: io.NopCloser(bytes.NewReader(m.Stream))}, nil
}

// Client is an HTTP client on m.
func (m *Memory) Client() *http.Client { return &http.Client{Transport: m} }

// Body is the last request body m read, when m.Keep is set.
func (m *Memory) Body() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// Answer is what a step must get out of the stream, whichever library
// parsed it.
type Answer struct {
	Text     string
	CallID   string // AnyID: any ID will do (Gemini's calls come without one)
	CallTool string
	CallArgs string
}

// AnyID stands for any call ID in a wanted Answer.
const AnyID = "*"

// Check fails tb unless a is want (call arguments compared as JSON).
func (a Answer) Check(tb testing.TB, want Answer) {
	tb.Helper()
	got := a
	if want.CallID == AnyID && got.CallID != "" {
		got.CallID = AnyID
	}
	if got.CallArgs != want.CallArgs && jsonEqual(got.CallArgs, want.CallArgs) {
		got.CallArgs = want.CallArgs // the same object, its keys in another order
	}
	if got != want {
		tb.Fatalf("answer %+v, want %+v", a, want)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// A Side is one library's way of making a step: New returns the step, for
// a client at baseURL on hc (nil: the library's default transport).
type Side struct {
	Name string
	New  func(tb testing.TB, baseURL string, hc *http.Client) func() (Answer, error)
}

// Bench is one step of a tool loop through each side, in three settings:
//
//   - step: to a loopback server that answers with stream;
//   - client: to a Memory transport that answers the same (no network, no
//     server: the client's own cost);
//   - request: to a Memory transport that answers with empty, a complete
//     answer without content (mostly the cost of building and encoding
//     the request).
//
// Every step must answer want (the request setting: nothing). Each
// side's benchmark is named lib=<side>, so that benchstat -col /lib puts
// the sides side by side.
func Bench(b *testing.B, stream, empty []byte, want Answer, sides ...Side) {
	cases := []struct {
		name   string
		stream []byte
		want   Answer
		memory bool
	}{
		{"step", stream, want, false},
		{"client", stream, want, true},
		{"request", empty, Answer{}, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			url, hc := MemoryURL, (*http.Client)(nil)
			if c.memory {
				hc = (&Memory{Stream: c.stream}).Client()
			} else {
				url = Loopback(b, c.stream)
			}
			for _, s := range sides {
				b.Run("lib="+s.Name, func(b *testing.B) {
					step := s.New(b, url, hc)
					b.ReportAllocs()
					for b.Loop() {
						a, err := step()
						if err != nil {
							b.Fatal(err)
						}
						a.Check(b, c.want)
					}
				})
			}
		})
	}
}

// CheckSides checks that every side reads stream into want, over the
// loopback server and in memory, and sends an equivalent request: a JSON
// object in which each string of counts occurs as often as it says. It
// logs the bodies' sizes and top-level fields.
func CheckSides(t *testing.T, stream []byte, want Answer, counts map[string]int, sides ...Side) {
	t.Helper()
	url := Loopback(t, stream)
	for _, s := range sides {
		a, err := s.New(t, url, nil)()
		if err != nil {
			t.Fatalf("%s over loopback: %v", s.Name, err)
		}
		a.Check(t, want)
		mem := &Memory{Stream: stream, Keep: true}
		if a, err = s.New(t, MemoryURL, mem.Client())(); err != nil {
			t.Fatalf("%s in memory: %v", s.Name, err)
		}
		a.Check(t, want)
		body := mem.Body()
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatalf("%s: body %.200s: %v", s.Name, body, err)
		}
		t.Logf("%s: request body of %d bytes, fields %v", s.Name, len(body), slices.Sorted(maps.Keys(fields)))
		for str, n := range counts {
			if got := bytes.Count(body, []byte(str)); got != n {
				t.Errorf("%s: %s %d times in the body, want %d", s.Name, str, got, n)
			}
		}
	}
}

// sse writes events given as name, data pairs; a name "" writes a
// data-only event (Gemini's stream).
func sse(pairs ...string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i] != "" {
			b.WriteString("event: " + pairs[i] + "\n")
		}
		b.WriteString("data: " + pairs[i+1] + "\n\n")
	}
	return b.Bytes()
}
