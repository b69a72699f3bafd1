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
}

// Handler serves MCP's streamable HTTP transport: POST a message (the
// first one, initialize, opens a session: the Mcp-Session-Id header of the
// answer names it), GET the session's event stream, DELETE it. A call
// runs with the context values of the request that opened its session
// (the caller's chat.Scope): authenticate before this handler and keep
// sessions apart with Key. The SDK refuses a request that reached a
// loopback address under a name that is not loopback (403, against DNS
// rebinding).
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
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

func (h *keyedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := ""
	if h.o.Key != nil {
		key = h.o.Key(r)
	}
	h.mu.Lock()
	sdk, ok := h.byKey[key]
	if !ok {
		sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.s.mcp },
			&mcp.StreamableHTTPOptions{Logger: h.s.sdkLog(), MaxRequestBodyBytes: h.o.MaxBody, SessionTimeout: h.o.SessionTimeout})
		h.byKey[key] = sdk
	}
	h.mu.Unlock()
	if h.s.stopped.Err() != nil {
		http.Error(w, "the server is stopping", http.StatusServiceUnavailable)
		return
	}
	// A request the server's stop overtakes (a session's stream opened
	// while Close went through the sessions) ends with it too.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.s.stopped, cancel)
	defer stop()
	sdk.ServeHTTP(w, r.WithContext(ctx))
}
