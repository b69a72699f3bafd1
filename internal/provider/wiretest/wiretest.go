// Package wiretest serves the model providers' wire formats on loopback,
// for tests: Anthropic's Messages API (and the same on Amazon Bedrock),
// OpenAI's Responses API, and Google's Gemini API (and the same on Vertex
// AI). Each server streams scripted answers in the provider's real format
// (server-sent events with the provider's event types; Bedrock's AWS event
// stream), and checks each request the way the provider does, answering
// the errors the provider answers: a key it does not know (401), a history
// whose tool calls are not each answered (400), thinking sent back
// altered or not at all where it must be (400), more cache breakpoints than
// four (400). The Anthropic server also keeps a prompt cache as
// Anthropic's works, so that a test sees which part of each request was
// read from it and which written.
//
// A test gives a Script: answers taken in order, or a function of the
// request. An answer is text, thinking, tool calls, an error (at once or
// mid-stream), or a recorded stream from testdata sent as it is.
package wiretest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
)

// Call is a tool call the model makes.
type Call struct {
	ID   string // made up when empty
	Name string
	Args string // JSON text; split into pieces as it streams
}

// Fault is an error the provider answers.
type Fault struct {
	Status     int    // the HTTP status; 0 with MidStream
	Type       string // the provider's error type (overloaded_error, rate_limit_error, …)
	Message    string
	RetryAfter string // the Retry-After header, if any
	// MidStream sends the error as an event after the stream began
	// (with some text first, when the answer has Text), status 200.
	MidStream bool
}

// Answer is one scripted model answer.
type Answer struct {
	Text     string
	Thinking string // sent first, signed (when the request asks for thinking)
	// Redacted sends the thinking as a redacted (encrypted) block instead.
	Redacted bool
	Calls    []Call
	Fault    *Fault
	// Cut ends the stream after this many events, without its end.
	Cut int
	// Raw is a recorded stream, sent as it is instead of the above (the
	// file's content: Recorded reads one).
	Raw []byte
}

// Script decides each answer.
type Script interface {
	// Next is the answer to the n-th request (from 0) that passed the
	// checks; body is the request's JSON as the server decoded it.
	Next(n int, body map[string]any) Answer
}

// Answers is a Script of answers in order; past its end, the last is
// repeated.
type Answers []Answer

// Next implements Script.
func (a Answers) Next(n int, _ map[string]any) Answer {
	if len(a) == 0 {
		return Answer{Text: "ok"}
	}
	return a[min(n, len(a)-1)]
}

// Func is a Script that is a function.
type Func func(n int, body map[string]any) Answer

// Next implements Script.
func (f Func) Next(n int, body map[string]any) Answer { return f(n, body) }

// Recorded returns the content of a recorded stream under the calling
// package's testdata folder.
func Recorded(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// signer makes and checks the opaque tokens a provider hands out for the
// model's thinking (Anthropic's signatures, OpenAI's encrypted reasoning,
// Gemini's thought signatures): valid only for that text and model.
type signer struct{ key []byte }

func (s signer) sign(model, text string) string {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "%s\x00%s", model, text)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func (s signer) valid(model, text, sig string) bool {
	return hmac.Equal([]byte(s.sign(model, text)), []byte(sig))
}

// recorder keeps the requests a server received and what it answered.
type recorder[R any] struct {
	mu   sync.Mutex
	reqs []R
	n    int // requests that passed the checks
}

func (r *recorder[R]) add(req R, passed bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	if !passed {
		return -1
	}
	r.n++
	return r.n - 1
}

// setLast changes the last request recorded.
func (r *recorder[R]) setLast(f func(*R)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) > 0 {
		f(&r.reqs[len(r.reqs)-1])
	}
}

// refusals are the errors of the requests recorded, errOf telling each.
func (r *recorder[R]) refusals(errOf func(R) string) []string {
	var out []string
	for _, req := range r.all() {
		if e := errOf(req); e != "" {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder[R]) all() []R {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]R(nil), r.reqs...)
}

// readJSON reads a request's JSON body (at most 64 MiB), and the bytes.
func readJSON(r *http.Request) (map[string]any, []byte, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return nil, nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, data, err
	}
	return body, data, nil
}

// flusher writes what it is given and sends it at once.
func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// pieces splits s into up to n pieces of about equal length, at byte
// boundaries that keep runes whole: a tool call's arguments arrive split
// across chunks, as the providers send them.
func pieces(s string, n int) []string {
	if len(s) <= 1 || n <= 1 {
		return []string{s}
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > 0 {
		cut := min(size, len(s))
		for cut < len(s) && s[cut]&0xC0 == 0x80 {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}
