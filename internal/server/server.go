// Package server is Podcode's HTTP API: sessions, messages (a posted user
// message runs a turn), permission replies, the plugin and tool listings,
// the event stream (Server-Sent Events of the bus), a health check and the
// OpenAPI document, and the web page at / (package web).
//
// Access: on a loopback address no token is needed unless one is
// configured; on any other address a token is required to start at all.
// With a token, every request must carry `Authorization: Bearer <token>`,
// except the web page's (GET / and /ui/*, package web), which hold no data.
//
// Tenants: the server's own token (or none) acts for the default tenant
// (id 0); each of the config's server.tokens acts for its tenant and user.
// A tenant sees and changes only its own sessions (another tenant's answer
// 404, as if they did not exist), answers only its own permission
// questions, and receives on /events only its own events and the server's.
// Lifecycle payloads of its turns carry its tenant_id and user_id.
//
// /mcp serves the tools to other agents over the Model Context Protocol
// (streamable HTTP, package mcpserver), behind the same token: every call
// goes through the guard and the plugins' hooks, as a turn's does.
//
// Bodies are JSON, at most MaxBody bytes; a bad body is a 400 that says
// what was wrong. Errors are {"error": "..."}.
//
// Hostile clients: served through HTTP, every request is read within
// timeouts, every write has its own deadline, connections are capped with
// a smaller budget for those that have not yet proved a token, and an
// /events client that stops reading is disconnected without slowing the
// publisher (see Limits). Events carry ids, and a client that reconnects
// resumes where it left off.
package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/httpjson"
	"github.com/podcode/podcode/internal/mcpserver"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/internal/web"
	"github.com/podcode/podcode/internal/webhook"
)

// MaxBody bounds a request body.
const MaxBody = 1 << 20

// DefaultAddr is where `podcode serve` listens without --addr.
const DefaultAddr = "127.0.0.1:4096"

// Server serves the API of one agent.
type Server struct {
	Agent *agent.Agent
	Token string // the default tenant's token; "" for none
	Log   *slog.Logger

	tokens    []config.TenantToken // with {env:} expanded
	webhooks  *webhook.Receiver    // nil until EnableWebhooks
	mu        sync.Mutex
	questions map[string]question // pending permission questions, by id
	turns     turns
	limits    Limits        // set by HTTP; the defaults until then
	httpDone  chan struct{} // closed when the http.Server of HTTP shuts down
	mcp       *mcpserver.Server
	mcpHTTP   http.Handler // /mcp
}

// turns counts the turns the server runs, so that stopping waits for them;
// once closed it starts no more (a WaitGroup cannot refuse an Add that
// races with its Wait).
type turns struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed when n drops to 0 after close
}

// add counts a turn about to start; false once the server is stopping.
func (t *turns) add() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.n++
	return true
}

func (t *turns) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.closed && t.n == 0 && t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
}

// close refuses new turns and returns a channel closed once none runs.
func (t *turns) close() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	ch := make(chan struct{})
	if t.n == 0 {
		close(ch)
	} else {
		if t.idle != nil {
			close(t.idle) // an earlier close's waiter
		}
		t.idle = ch
	}
	return ch
}

type question struct {
	tenant string
	form   *guard.Form       // nil for a yes/no question
	answer chan guard.Answer // Accept is yes (see PermissionReply.answer)
}

// New returns a server for ag; it becomes the agent's asker for turns that
// come through the API. tokens are the tenants' tokens (server.tokens) as
// ExpandTokens returns them: taken as they are, never expanded again (a
// variable's value may itself contain "{env:"); a blank one is left out.
func New(ag *agent.Agent, token string, tokens ...config.TenantToken) *Server {
	s := &Server{Agent: ag, Token: token, Log: ag.App.Log, questions: map[string]question{}}
	for _, t := range tokens {
		if strings.TrimSpace(t.Token) != "" {
			s.tokens = append(s.tokens, t)
		}
	}
	prev := ag.App.Guard.CurrentAsker()
	ag.App.Guard.SetAsker(&apiAsker{s: s, next: prev})
	if ag.Node != nil {
		s.joinCluster(ag.Node)
	}
	s.mcp = mcpserver.New(ag.App)
	// A session keeps the scope of the request that opened it: only the
	// same tenant and user may use it.
	s.mcpHTTP = s.mcp.Handler(mcpserver.HTTPOptions{MaxBody: MaxBody, Key: func(r *http.Request) string {
		c := caller(r)
		return c.Tenant + "\x00" + c.UserID
	}})
	return s
}

