package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/chat"
)

// Every provider's failures are told apart the same way, so that a user
// reads what to do whichever model they use, and a turn retries only what
// another attempt may fix:
//
//   - the provider's own answers are *StatusError: a wrong key (401), a
//     model the key may not use (403) or that does not exist (404), a
//     request refused (400, other 4xx), rate limits (429), overload (529,
//     and Anthropic's overloaded_error mid-stream), its servers' errors
//     (5xx); a history too long for the model's context is also
//     ErrContextOverflow (errors.Is), which the turn answers by compacting;
//   - a failure to reach it (refused, reset) is *NetError, which names the
//     endpoint; an attempt that passed Connection.Timeout is ErrTimeout,
//     which names the option;
//   - a stream that breaks its own format is ErrStream.
//
// 429, 5xx, 529, an overload mid-stream and the network are retried, up
// to Connection.MaxRetries times, waiting as Retry-After says (at most a
// minute) or backing off (0.5 s, 1 s, 2 s, …, at most 30 s), and only when
// nothing of the answer reached the turn yet: text already shown is never
// shown twice.

// StatusError is an error the provider answered.
type StatusError struct {
	Provider string // the provider's id
	Model    string // the model's id
	Status   int    // the HTTP status; 0 for an error sent mid-stream
	Type     string // the provider's kind of error: rate_limit_error, overloaded_error, RESOURCE_EXHAUSTED, …
	Body     string // the provider's message
	// RetryAfter is the wait the provider asked for (Retry-After), if any.
	RetryAfter time.Duration
	// KeyEnv names the variable the key came from, for a refused key.
	KeyEnv string
	// Retries is how many retries were made before this error was final.
	Retries int
}

func (e *StatusError) Error() string {
	who := cmp.Or(e.Provider, "the provider")
	detail := e.Body
	if e.Type != "" && !strings.Contains(detail, e.Type) {
		detail = e.Type + ": " + detail
	}
	retried := ""
	if e.Retries > 0 {
		retried = fmt.Sprintf(" after %d retries", e.Retries)
	}
	switch {
	case e.Status == http.StatusUnauthorized:
		key := "the provider's apiKey option"
		if e.KeyEnv != "" {
			key = e.KeyEnv
		} else if e.Provider != "" {
			key = "provider." + e.Provider + ".options.apiKey"
		}
		return fmt.Sprintf("%s refused the API key (401): %s; check %s", who, detail, key)
	case e.Status == http.StatusForbidden:
		return fmt.Sprintf("%s refused the API key for model %s (403: the key may not use it): %s", who, e.Model, detail)
	case e.Status == http.StatusNotFound:
		return fmt.Sprintf("%s does not know model %s (404): %s (`podcode models %s` lists the catalog's)", who, e.Model, detail, e.Provider)
	case errors.Is(e, ErrContextOverflow):
		return fmt.Sprintf("%s: the conversation is longer than model %s's context (%d): %s", who, e.Model, e.Status, detail)
	case e.Status == http.StatusTooManyRequests:
		return fmt.Sprintf("%s is rate limiting (429) and retries ran out%s: %s", who, retried, detail)
	case e.overloaded():
		return fmt.Sprintf("%s is overloaded (%s) and retries ran out%s: %s", who, cmp.Or(statusText(e.Status), "mid-stream"), retried, detail)
	case e.Status == 0:
		return fmt.Sprintf("%s reported an error mid-stream%s: %s", who, retried, detail)
	case e.Status >= 500:
		return fmt.Sprintf("%s answered %d%s: %s", who, e.Status, retried, detail)
	}
	return fmt.Sprintf("%s refused the request (%d): %s", who, e.Status, detail)
}

func statusText(status int) string {
	if status == 0 {
		return ""
	}
	return strconv.Itoa(status)
}

// overloaded is Anthropic's 529 and its overloaded_error, which may also
// come mid-stream, Bedrock's serviceUnavailableException and Gemini's
// UNAVAILABLE.
func (e *StatusError) overloaded() bool {
	return e.Status == 529 || e.Type == "overloaded_error" || e.Type == "UNAVAILABLE" || strings.EqualFold(e.Type, "serviceUnavailableException")
}

// transientMidStream are the errors a stream may carry that another
// attempt may not meet: Anthropic's, and Bedrock's exceptions.
var transientMidStream = map[string]bool{"api_error": true, "rate_limit_error": true, "throttlingException": true,
	"internalServerException": true, "modelStreamErrorException": true, "server_error": true}

// Is makes a history too long for the model's context ErrContextOverflow.
func (e *StatusError) Is(target error) bool {
	return target == ErrContextOverflow && contextOverflow(e.Status, e.Type, e.Body)
}

// ErrContextOverflow is a provider's refusal of a history longer than the
// model's context.
var ErrContextOverflow = errors.New("the conversation is too long for the model's context")

