package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/mcpserver"
)

// Limits bound what HTTP clients may hold of the server: how long each
// part of a request may take, how many connections may be open, and how
// far an event stream may fall behind. A zero field takes its default
// (DefaultLimits).
type Limits struct {
	// ReadHeaderTimeout is the time to read a request's headers, counted
	// from its first byte.
	ReadHeaderTimeout time.Duration
	// ReadTimeout is the time to read a whole request, headers and body:
	// a body trickled in a byte at a time is cut there.
	ReadTimeout time.Duration
	// WriteTimeout is the time each write of a response, and of each event
	// on /events, has to complete; it is rolling (set again before every
	// write), so a long turn or a long-lived stream is not cut, but a client
	// that stops reading is.
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request.
	IdleTimeout time.Duration
	// MaxConns caps the open connections. At the cap a new connection
	// closes the oldest unauthenticated one, else the oldest idle one, else
	// it is refused: connections busy with a request that passed the token
	// check are never closed to make room.
	MaxConns int
	// MaxUnauthenticatedConns caps the connections that have not yet sent a
	// request with a valid token (or, with no token configured, any
	// request); past it a new connection closes the oldest of them. A client
	// without a token cannot hold more, so it cannot keep one that has a
	// token out.
	MaxUnauthenticatedConns int
	// EventsQueue is how many events may wait for an /events client; when
	// one more comes, the stream is closed and the client can resume with
	// Last-Event-ID.
	EventsQueue int
	// EventsReplay is how many of the latest events the bus keeps for
	// clients that resume; keep it above EventsQueue, or a stream closed for
	// falling behind cannot resume without a gap.
	EventsReplay int
	// MCPPollAfter: a tools/call at /mcp still running this long has its
	// event stream closed with a retry: delay (mcpserver.HTTPOptions).
	MCPPollAfter time.Duration
}

// DefaultLimits are the limits of a server whose config sets none.
var DefaultLimits = Limits{
	ReadHeaderTimeout:       10 * time.Second,
	ReadTimeout:             60 * time.Second,
	WriteTimeout:            30 * time.Second,
	IdleTimeout:             60 * time.Second,
	MaxConns:                512,
	MaxUnauthenticatedConns: 128,
	EventsQueue:             256,
	EventsReplay:            1024,
	MCPPollAfter:            mcpserver.DefaultPollAfter,
}

// maxHeaderBytes bounds a request's headers: a token and a few headers
// need far less than net/http's 1 MiB, which every unauthenticated
// connection could otherwise make the server hold.
const maxHeaderBytes = 64 << 10

// LimitsFrom reads the limits from the server's config (server.*, the
// user's file only); unset keys take the defaults.
func LimitsFrom(c config.Server) Limits {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	return Limits{
		ReadHeaderTimeout:       ms(c.ReadHeaderTimeoutMs),
		ReadTimeout:             ms(c.ReadTimeoutMs),
		WriteTimeout:            ms(c.WriteTimeoutMs),
		IdleTimeout:             ms(c.IdleTimeoutMs),
		MaxConns:                c.MaxConns,
		MaxUnauthenticatedConns: c.MaxUnauthenticatedConns,
		EventsQueue:             c.EventsQueue,
		EventsReplay:            c.EventsReplay,
		MCPPollAfter:            ms(c.MCPPollAfterMs),
	}.withDefaults()
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pickN := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	pick(&l.ReadTimeout, d.ReadTimeout)
	pick(&l.WriteTimeout, d.WriteTimeout)
	pick(&l.IdleTimeout, d.IdleTimeout)
	pickN(&l.MaxConns, d.MaxConns)
	pickN(&l.MaxUnauthenticatedConns, d.MaxUnauthenticatedConns)
	pickN(&l.EventsQueue, d.EventsQueue)
	pickN(&l.EventsReplay, d.EventsReplay)
	pick(&l.MCPPollAfter, d.MCPPollAfter)
	l.MaxUnauthenticatedConns = min(l.MaxUnauthenticatedConns, l.MaxConns)
	return l
}

// lim is the server's limits: those given to HTTP, else the defaults.
func (s *Server) lim() Limits { return s.limits.withDefaults() }

// HTTP is how `podcode serve` serves s: it returns the http.Server, not yet
// serving, and the listener to serve it on, which is ln with its
// connections counted against l's caps. Call it once, before serving.
//
//	hs, ln := srv.HTTP(ln, limits)
//	go hs.Serve(ln)
//
// Stopping: hs.Shutdown ends the event streams (so it does not wait for
// them) and waits for the other requests.
func (s *Server) HTTP(ln net.Listener, l Limits) (*http.Server, net.Listener) {
	s.limits = l.withDefaults()
	s.Agent.App.Bus.SetReplay(s.limits.EventsReplay)
	s.mcp.SetPollAfter(s.limits.MCPPollAfter)
	s.httpDone = make(chan struct{})
	cl := &connLimiter{Listener: ln, max: s.limits.MaxConns, maxAnon: s.limits.MaxUnauthenticatedConns,
		log: s.Log, conns: map[*limitedConn]struct{}{}}
	hs := &http.Server{
		Handler:           writeDeadlines(s.Handler(), s.limits.WriteTimeout),
		ReadHeaderTimeout: s.limits.ReadHeaderTimeout,
		ReadTimeout:       s.limits.ReadTimeout,
		// No WriteTimeout: it counts from the request's start, so it would
		// cut /events and the answer of a long turn. Every write has its
		// own deadline instead (writeDeadlines, and the event stream's).
		IdleTimeout:    s.limits.IdleTimeout,
		MaxHeaderBytes: maxHeaderBytes,
		ConnState:      cl.state,
		ConnContext:    cl.context,
	}
	done := s.httpDone
	hs.RegisterOnShutdown(func() { close(done) })
	// MCP sessions hold event streams open: end them, and their calls.
	hs.RegisterOnShutdown(s.mcp.Close)
	return hs, cl
}