// MCP is the server's MCP server (at /mcp): call its ToolsChanged after
// changing the tool registry.
func (s *Server) MCP() *mcpserver.Server { return s.mcp }

// ExpandToken substitutes {env:NAME} in server.token as written. A
// variable it names that is unset, or a token that comes out empty, is an
// error: "{env:PODCODE_API_TOKEN}" taken as it is written would be a token
// anyone can guess, on a server listening past loopback because it has
// one.
func ExpandToken(written string) (string, error) {
	if written == "" {
		return "", nil
	}
	return expandToken("server.token", written)
}

// expandToken is a token as written, at key, with {env:NAME} substituted:
// a variable it names that is unset ("tok-{env:X}" would be a token
// anyone can guess) or a token that comes out empty is an error.
func expandToken(key, written string) (string, error) {
	token, unset := config.ExpandEnvUnset(written)
	if len(unset) > 0 {
		return "", fmt.Errorf("config: %s: the environment variable %s it names is unset", key, strings.Join(unset, ", "))
	}
	if strings.TrimSpace(token) == "" {
		return "", fmt.Errorf("config: %s: %q is empty; set the variable it names", key, written)
	}
	return token, nil
}

// ExpandTokens substitutes {env:NAME} in the tenants' tokens. A token that
// comes out empty is an error naming it: a server must not start believing
// it checks a token it does not have. So is a token that is the server's
// (serverToken) or another tenant's: a request with it would act for
// whichever is checked first, the user's own rights for a tenant whose
// token is the server's.
func ExpandTokens(serverToken string, tokens []config.TenantToken) ([]config.TenantToken, error) {
	out := make([]config.TenantToken, 0, len(tokens))
	for i, t := range tokens {
		var err error
		if t.Token, err = expandToken(fmt.Sprintf("server.tokens[%d] (tenant %d, user %q)", i, t.TenantID, t.UserID), t.Token); err != nil {
			return nil, err
		}
		if serverToken != "" && t.Token == serverToken {
			return nil, fmt.Errorf("config: server.tokens[%d] (tenant %d, user %q): the token is the server's own (server.token or PODCODE_API_TOKEN); give the tenant a token of its own", i, t.TenantID, t.UserID)
		}
		if k := slices.IndexFunc(out, func(o config.TenantToken) bool { return o.Token == t.Token }); k >= 0 {
			return nil, fmt.Errorf("config: server.tokens[%d] (tenant %d, user %q) has the token of server.tokens[%d] (tenant %d, user %q); each needs its own", i, t.TenantID, t.UserID, k, out[k].TenantID, out[k].UserID)
		}
		out = append(out, t)
	}
	return out, nil
}

// CheckAddr refuses a non-loopback address unless requests must carry a
// token (the server's or a tenant's).
func CheckAddr(addr string, tokens bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && !tokens {
		return fmt.Errorf("listening on %s (not loopback) needs an API token: set PODCODE_API_TOKEN or server.token", addr)
	}
	return nil
}

// Handler is the API. /mcp serves the tools over MCP's streamable HTTP
// transport (package mcpserver), behind the same token check; a call runs
// as the token's tenant and user, in the tenant's workspace, on channel
// "mcp". The web page (package web) is at GET / and GET /ui/: it carries
// no data and is served without a token; everything it shows comes from
// the API with the token. Before any of it, fromBrowsers refuses what a
// page of another site can make a browser send.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	outer := http.NewServeMux()
	for _, e := range s.endpoints() {
		m := mux
		if e.public {
			m = outer
		}
		m.Handle(e.pattern(), e.handler)
	}
	outer.Handle("/", s.route(mux))
	return s.fromBrowsers(outer)
}

