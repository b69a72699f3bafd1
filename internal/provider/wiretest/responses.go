package wiretest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Responses is an OpenAI Responses API endpoint: POST /v1/responses with
// stream: true, answered with its events (response.created, .in_progress,
// .output_item.added and .done for each reasoning item, message and
// function call, .reasoning_summary_text.delta, .output_text.delta,
// .function_call_arguments.delta and .done, .completed with the usage;
// error, response.failed). It checks each request as the API does: every
// function_call answered by a function_call_output and every output
// answering a call, reasoning items sent back with the encrypted content it
// gave for that model. Its prompt cache serves, per prompt_cache_key, the
// longest prefix it saw before, in steps of 128 tokens past the first
// 1024, as OpenAI's does.
type Responses struct {
	URL string // the base URL, up to /v1
	Key string // the bearer token it takes

	script Script
	signer signer
	rec    recorder[ResponsesRequest]
	mu     sync.Mutex
	seen   map[string][]string // per cache key, the prompts seen, as text
}

// ResponsesRequest is one request the server received.
type ResponsesRequest struct {
	Body   map[string]any
	Status int
	Error  string
	Cached int64 // the input tokens the cache served
}

// NewResponses starts a server answering with script, closed when the test
// ends; it takes the key "sk-openai-test".
func NewResponses(t testing.TB, script Script) *Responses {
	t.Helper()
	s := &Responses{Key: "sk-openai-test", script: script, signer: signer{key: []byte("openai")}, seen: map[string][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// Requests returns the requests received so far, in order.
func (s *Responses) Requests() []ResponsesRequest { return s.rec.all() }

// Refusals returns the errors the server answered requests with, in
// order: none when every request passed its checks.
func (s *Responses) Refusals() []string {
	return s.rec.refusals(func(r ResponsesRequest) string { return r.Error })
}

// Encrypted is the encrypted content the server gives for a reasoning
// item of model.
func (s *Responses) Encrypted(model, id string) string { return "gAAAA" + s.signer.sign(model, id) }

func openaiFail(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code, "param": nil}})
}

