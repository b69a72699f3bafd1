// Package mcpserver serves the tools of a booted Podcode to other agents
// over the Model Context Protocol (the official Go SDK), so that a guard or
// a redaction plugin written once applies to every MCP-capable agent.
//
// A tools/call takes exactly the path a tool call of a turn takes,
// App.Runner.CallTool: argument validation, the guard (PreToolUse, the
// permission policy), tool.execute.before, the tool, tool.execute.after,
// PostToolUse or PostToolUseFailure. Its lifecycle payloads carry channel
// "mcp" (Channel) and session "mcp" (SessionID), and the tenant and user
// of whoever called: the default tenant over stdio, the token's tenant
// over HTTP. A call of a tenant other than the default runs in that
// tenant's workspace (app.Workspace), as its turns do.
//
// What the caller gets back is what a model of a turn reads: the tool's
// output after tool.execute.after, with a PostToolUse objection or added
// context appended as a turn appends them, and the secrets of the
// environment and the config redacted (App.Redact). A refusal (a deny, a
// permission "ask" that nobody can answer: see below), invalid arguments
// or a failed tool are a result with isError true and the message as its
// text, never a protocol error, so the calling model can read them.
//
// Asking: a permission "ask" goes to App.Guard's asker with the call's
// channel "mcp". Nothing answers questions of that channel (the API's
// asker takes only its own, `podcode mcp serve` has no terminal: standard
// input carries the protocol), so the guard refuses the call, saying that
// nobody can answer, as `podcode run` does with nobody at the terminal.
//
// The loop guard, which refuses the same call repeated in a row within a
// turn, does not count MCP calls: Podcode cannot see where the calling
// agent's turns begin, so identical calls across its turns would be
// refused.
//
// Resources (resources.go): the caller's project's files (App.Cwd, a
// tenant's workspace) are file:// resources. resources/list lists them in
// path order, 500 a page, the first 10 000 in all, without .git,
// node_modules, .podcode and symbolic links; the template
// file://<project>/{+path} (resources/templates/list) names any file of
// it. A URI of no file beneath the project (.., another path, a link that
// leads out, another host or scheme) is invalid params. resources/read is
// a read tool call through App.Runner.CallTool with the scope of a
// tools/call, so the guard, the permission rules and the hooks decide as
// for the tool. What read returns is numbered lines, 2000 at a time, not
// the file's text; the text is therefore taken from where the hooks allow:
//
//   - No plugin hooks tool.execute.after: nothing could change what the
//     call returns, so once it went through (at the path
//     tool.execute.before gave it) the file is read beneath the project
//     (os.Root) and served whole: text as it is, anything else as a blob,
//     a file read does not read (other binary) too.
//   - A plugin hooks tool.execute.after (a redactor): the text is what the
//     hooks returned, a read call per 2000 lines (at most 25), line
//     numbers taken off; a line read cuts (past 2000 bytes) stays cut. An
//     image or audio file is the attachment read returned (which a hook
//     that changes the result drops); other binary is refused: what the
//     hooks could not see is not served.
//
// Either way a resource is at most 5 MiB, with the environment's and the
// config's secrets redacted (App.Redact); a PostToolUse objection refuses
// it; a refusal or a failure is a JSON-RPC error whose message says why.
//
// Subscriptions: a file of the project may be subscribed to, existing or
// not yet (its creation is an update). Subscribed files are polled (a
// stat each second), at most 100 per session and 2000 in all; a change
// is notifications/resources/updated to the sessions subscribed. No hook
// runs for a subscription: it reads nothing but when the file changes.
//
// Prompts (prompts.go): the slash commands of App.Claude, whose trust the
// catalog checks on each use (a project's command edited since trusted is
// left out of prompts/list and refused), with arguments from their bodies
// and argument-hints. prompts/get expands one as a turn does: its
// "!`command`" lines are bash calls and its "@path" references read
// calls, through the hooks with the scope of a tools/call; the text,
// redacted, is one user message. Completion (complete.go): a prompt
// argument's alternatives or the project's paths, the template's path.
//
// Lifecycle: New lists the registry's tools and the catalog's commands
// (fixed once booted: no prompts/list_changed) and registers the file
// template; ToolsChanged lists the tools again after the registry changed
// (clients are sent notifications/tools/list_changed); Serve runs one
// session on a transport (stdio); Handler serves streamable HTTP. The
// subscription poller runs while a file is subscribed to: a session's
// subscriptions end with unsubscribe or with the session, all of them
// with Close, which also ends every session. The App must outlive the
// Server.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/version"
)

