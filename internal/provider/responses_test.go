package provider

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/provider/wiretest"
)

// responsesSetup is onServer for a wiretest.Responses.
func responsesSetup(t *testing.T, model string, script wiretest.Script) (*wiretest.Responses, Model, *Responses, *[]time.Duration) {
	t.Helper()
	srv := wiretest.NewResponses(t, script)
	m, r, waits := onServer(t, "openai", model, map[string]any{"api": APIResponses, "baseURL": srv.URL, "apiKey": srv.Key})
	return srv, m, &Responses{retrier: r}, waits
}

// covers H15: a reasoning model's effort goes to reasoning.effort, with a
// summary to show and its encrypted reasoning included; nothing is stored
// at OpenAI (store: false), the session is the prompt_cache_key; the
// reasoning item comes back with the answer, its summary streamed as
// thinking, and is sent back unchanged, before the call it led to, in the
// same model's next request, with the call's output; the cache serves the
// prefix the two requests share.
func TestResponsesReasoningRoundTrip(t *testing.T) {
	srv, m, p, _ := responsesSetup(t, "openai/gpt-5.4", wiretest.Answers{
		{Thinking: "Read the notes first.", Calls: []wiretest.Call{{Name: "read", Args: `{"path":"notes.txt"}`}}},
		{Thinking: "Done.", Text: "They say hello."},
	})
	long := strings.Repeat("You are a careful engineer. ", 400) // past the cache's 1024 tokens
	req := Request{Model: m, Params: Params{MaxOutputTokens: 1000, Options: map[string]any{"reasoningEffort": "medium", "service_tier": "flex"}},
		System: long, Messages: userTurn("what do the notes say?"), Tools: readTool, SessionID: "ses_1"}
	var thought, text strings.Builder
	res, err := p.Stream(context.Background(), req, func(e Event) { thought.WriteString(e.ReasoningDelta); text.WriteString(e.TextDelta) })
	if err != nil {
		t.Fatal(err)
	}
	b := srv.Requests()[0].Body
	if r := b["reasoning"].(map[string]any); r["effort"] != "medium" || r["summary"] != "auto" || b["store"] != false ||
		b["prompt_cache_key"] != "ses_1" || b["instructions"] != long || b["max_output_tokens"] != 1000.0 || b["service_tier"] != "flex" {
		t.Errorf("request %v", b)
	}
	if inc := b["include"].([]any); len(inc) != 1 || inc[0] != "reasoning.encrypted_content" {
		t.Errorf("include %v", inc)
	}
	if len(res.Reasoning) != 1 || res.Reasoning[0].ID != "rs_0" || res.Reasoning[0].Data != srv.Encrypted("gpt-5.4", "rs_0") ||
		res.Reasoning[0].Text != "Read the notes first." || thought.String() != "Read the notes first." {
		t.Fatalf("reasoning %+v, streamed %q", res.Reasoning, thought.String())
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].ID != "call_0_0" || string(res.ToolCalls[0].Args) != `{"path":"notes.txt"}` || res.StopReason != "tool_calls" {
		t.Fatalf("calls %+v", res)
	}
	req.Messages = append(req.Messages,
		chat.Message{Role: chat.RoleAssistant, Model: m.Name(), Reasoning: res.Reasoning, ToolCalls: res.ToolCalls},
		chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "call_0_0", Tool: "read", Output: "hello"}})
	res2, err := p.Stream(context.Background(), req, func(Event) {})
	if err != nil {
		t.Fatalf("the next request (the server checks the encrypted reasoning and the call's output): %v", err)
	}
	input := srv.Requests()[1].Body["input"].([]any)
	if len(input) != 4 || input[1].(map[string]any)["type"] != "reasoning" || input[2].(map[string]any)["type"] != "function_call" ||
		input[3].(map[string]any)["type"] != "function_call_output" || input[3].(map[string]any)["call_id"] != "call_0_0" {
		t.Errorf("input %v", input)
	}
	if res2.Text != "They say hello." || res2.Usage.CacheRead == 0 || res2.Usage.CacheRead != srv.Requests()[1].Cached || res2.Usage.Reasoning == 0 {
		t.Errorf("second answer %+v", res2)
	}
	// Another model's reasoning is not sent.
	req.Model.ModelID = "gpt-5.4-mini"
	if _, err := p.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	for _, it := range srv.Requests()[2].Body["input"].([]any) {
		if it.(map[string]any)["type"] == "reasoning" {
			t.Errorf("another model's reasoning sent: %v", it)
		}
	}
}

