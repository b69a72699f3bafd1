package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/podcode/podcode/internal/chat"
)

// Anthropic calls Anthropic's Messages API (APIAnthropic), or Anthropic's
// models on Amazon Bedrock (APIBedrock), through Anthropic's SDK
// (github.com/anthropics/anthropic-sdk-go), which signs Bedrock's requests
// with the AWS credentials of the environment and reads its event stream.
//
// What it sends, beyond the history:
//
//   - prompt caching, as Claude Code does: a cache_control breakpoint on
//     the last tool, on the system prompt, on the last message and on the
//     last user message before it (the end of the previous request), so
//     that each request of a turn reads from the cache everything the one
//     before it sent and writes what it adds (four breakpoints, the API's
//     most). options.promptCache false sends none; "1h" asks for the hour
//     long cache;
//   - thinking, for reasoning models: options.reasoningEffort (Podcode
//     computes one for every reasoning model, SPEC H15) becomes adaptive
//     thinking with that effort, its summary shown, on the models whose
//     efforts go up to max (Claude 4.6 and later: the catalog's reasoning
//     levels), else a thinking budget (minimal 1024 tokens, low 4000,
//     medium 10000, high 31999, xhigh and max 63999, always under
//     max_tokens), with the effort beside it on a model that takes one
//     (Claude Opus 4.5); "none" sends no thinking. options.thinking is read
//     as the API's own thinking object ({"type": "enabled", "budget_tokens"}
//     with its budget kept under max_tokens; {"type": "adaptive"} with the
//     effort; {"type": "disabled"}), options.thinkingBudget as a budget;
//     either wins over the effort. With thinking on, temperature
//     and top_k are left out (the API refuses them) and top_p under 0.95;
//     a turn whose first answer came without thinking (made with it off)
//     gets none in the requests that continue it, since the API refuses
//     thinking switched on mid-turn;
//   - signed thinking blocks (and redacted ones) of the same model's
//     earlier answers, unchanged, as the API requires within a tool loop;
//   - options.parallelToolCalls false as disable_parallel_tool_use; every
//     other option under its own name, in the body (metadata,
//     service_tier, stop_sequences, …).
type Anthropic struct {
	retrier
	// HTTP carries the requests; nil: the transport every model call
	// shares.
	HTTP *http.Client

	client lazy[anthropic.Client]
	tools  toolCache[[]anthropic.ToolUnionParam]
	warned sync.Once
}

var _ Provider = (*Anthropic)(nil)

// Stream implements Provider.
func (a *Anthropic) Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	client, err := a.client.get(func() (anthropic.Client, error) { return a.newClient(ctx, req.Model) })
	if err != nil {
		return Response{}, err
	}
	params, opts, err := a.params(req)
	if err != nil {
		return Response{}, err
	}
	return a.do(ctx, req.Model, onEvent, func(ctx context.Context, emit func(Event)) (Response, error) {
		stream := client.Messages.NewStreaming(ctx, params, opts...)
		defer stream.Close()
		var r anthropicReader
		for stream.Next() {
			if err := r.event(stream.Current(), emit); err != nil {
				return r.response(), err
			}
		}
		if err := stream.Err(); err != nil {
			return r.response(), anthropicError(req.Model, err)
		}
		if !r.done {
			return r.response(), fmt.Errorf("%w: it ended before the answer did", ErrStream)
		}
		return r.finish(emit)
	})
}