// endpoint is one route of the API. endpoints is the one list of them:
// Handler registers each, and the tests check that the OpenAPI document
// describes each with the same path and method, and nothing else.
type endpoint struct {
	methods []string // one method, or those a handler that dispatches on the method itself answers
	path    string   // a ServeMux path: {name} wildcards, {$} and a trailing "/" as ServeMux reads them
	public  bool     // served without the token check (the web page)
	handler http.Handler
	ops     []operation // what the OpenAPI document says of each method (openapi.go)
}

// pattern is e's ServeMux pattern: "METHOD path" for one method, the bare
// path for a handler that answers several.
func (e endpoint) pattern() string {
	if len(e.methods) == 1 {
		return e.methods[0] + " " + e.path
	}
	return e.path
}

func (s *Server) endpoints() []endpoint {
	get := func(path string, h http.HandlerFunc, op operation) endpoint {
		return endpoint{methods: []string{"GET"}, path: path, handler: h, ops: []operation{op}}
	}
	post := func(path string, h http.HandlerFunc, op operation) endpoint {
		return endpoint{methods: []string{"POST"}, path: path, handler: h, ops: []operation{op}}
	}
	mcpSession := param{name: "Mcp-Session-Id", in: "header", required: true}
	page := web.Handler()
	return []endpoint{
		get("/healthz", s.health, operation{id: "health", summary: "Health check, the project code that does not run, and the MCP servers",
			answers: []answer{jsonAnswer[Health](200, "ok")}}),
		get("/openapi.json", s.serveOpenAPI, operation{id: "getOpenAPI", summary: "This document",
			answers: []answer{objectAnswer(200, "this document (OpenAPI 3.1)", "an OpenAPI 3.1 document")}}),
		get("/sessions", s.listSessions, operation{id: "listSessions", summary: "List sessions, newest first",
			answers: []answer{jsonAnswer[[]store.Session](200, "sessions")}}),
		post("/sessions", s.createSession, operation{id: "createSession", summary: "Create a session (fires SessionStart)",
			body:    bodyOf[CreateSession](),
			answers: []answer{jsonAnswer[store.Session](201, "created"), errorAnswer(400, "bad body or refused")}}),
		get("/sessions/{id}", s.getSession, operation{id: "getSession", summary: "Get a session",
			answers: []answer{jsonAnswer[store.Session](200, "the session"), notFound}}),
		{methods: []string{"DELETE"}, path: "/sessions/{id}", handler: http.HandlerFunc(s.deleteSession), ops: []operation{{
			id: "deleteSession", summary: "Delete a session (fires SessionEnd)",
			answers: []answer{emptyAnswer(204, "deleted"), notFound}}}},
		post("/sessions/{id}/cancel", s.cancelTurn, operation{id: "cancelTurn", summary: "Cancel the running turn",
			answers: []answer{jsonAnswer[Cancelled](200, "whether a turn was running and is now cancelled"), notFound}}),
		get("/sessions/{id}/messages", s.listMessages, operation{id: "listMessages", summary: "List messages, with the hooks that ran around each",
			answers: []answer{jsonAnswer[[]chat.Message](200, "messages"), notFound}}),
		get("/sessions/{id}/messages/{mid}", s.getMessage, operation{id: "getMessage", summary: "Get one message",
			answers: []answer{jsonAnswer[chat.Message](200, "the message"), errorAnswer(404, "no such session or message")}}),
		post("/sessions/{id}/messages", s.postMessage, operation{id: "postMessage", summary: "Post a user message: runs a turn",
			body: bodyOf[PostMessage](), needsBody: true,
			answers: []answer{
				jsonAnswer[TurnResult](200, "the turn's messages and final text"),
				jsonAnswer[TurnStarted](202, "started (async): follow the turn on /events"),
				errorAnswer(400, "bad body"),
				errorAnswer(403, "a UserPromptSubmit hook rejected the prompt"),
				notFound,
				errorAnswer(409, "a turn is already running"),
				// A turn that ended early answers its result with the status.
				eitherAnswer[ErrorBody, TurnResult](0, "the request failed (503 while the server shuts down, 500 otherwise), or the turn ended early (499 cancelled, 503 shutting down): then the turn's result with its error"),
			}}),
		post("/permissions/{id}", s.replyPermission, operation{id: "replyPermission", summary: "Answer a permission question (see the permission.asked event)",
			body: bodyOf[PermissionReply](),
			answers: []answer{jsonAnswer[PermissionAnswered](200, "answered"), errorAnswer(404, "no pending question"),
				errorAnswer(400, "bad body, or a form's values that do not fit it (the question stays pending): what was wrong and where")}}),
		get("/plugins", s.listPlugins, operation{id: "listPlugins", summary: "Loaded plugins in pipeline order, load warnings, and the project code that does not run",
			answers: []answer{jsonAnswer[PluginList](200, "plugins")}}),
		get("/tools", s.listTools, operation{id: "listTools", summary: "The merged tool registry",
			answers: []answer{jsonAnswer[[]Tool](200, "tools")}}),
		get("/commands", s.listCommands, operation{id: "listCommands", summary: "The slash commands a message may invoke (\"/<name> <args>\"): Claude Code's, from the user's ~/.claude, the project's .claude once trusted, and the Claude Code plugins that run",
			answers: []answer{jsonAnswer[[]Command](200, "commands, by name")}}),
		get("/events", s.events, operation{id: "events", summary: eventsSummary, description: eventsDescription,
			params: []param{{name: "Last-Event-ID", in: "header"},
				{name: "last_event_id", in: "query", description: "for clients that cannot set headers; the header wins"}},
			answers: []answer{textAnswer(200, "the stream", "text/event-stream"), errorAnswer(400, "the Last-Event-ID is not an event id")}}),
		{methods: []string{"GET", "POST", "DELETE"}, path: "/mcp", handler: s.mcpHTTP, ops: []operation{
			{method: "POST", id: "mcpPost", summary: mcpPostSummary, description: mcpPostDescription, foreignErrors: true,
				params: []param{{name: "Mcp-Session-Id", in: "header"}},
				answers: []answer{objectAnswer(200, "the answer", "a JSON-RPC message", "text/event-stream"),
					emptyAnswer(202, "a notification or response was accepted"), emptyAnswer(400, "not an MCP message"),
					emptyAnswer(404, "no such session"), emptyAnswer(413, "the body is larger than 1 MiB")}},
			{method: "GET", id: "mcpStream", summary: "The session's stream of server messages (notifications/tools/list_changed)", foreignErrors: true,
				params:  []param{mcpSession},
				answers: []answer{textAnswer(200, "the session's stream", "text/event-stream"), emptyAnswer(404, "no such session")}},
			{method: "DELETE", id: "mcpDelete", summary: "End the session", foreignErrors: true,
				params:  []param{mcpSession},
				answers: []answer{emptyAnswer(204, "ended"), emptyAnswer(404, "no such session")}},
		}},
		{methods: []string{"GET"}, path: "/{$}", public: true, handler: page, ops: []operation{{
			id: "webPage", foreignErrors: true,
			summary: "The web page (HTML; no data in it, so no token: the page asks for the token and sends it as a Bearer header)",
			answers: []answer{textAnswer(200, "the page, under a strict Content-Security-Policy", "text/html")}}}},
		{methods: []string{"GET"}, path: web.Prefix, public: true, handler: page, ops: []operation{{
			id: "webFile", summary: "A file of the web page (its scripts and style sheet; no token)", foreignErrors: true,
			answers: []answer{textAnswer(200, "the file, with its type", "text/javascript", "text/css"),
				textAnswer(404, "the page has no such file", "text/plain")}}}},
	}
}

