package provider

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/provider/wiretest"
)

// onServer is model, of the catalog, whose provider pid the user's file
// points at a server on loopback with opts (maxRetries 2 added), and a
// retrier that does not wait (its waits kept).
func onServer(t *testing.T, pid, model string, opts map[string]any) (Model, retrier, *[]time.Duration) {
	t.Helper()
	opts = maps.Clone(opts)
	opts["maxRetries"] = 2.0
	m, err := NewCatalog(&config.Config{Provider: map[string]config.Provider{pid: {Options: opts}}}).Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	return m, retrier{Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}, &waits
}

// anthropicSetup is onServer for a wiretest.Anthropic.
func anthropicSetup(t *testing.T, model string, script wiretest.Script) (*wiretest.Anthropic, Model, *Anthropic, *[]time.Duration) {
	t.Helper()
	srv := wiretest.NewAnthropic(t, script)
	m, r, waits := onServer(t, "anthropic", model, map[string]any{"baseURL": srv.URL, "apiKey": srv.Key})
	return srv, m, &Anthropic{retrier: r}, waits
}

func userTurn(text string) []chat.Message { return []chat.Message{{Role: chat.RoleUser, Text: text}} }

var readTool = []ToolSpec{{Name: "read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}

// A text answer streams as its deltas arrive; its usage counts the cache's
// reads and writes in Input; the request carries the key, the model, the
// output limit, and cache breakpoints on the tools, the system prompt and
// the last message. Options Podcode does not read go into the body under
// their own names, and connection settings never do.
func TestAnthropicText(t *testing.T) {
	srv, m, p, _ := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Text: "Hello, world."}})
	var deltas []string
	res, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 1000, Options: map[string]any{"service_tier": "auto"}},
		System: "be brief", Messages: userTurn("hi"), Tools: readTool}, func(e Event) { deltas = append(deltas, e.TextDelta) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello, world." || strings.Join(deltas, "") != "Hello, world." || len(deltas) < 2 || res.StopReason != "stop" {
		t.Errorf("answer %+v, deltas %q", res, deltas)
	}
	got := srv.Requests()[0]
	u := got.Usage
	if res.Usage.Input != u.Input+u.CacheRead+u.CacheWrite || res.Usage.CacheWrite != u.CacheWrite || res.Usage.CacheWrite == 0 || res.Usage.Output == 0 {
		t.Errorf("usage %+v, the server's %+v", res.Usage, u)
	}
	b := got.Body
	if b["model"] != "claude-haiku-4-5" || b["max_tokens"] != 1000.0 || b["stream"] != true || b["service_tier"] != "auto" || b["baseURL"] != nil || b["apiKey"] != nil {
		t.Errorf("body %v", b)
	}
	// tools (1 block), system (1), the message (1): every one a breakpoint.
	if len(got.Breakpoints) != 3 || got.Blocks != 3 {
		t.Errorf("breakpoints %v of %d blocks", got.Breakpoints, got.Blocks)
	}
	tool := b["tools"].([]any)[0].(map[string]any)
	if tool["name"] != "read" || tool["input_schema"].(map[string]any)["type"] != "object" || tool["input_schema"].(map[string]any)["required"] == nil {
		t.Errorf("tool %v", tool)
	}
}

// promptCache false sends no breakpoint; "1h" asks for the hour-long cache.
func TestAnthropicCacheOptions(t *testing.T) {
	srv, m, p, _ := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Text: "ok"}})
	for _, c := range []struct {
		opt  any
		want int
		ttl  string
	}{{false, 0, ""}, {"1h", 2, "1h"}} {
		if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100, Options: map[string]any{"promptCache": c.opt}},
			System: "s", Messages: userTurn("hi")}, func(Event) {}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		if len(last.Breakpoints) != c.want {
			t.Errorf("promptCache %v: %d breakpoints", c.opt, len(last.Breakpoints))
		}
		if c.ttl != "" {
			if cc := last.Body["system"].([]any)[0].(map[string]any)["cache_control"].(map[string]any); cc["ttl"] != c.ttl {
				t.Errorf("ttl %v", cc)
			}
		}
	}
}

