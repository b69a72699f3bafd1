package provider

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/provider/wiretest"
)

// geminiSetup is onServer for a wiretest.Gemini.
func geminiSetup(t *testing.T, model string, script wiretest.Script) (*wiretest.Gemini, Model, *Gemini, *[]time.Duration) {
	t.Helper()
	srv := wiretest.NewGemini(t, script)
	m, r, waits := onServer(t, "gemini", model, map[string]any{"baseURL": srv.URL, "apiKey": srv.Key})
	return srv, m, &Gemini{retrier: r}, waits
}

// covers H15: a Gemini 3 model's effort becomes its thinking level (a
// Gemini 2.5 model's a budget), with the thoughts shown; a function call
// comes with its thought signature, kept on the call and sent back on the
// same part to the same model, with the call's response; the usage counts
// thoughts as output.
func TestGeminiThinkingAndSignatures(t *testing.T) {
	srv, m, p, _ := geminiSetup(t, "gemini/gemini-3-flash-preview", wiretest.Answers{
		{Thinking: "Look at the notes.", Calls: []wiretest.Call{{Name: "read", Args: `{"path":"notes.txt"}`}}},
		{Text: "They say hello."},
	})
	req := Request{Model: m, Params: Params{MaxOutputTokens: 2000, Options: map[string]any{"reasoningEffort": "medium", "seed": 7.0}},
		System: "be brief", Messages: userTurn("what do the notes say?"), Tools: readTool}
	var thought strings.Builder
	res, err := p.Stream(context.Background(), req, func(e Event) { thought.WriteString(e.ReasoningDelta) })
	if err != nil {
		t.Fatal(err)
	}
	b := srv.Requests()[0].Body
	gc := b["generationConfig"].(map[string]any)
	if tc := gc["thinkingConfig"].(map[string]any); tc["thinkingLevel"] != "MEDIUM" || tc["includeThoughts"] != true || gc["seed"] != 7.0 || gc["maxOutputTokens"] != 2000.0 {
		t.Errorf("generationConfig %v", gc)
	}
	if si := b["systemInstruction"].(map[string]any); si["parts"].([]any)[0].(map[string]any)["text"] != "be brief" {
		t.Errorf("system %v", si)
	}
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].Tool != "read" || res.ToolCalls[0].Signature != srv.Signature("gemini-3-flash-preview", "read") ||
		thought.String() != "Look at the notes." || res.Usage.Reasoning == 0 || res.Usage.Output <= res.Usage.Reasoning || res.StopReason != "tool_calls" {
		t.Fatalf("answer %+v, thought %q", res, thought.String())
	}
	var args map[string]any
	if json.Unmarshal(res.ToolCalls[0].Args, &args) != nil || args["path"] != "notes.txt" {
		t.Errorf("args %s", res.ToolCalls[0].Args)
	}
	req.Messages = append(req.Messages,
		chat.Message{Role: chat.RoleAssistant, Model: m.Name(), Reasoning: res.Reasoning, ToolCalls: res.ToolCalls},
		chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: res.ToolCalls[0].ID, Tool: "read", Output: "hello"}})
	res2, err := p.Stream(context.Background(), req, func(Event) {})
	if err != nil || res2.Text != "They say hello." {
		t.Fatalf("the next request (the server checks the signature and the response): %v %q", err, res2.Text)
	}
	// Another model's signature is not sent: the server refuses the
	// history, as Gemini does.
	req.Model.ModelID = "gemini-3-pro-preview"
	if _, err := p.Stream(context.Background(), req, func(Event) {}); err == nil || !strings.Contains(err.Error(), "thought_signature") {
		t.Errorf("another model's call: %v", err)
	}
}

