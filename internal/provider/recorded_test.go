package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/provider/wiretest"
)

// Recorded streams of each API (testdata/<api>/*.sse, in the providers'
// own wire format: their event types, a tool call's arguments split across
// events, thinking and its signature, cache usage, errors mid-stream, a
// stream cut short) read into the answer they carry.

func stream(t testing.TB, api, name string) []byte {
	t.Helper()
	return wiretest.Recorded(t, filepath.Join("testdata", api, name))
}

func TestAnthropicRecordedStreams(t *testing.T) {
	ctx := context.Background()
	req := func(m Model) Request {
		return Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}
	}
	_, m, p, _ := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Raw: stream(t, "anthropic", "thinking-tools.sse")}})
	var streamed, thought strings.Builder
	res, err := p.Stream(ctx, req(m), func(e Event) { streamed.WriteString(e.TextDelta); thought.WriteString(e.ReasoningDelta) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Let me check the weather." || streamed.String() != res.Text || res.StopReason != "tool_calls" ||
		len(res.ToolCalls) != 1 || res.ToolCalls[0].ID != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" || string(res.ToolCalls[0].Args) != `{"location": "Paris, France"}` {
		t.Errorf("answer %+v", res)
	}
	if len(res.Reasoning) != 1 || !strings.HasPrefix(res.Reasoning[0].Signature, "EqQBCgIYAhIM") ||
		res.Reasoning[0].Text != "The user wants the weather in Paris. I should call get_weather with the city." || thought.String() != res.Reasoning[0].Text {
		t.Errorf("reasoning %+v", res.Reasoning)
	}
	if res.Usage != (chat.Usage{Input: 2 + 412 + 18230, CacheRead: 18230, CacheWrite: 412, Output: 89}) {
		t.Errorf("usage %+v", res.Usage)
	}

	_, m, p, _ = anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Raw: stream(t, "anthropic", "redacted.sse")}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); err != nil || res.Text != "Done." || len(res.Reasoning) != 1 ||
		!strings.HasPrefix(res.Reasoning[0].Data, "EmwKAhgB") || res.Usage.Output != 12 {
		t.Errorf("redacted: %v %+v", err, res)
	}

	srv, m, p, _ := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Raw: stream(t, "anthropic", "overloaded.sse")}})
	res, err = p.Stream(ctx, req(m), func(Event) {})
	var se *StatusError
	if !errors.As(err, &se) || se.Type != "overloaded_error" || res.Text != "I was about to" || len(srv.Requests()) != 1 {
		t.Errorf("overloaded after text: %v %q, %d requests", err, res.Text, len(srv.Requests()))
	}

	_, m, p, _ = anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Raw: stream(t, "anthropic", "cut.sse")}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); !errors.Is(err, ErrStream) || res.Text != "Half an ans" {
		t.Errorf("cut: %v %q", err, res.Text)
	}
}

