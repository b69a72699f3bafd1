package mcpserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionTimeout is how long an HTTP session may go without a
// request before it is closed (the client then starts a new one).
const DefaultSessionTimeout = 30 * time.Minute

// DefaultPollAfter is how long a call's event stream stays open before the
// server closes it with a retry: delay (HTTPOptions.PollAfter): under the
// 60 s a reverse proxy commonly waits for a silent response (nginx's
// proxy_read_timeout).
const DefaultPollAfter = 50 * time.Second

// maxEventBytes bounds the events each key's sessions keep for clients to
// resume their streams with (the oldest are dropped first).
const maxEventBytes = 4 << 20

// HTTPOptions configure Handler.
type HTTPOptions struct {
	// Key names who a request acts for (the API's tenant and user, after
	// its token was checked). Requests of different keys never share a
	// session: another key's session id is not found (404), so a session,
	// which keeps the scope of the request that opened it, cannot be used
	// by anyone else. Nil: one key.
	Key func(*http.Request) string
	// MaxBody bounds a request body (413 past it); 0 for the SDK's default.
	MaxBody int64
	// SessionTimeout closes a session idle that long; 0 for
	// DefaultSessionTimeout.
	SessionTimeout time.Duration
	// PollAfter: a tools/call still running this long has its event
	// stream closed with a retry: delay, and again each PollAfter; the
	// client resumes it (Last-Event-ID) and gets what it missed. Only for
	// clients of protocol 2025-11-25 or later. 0 for DefaultPollAfter,
	// negative for never.
	PollAfter time.Duration
}

// Handler serves MCP's streamable HTTP transport: POST a message (the
// first one, initialize, opens a session: the Mcp-Session-Id header of the
// answer names it), GET the session's event stream, DELETE it. A call
// runs with the context values of the request that opened its session
// (the caller's chat.Scope): authenticate before this handler and keep
// sessions apart with Key. The SDK refuses a request that reached a
// loopback address under a name that is not loopback (403, against DNS
// rebinding).
//
// Streams are resumable: each response stream starts with a priming event
// (an id and no data), its events are kept (at most maxEventBytes per key,
// in memory), and a client that lost a stream, or whose stream the server
// closed (PollAfter), gets the rest with GET and Last-Event-ID.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	switch {
	case o.PollAfter == 0:
		s.poll.Store(int64(DefaultPollAfter))
	case o.PollAfter > 0:
		s.poll.Store(int64(o.PollAfter))
	}
	h := &keyedHandler{s: s, o: o, byKey: map[string]http.Handler{}}
	return h
}

// keyedHandler is one SDK handler, with its own sessions, per key.
type keyedHandler struct {
	s *Server
	o HTTPOptions

	mu    sync.Mutex
	byKey map[string]http.Handler
}

// pollAfter is the PollAfter of Handler or SetPollAfter; 0 (never) over
// stdio.
func (s *Server) pollAfter() time.Duration { return time.Duration(s.poll.Load()) }

// SetPollAfter replaces Handler's PollAfter (as the server's limits are
// read after the handler is made); d <= 0 is never.
func (s *Server) SetPollAfter(d time.Duration) { s.poll.Store(int64(max(d, 0))) }

func (h *keyedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := ""
	if h.o.Key != nil {
		key = h.o.Key(r)
	}
	h.mu.Lock()
	sdk, ok := h.byKey[key]
	if !ok {
		events := mcp.NewMemoryEventStore(nil)
		events.SetMaxBytes(maxEventBytes)
		sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.s.mcp },
			&mcp.StreamableHTTPOptions{Logger: h.s.sdkLog(), MaxRequestBodyBytes: h.o.MaxBody, SessionTimeout: h.o.SessionTimeout,
				EventStore: events})
		h.byKey[key] = sdk
	}
	h.mu.Unlock()
	if h.s.stopped.Err() != nil {
		http.Error(w, "the server is stopping", http.StatusServiceUnavailable)
		return
	}
	// A request still open when Close has let the calls answer (a
	// session's stream, one opened while Close went through the sessions)
	// ends with the sessions.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.s.ended, cancel)
	defer stop()
	sdk.ServeHTTP(w, r.WithContext(ctx))
}