// newClient makes the SDK's client for m's connection: its own retries
// off (retry.go makes them), no setting of Anthropic's read from the
// environment but what connection() read. On Bedrock the AWS configuration
// is the environment's (its credential chain, and Anthropic's Bedrock
// middleware reads AWS_BEARER_TOKEN_BEDROCK and ANTHROPIC_BEDROCK_BASE_URL).
func (a *Anthropic) newClient(ctx context.Context, m Model) (anthropic.Client, error) {
	conn := m.Connection
	hc := a.HTTP
	if hc == nil {
		hc = &http.Client{Transport: modelTransport}
	}
	opts := []option.RequestOption{option.WithHTTPClient(hc), option.WithMaxRetries(0)}
	for k, v := range conn.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	if conn.API == APIBedrock {
		var load []func(*awsconfig.LoadOptions) error
		if conn.Region != "" {
			load = append(load, awsconfig.WithRegion(conn.Region))
		}
		if conn.Profile != "" {
			load = append(load, awsconfig.WithSharedConfigProfile(conn.Profile))
		}
		cfg, err := awsconfig.LoadDefaultConfig(ctx, load...)
		if err != nil {
			return anthropic.Client{}, fmt.Errorf("model %s: reading the AWS configuration for Bedrock: %w", m.Name(), err)
		}
		if cfg.Region == "" {
			return anthropic.Client{}, fmt.Errorf("model %s: Bedrock needs a region: set provider.%s.options.region or AWS_REGION", m.Name(), m.ProviderID)
		}
		opts = append(opts, bedrock.WithConfig(cfg))
		if conn.BaseURL != "" {
			opts = append(opts, option.WithBaseURL(conn.BaseURL))
		}
		return anthropic.NewClient(opts...), nil
	}
	if conn.APIKey == "" {
		return anthropic.Client{}, noKey(m, "ANTHROPIC_API_KEY")
	}
	base := conn.BaseURL
	if base == "" {
		base = "https://api.anthropic.com"
	}
	opts = append(opts, option.WithoutEnvironmentDefaults(), option.WithAPIKey(conn.APIKey), option.WithBaseURL(base))
	return anthropic.NewClient(opts...), nil
}

// anthropicError is err as the package's errors: the API's answers as
// *StatusError (a 200 whose stream then carried an error event counts as
// mid-stream: status 0).
func anthropicError(m Model, err error) error {
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		return err
	}
	se := &StatusError{Provider: m.ProviderID, Model: m.ModelID, Status: ae.StatusCode, Type: string(ae.Type()), Body: ae.Message,
		KeyEnv: m.Connection.KeyEnv}
	if se.Status == http.StatusOK {
		se.Status = 0
	}
	if se.Body == "" {
		se.Type, se.Body = errorBody([]byte(ae.RawJSON()))
		if t := string(ae.Type()); t != "" {
			se.Type = t
		}
	}
	if ae.Response != nil {
		if d, ok := parseRetryAfter(ae.Response.Header); ok {
			se.RetryAfter = d
		}
		if t, _, _ := strings.Cut(ae.Response.Header.Get("X-Amzn-Errortype"), ":"); t != "" && se.Type == "" {
			se.Type = t // Bedrock's: ThrottlingException, AccessDeniedException, ValidationException
		}
	}
	return se
}