// writeDeadlines gives every write of a response d to complete, counted
// from that write (and the last flush, after the handler returns, d from
// then): a client that stops reading an answer is cut off, one that is
// waiting for a long turn is not.
func writeDeadlines(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: d}
		next.ServeHTTP(dw, r)
		dw.extend()
	})
}

type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) extend() { w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) Flush() {
	w.extend()
	w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// connLimiter is a listener that caps its open connections, and among
// them those that have not yet proved a token (Limits.MaxConns,
// Limits.MaxUnauthenticatedConns). It learns a connection's state from the
// http.Server (ConnState) and that a request on it passed the token check
// from the auth middleware (authenticated).
type connLimiter struct {
	net.Listener
	max, maxAnon int
	log          *slog.Logger

	mu    sync.Mutex
	seq   uint64 // accept order
	conns map[*limitedConn]struct{}
	anon  int // conns not authenticated
	// what the caps did since the last warning, which is logged at most
	// once a minute so an attack cannot flood the log
	evicted, refused int
	warned           time.Time
}

type limitedConn struct {
	net.Conn
	l     *connLimiter
	seq   uint64
	abort atomic.Bool // reset rather than close: see Write
	// under l.mu
	authed, idle, gone bool
}

type connKey struct{}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc, victims := l.admit(c)
		for _, v := range victims {
			v.Conn.Close()
		}
		if lc != nil {
			return lc, nil
		}
	}
}

// admit counts c in and picks the connections to close for it: the
// oldest unauthenticated one past MaxUnauthenticatedConns; past MaxConns
// the oldest unauthenticated, else the oldest idle one, else c itself
// (then lc is nil).
func (l *connLimiter) admit(c net.Conn) (lc *limitedConn, victims []*limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	lc = &limitedConn{Conn: c, l: l, seq: l.seq}
	l.conns[lc] = struct{}{}
	l.anon++
	drop := func(v *limitedConn) {
		victims = append(victims, v)
		l.remove(v)
		if v == lc {
			l.refused++
		} else {
			l.evicted++
		}
	}
	other := func(x *limitedConn) bool { return !x.authed && x != lc }
	if l.anon > l.maxAnon {
		if v := l.oldest(other); v != nil {
			drop(v)
		}
	}
	if len(l.conns) > l.max {
		v := l.oldest(other)
		if v == nil {
			v = l.oldest(func(x *limitedConn) bool { return x.authed && x.idle })
		}
		if v == nil {
			v = lc
		}
		drop(v)
	}
	if len(victims) > 0 && time.Since(l.warned) > time.Minute {
		l.log.Warn("server: connection limit reached: closed the oldest unauthenticated or idle connections",
			"closed", l.evicted, "refused", l.refused, "open", len(l.conns), "max_conns", l.max, "max_unauthenticated_conns", l.maxAnon)
		l.warned, l.evicted, l.refused = time.Now(), 0, 0
	}
	if lc.gone {
		return nil, victims
	}
	return lc, victims
}

// oldest returns the first accepted connection that match accepts, or nil.
func (l *connLimiter) oldest(match func(*limitedConn) bool) *limitedConn {
	var best *limitedConn
	for c := range l.conns {
		if match(c) && (best == nil || c.seq < best.seq) {
			best = c
		}
	}
	return best
}

// remove stops counting c. The caller holds l.mu.
func (l *connLimiter) remove(c *limitedConn) {
	if c.gone {
		return
	}
	c.gone = true
	delete(l.conns, c)
	if !c.authed {
		l.anon--
	}
}

// state follows the http.Server's view of each connection.
func (l *connLimiter) state(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateActive:
		lc.idle = false
	case http.StateIdle:
		lc.idle = true
	case http.StateClosed, http.StateHijacked:
		l.remove(lc)
	}
}

// context puts the connection in its requests' context, for authenticated.
func (l *connLimiter) context(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.remove(c)
	c.l.mu.Unlock()
	if tc, ok := c.Conn.(*net.TCPConn); ok && c.abort.Load() {
		tc.SetLinger(0)
	}
	return c.Conn.Close()
}

// Write notes a write that did not complete by its deadline: the client
// stopped reading, so the connection ends with a reset. A plain close
// would leave the kernel holding what is queued, and retrying it, for a
// client that does not read; a reset drops it at once.
func (c *limitedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.abort.Store(true)
	}
	return n, err
}

// streamSendBuffer caps the kernel's send buffer of an /events
// connection (Linux grows it up to 4 MiB by default): what a client that
// stops reading makes the server hold until the write timeout cuts it.
// Events are small; this is seconds of them even across a slow link.
const streamSendBuffer = 256 << 10

// capSendBuffer caps the send buffer of the connection of ctx at
// streamSendBuffer.
func capSendBuffer(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*limitedConn); ok {
		if tc, ok := c.Conn.(*net.TCPConn); ok {
			tc.SetWriteBuffer(streamSendBuffer)
		}
	}
}

// authenticated records that a request on the connection of ctx passed the
// token check: from now on the connection counts against MaxConns only.
func authenticated(ctx context.Context) {
	c, ok := ctx.Value(connKey{}).(*limitedConn)
	if !ok {
		return
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if !c.authed && !c.gone {
		c.authed = true
		c.l.anon--
	}
}