var errNoWebhooks = errors.New("no webhooks are configured")

// auth finds who the request acts for and puts it in the request's
// context as a chat.Scope (tenant, tenant id, user, channel api). With any
// token configured, a request without a known token is refused.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := chat.Scope{Tenant: store.DefaultTenant, Channel: "api"}
		if s.Token != "" || len(s.tokens) > 0 {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			found := false
			// Every token is compared, in constant time each, so the time
			// taken says nothing about which one nearly matched.
			if ok && s.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.Token)) == 1 {
				found = true
			}
			for _, t := range s.tokens {
				if ok && subtle.ConstantTimeCompare([]byte(got), []byte(t.Token)) == 1 && !found {
					who.Tenant, who.TenantID, who.UserID, found = store.TenantKey(t.TenantID), t.TenantID, t.UserID, true
				}
			}
			if !found {
				httpjson.Error(w, http.StatusUnauthorized, errors.New("missing or wrong API token (Authorization: Bearer <token>)"))
				return
			}
		}
		authenticated(r.Context()) // the connection has proved a token: see Limits.MaxUnauthenticatedConns
		next.ServeHTTP(w, r.WithContext(chat.WithScope(r.Context(), who)))
	})
}

// caller is who the request acts for (set by auth).
func caller(r *http.Request) chat.Scope { return chat.ScopeFrom(r.Context()) }