// params is the request for req: the body's fields, and the options that
// set what the SDK's types do not name.
func (a *Anthropic) params(req Request) (anthropic.MessageNewParams, []option.RequestOption, error) {
	m := req.Model
	maxTokens := int64(req.Params.MaxOutputTokens)
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens // the API requires one; a model without an output limit
		req.Params.MaxOutputTokens = defaultMaxTokens
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(m.ModelID), MaxTokens: maxTokens}
	opts := req.Params.Options
	var extra []option.RequestOption

	cache, ttl := true, anthropic.CacheControlEphemeralTTL("")
	switch v := opts["promptCache"].(type) {
	case bool:
		cache = v
	case string:
		ttl = anthropic.CacheControlEphemeralTTL(v)
	}
	breakpoint := func(cc *anthropic.CacheControlEphemeralParam) {
		if cache && cc != nil {
			*cc = anthropic.NewCacheControlEphemeralParam()
			cc.TTL = ttl
		}
	}

	tools, err := a.tools.get(req.Tools, anthropicTools)
	if err != nil {
		return p, nil, err
	}
	if len(tools) > 0 {
		p.Tools = slices.Clone(tools)
		last := *p.Tools[len(p.Tools)-1].OfTool // a copy: the kept list is shared by every request
		breakpoint(&last.CacheControl)
		p.Tools[len(p.Tools)-1] = anthropic.ToolUnionParam{OfTool: &last}
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
		breakpoint(&p.System[0].CacheControl)
	}

	thinking := a.thinking(req, opts)
	p.Messages, thinking = anthropicMessages(req, thinking)
	if n := len(p.Messages); n > 0 {
		breakpoint(lastBlockCache(p.Messages[n-1]))
		for i := n - 2; i >= 0; i-- {
			if p.Messages[i].OfUser != nil {
				breakpoint(lastBlockCache(p.Messages[i]))
				break
			}
		}
	}

	if thinking.on {
		p.Thinking = thinking.param
		if thinking.effort != "" {
			p.OutputConfig.Effort = anthropic.OutputConfigEffort(thinking.effort)
		}
		if req.Params.Temperature != nil || req.Params.TopK != nil || (req.Params.TopP != nil && *req.Params.TopP < 0.95) {
			a.warned.Do(func() {
				if a.log != nil {
					a.log.Warn("provider: temperature, top_k and a top_p under 0.95 are left out of requests with thinking, which Anthropic refuses with them; "+
						"set options.reasoningEffort to \"none\" to keep them", "provider", m.ProviderID, "model", m.ModelID)
				}
			})
		}
		if t := req.Params.TopP; t != nil && *t >= 0.95 {
			extra = append(extra, option.WithJSONSet("top_p", *t))
		}
	} else {
		// The SDK's types no longer name the sampling parameters (the
		// newest models refuse them); the models that take them still do.
		if t := req.Params.Temperature; t != nil {
			extra = append(extra, option.WithJSONSet("temperature", *t))
		}
		if t := req.Params.TopP; t != nil {
			extra = append(extra, option.WithJSONSet("top_p", *t))
		}
		if t := req.Params.TopK; t != nil {
			extra = append(extra, option.WithJSONSet("top_k", int64(*t)))
		}
	}
	if v, ok := opts["parallelToolCalls"].(bool); ok && !v && len(tools) > 0 {
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(true)}}
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if sent(k, anthropicReserved) {
			extra = append(extra, option.WithJSONSet(k, opts[k]))
		}
	}
	return p, extra, nil
}

// defaultMaxTokens is max_tokens for a model whose output limit nobody
// gave (one the user's file defines without limit.output): what every
// Claude model since 3.5 takes.
const defaultMaxTokens = 8192

// anthropicReserved are the body's fields Podcode builds: an option never
// replaces the model, the conversation, the tools or the stream (and only
// a plain name is an option: WithJSONSet reads "messages.0.content" and
// "mod\\el" as paths into the body).
var anthropicReserved = map[string]bool{"model": true, "messages": true, "system": true, "tools": true, "stream": true, "max_tokens": true}

// genericOptions are the options of Podcode's vocabulary, each read by the
// APIs that take it (Anthropic's promptCache, the Responses API's
// reasoningSummary, …): never sent under its own name.
var genericOptions = map[string]bool{"reasoningEffort": true, "reasoningSummary": true, "promptCache": true, "thinking": true,
	"thinkingBudget": true, "parallelToolCalls": true, "maxCompletionTokens": true, "includeThoughts": true}

// lastBlockCache is where a breakpoint on m's last block goes (nil for a
// block that takes none: thinking).
func lastBlockCache(m anthropic.MessageParam) *anthropic.CacheControlEphemeralParam {
	var blocks []anthropic.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		blocks = m.OfUser.Content
	case m.OfAssistant != nil:
		blocks = m.OfAssistant.Content
	}
	if len(blocks) == 0 {
		return nil
	}
	return blocks[len(blocks)-1].GetCacheControl()
}