// contextOverflow recognises the providers' ways of saying so: Anthropic's
// "prompt is too long" (400) and request_too_large (413), OpenAI's
// context_length_exceeded, Gemini's "exceeds the maximum number of
// tokens" and "input token count", Bedrock's "Input is too long".
func contextOverflow(status int, typ, body string) bool {
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return false
	}
	b := strings.ToLower(body)
	return typ == "context_length_exceeded" || typ == "request_too_large" || strings.Contains(b, "prompt is too long") ||
		strings.Contains(b, "context_length_exceeded") || strings.Contains(b, "maximum context length") ||
		strings.Contains(b, "context window") || strings.Contains(b, "exceeds the maximum number of tokens") ||
		strings.Contains(b, "input token count") || strings.Contains(b, "input is too long")
}

// ErrNoKey is a call to a provider that needs a key, with none set.
var ErrNoKey = errors.New("no API key")

// noKey is ErrNoKey for m, saying where a key goes: env, the provider's
// variable, or the apiKey option.
func noKey(m Model, env string) error {
	env = cmp.Or(m.Connection.KeyEnv, env)
	if kp := known(m.ProviderID); kp != nil && kp.keyEnv != "" {
		env = kp.keyEnv
	}
	return fmt.Errorf("model %s: %w for %s: set %s, or provider.%s.options.apiKey in your podcode.json", m.Name(), ErrNoKey, m.ProviderID, env, m.ProviderID)
}

// MissingKey is the error m's first call will fail with for want of a key
// (noKey), nil when its API needs none or it has one: for a warning
// before anything runs.
func (m Model) MissingKey() error {
	if m.Connection.APIKey != "" {
		return nil
	}
	switch m.Connection.API {
	case APIAnthropic:
		return noKey(m, "ANTHROPIC_API_KEY")
	case APIResponses:
		return noKey(m, "OPENAI_API_KEY")
	case APIGemini:
		return noKey(m, "GEMINI_API_KEY")
	}
	return nil
}

// NetError is a failure to reach the provider: the connection refused,
// reset or timed out.
type NetError struct {
	Provider, Endpoint string
	Retries            int
	Err                error
}

func (e *NetError) Error() string {
	retried := ""
	if e.Retries > 0 {
		retried = fmt.Sprintf(" (retried %d times)", e.Retries)
	}
	return fmt.Sprintf("could not reach %s at %s%s: %v; check that it is running and that provider.%s.options.baseURL is right",
		e.Provider, e.Endpoint, retried, e.Err, e.Provider)
}

func (e *NetError) Unwrap() error { return e.Err }

// ErrTimeout is an attempt of a model call that passed the connection's
// timeout.
var ErrTimeout = errors.New("the model call took longer than its timeout")

// ErrStream is a cut or malformed response stream.
var ErrStream = errors.New("the provider's response stream was cut or malformed")

// lazy is a provider's client, made by the first call that can make it: a
// failure is not kept, so a later call tries again (the first was
// cancelled while it read the AWS configuration, say).
type lazy[T any] struct {
	mu sync.Mutex
	ok bool
	v  T
}

func (l *lazy[T]) get(build func() (T, error)) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok {
		return l.v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	l.v, l.ok = v, true
	return v, nil
}

// retrier runs a model call's attempts (do). The zero value logs nothing
// and sleeps on a timer.
type retrier struct {
	log *slog.Logger
	// Sleep waits between retries; tests replace it. nil: a timer that
	// honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// do makes m's call through attempt, which sends the request, passes what
// arrives to emit and returns the answer: each attempt bounded by the
// connection's timeout, retried as the package doc says. An answer that
// broke off keeps, with its error, what streamed before.
func (r *retrier) do(ctx context.Context, m Model, onEvent func(Event), attempt func(ctx context.Context, emit func(Event)) (Response, error)) (Response, error) {
	conn := m.Connection
	for n := 0; ; n++ {
		emitted := false
		emit := func(e Event) {
			emitted = true
			onEvent(e)
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if conn.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, conn.Timeout)
		}
		res, err := safely(actx, emit, attempt)
		if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %s (provider.%s.options.timeout): %w", ErrTimeout, conn.Timeout, m.ProviderID, err)
		}
		cancel()
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			if errors.Is(err, ctx.Err()) {
				return res, err
			}
			return res, ctx.Err()
		}
		wait, retry := retryable(err, n)
		if !retry || emitted || n >= conn.MaxRetries {
			return res, final(err, m, n)
		}
		if r.log != nil {
			r.log.Warn("provider: retrying a model call", "provider", m.ProviderID, "model", m.ModelID, "retry", n+1, "of", conn.MaxRetries,
				"wait", wait.String(), "error", err.Error())
		}
		if err := r.sleep(ctx, wait); err != nil {
			return res, err
		}
	}
}

