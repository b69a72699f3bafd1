package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/podcode/podcode/internal/chat"
)

// OpenAI calls an OpenAI-compatible chat-completions endpoint with
// streaming and tool calls: OpenAI, OpenRouter, Ollama, vLLM, LM Studio,
// llama.cpp's server. The model's Connection says where and with what key.
//
// Failures: 401 and 403 are errors at once (the key is wrong); 429 waits
// as long as Retry-After says (or backs off) and retries; 5xx and network
// errors back off and retry, up to Connection.MaxRetries times. A stream
// that is cut or carries malformed JSON is an error: the turn fails and
// the session keeps what was stored before the call.
type OpenAI struct {
	Client *http.Client
	// Sleep waits between retries; tests replace it. nil: a timer that
	// honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error

	tools atomic.Pointer[toolsJSON] // the last tools encoded (body)
}

// StatusError is an HTTP error from the provider.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Sprintf("the provider refused the API key (%d): %s", e.Status, e.Body)
	case http.StatusTooManyRequests:
		return fmt.Sprintf("the provider is rate limiting (429) and retries ran out: %s", e.Body)
	}
	return fmt.Sprintf("the provider answered %d: %s", e.Status, e.Body)
}

// ErrStream is a cut or malformed response stream.
var ErrStream = errors.New("the provider's response stream was cut or malformed")

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
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func str(s string) *string { return &s }

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
		client = &http.Client{Timeout: conn.Timeout, Transport: modelTransport}
	}
	for attempt := 0; ; attempt++ {
		res, err := o.send(ctx, client, conn, body)
		if err == nil {
			defer res.Body.Close()
			return readStream(res.Body, onEvent)
		}
		wait, retry := o.retryable(err, attempt)
		if !retry || attempt >= conn.MaxRetries || ctx.Err() != nil {
			if ctx.Err() != nil {
				return Response{}, ctx.Err()
			}
			return Response{}, err
		}
		if err := o.sleep(ctx, wait); err != nil {
			return Response{}, err
		}
	}
}

type retryAfter struct {
	err  error
	wait time.Duration
}

func (r *retryAfter) Error() string { return r.err.Error() }
func (r *retryAfter) Unwrap() error { return r.err }

// modelTransport carries the model requests of every session: one pool of
// kept-alive connections, large enough for sessions that run at once (the
// default transport keeps 2 a host, so 20 sessions dialled anew at every
// other step).
var modelTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 256, 64
	return t
}()

func (o *OpenAI) send(ctx context.Context, client *http.Client, conn Connection, body []byte) (*http.Response, error) {
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
	serr := &StatusError{Status: res.StatusCode, Body: strings.TrimSpace(string(msg))}
	if res.StatusCode == http.StatusTooManyRequests {
		if d, ok := parseRetryAfter(res.Header.Get("Retry-After")); ok {
			return nil, &retryAfter{err: serr, wait: d}
		}
	}
	return nil, serr
}

// parseRetryAfter reads seconds or an HTTP date.
func parseRetryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// retryable says whether err is worth another attempt and after how long.
func (o *OpenAI) retryable(err error, attempt int) (time.Duration, bool) {
	backoff := time.Duration(500<<attempt) * time.Millisecond
	var ra *retryAfter
	if errors.As(err, &ra) {
		return min(ra.wait, time.Minute), true
	}
	var se *StatusError
	if errors.As(err, &se) {
		return backoff, se.Status == http.StatusTooManyRequests || se.Status >= 500
	}
	return backoff, true // the network: worth another try
}

func (o *OpenAI) sleep(ctx context.Context, d time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
			return res, fmt.Errorf("the provider reported an error mid-stream: %s", c.Error.Message)
		}
		if c.Usage != nil {
			res.Usage = chat.Usage{Input: c.Usage.PromptTokens, Output: c.Usage.CompletionTokens}
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
