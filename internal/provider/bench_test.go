package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

// BenchmarkStep is one model call of each API at the end of a 50-call turn
// (100 messages of history, 10 tools, a 2 KB system prompt), as the turn
// makes it: the request built and sent to a server on loopback, whose
// answer, the API's recorded stream of a text and a tool call
// (testdata/<api>), is read into the answer. The server writes that
// stream in one write and reads nothing it need not, so the figures are
// the client's: Podcode's own chat-completions client, and the official
// SDKs behind the other APIs.
//
//	go test -run '^$' -bench Step -benchmem ./internal/provider/
func BenchmarkStep(b *testing.B) {
	history := []chat.Message{{Role: chat.RoleUser, Text: "Read the notes and tell me what they say."}}
	for i := range 50 {
		id := fmt.Sprint("call_", i)
		history = append(history,
			chat.Message{Role: chat.RoleAssistant, Model: "bench/model", ToolCalls: []chat.ToolCall{{ID: id, Tool: "read", Args: json.RawMessage(`{"path":"notes.txt"}`)}}},
			chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: id, Tool: "read", Output: strings.Repeat("     1\tmeeting at noon, and more text to look like a file\n", 18)}})
	}
	var tools []ToolSpec
	for i := range 10 {
		tools = append(tools, ToolSpec{Name: fmt.Sprint("tool", i), Description: "a tool that does things",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the path"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`)})
	}
	system := strings.Repeat("You are a careful engineer. ", 80)
	for _, c := range []struct {
		name, api, model, file string
		provider               func(*http.Client) Provider
	}{
		{"openai-chat", APIChat, "local/m", "openai/tools.sse", func(h *http.Client) Provider { return &OpenAI{Client: h} }},
		{"anthropic", APIAnthropic, "anthropic/claude-haiku-4-5", "anthropic/thinking-tools.sse", func(h *http.Client) Provider { return &Anthropic{HTTP: h} }},
		{"openai-responses", APIResponses, "openai/gpt-5.4", "responses/reasoning-tools.sse", func(h *http.Client) Provider { return &Responses{HTTP: h} }},
		{"gemini", APIGemini, "gemini/gemini-3-flash-preview", "gemini/thinking-tools.sse", func(h *http.Client) Provider { return &Gemini{HTTP: h} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			answer := stream(b, strings.Split(c.file, "/")[0], strings.Split(c.file, "/")[1])
			url := cannedServer(b, answer)
			m, _ := NewCatalog(nil).Lookup(c.model)
			m.ProviderID, m.ModelID = "bench", "model" // the history's reasoning goes back: same model
			m.Connection = Connection{API: c.api, BaseURL: url, APIKey: "k"}
			hc := &http.Client{Transport: modelTransport}
			p := c.provider(hc)
			req := Request{Model: m, Params: Params{MaxOutputTokens: 4096, Options: map[string]any{}}, System: system, Messages: history, Tools: tools, SessionID: "ses_bench"}
			b.ReportAllocs()
			for b.Loop() {
				req.Tools = append([]ToolSpec(nil), tools...) // a new slice each call, as the agent's
				res, err := p.Stream(context.Background(), req, func(Event) {})
				if err != nil || len(res.ToolCalls) == 0 {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// cannedServer answers every POST on loopback with answer as an event
// stream, in one write of the whole response, after reading the request.
func cannedServer(b *testing.B, answer []byte) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 64<<10)
		for {
			if _, err := r.Body.Read(buf); err != nil {
				break
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Length", fmt.Sprint(len(answer)))
		w.Write(answer)
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