// A Gemini 2.5 model takes a thinking budget; "none" turns thinking off.
func TestGeminiBudget(t *testing.T) {
	srv, m, p, _ := geminiSetup(t, "gemini/gemini-2.5-flash", wiretest.Answers{{Text: "ok"}})
	for _, c := range []struct {
		effort string
		budget float64
	}{{"high", 24576}, {"none", 0}} {
		if _, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100, Options: map[string]any{"reasoningEffort": c.effort}},
			Messages: userTurn("hi")}, func(Event) {}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		tc := reqs[len(reqs)-1].Body["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any)
		if tc["thinkingBudget"] != c.budget && !(c.budget == 0 && tc["thinkingBudget"] == nil) {
			t.Errorf("%s: %v", c.effort, tc)
		}
	}
}

// Failures: a refused key names the variable; 429 and 503 are retried; a
// history too long is ErrContextOverflow.
func TestGeminiFailures(t *testing.T) {
	ctx := context.Background()
	req := func(m Model) Request {
		return Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}
	}
	_, m, p, _ := geminiSetup(t, "gemini/gemini-2.5-flash", wiretest.Answers{{Text: "x"}})
	m.Connection.APIKey, m.Connection.KeyEnv = "wrong", "GEMINI_API_KEY"
	var se *StatusError
	if _, err := p.Stream(ctx, req(m), func(Event) {}); !errors.As(err, &se) || se.Status != 400 || !strings.Contains(err.Error(), "API key not valid") {
		t.Errorf("bad key: %v", err)
	}
	srv, m, p, waits := geminiSetup(t, "gemini/gemini-2.5-flash", wiretest.Answers{
		{Fault: &wiretest.Fault{Status: 429, Type: "RESOURCE_EXHAUSTED", Message: "Quota exceeded"}},
		{Fault: &wiretest.Fault{Status: 503, Type: "UNAVAILABLE", Message: "The model is overloaded."}},
		{Text: "ok"}})
	if res, err := p.Stream(ctx, req(m), func(Event) {}); err != nil || res.Text != "ok" || len(srv.Requests()) != 3 || len(*waits) != 2 {
		t.Errorf("429, 503, ok: %v %q %d %v", err, res.Text, len(srv.Requests()), *waits)
	}
	_, m, p, _ = geminiSetup(t, "gemini/gemini-2.5-flash", wiretest.Answers{
		{Fault: &wiretest.Fault{Status: 400, Type: "INVALID_ARGUMENT", Message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}}})
	if _, err := p.Stream(ctx, req(m), func(Event) {}); !errors.Is(err, ErrContextOverflow) {
		t.Errorf("overflow: %v", err)
	}
}

// Vertex AI: the project and location from the connection, a token from
// the service account of GOOGLE_APPLICATION_CREDENTIALS (got from its own
// token endpoint, the JWT it signs checked), sent as a bearer token.
func TestVertexServiceAccount(t *testing.T) {
	srv := wiretest.NewVertex(t, "acme-ai", "us-central1", wiretest.Answers{{Text: "from vertex"}})
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", srv.CredentialsFile(t))
	cat := NewCatalog(&config.Config{Provider: map[string]config.Provider{"vertexai": {
		Options: map[string]any{"baseURL": srv.URL, "project": "acme-ai", "region": "us-central1"}}}})
	m, err := cat.Lookup("vertexai/gemini-2.5-flash")
	if err != nil {
		t.Fatal(err)
	}
	if m.Connection.API != APIVertex {
		t.Fatalf("connection %+v", m.Connection)
	}
	p, err := For(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Stream(context.Background(), Request{Model: m, Params: Params{MaxOutputTokens: 100}, Messages: userTurn("hi")}, func(Event) {})
	if err != nil || res.Text != "from vertex" || srv.TokenRequests != 1 {
		t.Fatalf("%v %q, %d tokens", err, res.Text, srv.TokenRequests)
	}
	if path := srv.Requests()[0].Path; path != "/v1beta1/projects/acme-ai/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent" {
		t.Errorf("path %s", path)
	}
	// Without a project, the error says where to set one.
	m.Connection.Project = ""
	p, _ = For(m, nil)
	if _, err := p.Stream(context.Background(), Request{Model: m, Messages: userTurn("hi")}, func(Event) {}); err == nil || !strings.Contains(err.Error(), "GOOGLE_CLOUD_PROJECT") {
		t.Errorf("no project: %v", err)
	}
}
