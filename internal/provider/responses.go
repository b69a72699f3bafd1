package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/podcode/podcode/internal/chat"
)

// Responses calls OpenAI's Responses API (APIResponses) through OpenAI's
// SDK (github.com/openai/openai-go). Nothing is stored on OpenAI's side
// (store: false): each request carries the whole history, and a reasoning
// model's reasoning items come back encrypted (include
// reasoning.encrypted_content) and are sent back, unchanged, with the same
// model's later requests, so that its reasoning carries on across the
// calls of a turn. The session's id is the prompt_cache_key, so that the
// requests of one session land where their prefix is cached.
//
// Options: reasoningEffort (the reasoning model's effort, SPEC H15) and
// reasoningSummary ("auto" by default for reasoning models: the summary is
// the thinking shown) go to reasoning; parallelToolCalls to
// parallel_tool_calls; every other option under its own name.
type Responses struct {
	retrier
	// HTTP carries the requests; nil: the transport every model call
	// shares.
	HTTP *http.Client

	svc   lazy[responses.ResponseService]
	tools toolCache[[]responses.ToolUnionParam]
}

var _ Provider = (*Responses)(nil)

// Stream implements Provider.
func (o *Responses) Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	svc, err := o.svc.get(func() (responses.ResponseService, error) { return o.newService(req.Model) })
	if err != nil {
		return Response{}, err
	}
	params, opts, err := o.params(req)
	if err != nil {
		return Response{}, err
	}
	return o.do(ctx, req.Model, onEvent, func(ctx context.Context, emit func(Event)) (Response, error) {
		stream := svc.NewStreaming(ctx, params, opts...)
		defer stream.Close()
		var r responsesReader
		for stream.Next() {
			if err := r.event(stream.Current(), emit); err != nil {
				return r.response(), err
			}
			if r.done {
				break
			}
		}
		if err := stream.Err(); err != nil && !r.done {
			return r.response(), responsesError(req.Model, err)
		}
		if !r.done {
			return r.response(), fmt.Errorf("%w: it ended before the answer did", ErrStream)
		}
		return r.finish(emit), nil
	})
}

func (o *Responses) newService(m Model) (responses.ResponseService, error) {
	conn := m.Connection
	if conn.APIKey == "" {
		return responses.ResponseService{}, noKey(m, "OPENAI_API_KEY")
	}
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Transport: modelTransport}
	}
	base := conn.BaseURL
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	opts := []option.RequestOption{option.WithHTTPClient(hc), option.WithMaxRetries(0), option.WithAPIKey(conn.APIKey), option.WithBaseURL(base + "/")}
	for k, v := range conn.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return responses.NewResponseService(opts...), nil
}

// responsesError is err as the package's errors.
func responsesError(m Model, err error) error {
	var ae *responses.Error
	if !errors.As(err, &ae) {
		return err
	}
	se := &StatusError{Provider: m.ProviderID, Model: m.ModelID, Status: ae.StatusCode, Type: cmp.Or(ae.Code, ae.Type), Body: ae.Message,
		KeyEnv: m.Connection.KeyEnv}
	if se.Body == "" {
		se.Type, se.Body = errorBody([]byte(ae.RawJSON()))
	}
	if ae.Response != nil {
		if d, ok := parseRetryAfter(ae.Response.Header); ok {
			se.RetryAfter = d
		}
	}
	return se
}

// responsesReserved are the body's fields Podcode builds: an option never
// replaces the model, the conversation (nor adds to it: a stored prompt),
// the tools, the stream, or store: false (nothing of the user's kept at
// OpenAI) and what it includes. Only a plain name is an option (plainKey).
var responsesReserved = map[string]bool{"model": true, "input": true, "instructions": true, "tools": true, "stream": true, "store": true,
	"include": true, "previous_response_id": true, "conversation": true, "prompt": true}

