package wiretest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Anthropic is a Messages API endpoint: POST /v1/messages with stream:
// true, answered with its server-sent events (message_start,
// content_block_start, ping, content_block_delta with text_delta,
// thinking_delta, signature_delta and input_json_delta, content_block_stop,
// message_delta, message_stop; error). Each request is checked as the API
// checks it (check), and the prompt cache is kept as the API keeps it
// (cache).
type Anthropic struct {
	// URL is the base URL, for provider.<id>.options.baseURL.
	URL string
	// Key is the API key the server takes (x-api-key, or Authorization:
	// Bearer).
	Key string

	script Script
	signer signer
	rec    recorder[AnthropicRequest]
	mu     sync.Mutex
	cached map[string]bool // the prefixes written to the cache, by hash
	// handle answers a request that passed the checks; Bedrock frames it.
	write func(w http.ResponseWriter, events []sse)
}

// AnthropicRequest is one request the server received.
type AnthropicRequest struct {
	Body   map[string]any
	Header http.Header
	Path   string
	Status int    // what the server answered
	Error  string // the error's message, if any
	// Usage is what the answer reported: the input's tokens, as the cache
	// split them.
	Usage AnthropicUsage
	// Breakpoints are the blocks that carried cache_control, as indices
	// into the request's blocks (tools, system, then the messages'
	// content blocks, in order); Blocks is their number.
	Breakpoints []int
	Blocks      int
	// MessageStart is the index of the first message block among them.
	MessageStart int
}

// AnthropicUsage is the usage of an answer, as the API reports it.
type AnthropicUsage struct {
	Input, CacheRead, CacheWrite, Output int64
}

// NewAnthropic starts a server answering with script, closed when the test
// ends; it takes the key "sk-ant-test".
func NewAnthropic(t testing.TB, script Script) *Anthropic {
	t.Helper()
	a := &Anthropic{Key: "sk-ant-test", script: script, signer: signer{key: []byte("anthropic")}, cached: map[string]bool{}}
	a.write = writeSSE
	srv := httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Requests returns the requests received so far, in order.
func (a *Anthropic) Requests() []AnthropicRequest { return a.rec.all() }

// Refusals returns the errors the server answered requests with, in
// order: none when every request passed its checks.
func (a *Anthropic) Refusals() []string {
	return a.rec.refusals(func(r AnthropicRequest) string { return r.Error })
}

// Sign is the signature the server gives (and takes) for a thinking text
// of model.
func (a *Anthropic) Sign(model, text string) string { return a.signer.sign(model, text) }

func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		anthropicFail(w, http.StatusNotFound, "not_found_error", "Not found: "+r.URL.Path)
		return
	}
	// The API takes the key as x-api-key or as a bearer token, as
	// Anthropic's SDK sends it.
	if r.Header.Get("x-api-key") != a.Key && r.Header.Get("Authorization") != "Bearer "+a.Key {
		anthropicFail(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		a.rec.add(AnthropicRequest{Header: r.Header, Path: r.URL.Path, Status: 401}, false)
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		anthropicFail(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	a.handle(w, r, r.Header, r.URL.Path)
}

// handle checks and answers a request whose transport (the key, the
// signature) was checked.
func (a *Anthropic) handle(w http.ResponseWriter, r *http.Request, h http.Header, path string) {
	body, _, err := readJSON(r)
	if err != nil {
		anthropicFail(w, http.StatusBadRequest, "invalid_request_error", "the request body is not JSON")
		return
	}
	req := AnthropicRequest{Body: body, Header: h, Path: path}
	if msg := a.check(body); msg != "" {
		req.Status, req.Error = http.StatusBadRequest, msg
		a.rec.add(req, false)
		anthropicFail(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	blocks, breakpoints, msgStart := anthropicBlocks(body)
	req.Breakpoints, req.Blocks, req.MessageStart = breakpoints, len(blocks), msgStart
	req.Usage = a.cache(blocks, breakpoints)
	model, _ := body["model"].(string)
	if model == "" {
		model = strings.TrimPrefix(strings.TrimSuffix(path, "/invoke-with-response-stream"), "/model/")
	}
	thinking := thinkingOn(body)
	req.Status = http.StatusOK
	n := a.rec.add(req, true)
	ans := a.script.Next(n, body)
	if ans.Fault != nil && !ans.Fault.MidStream {
		if ans.Fault.RetryAfter != "" {
			w.Header().Set("Retry-After", ans.Fault.RetryAfter)
		}
		a.rec.setLast(func(r *AnthropicRequest) { r.Status = ans.Fault.Status })
		anthropicFail(w, ans.Fault.Status, ans.Fault.Type, ans.Fault.Message)
		return
	}
	if ans.Raw != nil {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(ans.Raw)
		return
	}
	a.write(w, a.events(model, thinking, req.Usage, ans))
}

// sse is one server-sent event.
type sse struct {
	event string
	data  any
}

func writeSSE(w http.ResponseWriter, events []sse) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, e := range events {
		if e.event == "" { // a cut
			flush(w)
			panic(http.ErrAbortHandler)
		}
		data, _ := json.Marshal(e.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.event, data)
	}
	flush(w)
}

// events is the stream of ans: its thinking (when the request asked for
// it), its text, its tool calls, each as the API streams them.
func (a *Anthropic) events(model string, thinking bool, u AnthropicUsage, ans Answer) []sse {
	var out []sse
	add := func(event string, data map[string]any) {
		data["type"] = event
		out = append(out, sse{event, data})
	}
	add("message_start", map[string]any{"message": map[string]any{"id": "msg_test", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CacheRead, "output_tokens": 1}}})
	add("ping", map[string]any{})
	index := 0
	if thinking && ans.Thinking != "" {
		if ans.Redacted {
			add("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "redacted_thinking",
				"data": "enc:" + a.signer.sign(model, ans.Thinking)}})
		} else {
			add("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, p := range pieces(ans.Thinking, 3) {
				add("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "thinking_delta", "thinking": p}})
			}
			add("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "signature_delta", "signature": a.signer.sign(model, ans.Thinking)}})
		}
		add("content_block_stop", map[string]any{"index": index})
		index++
	}
	if ans.Text != "" {
		add("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, p := range pieces(ans.Text, 3) {
			add("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": p}})
		}
		add("content_block_stop", map[string]any{"index": index})
		index++
	}
	if f := ans.Fault; f != nil && f.MidStream {
		add("error", map[string]any{"error": map[string]any{"type": f.Type, "message": f.Message}})
		return out
	}
	for i, c := range ans.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%02d_%d", len(a.rec.all()), i)
		}
		add("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": map[string]any{}}})
		for _, p := range pieces(c.Args, 3) {
			add("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
		}
		add("content_block_stop", map[string]any{"index": index})
		index++
	}
	stop := "end_turn"
	if len(ans.Calls) > 0 {
		stop = "tool_use"
	}
	out2 := int64(len(ans.Text)/4 + len(ans.Thinking)/4 + 20*len(ans.Calls) + 1)
	add("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out2}})
	add("message_stop", map[string]any{})
	if ans.Cut > 0 && ans.Cut < len(out) {
		out = append(out[:ans.Cut], sse{})
	}
	return out
}