func TestResponsesRecordedStreams(t *testing.T) {
	ctx := context.Background()
	req := func(m Model) Request {
		return Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}
	}
	_, m, p, _ := responsesSetup(t, "openai/gpt-5.4", wiretest.Answers{{Raw: stream(t, "responses", "reasoning-tools.sse")}})
	res, err := p.Stream(ctx, req(m), func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reasoning) != 1 || res.Reasoning[0].ID != "rs_68af4030" || !strings.HasPrefix(res.Reasoning[0].Data, "gAAAAA") ||
		res.Reasoning[0].Text != "**Checking the weather**\n\nI need the forecast for Paris." {
		t.Errorf("reasoning %+v", res.Reasoning)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].ID != "call_DF3wZtLHv5eBNfURjvI8MULJ" || string(res.ToolCalls[0].Args) != `{"location":"Paris, France"}` ||
		res.StopReason != "tool_calls" || res.Usage != (chat.Usage{Input: 2312, CacheRead: 2048, Output: 154, Reasoning: 128}) {
		t.Errorf("answer %+v", res)
	}

	// Cut after its reasoning item: the summary is kept to be shown, the
	// encrypted item is not (the output it led to never came).
	cut := stream(t, "responses", "reasoning-tools.sse")
	cut = cut[:bytes.Index(cut, []byte("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":9"))]
	_, m, p, _ = responsesSetup(t, "openai/gpt-5.4", wiretest.Answers{{Raw: cut}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); !errors.Is(err, ErrStream) || len(res.Reasoning) != 1 || res.Reasoning[0].Data != "" ||
		res.Reasoning[0].ID != "" || !strings.HasPrefix(res.Reasoning[0].Text, "**Checking") {
		t.Errorf("cut after reasoning: %v %+v", err, res.Reasoning)
	}

	_, m, p, _ = responsesSetup(t, "openai/gpt-5.4", wiretest.Answers{{Raw: stream(t, "responses", "failed.sse")}})
	var se *StatusError
	if res, err := p.Stream(ctx, req(m), func(Event) {}); !errors.As(err, &se) || !strings.Contains(err.Error(), "The model failed to generate a response") || res.Text != "Starting" {
		t.Errorf("failed: %v %q", err, res.Text)
	}

	_, m, p, _ = responsesSetup(t, "openai/gpt-5.4", wiretest.Answers{{Raw: stream(t, "responses", "incomplete.sse")}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); err != nil || res.StopReason != "length" || res.Text != "A long answer that" {
		t.Errorf("incomplete: %v %+v", err, res)
	}
}

func TestGeminiRecordedStreams(t *testing.T) {
	ctx := context.Background()
	req := func(m Model) Request {
		return Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}
	}
	_, m, p, _ := geminiSetup(t, "gemini/gemini-3-flash-preview", wiretest.Answers{{Raw: stream(t, "gemini", "thinking-tools.sse")}})
	res, err := p.Stream(ctx, req(m), func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Let me look." || len(res.ToolCalls) != 2 || res.ToolCalls[0].Signature != "CiQB0e2Kb6ZRVnI0f1m6d2yeGVmvZ2Q2nFqf0hHlVbE8PqBvGU8=" ||
		res.ToolCalls[1].Signature != "" || string(res.ToolCalls[1].Args) != `{"pattern":"*.md"}` || res.StopReason != "tool_calls" {
		t.Errorf("answer %+v", res)
	}
	if res.Usage != (chat.Usage{Input: 5120, CacheRead: 4096, Output: 70, Reasoning: 40}) || len(res.Reasoning) != 1 || !strings.HasPrefix(res.Reasoning[0].Text, "**Finding the file**") {
		t.Errorf("usage %+v reasoning %+v", res.Usage, res.Reasoning)
	}
	_, m, p, _ = geminiSetup(t, "gemini/gemini-2.5-flash", wiretest.Answers{{Raw: stream(t, "gemini", "cut.sse")}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); !errors.Is(err, ErrStream) || res.Text != "Half" {
		t.Errorf("cut: %v %q", err, res.Text)
	}
}

// body is a transport that answers every request with one response body:
// what a fuzzer gives, as if the provider had sent it.
type body struct {
	data        []byte
	contentType string
}

func (b body) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {b.contentType}}, Body: io.NopCloser(bytes.NewReader(b.data)), Request: r}, nil
}

// fuzzStream feeds data to p as a provider's stream: whatever it holds,
// the call returns (an answer or an error), and an answer's tool calls are
// JSON with ids.
func fuzzStream(t *testing.T, p Provider, m Model) {
	res, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi"), Tools: readTool}, func(Event) {})
	if err != nil {
		return
	}
	for _, c := range res.ToolCalls {
		if !json.Valid(c.Args) || c.ID == "" {
			t.Fatalf("bad tool call %+v", c)
		}
	}
}

func seeds(f *testing.F, api string) {
	files, _ := filepath.Glob(filepath.Join("testdata", api, "*.sse"))
	for _, name := range files {
		data, _ := os.ReadFile(name)
		f.Add(data)
	}
}

func fuzzModel(name, api string) Model {
	m, _ := NewCatalog(nil).Lookup(name)
	m.Connection = Connection{API: api, BaseURL: "http://fuzz.invalid", APIKey: "k", MaxRetries: 0}
	return m
}

func FuzzAnthropicStream(f *testing.F) {
	seeds(f, "anthropic")
	m := fuzzModel("anthropic/claude-haiku-4-5", APIAnthropic)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzStream(t, &Anthropic{HTTP: &http.Client{Transport: body{data, "text/event-stream"}}}, m)
	})
}

func FuzzResponsesStream(f *testing.F) {
	seeds(f, "responses")
	m := fuzzModel("openai/gpt-5.4", APIResponses)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzStream(t, &Responses{HTTP: &http.Client{Transport: body{data, "text/event-stream"}}}, m)
	})
}

