package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
	Model    Model
	Params   Params
	System   string
	Messages []chat.Message
	Tools    []ToolSpec
	// Channel is the turn's channel (cli, api, cron, webhook): the offline
	// model introduces itself to a person at a terminal only.
	Channel string
}

// Event is a piece of a streamed response.
type Event struct {
	TextDelta string         // text as it arrives
	ToolCall  *chat.ToolCall // a tool call, once complete
}

// Response is a model's complete answer.
type Response struct {
	Text       string
	ToolCalls  []chat.ToolCall
	Usage      chat.Usage
	StopReason string // "stop", "tool_calls", "length"
}

// Provider calls a model.
type Provider interface {
	// Stream sends req, calls onEvent as the answer arrives (on the calling
	// goroutine), and returns the complete answer. It honours ctx: a
	// cancelled call returns promptly with ctx's error. An answer that
	// breaks off (cancelled, cut, malformed) returns with its error the
	// text that streamed before.
	Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error)
}

// ErrUnknownProvider is returned for a model whose provider Podcode cannot call.
var ErrUnknownProvider = errors.New("unknown provider")

// For returns the provider that calls m: the built-in offline model, or an
// OpenAI-compatible endpoint when the model's provider has a baseURL (or is
// "openai").
func For(m Model) (Provider, error) {
	switch {
	case m.ProviderID == Offline && m.Connection.Replay != "":
		return LoadReplay(m.Connection.Replay, m.Connection.ReplaySum)
	case m.ProviderID == Offline:
		return OfflineModel{}, nil
	case m.Connection.BaseURL != "":
		return &OpenAI{}, nil
	}
	return nil, fmt.Errorf("model %s: %w %q (give it a baseURL in provider.%s.options)", m.Name(), ErrUnknownProvider, m.ProviderID, m.ProviderID)
}