func (o *Responses) params(req Request) (responses.ResponseNewParams, []option.RequestOption, error) {
	m := req.Model
	opts := req.Params.Options
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(m.ModelID), Store: param.NewOpt(false)}
	if req.Params.MaxOutputTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.Params.MaxOutputTokens))
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	if req.SessionID != "" {
		p.PromptCacheKey = param.NewOpt(req.SessionID)
	}
	if t := req.Params.Temperature; t != nil {
		p.Temperature = param.NewOpt(*t)
	}
	if t := req.Params.TopP; t != nil {
		p.TopP = param.NewOpt(*t)
	}
	effort, _ := opts["reasoningEffort"].(string)
	if m.Reasoning && effort != "" && effort != "off" {
		p.Reasoning.Effort = shared.ReasoningEffort(nearestLevel(effort, m.ReasoningLevels))
		if effort != "none" {
			summary, _ := opts["reasoningSummary"].(string)
			p.Reasoning.Summary = shared.ReasoningSummary(cmp.Or(summary, "auto"))
			p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		}
	}
	if v, ok := opts["parallelToolCalls"].(bool); ok {
		p.ParallelToolCalls = param.NewOpt(v)
	}
	tools, err := o.tools.get(req.Tools, responsesTools)
	if err != nil {
		return p, nil, err
	}
	p.Tools = tools
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req)}
	var extra []option.RequestOption
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if sent(k, responsesReserved) {
			extra = append(extra, option.WithJSONSet(k, opts[k]))
		}
	}
	return p, extra, nil
}

// responsesInput is req's history as the API's input items: messages,
// the same model's reasoning items, function calls and their outputs.
func responsesInput(req Request) responses.ResponseInputParam {
	items := make(responses.ResponseInputParam, 0, len(req.Messages)+len(req.Messages)/2)
	for i := range req.Messages {
		m := &req.Messages[i]
		switch m.Role {
		case chat.RoleUser, chat.RoleSummary, chat.RoleContext:
			items = append(items, responses.ResponseInputItemParamOfMessage(nonEmpty(m.Text), responses.EasyInputMessageRoleUser))
		case chat.RoleTool:
			if m.Result != nil {
				items = append(items, responses.ResponseInputItemParamOfFunctionCallOutput(m.Result.Output))
				items[len(items)-1].OfFunctionCallOutput.CallID = param.NewOpt(m.Result.CallID)
			}
		case chat.RoleAssistant:
			if sameModel(m, &req) {
				for _, r := range m.Reasoning {
					if r.ID == "" || r.Data == "" {
						continue
					}
					summary := []responses.ResponseReasoningItemSummaryParam{}
					if r.Text != "" {
						summary = append(summary, responses.ResponseReasoningItemSummaryParam{Text: r.Text})
					}
					item := responses.ResponseInputItemParamOfReasoning(r.ID, summary)
					item.OfReasoning.EncryptedContent = param.NewOpt(r.Data)
					items = append(items, item)
				}
			}
			if m.Text != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(string(toolInput(c.Args)), c.ID, c.Tool))
			}
		}
	}
	return items
}

// responsesTools is specs as the API's function tools.
func responsesTools(specs []ToolSpec) ([]responses.ToolUnionParam, error) {
	tools := make([]responses.ToolUnionParam, 0, len(specs))
	for _, t := range specs {
		schema, err := schemaObject(t)
		if err != nil {
			return nil, err
		}
		tools = append(tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{Name: t.Name,
			Description: param.NewOpt(t.Description), Parameters: schema, Strict: param.NewOpt(false)}})
	}
	return tools, nil
}

// responsesReader assembles a streamed answer from the API's events: the
// output items (messages, reasoning, function calls) as they are added,
// their deltas, each item when done, and response.completed with the
// usage (or response.failed, response.incomplete, error).
type responsesReader struct {
	text      strings.Builder
	calls     map[string]*responsesCall // by item id
	order     []*responsesCall
	reasoning []chat.Reasoning
	summary   strings.Builder // of the reasoning item under way
	usage     chat.Usage
	stop      string
	done      bool
}

type responsesCall struct {
	callID, name string
	args         strings.Builder
	complete     bool
}