// A tool call's arguments arrive split across input_json_delta events and
// come out whole; the call is passed to onEvent once complete.
func TestAnthropicToolCallSplit(t *testing.T) {
	_, m, p, _ := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Text: "Let me look.", Calls: []wiretest.Call{
		{ID: "toolu_1", Name: "read", Args: `{"path": "notes/ünïcode.txt"}`}, {ID: "toolu_2", Name: "bash", Args: `{"command": "ls -la"}`}}}})
	var calls []string
	res, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("go"), Tools: readTool},
		func(e Event) {
			if e.ToolCall != nil {
				calls = append(calls, e.ToolCall.Tool)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].ID != "toolu_1" || string(res.ToolCalls[0].Args) != `{"path": "notes/ünïcode.txt"}` ||
		string(res.ToolCalls[1].Args) != `{"command": "ls -la"}` || res.StopReason != "tool_calls" || strings.Join(calls, ",") != "read,bash" {
		t.Errorf("%+v %v", res, calls)
	}
}

// covers H15: a reasoning model's effort becomes thinking (a budget on a
// model without levels, adaptive with the effort on one with them); the
// signed thinking comes back with the answer and goes back, unchanged, to
// the same model with the tool's result; temperature is left out while
// thinking is on; reasoningEffort "none" turns it off and keeps
// temperature.
func TestAnthropicThinking(t *testing.T) {
	srv, m, p, _ := anthropicSetup(t, "anthropic/claude-sonnet-4-5", wiretest.Answers{
		{Thinking: "The user wants the notes; read them first.", Calls: []wiretest.Call{{ID: "toolu_1", Name: "read", Args: `{"path":"a"}`}}},
		{Thinking: "It says hello.", Text: "It says hello."},
		{Text: "plain"},
	})
	if !m.Reasoning || len(m.ReasoningLevels) != 0 {
		t.Fatalf("the catalog's claude-sonnet-4-5: %+v", m)
	}
	temp := 0.2
	req := Request{Model: m, Params: Params{MaxOutputTokens: 64000, Temperature: &temp, Options: map[string]any{"reasoningEffort": "medium"}},
		Messages: userTurn("what do the notes say?"), Tools: readTool}
	var thought strings.Builder
	res, err := p.Stream(context.Background(), req, func(e Event) { thought.WriteString(e.ReasoningDelta) })
	if err != nil {
		t.Fatal(err)
	}
	first := srv.Requests()[0].Body
	if th := first["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] != 10000.0 || first["temperature"] != nil {
		t.Errorf("thinking %v temperature %v", first["thinking"], first["temperature"])
	}
	if len(res.Reasoning) != 1 || res.Reasoning[0].Text != "The user wants the notes; read them first." ||
		res.Reasoning[0].Signature != srv.Sign("claude-sonnet-4-5", res.Reasoning[0].Text) || thought.String() != res.Reasoning[0].Text {
		t.Fatalf("reasoning %+v, streamed %q", res.Reasoning, thought.String())
	}
	// The tool's result, with the assistant message as the agent stores it.
	req.Messages = append(req.Messages,
		chat.Message{Role: chat.RoleAssistant, Model: m.Name(), Reasoning: res.Reasoning, ToolCalls: res.ToolCalls},
		chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "toolu_1", Tool: "read", Output: "hello"}})
	if _, err := p.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatalf("the next request (the server checks the signature): %v", err)
	}
	if th := srv.Requests()[1].Thinking(1); len(th) != 1 || th[0]["signature"] != res.Reasoning[0].Signature {
		t.Errorf("thinking sent back: %v", th)
	}
	req.Params.Options = map[string]any{"reasoningEffort": "none"}
	if _, err := p.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if b := srv.Requests()[2].Body; b["thinking"] != nil || b["temperature"] != 0.2 {
		t.Errorf("effort none: thinking %v temperature %v", b["thinking"], b["temperature"])
	}

	// On a model that takes an effort: adaptive thinking with it.
	srv, m, p, _ = anthropicSetup(t, "anthropic/claude-sonnet-4-6", wiretest.Answers{{Text: "ok"}})
	if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 1000, Options: map[string]any{"reasoningEffort": "xhigh"}},
		Messages: userTurn("hi")}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	b := srv.Requests()[0].Body
	if th := b["thinking"].(map[string]any); th["type"] != "adaptive" || th["display"] != "summarized" || b["output_config"].(map[string]any)["effort"] != "max" {
		t.Errorf("adaptive: %v %v (claude-sonnet-4-6 takes low, medium, high, max: xhigh is nearest max)", b["thinking"], b["output_config"])
	}

	// Claude Opus 4.5 takes an effort but not adaptive thinking: a budget,
	// and the effort beside it.
	srv, m, p, _ = anthropicSetup(t, "anthropic/claude-opus-4-5", wiretest.Answers{{Text: "ok"}})
	if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 64000, Options: map[string]any{"reasoningEffort": "medium"}},
		Messages: userTurn("hi")}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	b = srv.Requests()[0].Body
	if th := b["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] != 10000.0 || b["output_config"].(map[string]any)["effort"] != "medium" {
		t.Errorf("opus 4.5: %v %v", b["thinking"], b["output_config"])
	}
}

