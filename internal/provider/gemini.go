package provider

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"google.golang.org/genai"

	"github.com/podcode/podcode/internal/chat"
)

// Gemini calls Google's Gemini models through Google's SDK
// (google.golang.org/genai): on the Gemini API with a key (APIGemini), or
// on Vertex AI (APIVertex) with the application default credentials, the
// project and the location of the connection.
//
// Thinking: a reasoning model's effort (options.reasoningEffort, SPEC H15)
// becomes its thinking level (Gemini 3: the catalog's reasoning levels; its
// lowest for "none", since it cannot turn thinking off), else a thinking
// budget (low 4096 tokens, medium 8192, high 24576, "none" 0;
// options.thinkingBudget sets one), with the thoughts' summaries shown.
// The SDK continues an answer that ended for CONTINUATION by itself (its
// AutomaticContinuation): one model call of Podcode's may be more than one
// request.
// Thought signatures, which Gemini puts on the parts of its answer (on
// each step's first function call, and on text), are kept (on the call,
// chat.ToolCall.Signature, or as a chat.Reasoning) and sent back on the
// same parts to the same model, as the API requires for calls. Every other
// option goes into the request under its own name: safetySettings,
// toolConfig, cachedContent and labels as its fields, the rest (seed,
// presencePenalty, …) into its generationConfig. Gemini's usage counts are Podcode's: its prompt count (cached
// tokens included) is Input, its candidates and thoughts are Output.
type Gemini struct {
	retrier
	// HTTP carries the requests; nil: the transport every model call
	// shares (authorised with the credentials, for Vertex AI).
	HTTP *http.Client

	client lazy[*genai.Client]
	tools  toolCache[[]*genai.Tool]
}

var _ Provider = (*Gemini)(nil)

// Stream implements Provider.
func (g *Gemini) Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	client, err := g.client.get(func() (*genai.Client, error) { return g.newClient(ctx, req.Model) })
	if err != nil {
		return Response{}, err
	}
	cfg, err := g.config(req)
	if err != nil {
		return Response{}, err
	}
	contents := geminiContents(req)
	return g.do(ctx, req.Model, onEvent, func(ctx context.Context, emit func(Event)) (Response, error) {
		var r geminiReader
		for chunk, err := range client.Models.GenerateContentStream(ctx, req.Model.ModelID, contents, cfg) {
			if err != nil {
				return r.response(), geminiError(req.Model, err)
			}
			r.chunk(chunk, emit)
		}
		if !r.finished {
			return r.response(), fmt.Errorf("%w: it ended before the answer did", ErrStream)
		}
		return r.finish(emit), nil
	})
}

func (g *Gemini) newClient(ctx context.Context, m Model) (*genai.Client, error) {
	conn := m.Connection
	hc := g.HTTP
	if hc == nil {
		hc = &http.Client{Transport: modelTransport}
	}
	cc := &genai.ClientConfig{HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: conn.BaseURL, Headers: http.Header{}}}
	for k, v := range conn.Headers {
		cc.HTTPOptions.Headers.Set(k, v)
	}
	switch conn.API {
	case APIVertex:
		if conn.Project == "" {
			return nil, fmt.Errorf("model %s: Vertex AI needs a Google Cloud project: set provider.%s.options.project or GOOGLE_CLOUD_PROJECT", m.Name(), m.ProviderID)
		}
		creds, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}})
		if err != nil {
			return nil, fmt.Errorf("model %s: Vertex AI needs Google Cloud credentials (gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS): %w", m.Name(), err)
		}
		cc.Backend, cc.Project, cc.Location, cc.Credentials = genai.BackendVertexAI, conn.Project, conn.Region, creds
		// The client is Podcode's own, so it is authorised here: genai
		// adds the credentials only to a client it makes.
		authed := *hc
		bt := &bearerTransport{base: orTransport(hc.Transport), creds: creds}
		if qp, err := creds.QuotaProjectID(ctx); err == nil {
			bt.quotaProject = qp
		}
		authed.Transport = bt
		cc.HTTPClient = &authed
	default:
		if conn.APIKey == "" {
			return nil, noKey(m, "GEMINI_API_KEY")
		}
		cc.Backend, cc.APIKey = genai.BackendGeminiAPI, conn.APIKey
	}
	return genai.NewClient(ctx, cc)
}

func orTransport(t http.RoundTripper) http.RoundTripper {
	if t == nil {
		return http.DefaultTransport
	}
	return t
}

// bearerTransport adds the credentials' token to each request.
type bearerTransport struct {
	base         http.RoundTripper
	creds        *auth.Credentials
	quotaProject string
}