// tenant is the owner of the request's sessions.
func tenant(r *http.Request) string { return caller(r).Tenant }

// statusOf maps an error to an HTTP status.
func statusOf(err error) int {
	var rej *agent.PromptRejected
	switch {
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, agent.ErrBusy):
		return http.StatusConflict
	case errors.Is(err, agent.ErrShuttingDown):
		return http.StatusServiceUnavailable
	case errors.As(err, &rej):
		return http.StatusForbidden
	case errors.Is(err, context.Canceled):
		return 499 // the client closed the request, or the turn was cancelled
	}
	return http.StatusInternalServerError
}

// decode reads a JSON body into v: at most MaxBody bytes, no unknown
// fields, one value.
func decode(w http.ResponseWriter, r *http.Request, v validator) error {
	if r.Body == nil {
		return nil
	}
	return DecodeBody(http.MaxBytesReader(w, r.Body, MaxBody), v)
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.Agent.Store.Sessions(r.Context(), tenant(r))
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	httpjson.Write(w, 200, list)
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	var body CreateSession
	if err := decode(w, r, &body); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	c := caller(r)
	// A tenant picks among the models the user's file defines (and the
	// default): the catalog's others would be called with whatever keys
	// and cloud credentials the server's environment holds.
	if body.Model != "" && c.Tenant != store.DefaultTenant && !s.Agent.App.Models.Defined(body.Model) {
		s.fail(w, http.StatusBadRequest, fmt.Errorf("model %q is not one this server offers: the models of its podcode.json are %s",
			body.Model, strings.Join(s.Agent.App.Models.Names(), ", ")))
		return
	}
	sess, err := s.Agent.NewSession(r.Context(), agent.SessionRequest{Tenant: c.Tenant, TenantID: c.TenantID, UserID: c.UserID,
		Title: body.Title, Model: body.Model, Channel: "api"})
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	httpjson.Write(w, http.StatusCreated, sess)
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	sess, err := s.Agent.Store.Session(r.Context(), tenant(r), r.PathValue("id"))
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	httpjson.Write(w, 200, sess)
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	if err := s.Agent.DeleteSession(r.Context(), tenant(r), r.PathValue("id")); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ownSession returns the path's session id when the request's tenant owns
// that session; otherwise it answers the store's error (404 for another
// tenant's) and returns false.
func (s *Server) ownSession(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if _, err := s.Agent.Store.Session(r.Context(), tenant(r), id); err != nil {
		s.fail(w, statusOf(err), err)
		return "", false
	}
	return id, true
}

func (s *Server) cancelTurn(w http.ResponseWriter, r *http.Request) {
	id, ok := s.ownSession(w, r)
	if !ok {
		return
	}
	httpjson.Write(w, 200, Cancelled{Cancelled: s.Agent.CancelAnywhere(r.Context(), store.Session{ID: id, Tenant: tenant(r)})})
}

func (s *Server) listMessages(w http.ResponseWriter, r *http.Request) {
	id, ok := s.ownSession(w, r)
	if !ok {
		return
	}
	msgs, err := s.Agent.Store.Messages(r.Context(), id)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	httpjson.Write(w, 200, msgs)
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request) {
	id, ok := s.ownSession(w, r)
	if !ok {
		return
	}
	m, err := s.Agent.Store.Message(r.Context(), id, r.PathValue("mid"))
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	httpjson.Write(w, 200, m)
}

// postMessage runs a turn. With "async": true it answers 202 at once (the
// turn's progress is on /events); otherwise it answers when the turn ends,
// with the messages it stored.
func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	var body PostMessage
	if err := decode(w, r, &body); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	id, ok := s.ownSession(w, r)
	if !ok {
		return
	}
	c := caller(r)
	req := agent.TurnRequest{Tenant: c.Tenant, TenantID: c.TenantID, UserID: c.UserID, SessionID: id, Prompt: body.Text, Channel: "api", Specified: body.Params}
	ctx, err := s.turnContext(r, c)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	if !s.turns.add() {
		httpjson.Error(w, http.StatusServiceUnavailable, agent.ErrShuttingDown)
		return
	}
	if body.Async {
		go func() {
			defer s.turns.done()
			res, err := s.Agent.Run(ctx, req)
			if err != nil {
				s.Log.Warn("server: turn failed", "session", id, "error", err.Error())
			}
			if err != nil && res == nil {
				// Refused before it started (a hook's refusal, a turn
				// already running): the client was answered 202 and
				// follows /events, where nothing else would ever say so.
				// Not turn.finished: a turn may be running in the session,
				// and its viewers must not take it for ended.
				s.Agent.App.Bus.PublishFor(c.Tenant, agent.EventTurnRefused,
					map[string]any{"sessionID": id, "error": s.redact(err.Error())})
			}
		}()
		httpjson.Write(w, http.StatusAccepted, TurnStarted{SessionID: id})
		return
	}
	// The turn belongs to the server, not to this request: a client that
	// goes away does not cancel it (POST /sessions/{id}/cancel does).
	res, err := s.Agent.Run(ctx, req)
	s.turns.done()
	if err != nil && res == nil {
		s.fail(w, statusOf(err), err)
		return
	}
	out := TurnResult{Session: res.Session, Messages: res.Messages, Text: res.Text, Usage: res.Usage}
	if err != nil {
		out.Error = s.redact(err.Error())
		httpjson.Write(w, statusOf(err), out)
		return
	}
	httpjson.Write(w, 200, out)
}