// Channel is the channel of an MCP call's lifecycle payloads.
const Channel = "mcp"

// SessionID is the session of an MCP call's lifecycle payloads: the calls
// belong to no session of Podcode's store (as `podcode tool run`'s belong
// to "cli").
const SessionID = "mcp"

// Server is Podcode's MCP server over one App.
type Server struct {
	app *app.App
	log *slog.Logger
	mcp *mcp.Server

	// stopped ends with Close: in-flight calls are cancelled with it
	// (closing a session waits for them).
	stopped context.Context
	stop    context.CancelFunc
	// calls are the tools/call handlers running: Close lets them answer
	// (cancelled) before it ends the sessions and their HTTP requests
	// (ended), so that a client gets its call's end rather than a cut
	// stream it would try to resume from a server that is gone.
	calls sync.WaitGroup
	ended context.Context
	end   context.CancelFunc

	unwatch func() // stops following the registry

	poll atomic.Int64 // Handler's PollAfter, as a time.Duration

	mu     sync.Mutex
	listed map[string]*tool.Def // what tools/list shows, by id
}

// New returns a server of a's tools, listed as the registry holds them
// now (see ToolsChanged).
func New(a *app.App) *Server {
	log := a.Log.With("mcp", "server")
	s := &Server{app: a, log: log, listed: map[string]*tool.Def{}}
	s.stopped, s.stop = context.WithCancel(context.Background())
	s.ended, s.end = context.WithCancel(context.Background())
	f := &features{s: s}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "podcode", Title: "Podcode", Version: version.App()}, &mcp.ServerOptions{
		Logger: s.sdkLog(),
		Capabilities: &mcp.ServerCapabilities{
			Tools: &mcp.ToolCapabilities{ListChanged: true},
			// Deprecated from protocol 2026-07-28 on, and what clients of
			// the versions before it are sent a long call's hooks with.
			//lint:ignore SA1019 logging is what clients of 2025-11-25 and before read
			Logging: &mcp.LoggingCapabilities{},
			// The project's files, with subscriptions; no list_changed:
			// the tree is not watched, only the files subscribed to.
			Resources: &mcp.ResourceCapabilities{Subscribe: true},
			// The commands' catalog is fixed once booted.
			Prompts:     &mcp.PromptCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		CompletionHandler:  f.complete,
		SubscribeHandler:   f.subscribe,
		UnsubscribeHandler: f.unsubscribe,
	})
	s.ToolsChanged()
	f.addResources()
	f.addPrompts()
	// The registry changes after boot too (an MCP server Podcode uses
	// lists its tools, or changes them). Each change lists the registry
	// again from scratch, so goroutines that overtake each other agree.
	s.unwatch = a.Tools.Watch(func() { go s.ToolsChanged() })
	return s
}

// MCP is the SDK's server, for a transport of the caller's.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ToolsChanged lists the registry's tools again: tools added or replaced
// since (a new *tool.Def under an id) are listed anew, tools gone are
// removed, and connected clients are sent notifications/tools/list_changed
// (the SDK sends one for changes close together). New follows App.Tools
// (tool.Registry.Watch) and calls it after each change; it is cheap when
// nothing changed.
func (s *Server) ToolsChanged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := map[string]*tool.Def{}
	for _, d := range s.app.Tools.List() {
		now[d.ID] = d
	}
	var gone []string
	for id := range s.listed {
		if _, ok := now[id]; !ok {
			gone = append(gone, id)
			delete(s.listed, id)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	for id, d := range now {
		if s.listed[id] == d {
			continue
		}
		t, err := describe(d)
		if err == nil {
			err = s.add(t)
		}
		if err != nil {
			// A tool the SDK cannot list is left out, not the server.
			s.log.Warn("mcp: a tool is not served", "tool", d.ID, "plugin", d.Source, "error", err.Error())
			if _, was := s.listed[id]; was {
				s.mcp.RemoveTools(id)
				delete(s.listed, id)
			}
			continue
		}
		s.listed[id] = d
	}
}

// add adds t to the SDK's server, turning its panics (a schema it refuses)
// into an error.
func (s *Server) add(t *mcp.Tool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the MCP SDK refused it: %v", p)
		}
	}()
	s.mcp.AddTool(t, s.call)
	return nil
}