// A model that does not reason gets no reasoning options; temperature and
// top_p go through.
func TestResponsesPlainModel(t *testing.T) {
	srv, m, p, _ := responsesSetup(t, "openai/gpt-4.1", wiretest.Answers{{Text: "hi"}})
	temp := 0.3
	if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{Temperature: &temp, MaxOutputTokens: 50, Options: map[string]any{"reasoningEffort": "high"}},
		Messages: userTurn("hi")}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	b := srv.Requests()[0].Body
	if b["reasoning"] != nil || b["include"] != nil || b["temperature"] != 0.3 {
		t.Errorf("body %v", b)
	}
}

// The API's failures, as the package tells them apart: a wrong key, a
// rate limit retried as Retry-After says, a history too long for the
// context, an error event mid-stream after text (not retried, the text
// kept).
func TestResponsesFailures(t *testing.T) {
	ctx := context.Background()
	req := func(m Model) Request {
		return Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}
	}
	_, m, p, _ := responsesSetup(t, "openai/gpt-4.1", wiretest.Answers{{Text: "x"}})
	m.Connection.APIKey, m.Connection.KeyEnv = "sk-wrong", "OPENAI_API_KEY"
	var se *StatusError
	if _, err := p.Stream(ctx, req(m), func(Event) {}); !errors.As(err, &se) || se.Status != 401 || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("401: %v", err)
	}

	srv, m, p, waits := responsesSetup(t, "openai/gpt-4.1", wiretest.Answers{
		{Fault: &wiretest.Fault{Status: 429, Type: "rate_limit_exceeded", Message: "Rate limit reached", RetryAfter: "2"}}, {Text: "ok"}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); err != nil || res.Text != "ok" || len(*waits) != 1 || (*waits)[0] != 2*time.Second || len(srv.Requests()) != 2 {
		t.Errorf("429: %v %q waits %v", err, res.Text, *waits)
	}

	_, m, p, _ = responsesSetup(t, "openai/gpt-4.1", wiretest.Answers{
		{Fault: &wiretest.Fault{Status: 400, Type: "context_length_exceeded", Message: "Your input exceeds the context window of this model."}}})
	if _, err := p.Stream(ctx, req(m), func(Event) {}); !errors.Is(err, ErrContextOverflow) {
		t.Errorf("overflow: %v", err)
	}

	srv, m, p, _ = responsesSetup(t, "openai/gpt-4.1", wiretest.Answers{
		{Text: "partial", Fault: &wiretest.Fault{MidStream: true, Type: "server_error", Message: "The server had an error"}}})
	res, err := p.Stream(ctx, req(m), func(Event) {})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "The server had an error") || res.Text != "partial" || len(srv.Requests()) != 1 {
		t.Errorf("mid-stream: %v %q", err, res.Text)
	}
}

// A function call's arguments arrive in pieces and come out whole; the
// tool list is sent as function tools with their schemas.
func TestResponsesToolCalls(t *testing.T) {
	srv, m, p, _ := responsesSetup(t, "openai/gpt-4.1", wiretest.Answers{{Calls: []wiretest.Call{{ID: "call_a", Name: "read", Args: `{"path": "ü.txt"}`}}}})
	res, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("go"), Tools: readTool}, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 || string(res.ToolCalls[0].Args) != `{"path": "ü.txt"}` || res.ToolCalls[0].ID != "call_a" {
		t.Errorf("%+v", res.ToolCalls)
	}
	tool := srv.Requests()[0].Body["tools"].([]any)[0].(map[string]any)
	var params map[string]any
	json.Unmarshal(readTool[0].Parameters, &params)
	if tool["type"] != "function" || tool["name"] != "read" || tool["strict"] != false || tool["parameters"].(map[string]any)["required"] == nil {
		t.Errorf("tool %v", tool)
	}
}