// Thinking of another model is not sent (its signature is not valid for
// this one); a tool loop begun without thinking gets none in the request
// that continues it (the API refuses thinking then); redacted thinking goes
// back as it came.
func TestAnthropicThinkingAcrossModels(t *testing.T) {
	srv, m, p, _ := anthropicSetup(t, "anthropic/claude-sonnet-4-5", wiretest.Answers{{Text: "ok"}})
	other := chat.Message{Role: chat.RoleAssistant, Model: "anthropic/claude-opus-4-1", Reasoning: []chat.Reasoning{{Text: "x", Signature: "bogus"}},
		ToolCalls: []chat.ToolCall{{ID: "toolu_1", Tool: "read", Args: json.RawMessage(`{"path":"a"}`)}}}
	msgs := append(userTurn("go"), other, chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "toolu_1", Tool: "read", Output: "a"}})
	opts := map[string]any{"reasoningEffort": "high"}
	if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 64000, Options: opts}, Messages: msgs, Tools: readTool}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	b := srv.Requests()[0]
	if th := b.Thinking(1); len(th) != 0 || b.Body["thinking"] != nil {
		t.Errorf("another model's thinking sent %v, thinking %v", th, b.Body["thinking"])
	}
	// Redacted thinking of the same model goes back as it came.
	redacted := chat.Message{Role: chat.RoleAssistant, Model: m.Name(), Reasoning: []chat.Reasoning{{Data: "enc:abc"}},
		ToolCalls: []chat.ToolCall{{ID: "toolu_2", Tool: "read", Args: json.RawMessage(`{"path":"b"}`)}}}
	msgs = append(userTurn("go"), redacted, chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "toolu_2", Tool: "read", Output: "b"}})
	if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 64000, Options: opts}, Messages: msgs, Tools: readTool}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if th := srv.Requests()[1].Thinking(1); len(th) != 1 || th[0]["type"] != "redacted_thinking" || th[0]["data"] != "enc:abc" {
		t.Errorf("redacted thinking sent back: %v", th)
	}
}

// The API's failures: a wrong key names the variable to check, and is not
// retried; overload (529) and rate limits (429, honouring retry-after) are
// retried; an overload mid-stream before any text is retried, after text it
// is not (the text is kept); a history too long for the context is
// ErrContextOverflow; a cut stream after text is ErrStream or a network
// error, keeping the text.
func TestAnthropicFailures(t *testing.T) {
	ctx := context.Background()
	req := func(m Model) Request {
		return Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}
	}

	_, m, p, _ := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Text: "x"}})
	m.Connection.APIKey = "sk-wrong"
	m.Connection.KeyEnv = "ANTHROPIC_API_KEY"
	_, err := p.Stream(ctx, req(m), func(Event) {})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 401 || !strings.Contains(err.Error(), "refused the API key") || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") ||
		!strings.Contains(err.Error(), "invalid x-api-key") {
		t.Errorf("401: %v", err)
	}

	srv, m, p, waits := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{
		{Fault: &wiretest.Fault{Status: 529, Type: "overloaded_error", Message: "Overloaded"}},
		{Fault: &wiretest.Fault{Status: 429, Type: "rate_limit_error", Message: "slow down", RetryAfter: "3"}},
		{Text: "done"}})
	res, err := p.Stream(ctx, req(m), func(Event) {})
	if err != nil || res.Text != "done" || len(srv.Requests()) != 3 {
		t.Fatalf("529, 429, then an answer: %v %q after %d requests", err, res.Text, len(srv.Requests()))
	}
	if len(*waits) != 2 || (*waits)[0] != 500*time.Millisecond || (*waits)[1] != 3*time.Second {
		t.Errorf("waits %v: back off, then honour retry-after", *waits)
	}

	srv, m, p, _ = anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{
		{Fault: &wiretest.Fault{MidStream: true, Type: "overloaded_error", Message: "Overloaded"}}, {Text: "second"}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); err != nil || res.Text != "second" || len(srv.Requests()) != 2 {
		t.Errorf("an overload mid-stream before any text is retried: %v %q after %d requests", err, res.Text, len(srv.Requests()))
	}

	srv, m, p, _ = anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{
		{Text: "partial answer", Fault: &wiretest.Fault{MidStream: true, Type: "overloaded_error", Message: "Overloaded"}}, {Text: "second"}})
	res, err = p.Stream(ctx, req(m), func(Event) {})
	if !errors.As(err, &se) || se.Status != 0 || !strings.Contains(err.Error(), "overloaded") || res.Text != "partial answer" || len(srv.Requests()) != 1 {
		t.Errorf("after text: %v %q, %d requests", err, res.Text, len(srv.Requests()))
	}

	_, m, p, _ = anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{
		{Fault: &wiretest.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}}})
	if _, err := p.Stream(ctx, req(m), func(Event) {}); !errors.Is(err, ErrContextOverflow) || !strings.Contains(err.Error(), "longer than model claude-haiku-4-5's context") {
		t.Errorf("overflow: %v", err)
	}

	_, m, p, _ = anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Text: "cut short here", Cut: 5}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); err == nil || res.Text == "" || !strings.HasPrefix("cut short here", res.Text) {
		t.Errorf("cut: %v %q", err, res.Text)
	}
}