// describe is d as tools/list shows it: its id, description and
// parameters' JSON Schema, which must be an object schema ("type" is added
// when the schema leaves it out).
func describe(d *tool.Def) (*mcp.Tool, error) {
	schema := map[string]any{"type": "object"}
	if len(d.Parameters) > 0 {
		var m map[string]any
		if err := json.Unmarshal(d.Parameters, &m); err != nil || m == nil {
			return nil, fmt.Errorf("its parameters are not a JSON Schema object: %s", d.Parameters)
		}
		switch typ := m["type"]; typ {
		case nil:
			m["type"] = "object"
		case "object":
		default:
			return nil, fmt.Errorf(`its parameters' schema has type %v; an MCP tool's must have type "object"`, typ)
		}
		schema = m
	}
	return &mcp.Tool{Name: d.ID, Description: d.Description, InputSchema: schema}, nil
}

// callContext is the context of a call: the caller's scope (tenant, user;
// the default tenant when there is none, as over stdio) on channel
// Channel in session SessionID, and a tenant's own workspace; cwd is the
// workspace's root.
func (s *Server) callContext(ctx context.Context) (context.Context, string, error) {
	scope := chat.ScopeFrom(ctx)
	if scope.Tenant == "" {
		scope.Tenant = store.DefaultTenant
	}
	scope.Channel, scope.SessionID = Channel, SessionID
	ctx = chat.WithScope(ctx, scope)
	if scope.TenantID == 0 {
		return ctx, s.app.Cwd, nil
	}
	ws, err := s.app.Workspace(scope.TenantID)
	if err != nil {
		return nil, "", err
	}
	return tool.WithWorkspace(ctx, ws), ws.Root, nil
}

// sdkLog is the logger of the SDK's own lines, which are about sessions
// coming and going: routine, so its Info is our Debug.
func (s *Server) sdkLog() *slog.Logger { return slog.New(demoted{s.log.Handler()}) }

// demoted passes log records on with Info lowered to Debug.
type demoted struct{ slog.Handler }

func (h demoted) Enabled(ctx context.Context, l slog.Level) bool {
	if l == slog.LevelInfo {
		l = slog.LevelDebug
	}
	return h.Handler.Enabled(ctx, l)
}

func (h demoted) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo {
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h demoted) WithAttrs(attrs []slog.Attr) slog.Handler {
	return demoted{h.Handler.WithAttrs(attrs)}
}
func (h demoted) WithGroup(name string) slog.Handler { return demoted{h.Handler.WithGroup(name)} }

func source(r *tool.Registry, id string) string {
	if d, ok := r.Get(id); ok {
		return d.Source
	}
	return ""
}

// Serve runs one MCP session on t (stdio: mcp.IOTransport over standard
// input and output) until the client ends it (its input ends) or ctx
// ends, which closes the Server (Close); either is a clean end (nil).
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("mcp: connecting: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.Close()
		err = <-done
	}
	// A client that hangs up ends the session, not in error: the SDK says
	// so with ErrConnectionClosed, or, when the hang-up meets a write of
	// ours (a tools/list_changed), with the transport's closed pipe.
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		return fmt.Errorf("mcp: the session ended: %w", err)
	}
	return nil
}

// Close cancels the calls in flight and ends every session (an HTTP
// client's event stream too); calls that arrive later are cancelled at
// once. It may be called more than once.
func (s *Server) Close() {
	s.unwatch()
	s.stop()
	answered := make(chan struct{})
	go func() { s.calls.Wait(); close(answered) }()
	select {
	case <-answered:
		// The answers are on their way: let the transport write them.
		time.Sleep(closeFlush)
	case <-time.After(closeWait):
	}
	s.end()
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
}

// closeWait bounds how long Close waits for the cancelled calls to answer
// (the runner gives a tool that ignores its cancel 2 s); closeFlush is
// the time their answers get to be written before the sessions end.
const (
	closeWait  = 3 * time.Second
	closeFlush = 50 * time.Millisecond
)
