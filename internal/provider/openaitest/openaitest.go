// Package openaitest is an OpenAI-compatible chat-completions endpoint for
// tests: a real HTTP server on loopback that streams scripted answers in
// the wire format (server-sent events, tool-call deltas split across
// chunks, usage, [DONE]) and checks each request the way OpenAI does: a
// request whose history breaks the tool-call rules gets the 400 OpenAI
// answers, so a test sees what a user of a real provider would.
//
// The rules checked (OpenAI's, which the compatible servers share): every
// assistant message with tool_calls is followed by one tool message per
// call id before any other message, and every tool message answers a call
// of the assistant message before it.
//
// StreamServer serves the same wire format for benchmarks: no checks, an
// answer decided per request by a Responder, one write per response, and
// the timing of each exchange as the model saw it.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Call is a tool call the model asks for.
type Call struct {
	ID   string // "call_<n>" when empty
	Name string
	Args string // JSON text
}

// Answer is one scripted model answer.
type Answer struct {
	Text  string
	Calls []Call
}

// Message is one message of a request, as the server received it.
type Message struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls,omitempty"`
}

// Request is one request the server received.
type Request struct {
	Messages    []Message `json:"messages"`
	MaxTokens   int       `json:"max_tokens"`
	Temperature *float64  `json:"temperature"`
	Status      int       `json:"-"` // what the server answered
	Error       string    `json:"-"` // the 400's message, if any
}

// Server is the endpoint. Answers are taken in order by the requests that
// pass the checks; a request that fails them takes none.
type Server struct {
	// URL is the base URL, to put in provider.<id>.options.baseURL.
	URL string

	t       testing.TB
	mu      sync.Mutex
	answers []Answer
	next    int
	reqs    []Request
	calls   int
}

// New starts a server answering with answers, closed when the test ends.
func New(t testing.TB, answers ...Answer) *Server {
	t.Helper()
	s := &Server{t: t, answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Add appends answers to the script.
func (s *Server) Add(answers ...Answer) {
	s.mu.Lock()
	s.answers = append(s.answers, answers...)
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req Request
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "")
		return
	}
	s.mu.Lock()
	msg, param := Check(req.Messages)
	if msg != "" {
		req.Status, req.Error = http.StatusBadRequest, msg
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		fail(w, http.StatusBadRequest, msg, param)
		return
	}
	if s.next >= len(s.answers) {
		req.Status, req.Error = http.StatusBadRequest, "the script has no more answers"
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		s.t.Errorf("openaitest: request %d has no scripted answer (%d scripted)", len(s.reqs), len(s.answers))
		fail(w, http.StatusBadRequest, "the script has no more answers", "")
		return
	}
	a := s.answers[s.next]
	s.next++
	req.Status = http.StatusOK
	s.reqs = append(s.reqs, req)
	for i := range a.Calls {
		s.calls++
		if a.Calls[i].ID == "" {
			a.Calls[i].ID = fmt.Sprintf("call_%d", s.calls)
		}
	}
	s.mu.Unlock()
	stream(w, a)
}

// Check applies OpenAI's tool-call rules to a request's messages and
// returns OpenAI's error message and parameter for the first broken one,
// or "" when the history is valid.
func Check(msgs []Message) (msg, param string) {
	var open []string // call ids of the latest assistant message not answered yet
	for i, m := range msgs {
		if m.Role == "tool" {
			k := -1
			for j, id := range open {
				if id == m.ToolCallID {
					k = j
				}
			}
			if k < 0 {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i)
			}
			open = append(open[:k], open[k+1:]...)
			continue
		}
		if len(open) > 0 {
			return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
				"The following tool_call_ids did not have response messages: " + strings.Join(open, ", "), fmt.Sprintf("messages.[%d].role", i)
		}
		open = nil
		for _, c := range m.ToolCalls {
			open = append(open, c.ID)
		}
	}
	if len(open) > 0 {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
			"The following tool_call_ids did not have response messages: " + strings.Join(open, ", "), fmt.Sprintf("messages.[%d].role", len(msgs))
	}
	return "", ""
}

func fail(w http.ResponseWriter, status int, msg, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var p any
	if param != "" {
		p = param
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": p, "code": nil}})
}

// stream writes a as a streamed completion, in one write.
func stream(w http.ResponseWriter, a Answer) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Write(AppendStream(nil, a))
}

// AppendStream appends a, as the body of a streamed completion, to buf:
// the text in two pieces, each call's arguments split in two chunks, then
// the finish, the usage and [DONE]. Calls need their IDs set.
func AppendStream(buf []byte, a Answer) []byte {
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		buf = append(buf, "data: "...)
		buf = append(buf, b...)
		buf = append(buf, "\n\n"...)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if a.Text != "" {
		half := len(a.Text) / 2
		for half > 0 && half < len(a.Text) && a.Text[half]&0xC0 == 0x80 {
			half--
		}
		chunk(map[string]any{"content": a.Text[:half]}, nil)
		chunk(map[string]any{"content": a.Text[half:]}, nil)
	}
	for i, c := range a.Calls {
		half := len(c.Args) / 2
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args[:half]}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c.Args[half:]}}}}, nil)
	}
	finish := "stop"
	if len(a.Calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	return append(buf, "\n\ndata: [DONE]\n\n"...)
}