func (s *Server) replyPermission(w http.ResponseWriter, r *http.Request) {
	var body PermissionReply
	if err := decode(w, r, &body); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	// The question may be another node's (its turn asked there).
	found, err := s.answer(r.PathValue("id"), tenant(r), body)
	if !found {
		found, err = s.answerElsewhere(r.Context(), r.PathValue("id"), tenant(r), body)
	}
	switch {
	case !found:
		httpjson.Error(w, http.StatusNotFound, fmt.Errorf("no pending permission question %s", r.PathValue("id")))
	case err != nil: // the question is still pending: the values can be fixed
		s.fail(w, http.StatusBadRequest, err)
	default:
		httpjson.Write(w, 200, PermissionAnswered{OK: true})
	}
}

// health answers that the server serves, and lists the project code that
// does not run (trust.Skip: skipped, or denying what its guards match) and
// the MCP servers with their state, so that a client shows them where its
// user looks.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	mcp := s.Agent.App.MCPStatus()
	tenant := caller(r).TenantID != 0
	for i := range mcp {
		// An error may quote a URL or a command expanded from {env:...}.
		mcp[i].Error = s.redact(mcp[i].Error)
		if tenant {
			mcp[i].Origin, mcp[i].PID, mcp[i].Error = "", 0, ""
			// A resource's URI may name a file of the user's.
			mcp[i].Resources, mcp[i].ResourceTemplates = nil, nil
		}
	}
	httpjson.Write(w, 200, Health{OK: true, Skipped: s.skipped(tenant), MCP: mcp})
}

// skipped is the project code that does not run. A tenant is not told
// where the user keeps their files: it gets what each item is and its
// state, not the sentence that names the project's folder (the config's
// paths, the errors that quote them are left out of its answers too).
func (s *Server) skipped(tenant bool) []trust.Skip {
	out := s.Agent.App.Trust.Skipped()
	if tenant {
		for i := range out {
			out[i].Meaning = ""
		}
	}
	return out
}