// anthropicThinking is what a request asks of the model's thinking.
type anthropicThinking struct {
	on     bool
	param  anthropic.ThinkingConfigParamUnion
	effort string // output_config.effort, for adaptive thinking
}

// thinkingBudgets are the budgets of the efforts, for models that take a
// budget rather than an effort.
var thinkingBudgets = map[string]int64{"minimal": 1024, "low": 4000, "medium": 10000, "high": 31999, "xhigh": 63999, "max": 63999}

// thinking reads the thinking options of req (see Anthropic).
func (a *Anthropic) thinking(req Request, opts map[string]any) anthropicThinking {
	maxTokens := int64(req.Params.MaxOutputTokens)
	budget := func(n int64) anthropicThinking {
		n = min(n, maxTokens-1)
		if n < 1024 {
			return anthropicThinking{}
		}
		return anthropicThinking{on: true, param: anthropic.ThinkingConfigParamOfEnabled(n)}
	}
	if t, ok := opts["thinking"].(map[string]any); ok {
		switch t["type"] {
		case "enabled":
			n, _ := t["budget_tokens"].(float64)
			if n == 0 {
				n, _ = t["budgetTokens"].(float64)
			}
			return budget(int64(n))
		case "adaptive":
			effort, _ := opts["reasoningEffort"].(string)
			if effort == "none" || effort == "off" {
				effort = ""
			}
			return adaptive(nearestLevel(effort, req.Model.ReasoningLevels))
		}
		return anthropicThinking{}
	}
	if n, ok := opts["thinkingBudget"].(float64); ok {
		return budget(int64(n))
	}
	effort, _ := opts["reasoningEffort"].(string)
	if !req.Model.Reasoning || effort == "" || effort == "none" || effort == "off" {
		return anthropicThinking{}
	}
	levels := req.Model.ReasoningLevels
	if slices.Contains(levels, "max") {
		return adaptive(nearestLevel(effort, levels))
	}
	n, ok := thinkingBudgets[effort]
	if !ok {
		n = thinkingBudgets["medium"]
	}
	th := budget(n)
	if th.on && len(levels) > 0 {
		th.effort = nearestLevel(effort, levels) // Claude Opus 4.5: a budget, and the effort beside it
	}
	return th
}

// adaptive is adaptive thinking at effort, its summary shown (the newest
// models omit it unless asked).
func adaptive(effort string) anthropicThinking {
	return anthropicThinking{on: true, effort: effort, param: anthropic.ThinkingConfigParamUnion{
		OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{Display: anthropic.ThinkingConfigAdaptiveDisplaySummarized}}}
}

// effortOrder orders the reasoning efforts the APIs name.
var effortOrder = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// nearestLevel is the level of levels closest to effort (effort itself
// when levels is empty or holds it; the nearest above it, else below).
func nearestLevel(effort string, levels []string) string {
	if len(levels) == 0 || slices.Contains(levels, effort) {
		return effort
	}
	at := slices.Index(effortOrder, effort)
	if at < 0 {
		at = slices.Index(effortOrder, "medium")
	}
	for d := 1; d < len(effortOrder); d++ {
		for _, i := range []int{at + d, at - d} {
			if i >= 0 && i < len(effortOrder) && slices.Contains(levels, effortOrder[i]) {
				return effortOrder[i]
			}
		}
	}
	return levels[0]
}