func FuzzGeminiStream(f *testing.F) {
	seeds(f, "gemini")
	m := fuzzModel("gemini/gemini-3-flash-preview", APIGemini)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzStream(t, &Gemini{HTTP: &http.Client{Transport: body{data, "text/event-stream"}}}, m)
	})
}

// FuzzErrorBody: whatever a provider answers with an error status, the
// error says something and never panics.
func FuzzErrorBody(f *testing.F) {
	for _, s := range []string{`{"error":{"message":"x","type":"rate_limit_error"}}`, `[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"q"}}]`,
		`{"message":"Input is too long for requested model."}`, `<html>502</html>`, `{"error":"flat"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, msg := errorBody(data)
		if len(msg) > 2000 || len(typ) > len(data) {
			t.Fatalf("type %q message %q", typ, msg)
		}
		_ = (&StatusError{Status: 400, Type: typ, Body: msg}).Error()
	})
}

// covers H15: options merge into the request, and never replace what
// Podcode builds (the model, the conversation, the system prompt, the
// tools, the stream, the Responses API's store: false); Podcode's options
// that an API has no use for are not sent to it.
func TestOptionsNeverReplaceWhatPodcodeBuilds(t *testing.T) {
	ctx := context.Background()
	hostile := map[string]any{"model": "other", "messages": "x", "system": "evil", "tools": []any{}, "stream": false, "input": "x",
		"instructions": "evil", "store": true, "contents": "x", "systemInstruction": "evil", "promptCache": true, "reasoningSummary": "auto",
		"thinkingBudget": 2000.0, "metadata": map[string]any{"user_id": "u1"},
		// The SDKs set options as paths into the body they built: none of
		// these may reach it.
		"messages.0.content": "INJECTED", "system.0.text": "evil", `st\ore`: true, `mod\el`: "claude-opus-4-1", "input.0.content": "INJECTED",
		"input.-1": map[string]any{"role": "user", "content": "INJECTED"}, "prompt": map[string]any{"id": "pmpt_1"}}
	req := func(m Model) Request {
		return Request{Model: m, Params: Params{MaxOutputTokens: 100, Options: hostile}, System: "be brief", Messages: userTurn("hi"), Tools: readTool}
	}
	a, m, p, _ := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Text: "ok"}})
	if _, err := p.Stream(ctx, req(m), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	b := a.Requests()[0].Body
	if b["model"] != "claude-haiku-4-5" || b["system"].([]any)[0].(map[string]any)["text"] != "be brief" || len(b["tools"].([]any)) != 1 ||
		b["stream"] != true || b["reasoningSummary"] != nil || b["metadata"].(map[string]any)["user_id"] != "u1" ||
		strings.Contains(fmt.Sprint(b["messages"]), "INJECTED") {
		t.Errorf("anthropic body %v", b)
	}
	r, m, rp, _ := responsesSetup(t, "openai/gpt-4.1", wiretest.Answers{{Text: "ok"}})
	if _, err := rp.Stream(ctx, req(m), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	b = r.Requests()[0].Body
	if b["model"] != "gpt-4.1" || b["store"] != false || b["instructions"] != "be brief" || b["promptCache"] != nil || b["thinkingBudget"] != nil ||
		b["prompt"] != nil || strings.Contains(fmt.Sprint(b["input"]), "INJECTED") || len(b["input"].([]any)) != 1 {
		t.Errorf("responses body %v", b)
	}
	g, m, gp, _ := geminiSetup(t, "gemini/gemini-2.5-flash", wiretest.Answers{{Text: "ok"}})
	if _, err := gp.Stream(ctx, req(m), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	b = g.Requests()[0].Body
	if _, ok := b["contents"].([]any); !ok || b["systemInstruction"].(map[string]any)["parts"] == nil || b["generationConfig"].(map[string]any)["promptCache"] != nil {
		t.Errorf("gemini body %v", b)
	}
	body, err := (&OpenAI{}).body(req(Model{ModelID: "m"}))
	if err != nil {
		t.Fatal(err)
	}
	var cb map[string]any
	json.Unmarshal(body, &cb)
	if cb["model"] != "m" || cb["stream"] != true || cb["promptCache"] != nil || cb["reasoningSummary"] != nil || len(cb["tools"].([]any)) != 1 {
		t.Errorf("chat body %v", cb)
	}
}