// fail answers err, redacted: an error may carry a hook's reason, a
// provider's answer or a command line with a secret in it.
func (s *Server) fail(w http.ResponseWriter, status int, err error) {
	httpjson.Error(w, status, errors.New(s.redact(err.Error())))
}

// redact is the App's redaction of the secrets of the environment and
// the config.
func (s *Server) redact(text string) string { return s.Agent.App.Redact.String(text) }

func (s *Server) listPlugins(w http.ResponseWriter, r *http.Request) {
	out := []Plugin{}
	tenant := caller(r).TenantID != 0
	for _, p := range s.Agent.App.Plugins.Plugins {
		path, status := p.Path, s.redact(p.Status())
		if tenant { // see skipped: the state, not the paths an error quotes
			path = ""
			status, _, _ = strings.Cut(status, ":")
			status, _, _ = strings.Cut(status, ";")
		}
		out = append(out, Plugin{ID: p.ID, Source: p.Source, Path: path, Hooks: p.Hooks, Status: status})
	}
	warnings := []string{} // [] rather than null for none
	for _, w := range s.Agent.App.Plugins.Warnings {
		if !tenant {
			warnings = append(warnings, s.redact(w))
		}
	}
	httpjson.Write(w, 200, PluginList{Plugins: out, Warnings: warnings, Skipped: s.skipped(tenant)})
}

func (s *Server) listTools(w http.ResponseWriter, r *http.Request) {
	out := []Tool{}
	for _, d := range s.Agent.App.Tools.List() {
		out = append(out, Tool{ID: d.ID, Source: d.Source, Description: d.Description, Parameters: d.Parameters})
	}
	httpjson.Write(w, 200, out)
}

func (s *Server) listCommands(w http.ResponseWriter, r *http.Request) {
	out := []Command{}
	for _, c := range s.Agent.App.Commands() {
		out = append(out, Command{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Source: c.Source})
	}
	httpjson.Write(w, 200, out)
}

// EventMissed is the first event of a stream whose Last-Event-ID is older
// than the events the server still keeps, or from an earlier run of the
// server: the client missed events and should reload what it shows.
const EventMissed = "events.missed"