func (t *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.creds.Token(r.Context())
	if err != nil {
		return nil, fmt.Errorf("getting a Google Cloud token: %w", err)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", cmp.Or(tok.Type, "Bearer")+" "+tok.Value)
	if t.quotaProject != "" {
		r.Header.Set("X-Goog-User-Project", t.quotaProject)
	}
	return t.base.RoundTrip(r)
}

// geminiError is err as the package's errors.
func geminiError(m Model, err error) error {
	var ae genai.APIError
	var aep *genai.APIError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &aep):
		ae = *aep
	default:
		return err
	}
	return &StatusError{Provider: m.ProviderID, Model: m.ModelID, Status: ae.Code, Type: ae.Status, Body: ae.Message, KeyEnv: m.Connection.KeyEnv}
}

// geminiRequestFields are the options that are fields of the request
// itself; every other option is one of its generationConfig.
var geminiRequestFields = map[string]bool{"safetySettings": true, "toolConfig": true, "cachedContent": true, "labels": true}

// geminiReserved are the request's fields Podcode builds: an option never
// replaces the conversation, the system prompt, the tools or the model.
var geminiReserved = map[string]bool{"contents": true, "systemInstruction": true, "tools": true, "model": true, "generationConfig": true}

// geminiBudgets are the thinking budgets of the efforts, for models that
// take a budget rather than a level.
var geminiBudgets = map[string]int32{"minimal": 1024, "low": 4096, "medium": 8192, "high": 24576, "xhigh": 32768, "max": 32768}

func (g *Gemini) config(req Request) (*genai.GenerateContentConfig, error) {
	m := req.Model
	opts := req.Params.Options
	cfg := &genai.GenerateContentConfig{}
	if req.Params.MaxOutputTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.Params.MaxOutputTokens, 1<<30))
	}
	f32 := func(p *float64) *float32 {
		if p == nil {
			return nil
		}
		v := float32(*p)
		return &v
	}
	cfg.Temperature, cfg.TopP, cfg.TopK = f32(req.Params.Temperature), f32(req.Params.TopP), f32(req.Params.TopK)
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	tools, err := g.tools.get(req.Tools, geminiTools)
	if err != nil {
		return nil, err
	}
	cfg.Tools = tools
	effort, _ := opts["reasoningEffort"].(string)
	switch n, hasBudget := opts["thinkingBudget"].(float64); {
	case hasBudget:
		b := int32(n)
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: &b}
	case !m.Reasoning || effort == "" || effort == "off":
	case effort == "none" && len(m.ReasoningLevels) == 0:
		zero := int32(0) // Gemini 2.5 Flash: off (2.5 Pro cannot turn it off, and refuses it)
		cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: &zero}
	case len(m.ReasoningLevels) > 0: // Gemini 3: its lowest level for "none", which it cannot turn off
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true,
			ThinkingLevel: genai.ThinkingLevel(strings.ToUpper(nearestLevel(effort, m.ReasoningLevels)))}
	default:
		b, ok := geminiBudgets[effort]
		if !ok {
			b = geminiBudgets["medium"]
		}
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: &b}
	}
	if v, ok := opts["includeThoughts"].(bool); ok && cfg.ThinkingConfig != nil {
		cfg.ThinkingConfig.IncludeThoughts = v
	}
	body, gen := map[string]any{}, map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		switch {
		case genericOptions[k] || geminiReserved[k]:
		case geminiRequestFields[k]:
			body[k] = opts[k]
		default:
			gen[k] = opts[k]
		}
	}
	if len(gen) > 0 {
		body["generationConfig"] = gen
	}
	if len(body) > 0 {
		cfg.HTTPOptions = &genai.HTTPOptions{ExtraBody: body}
	}
	return cfg, nil
}

