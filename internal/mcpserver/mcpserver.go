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
// Lifecycle: New lists the registry's tools; ToolsChanged lists them again
// after the registry changed (clients are sent
// notifications/tools/list_changed); Serve runs one session on a
// transport (stdio); Handler serves streamable HTTP; Close ends every
// session. The App must outlive the Server.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/version"
	"github.com/podcode/podcode/plugin"
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

	unwatch func() // stops following the registry

	mu     sync.Mutex
	listed map[string]*tool.Def // what tools/list shows, by id
}

// New returns a server of a's tools, listed as the registry holds them
// now (see ToolsChanged).
func New(a *app.App) *Server {
	log := a.Log.With("mcp", "server")
	s := &Server{app: a, log: log, listed: map[string]*tool.Def{}}
	s.stopped, s.stop = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "podcode", Title: "Podcode", Version: version.App()}, &mcp.ServerOptions{
		Logger: s.sdkLog(),
		// Tools only, and tools/list_changed: no logging capability, which
		// the SDK advertises when nothing is said.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.ToolsChanged()
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

// call is the handler of every tools/call.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := req.Params.Name
	var args map[string]any
	if raw := req.Params.Arguments; len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return s.failed(fmt.Errorf("the arguments of %s are not a JSON object", id)), nil
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(s.stopped, cancel)()
	defer cancel()
	ctx, cwd, err := s.callContext(ctx)
	if err != nil {
		return s.failed(err), nil
	}
	call := tool.Call{SessionID: SessionID, MessageID: SessionID, CallID: chat.NewID("call"), Agent: Channel, Cwd: cwd}
	res, rep, err := s.app.Runner.CallTool(ctx, call, id, args)
	// See the package doc: the loop guard does not count MCP calls.
	s.app.Guard.Reset(SessionID)
	if err != nil {
		s.log.Debug("mcp: tool call failed", "tool", id, "plugin", source(s.app.Tools, id), "tenant", chat.ScopeFrom(ctx).Tenant, "error", err.Error())
		return s.failed(err), nil
	}
	out := res.Output
	// What a turn adds to the result the model reads (agent.runTool).
	if post := rep.Post; post != nil {
		if post.Result.Decision == plugin.DecisionDeny && post.Result.Message != "" {
			out += "\n\n(a " + string(post.Event) + " hook objects: " + post.Result.Message + ")"
		}
		if text, _ := post.Result.Data[plugin.DataAdditionalContext].(string); text != "" {
			out += "\n\n(from a " + string(post.Event) + " hook: " + text + ")"
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.app.Redact.String(out)}}}, nil
}

// failed is the result of a call that did not succeed: its message, what
// a model of a turn reads (after tool.execute.after for a failed tool),
// redacted.
func (s *Server) failed(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s.app.Redact.String(err.Error())}}}
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
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
}