// events streams the bus as Server-Sent Events, each with an id. A client
// that reconnects with Last-Event-ID (the header, or ?last_event_id= for
// clients that cannot set it) first receives the events it missed, in
// order, then the new ones; when those are no longer all kept it receives
// EventMissed instead. A client sees only its tenant's events and the
// server's, replayed ones too. The publisher never waits for a client: a
// client that lets Limits.EventsQueue events pile up, or does not take a
// write within Limits.WriteTimeout, is disconnected, and can resume.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	lim := s.lim()
	b := s.Agent.App.Bus
	mine := tenant(r)
	keep := func(ev bus.Event) bool { return ev.Tenant == "" || ev.Tenant == mine }
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last_event_id")
	}
	var (
		f      *bus.Follower
		replay []bus.Event
		missed bool
	)
	if last == "" {
		f = b.Follow(lim.EventsQueue, keep)
	} else {
		id, ours, err := b.ParseID(last)
		if err != nil {
			httpjson.Error(w, http.StatusBadRequest, fmt.Errorf("Last-Event-ID: %w", err))
			return
		}
		if !ours {
			id = math.MaxUint64 // an earlier run's: nothing of it is kept
		}
		f, replay, missed = b.Resume(id, lim.EventsQueue, keep)
	}
	defer f.Close()
	capSendBuffer(r.Context())
	rc := http.NewResponseController(w)
	var err error
	// write sends one frame, under its own deadline; flush sends what
	// was written.
	write := func(frame string) {
		if err == nil {
			rc.SetWriteDeadline(time.Now().Add(lim.WriteTimeout))
			_, err = io.WriteString(w, frame)
		}
	}
	flush := func() {
		if err == nil {
			rc.SetWriteDeadline(time.Now().Add(lim.WriteTimeout))
			err = rc.Flush()
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	write(": podcode events\n\n")
	if missed {
		data, _ := json.Marshal(bus.Event{Type: EventMissed, Time: time.Now(), Properties: map[string]any{"lastEventID": last}})
		// Its id is the latest event's: resuming from it misses nothing
		// more than this stream will send.
		write("id: " + b.FormatID(f.From) + "\nevent: " + EventMissed + "\ndata: " + string(data) + "\n\n")
	}
	for _, ev := range replay {
		write(s.frame(ev))
	}
	flush()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for err == nil {
		select {
		case ev := <-f.C:
			write(s.frame(ev))
			// Whatever else is waiting goes out in the same flush.
			for more := true; more && err == nil; {
				select {
				case ev := <-f.C:
					write(s.frame(ev))
				default:
					more = false
				}
			}
			flush()
		case <-tick.C:
			write(": keep-alive\n\n")
			flush()
		case <-f.Dropped:
			s.Log.Warn("server: an event stream fell behind and was closed; the client can resume with Last-Event-ID",
				"remote", r.RemoteAddr, "tenant", mine, "events_queue", lim.EventsQueue)
			return
		case <-s.httpDone:
			return
		case <-r.Context().Done():
			return
		}
	}
	// A write failed: the client went away, or did not take a write within
	// the write timeout (then the connection ends with a reset: see
	// limitedConn.Write).
	if errors.Is(err, os.ErrDeadlineExceeded) {
		s.Log.Warn("server: an event stream stopped taking events and was closed; the client can resume with Last-Event-ID",
			"remote", r.RemoteAddr, "tenant", mine, "write_timeout", lim.WriteTimeout.String())
	}
}

// frame is ev as a Server-Sent Event, its data redacted.
func (s *Server) frame(ev bus.Event) string {
	data, err := json.Marshal(ev)
	if err != nil {
		return "" // not JSON: left out, as a gap in the ids
	}
	return "id: " + s.Agent.App.Bus.FormatID(ev.ID) + "\nevent: " + ev.Type + "\ndata: " + s.Agent.App.Redact.String(string(data)) + "\n\n"
}

// Shutdown stops the server's turns: it refuses new ones (503), cancels
// the running ones (they are marked interrupted), and waits for them to
// end, or for ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	idle := s.turns.close()
	s.Agent.Shutdown()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("turns still running at shutdown: %w", ctx.Err())
	}
}

// Wait waits for the turns started so far to end, and starts no more.
func (s *Server) Wait() { <-s.turns.close() }

// apiAsker asks API clients: the question is published on the bus
// (permission.asked) and waits for POST /permissions/{id}. Turns from other
// channels go to next (a terminal), or find nobody.
type apiAsker struct {
	s    *Server
	next guard.Asker
}

// EventPermissionAsked is published when a turn waits for a permission reply.
const EventPermissionAsked = "permission.asked"

func (a *apiAsker) Ask(ctx context.Context, q guard.Question) (bool, error) {
	if chat.ScopeFrom(ctx).Channel != "api" {
		if a.next != nil {
			return a.next.Ask(ctx, q)
		}
		return false, guard.ErrNobodyToAsk
	}
	q.Form = nil // asked as yes/no (AskForm asks forms)
	ans, err := a.ask(ctx, q)
	return ans.Action == guard.Accept, err
}

// ask publishes q (permission.asked, its form too when it has one) and
// waits for POST /permissions/{id}.
func (a *apiAsker) ask(ctx context.Context, q guard.Question) (guard.Answer, error) {
	ch := make(chan guard.Answer, 1)
	tenant := chat.ScopeFrom(ctx).Tenant
	a.s.mu.Lock()
	a.s.questions[q.ID] = question{tenant: tenant, form: q.Form, answer: ch}
	a.s.mu.Unlock()
	defer func() {
		a.s.mu.Lock()
		delete(a.s.questions, q.ID)
		a.s.mu.Unlock()
	}()
	asked := map[string]any{"id": q.ID, "sessionID": q.SessionID, "tool": q.Tool, "args": q.Args, "reason": q.Reason}
	if q.Form != nil {
		asked["form"] = q.Form
	}
	a.s.Agent.App.Bus.PublishFor(tenant, EventPermissionAsked, map[string]any{"question": asked})
	select {
	case ans := <-ch:
		return ans, nil
	case <-ctx.Done():
		return guard.Answer{}, ctx.Err()
	}
}