func (s *Responses) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		openaiFail(w, http.StatusNotFound, "invalid_request_error", "", "Invalid URL (POST "+r.URL.Path+")")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		openaiFail(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	body, _, err := readJSON(r)
	if err != nil {
		openaiFail(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	req := ResponsesRequest{Body: body}
	if msg := s.check(body); msg != "" {
		req.Status, req.Error = http.StatusBadRequest, msg
		s.rec.add(req, false)
		openaiFail(w, http.StatusBadRequest, "invalid_request_error", "", msg)
		return
	}
	req.Cached = s.cache(body)
	req.Status = http.StatusOK
	n := s.rec.add(req, true)
	ans := s.script.Next(n, body)
	if f := ans.Fault; f != nil && !f.MidStream {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		s.rec.setLast(func(r *ResponsesRequest) { r.Status = f.Status })
		code := ""
		if f.Type == "context_length_exceeded" {
			code = f.Type
		}
		openaiFail(w, f.Status, orDefault(f.Type, "server_error"), code, f.Message)
		return
	}
	if ans.Raw != nil {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(ans.Raw)
		return
	}
	writeSSE(w, s.events(body, req.Cached, ans, n))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (s *Responses) check(body map[string]any) string {
	model, _ := body["model"].(string)
	input, _ := body["input"].([]any)
	var calls, outputs []string
	for i, raw := range input {
		it, _ := raw.(map[string]any)
		typ, _ := it["type"].(string)
		if typ == "" && it["role"] != nil {
			typ = "message"
		}
		switch typ {
		case "function_call":
			id, _ := it["call_id"].(string)
			calls = append(calls, id)
			if args, _ := it["arguments"].(string); !json.Valid([]byte(args)) {
				return fmt.Sprintf("Invalid 'input[%d].arguments': not valid JSON.", i)
			}
		case "function_call_output":
			id, _ := it["call_id"].(string)
			if !slices.Contains(calls, id) {
				return fmt.Sprintf("No tool call found for function call output with call_id %s.", id)
			}
			outputs = append(outputs, id)
		case "reasoning":
			id, _ := it["id"].(string)
			enc, _ := it["encrypted_content"].(string)
			if enc != s.Encrypted(model, id) {
				return fmt.Sprintf("The encrypted content for item %s could not be verified.", id)
			}
		case "message":
			if c, ok := it["content"].(string); ok && strings.TrimSpace(c) == "" {
				return fmt.Sprintf("Invalid 'input[%d].content': empty string.", i)
			}
		}
	}
	for _, id := range calls {
		if !slices.Contains(outputs, id) {
			return fmt.Sprintf("No tool output found for function call %s.", id)
		}
	}
	if st, ok := body["store"].(bool); !ok || st {
		for _, raw := range input {
			if it, _ := raw.(map[string]any); it["type"] == "reasoning" && it["encrypted_content"] != nil {
				return "encrypted_content is only accepted with store: false"
			}
		}
	}
	return ""
}

// cache is the tokens of body's prompt that the cache serves: the longest
// prefix of a prompt seen before with the same prompt_cache_key, rounded
// down to 128 tokens, when it is 1024 or more.
func (s *Responses) cache(body map[string]any) int64 {
	key, _ := body["prompt_cache_key"].(string)
	prompt := promptText(body)
	s.mu.Lock()
	defer s.mu.Unlock()
	best := 0
	for _, p := range s.seen[key] {
		n := 0
		for n < len(p) && n < len(prompt) && p[n] == prompt[n] {
			n++
		}
		best = max(best, n)
	}
	s.seen[key] = append(s.seen[key], prompt)
	tokens := int64(best / 4)
	if tokens < 1024 {
		return 0
	}
	return tokens / 128 * 128
}

func promptText(body map[string]any) string {
	parts := []any{body["instructions"], body["tools"], body["input"]}
	data, _ := json.Marshal(parts)
	return string(data)
}

func (s *Responses) events(body map[string]any, cached int64, ans Answer, n int) []sse {
	model, _ := body["model"].(string)
	reasoning := false
	if r, _ := body["reasoning"].(map[string]any); r != nil && r["effort"] != nil && r["effort"] != "none" {
		reasoning = true
	}
	includeEnc := false
	for _, v := range list2(body["include"]) {
		includeEnc = includeEnc || v == "reasoning.encrypted_content"
	}
	seq := 0
	var out []sse
	add := func(typ string, data map[string]any) {
		data["type"] = typ
		data["sequence_number"] = seq
		seq++
		out = append(out, sse{typ, data})
	}
	resp := func(status string) map[string]any {
		return map[string]any{"id": fmt.Sprintf("resp_%d", n), "object": "response", "status": status, "model": model, "output": []any{}}
	}
	add("response.created", map[string]any{"response": resp("in_progress")})
	add("response.in_progress", map[string]any{"response": resp("in_progress")})
	index := 0
	var reasoningTokens int64
	if reasoning && ans.Thinking != "" {
		id := fmt.Sprintf("rs_%d", n)
		add("response.output_item.added", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
		add("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
		for _, p := range pieces(ans.Thinking, 3) {
			add("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "delta": p})
		}
		add("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "text": ans.Thinking})
		add("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ans.Thinking}})
		item := map[string]any{"id": id, "type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": ans.Thinking}}}
		if includeEnc {
			item["encrypted_content"] = s.Encrypted(model, id)
		}
		add("response.output_item.done", map[string]any{"output_index": index, "item": item})
		reasoningTokens = int64(len(ans.Thinking)/4 + 10)
		index++
	}
	if ans.Text != "" {
		id := fmt.Sprintf("msg_%d", n)
		add("response.output_item.added", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		add("response.content_part.added", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, p := range pieces(ans.Text, 3) {
			add("response.output_text.delta", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "delta": p, "logprobs": []any{}})
		}
		add("response.output_text.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "text": ans.Text})
		add("response.content_part.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": map[string]any{"type": "output_text", "text": ans.Text}})
		add("response.output_item.done", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": ans.Text, "annotations": []any{}}}}})
		index++
	}
	if f := ans.Fault; f != nil && f.MidStream {
		add("error", map[string]any{"code": f.Type, "message": f.Message, "param": nil})
		return out
	}
	for i, c := range ans.Calls {
		id := fmt.Sprintf("fc_%d_%d", n, i)
		callID := c.ID
		if callID == "" {
			callID = fmt.Sprintf("call_%d_%d", n, i)
		}
		add("response.output_item.added", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "function_call", "status": "in_progress",
			"arguments": "", "call_id": callID, "name": c.Name}})
		for _, p := range pieces(c.Args, 3) {
			add("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": index, "delta": p})
		}
		add("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": index, "arguments": c.Args})
		add("response.output_item.done", map[string]any{"output_index": index, "item": map[string]any{"id": id, "type": "function_call", "status": "completed",
			"arguments": c.Args, "call_id": callID, "name": c.Name}})
		index++
	}
	input := int64(len(promptText(body)) / 4)
	output := int64(len(ans.Text)/4+20*len(ans.Calls)+1) + reasoningTokens
	done := resp("completed")
	done["usage"] = map[string]any{"input_tokens": input, "input_tokens_details": map[string]any{"cached_tokens": cached},
		"output_tokens": output, "output_tokens_details": map[string]any{"reasoning_tokens": reasoningTokens}, "total_tokens": input + output}
	add("response.completed", map[string]any{"response": done})
	if ans.Cut > 0 && ans.Cut < len(out) {
		out = append(out[:ans.Cut], sse{})
	}
	return out
}

func list2(v any) []any {
	l, _ := v.([]any)
	return l
}