// anthropicMessages is req's history as the API takes it: user turns (the
// prompts, summaries and hook context, and tool results) and assistant
// turns alternating, consecutive messages of one side merged; an
// assistant message keeps the same model's signed thinking first. It also
// returns thinking switched off when the turn under way (since the last
// prompt: its tool loop is one assistant turn to the API) was begun
// without thinking: the API refuses thinking that starts mid-turn, while
// the later steps of a turn may come without thinking of their own (a
// model that thinks only at a turn's start).
func anthropicMessages(req Request, thinking anthropicThinking) ([]anthropic.MessageParam, anthropicThinking) {
	out := make([]anthropic.MessageParam, 0, len(req.Messages))
	add := func(user bool, blocks ...anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 {
			if last := &out[n-1]; user && last.OfUser != nil {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
				return
			} else if !user && last.OfAssistant != nil {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
				return
			}
		}
		if user {
			out = append(out, anthropic.NewUserMessage(blocks...))
		} else {
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		}
	}
	// The turn under way (since the last prompt: a tool loop is one
	// assistant turn to the API) began with thinking, or has no answer yet.
	turnThinks, turnAnswered := true, false
	for i := range req.Messages {
		m := &req.Messages[i]
		switch m.Role {
		case chat.RoleUser, chat.RoleSummary, chat.RoleContext:
			turnThinks, turnAnswered = true, false
			add(true, anthropic.NewTextBlock(nonEmpty(m.Text)))
		case chat.RoleTool:
			if m.Result != nil {
				add(true, anthropic.NewToolResultBlock(m.Result.CallID, nonEmpty(m.Result.Output), m.Result.IsError))
			}
		case chat.RoleAssistant:
			blocks := make([]anthropic.ContentBlockParamUnion, 0, 2+len(m.ToolCalls))
			if sameModel(m, &req) {
				for _, r := range m.Reasoning {
					switch {
					case r.Signature != "":
						blocks = append(blocks, anthropic.NewThinkingBlock(r.Signature, r.Text))
					case r.Data != "":
						blocks = append(blocks, anthropic.NewRedactedThinkingBlock(r.Data))
					}
				}
			}
			thinks := len(blocks) > 0
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, toolInput(c.Args), c.Tool))
			}
			if len(blocks) > 0 && !turnAnswered {
				turnThinks, turnAnswered = thinks, true
			}
			add(false, blocks...)
		}
	}
	if thinking.on && !turnThinks {
		thinking = anthropicThinking{}
	}
	return out, thinking
}

// nonEmpty is s, or a placeholder for the empty text the API refuses.
func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// toolInput is a call's arguments as the API's input object: the JSON the
// model sent, or {} for arguments that were not an object (the turn told
// the model so in the call's result).
func toolInput(args json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(args); len(t) > 0 && t[0] == '{' {
		return args
	}
	return json.RawMessage(`{}`)
}

// anthropicTools is specs as the API's tools.
func anthropicTools(specs []ToolSpec) ([]anthropic.ToolUnionParam, error) {
	tools := make([]anthropic.ToolUnionParam, 0, len(specs))
	for _, t := range specs {
		schema, err := schemaObject(t)
		if err != nil {
			return nil, err
		}
		delete(schema, "type")
		if _, ok := schema["properties"]; !ok {
			schema["properties"] = map[string]any{}
		}
		tools = append(tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: t.Name, Description: param.NewOpt(t.Description),
			InputSchema: anthropic.ToolInputSchemaParam{ExtraFields: schema}}})
	}
	return tools, nil
}

// anthropicReader assembles a streamed answer from the API's events:
// message_start (the input's usage), content_block_start, _delta and
// _stop for each text, thinking, redacted_thinking and tool_use block,
// message_delta (the stop reason, the output's usage), message_stop.
type anthropicReader struct {
	text   strings.Builder
	blocks map[int64]*anthropicBlock
	order  []*anthropicBlock
	usage  chat.Usage
	stop   string
	done   bool
}

type anthropicBlock struct {
	kind       string // text, thinking, redacted_thinking, tool_use
	text       strings.Builder
	signature  string
	data       string
	id, name   string
	args       strings.Builder
	hasPartial bool
}

