package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/podcode/podcode/internal/chat"
)

// OpenAI calls an OpenAI-compatible chat-completions endpoint with
// streaming and tool calls: OpenAI, OpenRouter, Ollama, vLLM, LM Studio,
// llama.cpp's server. The model's Connection says where and with what key.
// Failures and retries are the package's (retry.go); a stream that is cut
// or carries malformed JSON is ErrStream: the turn fails and the session
// keeps what was stored before the call.
//
// It is a client of its own, not an SDK's: the request body is written
// without reflection (body.go) and the stream read line by line, since a
// turn re-sends its whole history at every step and this is the path
// every OpenAI-compatible server takes (see docs/providers.md).
type OpenAI struct {
	retrier
	Client *http.Client

	tools toolCache[[]byte] // the tools array, encoded (body)
}

type oaToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments,omitempty"`
	} `json:"function"`
}

type oaChunk struct {
	Choices []struct {
		Delta struct {
			Content   string       `json:"content"`
			ToolCalls []oaToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens     int64 `json:"cached_tokens"`
			CacheWriteTokens int64 `json:"cache_write_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
}

func str(s string) *string { return &s }

// chatOption is the name under which option k goes into the body: the
// API's for Podcode's camelCase names, the option's own for the rest;
// false for the options of Podcode's vocabulary that only other APIs take
// (a plugin's promptCache for Anthropic must not break an OpenAI call).
func chatOption(k string) (string, bool) {
	if genericOptions[k] && k != "reasoningEffort" && k != "parallelToolCalls" && k != "maxCompletionTokens" {
		return "", false
	}
	return optionKey(k), true
}

// optionKey maps Podcode's camelCase option names to the API's.
func optionKey(k string) string {
	switch k {
	case "reasoningEffort":
		return "reasoning_effort"
	case "maxCompletionTokens":
		return "max_completion_tokens"
	case "parallelToolCalls":
		return "parallel_tool_calls"
	}
	return k
}

// Stream implements Provider.
func (o *OpenAI) Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	conn := req.Model.Connection
	if conn.BaseURL == "" {
		return Response{}, fmt.Errorf("provider %s has no baseURL in its options", req.Model.ProviderID)
	}
	body, err := o.body(req)
	if err != nil {
		return Response{}, err
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Transport: modelTransport}
	}
	return o.do(ctx, req.Model, onEvent, func(ctx context.Context, emit func(Event)) (Response, error) {
		res, err := o.send(ctx, client, req.Model, body)
		if err != nil {
			return Response{}, err
		}
		defer res.Body.Close()
		return readStream(res.Body, emit)
	})
}

// modelTransport carries the model requests of every session: one pool of
// kept-alive connections, large enough for sessions that run at once (the
// default transport keeps 2 a host, so 20 sessions dialled anew at every
// other step).
var modelTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 256, 64
	return t
}()

func (o *OpenAI) send(ctx context.Context, client *http.Client, m Model, body []byte) (*http.Response, error) {
	conn := m.Connection
	hreq, err := http.NewRequestWithContext(ctx, "POST", conn.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if conn.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+conn.APIKey)
	}
	for k, v := range conn.Headers {
		hreq.Header.Set(k, v)
	}
	res, err := client.Do(hreq)
	if err != nil {
		return nil, err
	}
	if res.StatusCode == http.StatusOK {
		return res, nil
	}
	defer res.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
	return nil, statusError(m, res.StatusCode, res.Header, msg)
}

// readStream reads the server-sent events of a streamed completion.
func readStream(r io.Reader, onEvent func(Event)) (res Response, err error) {
	var text strings.Builder
	defer func() {
		if err != nil {
			res.Text = text.String() // what streamed before the answer broke off
		}
	}()
	type partial struct {
		id, name string
		args     strings.Builder
	}
	var calls []*partial
	done := false
	sc := bufio.NewScanner(r)
	// Lines of a stream are short: the buffer starts small and grows (by
	// doubling) for a long one, up to 4 MiB.
	sc.Buffer(make([]byte, 4096), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // comments, event names, blank separators
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		var c oaChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return res, fmt.Errorf("%w: %v in %.80q", ErrStream, err, data)
		}
		if c.Error != nil {
			typ := c.Error.Type
			if code, ok := c.Error.Code.(string); ok && code != "" {
				typ = code
			}
			return res, &StatusError{Type: typ, Body: c.Error.Message}
		}
		if u := c.Usage; u != nil {
			res.Usage = chat.Usage{Input: u.PromptTokens, Output: u.CompletionTokens}
			if d := u.PromptTokensDetails; d != nil {
				res.Usage.CacheRead, res.Usage.CacheWrite = d.CachedTokens, d.CacheWriteTokens
			}
			if d := u.CompletionTokensDetails; d != nil {
				res.Usage.Reasoning = d.ReasoningTokens
			}
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != "" {
				text.WriteString(ch.Delta.Content)
				onEvent(Event{TextDelta: ch.Delta.Content})
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := len(calls)
				if tc.Index != nil {
					i = *tc.Index
				}
				if i < 0 || i > 128 {
					return res, fmt.Errorf("%w: tool call index %d", ErrStream, i)
				}
				for len(calls) <= i {
					calls = append(calls, &partial{})
				}
				p := calls[i]
				if tc.ID != "" {
					p.id = tc.ID
				}
				if tc.Function.Name != "" {
					p.name = tc.Function.Name
				}
				p.args.WriteString(tc.Function.Arguments)
			}
			if ch.FinishReason != nil {
				res.StopReason = *ch.FinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("%w: %w", ErrStream, err) // a cancel stays a cancel (errors.Is)
	}
	if !done && res.StopReason == "" {
		return res, fmt.Errorf("%w: it ended before the answer did", ErrStream)
	}
	res.Text = text.String()
	for _, p := range calls {
		args := strings.TrimSpace(p.args.String())
		if args == "" {
			args = "{}"
		}
		if p.id == "" {
			p.id = chat.NewID("call")
		}
		call := chat.ToolCall{ID: p.id, Tool: p.name, Args: json.RawMessage(args)}
		if !json.Valid(call.Args) {
			// Keep what the model sent, as a JSON string: the turn tells the
			// model its arguments were not a JSON object.
			call.Args, _ = json.Marshal(args)
		}
		res.ToolCalls = append(res.ToolCalls, call)
		onEvent(Event{ToolCall: &call})
	}
	if res.StopReason == "" {
		res.StopReason = "stop"
	}
	return res, nil
}