// geminiContents is req's history as the API's contents: user turns (the
// prompts, summaries, hook context and function responses) and model
// turns alternating, consecutive ones of one side merged, the same model's
// thought signatures on the parts they came with.
func geminiContents(req Request) []*genai.Content {
	var out []*genai.Content
	add := func(role string, parts ...*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, &genai.Content{Role: role, Parts: parts})
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		switch m.Role {
		case chat.RoleUser, chat.RoleSummary, chat.RoleContext:
			add(genai.RoleUser, &genai.Part{Text: nonEmpty(m.Text)})
		case chat.RoleTool:
			if r := m.Result; r != nil {
				resp := map[string]any{"output": r.Output}
				if r.IsError {
					resp = map[string]any{"error": r.Output}
				}
				add(genai.RoleUser, &genai.Part{FunctionResponse: &genai.FunctionResponse{Name: r.Tool, Response: resp}})
			}
		case chat.RoleAssistant:
			same := sameModel(m, &req)
			var parts []*genai.Part
			if m.Text != "" {
				p := &genai.Part{Text: m.Text}
				if same {
					for _, r := range m.Reasoning {
						if r.Signature != "" && r.Text == "" {
							p.ThoughtSignature, _ = base64.StdEncoding.DecodeString(r.Signature)
						}
					}
				}
				parts = append(parts, p)
			}
			for _, c := range m.ToolCalls {
				args := map[string]any{}
				json.Unmarshal(toolInput(c.Args), &args)
				p := &genai.Part{FunctionCall: &genai.FunctionCall{Name: c.Tool, Args: args}}
				if same && c.Signature != "" {
					p.ThoughtSignature, _ = base64.StdEncoding.DecodeString(c.Signature)
				}
				parts = append(parts, p)
			}
			add(genai.RoleModel, parts...)
		}
	}
	return out
}

// geminiTools is specs as the API's function declarations.
func geminiTools(specs []ToolSpec) ([]*genai.Tool, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	var decls []*genai.FunctionDeclaration
	for _, t := range specs {
		schema, err := schemaObject(t)
		if err != nil {
			return nil, err
		}
		decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: schema})
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}, nil
}

// geminiReader assembles a streamed answer from the API's chunks: each
// holds parts of the answer (text, thoughts, function calls, each with its
// thought signature), the usage so far, and, in the last, the finish
// reason.
type geminiReader struct {
	text      strings.Builder
	thoughts  strings.Builder
	textSig   []byte
	calls     []chat.ToolCall
	usage     chat.Usage
	stop      string
	finished  bool
	sawChunks bool
}

func (r *geminiReader) chunk(c *genai.GenerateContentResponse, emit func(Event)) {
	r.sawChunks = true
	if u := c.UsageMetadata; u != nil {
		r.usage = chat.Usage{Input: int64(u.PromptTokenCount), Output: int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
			CacheRead: int64(u.CachedContentTokenCount), Reasoning: int64(u.ThoughtsTokenCount)}
	}
	if len(c.Candidates) == 0 {
		if c.PromptFeedback != nil && c.PromptFeedback.BlockReason != "" {
			r.stop, r.finished = "blocked: "+string(c.PromptFeedback.BlockReason), true
		}
		return
	}
	cand := c.Candidates[0]
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				args, _ := json.Marshal(p.FunctionCall.Args)
				if p.FunctionCall.Args == nil {
					args = []byte("{}")
				}
				call := chat.ToolCall{ID: cmp.Or(p.FunctionCall.ID, chat.NewID("call")), Tool: p.FunctionCall.Name, Args: args}
				if len(p.ThoughtSignature) > 0 {
					call.Signature = base64.StdEncoding.EncodeToString(p.ThoughtSignature)
				}
				r.calls = append(r.calls, call)
			case p.Thought:
				r.thoughts.WriteString(p.Text)
				if p.Text != "" {
					emit(Event{ReasoningDelta: p.Text})
				}
			case p.Text != "":
				r.text.WriteString(p.Text)
				emit(Event{TextDelta: p.Text})
				if len(p.ThoughtSignature) > 0 {
					r.textSig = p.ThoughtSignature
				}
			case len(p.ThoughtSignature) > 0:
				r.textSig = p.ThoughtSignature // an empty part that carries the signature alone
			}
		}
	}
	if cand.FinishReason != "" {
		r.finished = true
		switch cand.FinishReason {
		case genai.FinishReasonStop:
			r.stop = "stop"
		case genai.FinishReasonMaxTokens:
			r.stop = "length"
		default:
			r.stop = strings.ToLower(string(cand.FinishReason))
		}
	}
}

func (r *geminiReader) response() Response {
	res := Response{Text: r.text.String(), Usage: r.usage}
	if r.thoughts.Len() > 0 {
		res.Reasoning = append(res.Reasoning, chat.Reasoning{Text: r.thoughts.String()})
	}
	if len(r.textSig) > 0 {
		res.Reasoning = append(res.Reasoning, chat.Reasoning{Signature: base64.StdEncoding.EncodeToString(r.textSig)})
	}
	return res
}

func (r *geminiReader) finish(emit func(Event)) Response {
	res := r.response()
	res.ToolCalls = r.calls
	for i := range res.ToolCalls {
		emit(Event{ToolCall: &res.ToolCalls[i]})
	}
	res.StopReason = r.stop
	if len(res.ToolCalls) > 0 && r.stop == "stop" {
		res.StopReason = "tool_calls"
	}
	return res
}