// A temperature the API would refuse with thinking is left out, and the
// log says so once, naming the model.
func TestAnthropicThinkingDropsTemperatureOnce(t *testing.T) {
	_, m, p, _ := anthropicSetup(t, "anthropic/claude-sonnet-4-5", wiretest.Answers{{Text: "ok"}})
	logs := &logtest.Logs{}
	p.log = logs.Logger()
	temp := 0.1
	for range 2 {
		if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 64000, Temperature: &temp,
			Options: map[string]any{"reasoningEffort": "low"}}, Messages: userTurn("hi")}, func(Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	if n := logs.Count("temperature, top_k and a top_p under 0.95 are left out"); n != 1 {
		t.Errorf("%d warnings:\n%s", n, strings.Join(logs.Lines(), "\n"))
	}
}

// Anthropic's models on Amazon Bedrock: the same Messages API, signed
// with the AWS credentials of the environment (the server checks the
// signature), the model in the path, the answer framed as an AWS event
// stream; Bedrock's errors are told apart as Anthropic's are.
func TestBedrock(t *testing.T) {
	srv := wiretest.NewBedrock(t, "eu-west-1", wiretest.Answers{
		{Thinking: "Read it.", Calls: []wiretest.Call{{ID: "toolu_b1", Name: "read", Args: `{"path":"a"}`}}},
		{Text: "It says a."},
		{Fault: &wiretest.Fault{MidStream: true, Type: "overloaded_error", Message: "Bedrock is unable to process your request."}},
		{Text: "after the retry"},
	})
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.Secret)
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	cat := NewCatalog(&config.Config{Provider: map[string]config.Provider{"bedrock": {
		Options: map[string]any{"baseURL": srv.URL, "region": "eu-west-1"}}}})
	m, err := cat.Lookup("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	if err != nil {
		t.Fatal(err)
	}
	if m.Connection.API != APIBedrock || !m.Reasoning || m.Limit.Context == 0 {
		t.Fatalf("the catalog's model %+v", m)
	}
	p := &Anthropic{retrier: retrier{Sleep: func(context.Context, time.Duration) error { return nil }}}
	req := Request{Model: m, Params: Params{MaxOutputTokens: 8000, Options: map[string]any{"reasoningEffort": "low"}}, Messages: userTurn("read a"), Tools: readTool}
	res, err := p.Stream(context.Background(), req, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 || string(res.ToolCalls[0].Args) != `{"path":"a"}` || len(res.Reasoning) != 1 || res.Reasoning[0].Signature == "" {
		t.Fatalf("%+v", res)
	}
	if got := srv.Requests()[0]; got.Path != "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream" || got.Usage.CacheWrite == 0 {
		t.Errorf("request %s %+v", got.Path, got.Usage)
	}
	req.Messages = append(req.Messages, chat.Message{Role: chat.RoleAssistant, Model: m.Name(), Reasoning: res.Reasoning, ToolCalls: res.ToolCalls},
		chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "toolu_b1", Tool: "read", Output: "a"}})
	if res, err := p.Stream(context.Background(), req, func(Event) {}); err != nil || res.Text != "It says a." || res.Usage.CacheRead == 0 {
		t.Fatalf("the next request: %v %+v", err, res)
	}
	// An exception mid-stream before any text is retried.
	if res, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("again")}, func(Event) {}); err != nil || res.Text != "after the retry" {
		t.Errorf("exception: %v %q", err, res.Text)
	}
	// A signature of other credentials is refused.
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	p = &Anthropic{}
	if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}, func(Event) {}); err == nil ||
		!strings.Contains(err.Error(), "signature") {
		t.Errorf("wrong secret: %v", err)
	}
}

