package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"

	"github.com/podcode/podcode/internal/chat"
)

// ToolSpec is a tool as the model sees it.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model call.
type Request struct {
	Model  Model
	Params Params
	System string
	// Messages is the history, every tool call answered (chat.Paired). An
	// assistant message's Reasoning and its calls' signatures are sent
	// back only when its Model is this request's.
	Messages []chat.Message
	Tools    []ToolSpec
	// Channel is the turn's channel (cli, api, cron, webhook): the offline
	// model introduces itself to a person at a terminal only.
	Channel string
	// SessionID names the conversation to providers that key their prompt
	// cache by it (OpenAI's prompt_cache_key).
	SessionID string
}

// Event is a piece of a streamed response.
type Event struct {
	TextDelta      string         // text as it arrives
	ReasoningDelta string         // thinking as it arrives, where the provider shows it
	ToolCall       *chat.ToolCall // a tool call, once complete
}

// Response is a model's complete answer.
type Response struct {
	Text      string
	ToolCalls []chat.ToolCall
	// Reasoning is the thinking that came with the answer, to be stored
	// with it and sent back to the same model (chat.Reasoning).
	Reasoning  []chat.Reasoning
	Usage      chat.Usage
	StopReason string // "stop", "tool_calls", "length"
}

// Provider calls a model.
type Provider interface {
	// Stream sends req, calls onEvent as the answer arrives (on the calling
	// goroutine), and returns the complete answer. It honours ctx: a
	// cancelled call returns promptly with ctx's error. An answer that
	// breaks off (cancelled, cut, malformed) returns with its error the
	// text that streamed before. A call that failed before anything of its
	// answer arrived is retried as Connection.MaxRetries allows (retry.go);
	// the errors say what to check (StatusError, ErrContextOverflow).
	Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error)
}

// ErrUnknownProvider is returned for a model whose provider Podcode cannot call.
var ErrUnknownProvider = errors.New("unknown provider")

// For returns the provider that calls m, by its Connection.API: the
// built-in offline model (or its replay of a recording), or a client of
// the provider's API. log receives the retries (nil: none).
func For(m Model, log *slog.Logger) (Provider, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := retrier{log: log}
	switch m.Connection.API {
	case APIOffline:
		if m.Connection.Replay != "" {
			return LoadReplay(m.Connection.Replay, m.Connection.ReplaySum)
		}
		return OfflineModel{}, nil
	case APIChat:
		if m.Connection.BaseURL == "" {
			return nil, fmt.Errorf("model %s: provider %s speaks OpenAI's chat completions but has no baseURL in provider.%s.options", m.Name(), m.ProviderID, m.ProviderID)
		}
		return &OpenAI{retrier: r}, nil
	case APIAnthropic, APIBedrock:
		return &Anthropic{retrier: r}, nil
	case APIResponses:
		return &Responses{retrier: r}, nil
	case APIGemini, APIVertex:
		return &Gemini{retrier: r}, nil
	case "":
		return nil, fmt.Errorf("model %s: %w %q (give it a baseURL in provider.%s.options, or an \"api\": one of %v)",
			m.Name(), ErrUnknownProvider, m.ProviderID, m.ProviderID, APIs)
	}
	return nil, fmt.Errorf("model %s: provider.%s.options.api %q is not one of %v", m.Name(), m.ProviderID, m.Connection.API, APIs)
}

// toolCache keeps the last list of tools converted into an API's form: a
// turn sends the same tools with every call, so each distinct list
// (compared by value: the caller builds a new slice each call) is
// converted once, and a changed description or schema is sent as it is
// now.
type toolCache[T any] struct{ last atomic.Pointer[converted[T]] }

type converted[T any] struct {
	specs []ToolSpec
	v     T
}

func (c *toolCache[T]) get(specs []ToolSpec, convert func([]ToolSpec) (T, error)) (T, error) {
	if k := c.last.Load(); k != nil && slices.EqualFunc(k.specs, specs, func(a, b ToolSpec) bool {
		return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
	}) {
		return k.v, nil
	}
	v, err := convert(specs)
	if err != nil {
		return v, err
	}
	kept := make([]ToolSpec, len(specs))
	for i, t := range specs {
		kept[i] = ToolSpec{Name: t.Name, Description: t.Description, Parameters: bytes.Clone(t.Parameters)}
	}
	c.last.Store(&converted[T]{specs: kept, v: v})
	return v, nil
}

// schemaObject is a tool's parameters as a JSON object (an empty object
// schema for none), for the SDKs that take it decoded.
func schemaObject(t ToolSpec) (map[string]any, error) {
	schema := map[string]any{"type": "object", "properties": map[string]any{}}
	if len(t.Parameters) > 0 {
		schema = map[string]any{}
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return nil, fmt.Errorf("tool %s: its parameters are not a JSON object: %w", t.Name, err)
		}
	}
	return schema, nil
}

// sent says whether option k goes into an SDK's body under its own name:
// not one of Podcode's vocabulary (genericOptions, read into the API's own
// fields), not a field Podcode builds (reserved), and a plain name.
func sent(k string, reserved map[string]bool) bool {
	return !genericOptions[k] && !reserved[k] && plainKey(k)
}

// plainKey says whether an option's name is a plain name ([A-Za-z0-9_]),
// the only kind an SDK's body gets: the SDKs set options as paths into
// the JSON they built, where "messages.0.content" or an escaped "st\\ore"
// would replace what Podcode built.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// sameModel says whether what an assistant message holds for its model
// (thinking, signatures) may be sent to req's.
func sameModel(m *chat.Message, req *Request) bool {
	return m.Model != "" && m.Model == req.Model.Name()
}
