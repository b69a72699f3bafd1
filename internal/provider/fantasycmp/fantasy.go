package fantasycmp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"charm.land/fantasy"

	"github.com/podcode/podcode/internal/chat"
)

// What an integration of fantasy into Podcode would have to add: Podcode's
// history and tools as fantasy's prompt and tools, and fantasy's stream
// read back into an answer. (Podcode's own providers do the same inside
// Stream.)

// Prompt is the system prompt and the history as fantasy's prompt: user
// text, assistant text and tool calls, tool results. It is built anew at
// each step, since the history grows. (The history here has no thinking;
// an integration would also carry signed thinking over, as ReasoningParts
// with the provider's metadata.)
func Prompt(system string, msgs []chat.Message) fantasy.Prompt {
	p := make(fantasy.Prompt, 0, len(msgs)+1)
	if system != "" {
		p = append(p, fantasy.NewSystemMessage(system))
	}
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case chat.RoleUser, chat.RoleSummary, chat.RoleContext:
			p = append(p, fantasy.NewUserMessage(m.Text))
		case chat.RoleAssistant:
			parts := make([]fantasy.MessagePart, 0, 1+len(m.ToolCalls))
			if m.Text != "" {
				parts = append(parts, fantasy.TextPart{Text: m.Text})
			}
			for _, c := range m.ToolCalls {
				parts = append(parts, fantasy.ToolCallPart{ToolCallID: c.ID, ToolName: c.Tool, Input: string(c.Args)})
			}
			p = append(p, fantasy.Message{Role: fantasy.MessageRoleAssistant, Content: parts})
		case chat.RoleTool:
			r := m.Result
			if r == nil {
				continue
			}
			var out fantasy.ToolResultOutputContent = fantasy.ToolResultOutputContentText{Text: r.Output}
			if r.IsError {
				out = fantasy.ToolResultOutputContentError{Error: errors.New(r.Output)}
			}
			p = append(p, fantasy.Message{Role: fantasy.MessageRoleTool,
				Content: []fantasy.MessagePart{fantasy.ToolResultPart{ToolCallID: r.CallID, Output: out}}})
		}
	}
	return p
}

// FunctionTools is the tools as fantasy's function tools, converted once
// (Podcode's providers keep their converted tools too). fantasy's
// Anthropic and Google providers read a schema's "required" only as a
// []string, so the list that JSON decodes as []any is turned into one.
func FunctionTools(tools []Tool) ([]fantasy.Tool, error) {
	out := make([]fantasy.Tool, 0, len(tools))
	for _, t := range tools {
		schema := map[string]any{}
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return nil, err
		}
		if req, ok := schema["required"].([]any); ok {
			names := make([]string, 0, len(req))
			for _, r := range req {
				if n, ok := r.(string); ok {
					names = append(names, n)
				}
			}
			schema["required"] = names
		}
		out = append(out, fantasy.FunctionTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return out, nil
}

// PlainCall returns a builder of the fantasy call for a step: the prompt
// from the history (the system prompt as its first message), the tools
// (converted once, by FunctionTools), the output limit. edit, if not nil,
// changes each call (an API's own options).
func PlainCall(system string, msgs []chat.Message, tools []fantasy.Tool, edit func(*fantasy.Call)) func() fantasy.Call {
	limit := int64(MaxTokens)
	return func() fantasy.Call {
		c := fantasy.Call{Prompt: Prompt(system, msgs), MaxOutputTokens: &limit, Tools: tools}
		if edit != nil {
			edit(&c)
		}
		return c
	}
}

// Step makes one model call through lm and reads its stream, as a step of
// an agent loop does: the text, the tool calls, the end.
func Step(ctx context.Context, lm fantasy.LanguageModel, call fantasy.Call) (Answer, error) {
	stream, err := lm.Stream(ctx, call)
	if err != nil {
		return Answer{}, err
	}
	var a Answer
	var text strings.Builder
	finished := false
	for part := range stream {
		switch part.Type {
		case fantasy.StreamPartTypeTextDelta:
			text.WriteString(part.Delta)
		case fantasy.StreamPartTypeToolCall:
			a.CallID, a.CallTool, a.CallArgs = part.ID, part.ToolCallName, part.ToolCallInput
		case fantasy.StreamPartTypeError:
			return a, part.Error
		case fantasy.StreamPartTypeFinish:
			finished = true
		}
	}
	if !finished {
		return a, errors.New("the stream ended without a finish")
	}
	a.Text = text.String()
	return a, nil
}

// FantasySide is the step through fantasy: newProvider makes the provider
// for a base URL and an HTTP client (nil: its default), once; call builds
// each step's call.
func FantasySide(model string, newProvider func(baseURL string, hc *http.Client) (fantasy.Provider, error),
	call func(tb testing.TB) func() fantasy.Call) Side {
	return Side{Name: "fantasy", New: func(tb testing.TB, baseURL string, hc *http.Client) func() (Answer, error) {
		lm := LanguageModel(tb, model, newProvider, baseURL, hc)
		next := call(tb)
		return func() (Answer, error) { return Step(context.Background(), lm, next()) }
	}}
}

// LanguageModel is the model of newProvider's provider for baseURL on hc.
func LanguageModel(tb testing.TB, model string, newProvider func(baseURL string, hc *http.Client) (fantasy.Provider, error),
	baseURL string, hc *http.Client) fantasy.LanguageModel {
	p, err := newProvider(baseURL, hc)
	if err != nil {
		tb.Fatal(err)
	}
	lm, err := p.LanguageModel(context.Background(), model)
	if err != nil {
		tb.Fatal(err)
	}
	return lm
}