// A tool loop is one assistant turn to the API: a turn that began with
// thinking keeps it on in every request that continues it, though its
// later steps came without thinking of their own (a model that thinks only
// at a turn's start); the server refuses thinking switched on mid-turn,
// and checks the signature of the turn's first thinking.
func TestAnthropicThinkingKeptThroughATurn(t *testing.T) {
	srv, m, p, _ := anthropicSetup(t, "anthropic/claude-sonnet-4-5", wiretest.Answers{{Text: "done"}})
	sig := srv.Sign("claude-sonnet-4-5", "read a, then b")
	call := func(id, path string) chat.ToolCall {
		return chat.ToolCall{ID: id, Tool: "read", Args: json.RawMessage(`{"path":"` + path + `"}`)}
	}
	result := func(id string) chat.Message {
		return chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: id, Tool: "read", Output: "x"}}
	}
	msgs := append(userTurn("read a and b"),
		chat.Message{Role: chat.RoleAssistant, Model: m.Name(), Reasoning: []chat.Reasoning{{Text: "read a, then b", Signature: sig}}, ToolCalls: []chat.ToolCall{call("t1", "a")}},
		result("t1"),
		chat.Message{Role: chat.RoleAssistant, Model: m.Name(), ToolCalls: []chat.ToolCall{call("t2", "b")}},
		result("t2"))
	req := Request{Model: m, Params: Params{MaxOutputTokens: 64000, Options: map[string]any{"reasoningEffort": "medium"}}, Messages: msgs, Tools: readTool}
	if _, err := p.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if b := srv.Requests()[0].Body; b["thinking"] == nil {
		t.Errorf("thinking switched off mid-turn: %v", b)
	}
	// A model without an output limit still gets the max_tokens the API
	// requires.
	req.Params.MaxOutputTokens = 0
	req.Params.Options = nil
	if _, err := p.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if b := srv.Requests()[1].Body; b["max_tokens"] != 8192.0 {
		t.Errorf("max_tokens %v", b["max_tokens"])
	}
}

// A Retry-After on a refusal (a gateway's 400 or 401) asks for no retry,
// and neither does one on a history too long; an attempt that passes its
// timeout is retried, and said as such, naming the option.
func TestRetryAfterOnARefusalIsNotRetried(t *testing.T) {
	for _, f := range []*wiretest.Fault{
		{Status: 400, Type: "invalid_request_error", Message: "bad", RetryAfter: "1"},
		{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 9 > 8", RetryAfter: "1"},
	} {
		srv, m, p, waits := anthropicSetup(t, "anthropic/claude-haiku-4-5", wiretest.Answers{{Fault: f}, {Text: "ok"}})
		if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 10}, Messages: userTurn("hi")}, func(Event) {}); err == nil ||
			len(srv.Requests()) != 1 || len(*waits) != 0 {
			t.Errorf("%s: %v after %d requests", f.Message, err, len(srv.Requests()))
		}
	}
	r := retrier{Sleep: func(context.Context, time.Duration) error { return nil }}
	m := Model{ProviderID: "slow", ModelID: "m", Connection: Connection{Timeout: time.Millisecond, MaxRetries: 1}}
	calls := 0
	_, err := r.do(context.Background(), m, func(Event) {}, func(ctx context.Context, _ func(Event)) (Response, error) {
		calls++
		<-ctx.Done()
		return Response{}, ctx.Err()
	})
	if !errors.Is(err, ErrTimeout) || calls != 2 || !strings.Contains(err.Error(), "provider.slow.options.timeout") {
		t.Errorf("timeout: %v after %d calls", err, calls)
	}
}