func (r *anthropicReader) event(ev anthropic.MessageStreamEventUnion, emit func(Event)) error {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		r.usage.CacheRead, r.usage.CacheWrite = u.CacheReadInputTokens, u.CacheCreationInputTokens
		r.usage.Input = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
		r.usage.Output = u.OutputTokens
	case "content_block_start":
		if r.blocks == nil {
			r.blocks = map[int64]*anthropicBlock{}
		}
		cb := ev.ContentBlock
		b := &anthropicBlock{kind: cb.Type, signature: cb.Signature, data: cb.Data, id: cb.ID, name: cb.Name}
		switch cb.Type {
		case "text":
			if cb.Text != "" {
				b.text.WriteString(cb.Text)
				r.text.WriteString(cb.Text)
				emit(Event{TextDelta: cb.Text})
			}
		case "thinking":
			b.text.WriteString(cb.Thinking)
		}
		r.blocks[ev.Index] = b
		r.order = append(r.order, b)
	case "content_block_delta":
		b := r.blocks[ev.Index]
		if b == nil {
			return fmt.Errorf("%w: a delta for block %d, which never started", ErrStream, ev.Index)
		}
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			b.text.WriteString(d.Text)
			r.text.WriteString(d.Text)
			emit(Event{TextDelta: d.Text})
		case "thinking_delta":
			b.text.WriteString(d.Thinking)
			emit(Event{ReasoningDelta: d.Thinking})
		case "signature_delta":
			b.signature += d.Signature
		case "input_json_delta":
			b.args.WriteString(d.PartialJSON)
			b.hasPartial = true
		}
	case "content_block_stop":
	case "message_delta":
		r.stop = string(ev.Delta.StopReason)
		u := ev.Usage
		r.usage.Output = u.OutputTokens
		if u.InputTokens > 0 || u.CacheReadInputTokens > 0 || u.CacheCreationInputTokens > 0 {
			// Newer answers repeat the input's counts here, final.
			r.usage.CacheRead, r.usage.CacheWrite = u.CacheReadInputTokens, u.CacheCreationInputTokens
			r.usage.Input = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
		}
	case "message_stop":
		r.done = true
	}
	return nil
}

// response is what streamed so far, for an answer that broke off.
func (r *anthropicReader) response() Response {
	res := Response{Text: r.text.String(), Usage: r.usage}
	for _, b := range r.order {
		if b.kind == "thinking" && b.text.Len() > 0 {
			res.Reasoning = append(res.Reasoning, chat.Reasoning{Text: b.text.String()}) // unsigned: shown, never sent
		}
	}
	return res
}

// finish is the complete answer: its tool calls are passed to emit.
func (r *anthropicReader) finish(emit func(Event)) (Response, error) {
	res := Response{Text: r.text.String(), Usage: r.usage}
	for _, b := range r.order {
		switch b.kind {
		case "thinking":
			res.Reasoning = append(res.Reasoning, chat.Reasoning{Text: b.text.String(), Signature: b.signature})
		case "redacted_thinking":
			res.Reasoning = append(res.Reasoning, chat.Reasoning{Data: b.data})
		case "tool_use":
			args := strings.TrimSpace(b.args.String())
			if !b.hasPartial || args == "" {
				args = "{}"
			}
			call := chat.ToolCall{ID: b.id, Tool: b.name, Args: json.RawMessage(args)}
			if call.ID == "" {
				call.ID = chat.NewID("call")
			}
			if !json.Valid(call.Args) {
				call.Args, _ = json.Marshal(args) // the model's text, kept: the turn tells it its arguments were not an object
			}
			res.ToolCalls = append(res.ToolCalls, call)
			emit(Event{ToolCall: &call})
		}
	}
	switch r.stop {
	case "tool_use":
		res.StopReason = "tool_calls"
	case "max_tokens":
		res.StopReason = "length"
	case "", "end_turn", "stop_sequence":
		res.StopReason = "stop"
	default:
		res.StopReason = r.stop // pause_turn, refusal
	}
	return res, nil
}