func (r *responsesReader) call(id string) *responsesCall {
	if r.calls == nil {
		r.calls = map[string]*responsesCall{}
	}
	c := r.calls[id]
	if c == nil {
		c = &responsesCall{}
		r.calls[id] = c
		r.order = append(r.order, c)
	}
	return c
}

func (r *responsesReader) event(ev responses.ResponseStreamEventUnion, emit func(Event)) error {
	switch ev.Type {
	case "response.output_text.delta":
		r.text.WriteString(ev.Delta)
		emit(Event{TextDelta: ev.Delta})
	case "response.reasoning_summary_text.delta":
		r.summary.WriteString(ev.Delta)
		emit(Event{ReasoningDelta: ev.Delta})
	case "response.reasoning_summary_part.done":
		r.summary.WriteString("\n\n")
	case "response.output_item.added":
		if it := ev.Item; it.Type == "function_call" {
			c := r.call(it.ID)
			c.callID, c.name = it.CallID, it.Name
		}
	case "response.function_call_arguments.delta":
		r.call(ev.ItemID).args.WriteString(ev.Delta)
	case "response.function_call_arguments.done":
		c := r.call(ev.ItemID)
		c.args.Reset()
		c.args.WriteString(ev.Arguments)
	case "response.output_item.done":
		it := ev.Item
		switch it.Type {
		case "function_call":
			c := r.call(it.ID)
			c.callID, c.name, c.complete = cmp.Or(it.CallID, c.callID), cmp.Or(it.Name, c.name), true
			if a := it.Arguments.OfString; a != "" {
				c.args.Reset()
				c.args.WriteString(a)
			}
		case "reasoning":
			text := strings.TrimSpace(r.summary.String())
			if text == "" {
				var parts []string
				for _, s := range it.Summary {
					parts = append(parts, s.Text)
				}
				text = strings.Join(parts, "\n\n")
			}
			r.reasoning = append(r.reasoning, chat.Reasoning{ID: it.ID, Text: text, Data: it.EncryptedContent})
			r.summary.Reset()
		}
	case "response.completed", "response.incomplete":
		u := ev.Response.Usage
		r.usage = chat.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.InputTokensDetails.CachedTokens,
			CacheWrite: u.InputTokensDetails.CacheWriteTokens, Reasoning: u.OutputTokensDetails.ReasoningTokens}
		r.done = true
		if ev.Type == "response.incomplete" {
			r.stop = "length"
			if reason := ev.Response.IncompleteDetails.Reason; reason != "" && reason != "max_output_tokens" {
				r.stop = string(reason)
			}
		}
	case "response.failed":
		e := ev.Response.Error
		return &StatusError{Type: string(e.Code), Body: cmp.Or(e.Message, "the response failed")}
	case "error":
		return &StatusError{Type: ev.Code, Body: ev.Message}
	}
	return nil
}

// response is what streamed so far, for an answer that broke off: its
// reasoning shown, never sent back (the items it led to never came).
func (r *responsesReader) response() Response {
	res := Response{Text: r.text.String(), Usage: r.usage}
	for _, rs := range r.reasoning {
		if rs.Text != "" {
			res.Reasoning = append(res.Reasoning, chat.Reasoning{Text: rs.Text})
		}
	}
	return res
}

func (r *responsesReader) finish(emit func(Event)) Response {
	res := Response{Text: r.text.String(), Usage: r.usage, Reasoning: r.reasoning}
	for _, c := range r.order {
		if c.name == "" {
			continue
		}
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		call := chat.ToolCall{ID: cmp.Or(c.callID, chat.NewID("call")), Tool: c.name, Args: json.RawMessage(args)}
		if !json.Valid(call.Args) {
			call.Args, _ = json.Marshal(args)
		}
		res.ToolCalls = append(res.ToolCalls, call)
		emit(Event{ToolCall: &call})
	}
	switch {
	case r.stop != "":
		res.StopReason = r.stop
	case len(res.ToolCalls) > 0:
		res.StopReason = "tool_calls"
	default:
		res.StopReason = "stop"
	}
	return res
}