// safely runs attempt, whose SDK decodes what the provider sent: a panic
// there (an SDK's bug met by a malformed answer, found by fuzzing) is the
// call's ErrStream, never the end of the turn's goroutine, or the server.
func safely(ctx context.Context, emit func(Event), attempt func(context.Context, func(Event)) (Response, error)) (res Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: reading it failed: %v", ErrStream, p)
		}
	}()
	return attempt(ctx, emit)
}

// retryable says whether err is worth another attempt, the n+1th retry,
// and after how long.
func retryable(err error, n int) (time.Duration, bool) {
	backoff := min(time.Duration(500<<min(n, 6))*time.Millisecond, 30*time.Second)
	var se *StatusError
	if errors.As(err, &se) {
		ok := se.Status == http.StatusTooManyRequests || se.Status == http.StatusRequestTimeout || se.Status >= 500 || se.overloaded() ||
			(se.Status == 0 && transientMidStream[se.Type])
		if !ok || errors.Is(se, ErrContextOverflow) {
			return 0, false // a Retry-After on a refusal (a gateway's) asks for nothing
		}
		if se.RetryAfter > 0 {
			return min(se.RetryAfter, time.Minute), true
		}
		return backoff, true
	}
	if errors.Is(err, ErrTimeout) {
		return backoff, true
	}
	if errors.Is(err, ErrStream) {
		return 0, false
	}
	if unreached(err) {
		return backoff, true
	}
	return 0, false
}

// unreached says whether err is one a client returns for a request that
// never got an answer: a network failure (a *url.Error around a
// *net.OpError), a deadline, an EOF.
func unreached(err error) bool {
	var oe *net.OpError
	if errors.As(err, &oe) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection reset") || strings.Contains(s, "EOF") || strings.Contains(s, "connection refused") ||
		strings.Contains(s, "no such host") || strings.Contains(s, "i/o timeout") || strings.Contains(s, "broken pipe")
}

// final is the error of a call that is not retried: a StatusError says how
// many retries it had; a failure to reach the provider names it and where.
func final(err error, m Model, retries int) error {
	var se *StatusError
	if errors.As(err, &se) {
		se.Retries = retries
		if se.Provider == "" {
			se.Provider = m.ProviderID
		}
		if se.Model == "" {
			se.Model = m.ModelID
		}
		if se.KeyEnv == "" {
			se.KeyEnv = m.Connection.KeyEnv
		}
		return err
	}
	var ne *NetError
	if errors.As(err, &ne) || errors.Is(err, ErrStream) || errors.Is(err, ErrTimeout) {
		return err
	}
	if unreached(err) {
		return &NetError{Provider: m.ProviderID, Endpoint: m.Connection.Endpoint(), Retries: retries, Err: err}
	}
	return err
}

func (r *retrier) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
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

// parseRetryAfter reads Retry-After (seconds or an HTTP date) and
// Anthropic's and OpenAI's retry-after-ms.
func parseRetryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
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

// statusError reads a provider's error answer: its status, Retry-After,
// and the message and type from the body (the {"error": {"message",
// "type"|"status"|"code"}} the providers share), at most 2 KiB of it.
func statusError(m Model, status int, h http.Header, body []byte) *StatusError {
	se := &StatusError{Provider: m.ProviderID, Model: m.ModelID, Status: status, KeyEnv: m.Connection.KeyEnv}
	if d, ok := parseRetryAfter(h); ok {
		se.RetryAfter = d
	}
	se.Type, se.Body = errorBody(body)
	return se
}

// errorBody is the type and message of a provider's error body: the
// {"error": {"message", "type"|"code"|"status"}} that OpenAI, Anthropic
// and Gemini share (Gemini's in a list, at times), else the body itself,
// on one line and shortened.
func errorBody(body []byte) (typ, msg string) {
	type apiError struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
		Status  string `json:"status"`
	}
	var one struct {
		Error *apiError `json:"error"`
	}
	var list []struct {
		Error *apiError `json:"error"`
	}
	var aws struct {
		Message string `json:"message"`
	}
	var e *apiError
	if json.Unmarshal(body, &one) == nil && one.Error != nil {
		e = one.Error
	} else if json.Unmarshal(body, &list) == nil && len(list) > 0 && list[0].Error != nil {
		e = list[0].Error
	} else if json.Unmarshal(body, &aws) == nil && aws.Message != "" {
		e = &apiError{Message: aws.Message} // AWS's {"message"}, its type in a header
	}
	if e == nil {
		return "", chat.Shorten(string(body), 500)
	}
	typ = e.Type
	if code, ok := e.Code.(string); ok && code != "" && (typ == "" || typ == "invalid_request_error") {
		typ = code // OpenAI's context_length_exceeded is a code of an invalid_request_error
	}
	if typ == "" {
		typ = e.Status
	}
	return typ, chat.Shorten(e.Message, 1000)
}