func anthropicFail(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func thinkingOn(body map[string]any) bool {
	t, _ := body["thinking"].(map[string]any)
	return t != nil && (t["type"] == "enabled" || t["type"] == "adaptive")
}

// check is the API's refusal of body, or "": the rules the API applies to
// the history and the options that a client gets wrong.
func (a *Anthropic) check(body map[string]any) string {
	model, _ := body["model"].(string)
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		return "messages: at least one message is required"
	}
	if mt, _ := body["max_tokens"].(float64); mt < 1 {
		return "max_tokens: Field required"
	}
	thinking := thinkingOn(body)
	if thinking {
		t := body["thinking"].(map[string]any)
		if t["type"] == "enabled" {
			b, _ := t["budget_tokens"].(float64)
			if b < 1024 {
				return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
			}
			if mt, _ := body["max_tokens"].(float64); b >= mt {
				return "`max_tokens` must be greater than `thinking.budget_tokens`"
			}
		}
		if _, ok := body["temperature"]; ok {
			return "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode"
		}
		if _, ok := body["top_k"]; ok {
			return "`top_k` is not supported when thinking is enabled"
		}
	}
	breakpoints := 0
	countCache := func(v any) {
		if m, ok := v.(map[string]any); ok && m["cache_control"] != nil {
			breakpoints++
		}
	}
	for _, t := range list(body["tools"]) {
		countCache(t)
	}
	for _, s := range list(body["system"]) {
		countCache(s)
	}
	var prevToolUses []string
	turnStart := 0
	for i, raw := range msgs {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		if i == 0 && role != "user" {
			return "messages: first message must use the \"user\" role"
		}
		blocks := list(m["content"])
		if len(blocks) == 0 {
			return fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		var toolUses, results []string
		for j, braw := range blocks {
			b, _ := braw.(map[string]any)
			countCache(b)
			switch b["type"] {
			case "text":
				if s, _ := b["text"].(string); strings.TrimSpace(s) == "" {
					return fmt.Sprintf("messages.%d.content.%d.text: text content blocks must contain non-whitespace text", i, j)
				}
			case "tool_use":
				id, _ := b["id"].(string)
				toolUses = append(toolUses, id)
				if _, ok := b["input"].(map[string]any); !ok {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, j)
				}
			case "tool_result":
				id, _ := b["tool_use_id"].(string)
				if len(results) != j {
					return fmt.Sprintf("messages.%d: `tool_result` blocks must come first in the user message's content", i)
				}
				results = append(results, id)
			case "thinking":
				text, _ := b["thinking"].(string)
				sig, _ := b["signature"].(string)
				if role != "assistant" || !a.signer.valid(model, text, sig) {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
				if b["cache_control"] != nil {
					return fmt.Sprintf("messages.%d.content.%d.thinking.cache_control: Extra inputs are not permitted", i, j)
				}
			case "redacted_thinking":
				data, _ := b["data"].(string)
				if !strings.HasPrefix(data, "enc:") {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, j)
				}
			}
		}
		for _, id := range results {
			if !slices.Contains(prevToolUses, id) {
				return fmt.Sprintf("messages.%d.content.0: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, id)
			}
		}
		if len(prevToolUses) > 0 {
			var missing []string
			for _, id := range prevToolUses {
				if !slices.Contains(results, id) {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", "))
			}
		}
		prevToolUses = toolUses
		if role == "user" && len(results) < len(blocks) {
			turnStart = i // a prompt: the assistant turn after it is the final one
		}
	}
	// With thinking on, the final assistant turn (its tool loop is one
	// turn: from the first answer after the last prompt) must start with
	// thinking; its later steps need none of their own.
	if thinking && turnStart+1 < len(msgs) {
		m, _ := msgs[turnStart+1].(map[string]any)
		blocks := list(m["content"])
		first, _ := blocks[0].(map[string]any)
		if t := first["type"]; m["role"] == "assistant" && t != "thinking" && t != "redacted_thinking" {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%v`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.", turnStart+1, t)
		}
	}
	if len(prevToolUses) > 0 {
		return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s", len(msgs)-1, strings.Join(prevToolUses, ", "))
	}
	if breakpoints > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", breakpoints)
	}
	return ""
}

func list(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case string:
		return []any{map[string]any{"type": "text", "text": x}}
	}
	return nil
}

// anthropicBlock is one block of a request's prompt, in the order the
// cache reads it: tools, system, messages.
type anthropicBlock struct {
	tokens int64
	hash   string // of the prefix that ends with this block
}

// anthropicBlocks lists body's blocks, each with the hash of the prefix it
// ends, and which of them carry cache_control.
func anthropicBlocks(body map[string]any) (blocks []anthropicBlock, breakpoints []int, msgStart int) {
	h := sha256.New()
	add := func(v any) {
		m, _ := v.(map[string]any)
		bp := m != nil && m["cache_control"] != nil
		if m != nil {
			c := map[string]any{}
			for k, x := range m {
				if k != "cache_control" {
					c[k] = x
				}
			}
			v = c
		}
		data, _ := json.Marshal(v)
		h.Write(data)
		if bp {
			breakpoints = append(breakpoints, len(blocks))
		}
		blocks = append(blocks, anthropicBlock{tokens: int64(len(data)+3) / 4, hash: hex.EncodeToString(h.Sum(nil))})
	}
	for _, t := range list(body["tools"]) {
		add(t)
	}
	for _, s := range list(body["system"]) {
		add(s)
	}
	msgStart = len(blocks)
	for _, raw := range list(body["messages"]) {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		h.Write([]byte(role))
		for _, b := range list(m["content"]) {
			add(b)
		}
	}
	return blocks, breakpoints, msgStart
}

// cache is the usage of a request as Anthropic's prompt cache splits it:
// from each breakpoint the cache looks back up to 20 blocks for the
// longest prefix it holds, which is read; the prefix up to the last
// breakpoint is written (what was not read of it); the rest is input.
func (a *Anthropic) cache(blocks []anthropicBlock, breakpoints []int) AnthropicUsage {
	a.mu.Lock()
	defer a.mu.Unlock()
	read := -1
	for _, bp := range breakpoints {
		for i := bp; i >= 0 && i >= bp-20; i-- {
			if a.cached[blocks[i].hash] {
				read = max(read, i)
				break
			}
		}
	}
	last := -1
	if len(breakpoints) > 0 {
		last = breakpoints[len(breakpoints)-1]
	}
	var u AnthropicUsage
	for i, b := range blocks {
		switch {
		case i <= read:
			u.CacheRead += b.tokens
		case i <= last:
			u.CacheWrite += b.tokens
		default:
			u.Input += b.tokens
		}
	}
	for _, bp := range breakpoints {
		a.cached[blocks[bp].hash] = true
	}
	return u
}

// Thinking returns the thinking blocks of message i of req, as sent.
func (r AnthropicRequest) Thinking(i int) []map[string]any {
	msgs, _ := r.Body["messages"].([]any)
	if i < 0 || i >= len(msgs) {
		return nil
	}
	m, _ := msgs[i].(map[string]any)
	var out []map[string]any
	for _, raw := range list(m["content"]) {
		if b, _ := raw.(map[string]any); b["type"] == "thinking" || b["type"] == "redacted_thinking" {
			out = append(out, b)
		}
	}
	return out
}
