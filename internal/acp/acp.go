// Package acp is Podcode as the agent of the Agent Client Protocol
// (agentclientprotocol.com): an editor (Zed, a JetBrains IDE, Neovim,
// Emacs) starts `podcode acp` in the project and speaks JSON-RPC on its
// standard input and output, through github.com/coder/acp-go-sdk.
//
// # Lifecycle
//
// New makes a Server over a booted App, its Agent and the open store;
// Serve installs the Server as the App's permission Asker and wraps the
// Runner's gate (so a tool call is reported in_progress once the guard let
// it run), then answers requests until the input ends or its context ends.
// It then cancels the running turns (agent.Shutdown), waits for their
// prompts to be answered (stopReason cancelled), and stops the MCP servers
// the editor asked for. The caller closes the store and the App after.
// The wait for the turns lasts at most ShutdownGrace: a turn can be stuck
// writing an update to an editor that stopped reading its output and did
// not close it, and the end asked for (SIGTERM) must not wait on the
// editor. The turns still running then are logged and left behind.
//
// # What maps to what
//
//   - initialize: protocol version 1, loadSession, MCP servers over stdio,
//     HTTP and SSE, embedded context in prompts (text only: no images or
//     audio); the editor's fs capabilities are kept for the file tools.
//   - session/new: cwd must be the project Podcode booted in; a session of
//     channel "acp" (SessionStart fires); the editor's MCP servers are the
//     user's own (no trust check), started like podcode.json's and their
//     tools registered for the whole process.
//   - session/load: the stored session's messages replayed as
//     session/update notifications, in order, then the session takes
//     prompts.
//   - session/prompt: one agent.Run (every hook fires, channel "acp");
//     text deltas are agent_message_chunk; a tool call is tool_call
//     (pending, kind, locations), tool_call_update in_progress once the
//     guard allowed it, then completed or failed with its output, and a
//     diff for write and edit. Stop reasons: end_turn, cancelled,
//     max_turn_requests (agent.max_steps), refusal (UserPromptSubmit).
//     Prompts of one session run one after another.
//   - session/cancel: cancels the session's turn.
//   - A permission or lifecycle ask is session/request_permission (allow
//     once, reject once); an error or a cancelled outcome is a refusal.
//   - fs/read_text_file and fs/write_text_file, when the editor offers
//     them, are where read, write and edit read and write (tool.Editor),
//     after the workspace's path checks.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/version"
)

// Channel is the channel of the sessions and turns of ACP.
const Channel = "acp"

// ShutdownGrace is how long Serve, once ending, waits for the cancelled
// turns to end before it returns without them.
const ShutdownGrace = 5 * time.Second

// Server is the agent side of one ACP connection.
type Server struct {
	app   *app.App
	agent *agent.Agent
	store *store.Store
	log   *slog.Logger

	ready chan struct{} // closed once conn is set
	conn  *sdk.AgentSideConnection

	mu       sync.Mutex
	client   sdk.ClientCapabilities
	sessions map[string]*session
	mcp      []*mcpclient.Set
	mcpSpecs map[string]mcpclient.Spec // the editor's servers started, by name
	closing  bool                      // Serve is ending: no new prompts
	turns    sync.WaitGroup            // prompts under way
	busy     map[string]int            // turns' prompts by session, to name those Serve leaves behind
	grace    time.Duration             // ShutdownGrace; shorter in tests
	// progressAfter is ProgressAfter; shorter in tests. Set before Serve.
	progressAfter time.Duration
}

// New returns a Server over a booted app, its agent and the open store.
func New(a *app.App, ag *agent.Agent, st *store.Store) *Server {
	return &Server{app: a, agent: ag, store: st, log: a.Log.With("channel", Channel), ready: make(chan struct{}),
		sessions: map[string]*session{}, mcpSpecs: map[string]mcpclient.Spec{}, busy: map[string]int{}, grace: ShutdownGrace,
		progressAfter: ProgressAfter}
}

var (
	_ sdk.Agent       = (*Server)(nil)
	_ sdk.AgentLoader = (*Server)(nil)
)

// Serve answers the client on in and out until in ends or ctx ends (see
// the package doc for what happens then); it is called once. Only the
// protocol is written to out.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.app.Guard.SetAsker(s)
	if s.app.Runner.Gate != nil {
		s.app.Runner.Gate = gate{ToolGate: s.app.Runner.Gate, s: s}
	}
	// The SDK starts reading at once, and its reader reads the logger
	// (when the input ends) that SetLogger writes: nothing is read until
	// the logger is set.
	gate := &gatedReader{r: in, open: make(chan struct{})}
	conn := sdk.NewAgentSideConnection(s, out, gate)
	conn.SetLogger(s.log)
	close(gate.open)
	s.conn = conn
	close(s.ready)
	defer s.app.Bus.Subscribe(bus.ToolCallProgress, "acp", s.progressed)()
	s.log.Info("acp: serving on standard input and output", "project", s.app.Cwd)
	var err error
	select {
	case <-conn.Done():
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.agent.Shutdown()
	if !s.waitTurns() {
		s.mu.Lock()
		left := slices.Sorted(maps.Keys(s.busy))
		s.mu.Unlock()
		s.log.Warn("acp: turns still running after the grace period (the editor may have stopped reading); ending without them",
			"grace", s.grace, "sessions", left)
	}
	s.mu.Lock()
	sets := s.mcp
	s.mcp = nil
	s.mu.Unlock()
	for _, set := range sets {
		set.Close()
	}
	if errors.Is(err, context.Canceled) {
		err = nil // a signal: the end asked for
	}
	return err
}

// waitTurns waits for the prompts under way to return, at most s.grace,
// and reports whether they did. A turn blocked writing to the editor stays
// blocked: nothing can interrupt that write, and the process ends after.
func (s *Server) waitTurns() bool {
	done := make(chan struct{})
	go func() {
		s.turns.Wait()
		close(done)
	}()
	t := time.NewTimer(s.grace)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// peer is the connection, once Serve made it.
func (s *Server) peer() *sdk.AgentSideConnection {
	<-s.ready
	return s.conn
}

// Initialize implements sdk.Agent.
func (s *Server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	s.log.Info("acp: initialized", "client_protocol", int(p.ProtocolVersion),
		"fs_read", p.ClientCapabilities.Fs.ReadTextFile, "fs_write", p.ClientCapabilities.Fs.WriteTextFile)
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "podcode", Title: sdk.Ptr("Podcode"), Version: version.App()},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate implements sdk.Agent: Podcode asks for no authentication
// (the model's keys are in the user's config).
func (s *Server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// checkCwd refuses a session in another directory than the project's: the
// tools, plugins and trust were set up for that one at boot.
func (s *Server) checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", cwd)})
	}
	want, got := s.app.Cwd, filepath.Clean(cwd)
	if w, err := filepath.EvalSymlinks(want); err == nil {
		want = w
	}
	if g, err := filepath.EvalSymlinks(got); err == nil {
		got = g
	}
	if want != got {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(
			"podcode acp serves the project it was started in (%s), not %s: start it in that directory", s.app.Cwd, cwd)})
	}
	return nil
}

// NewSession implements sdk.Agent.
func (s *Server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := s.checkCwd(p.Cwd); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := s.startMCP(ctx, p.McpServers); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	sess, err := s.agent.NewSession(ctx, agent.SessionRequest{Channel: Channel, Title: "editor session"})
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s.register(sess.ID)
	s.log.Info("acp: session created", "session", sess.ID)
	s.announceCommands(ctx, sess.ID)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(sess.ID)}, nil
}

// announceCommands sends the session's slash commands
// (available_commands_update) once the answer that names the session has
// gone out: the SDK ends a request's context after writing its answer,
// and an editor drops an update of a session it does not know yet. A
// prompt "/<name> <args>" runs one (agent.Run expands it).
func (s *Server) announceCommands(ctx context.Context, sessionID string) {
	cmds := s.agent.App.Commands()
	if len(cmds) == 0 {
		return
	}
	list := make([]sdk.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.ArgumentHint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.ArgumentHint}}
		}
		list = append(list, ac)
	}
	go func() {
		<-ctx.Done()
		s.update(sessionID, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: list}})
	}()
}

// LoadSession implements sdk.AgentLoader: the session's messages are sent
// again as updates, in order, before the answer.
func (s *Server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if err := s.checkCwd(p.Cwd); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	id := string(p.SessionId)
	if _, err := s.store.Session(ctx, store.DefaultTenant, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %s in this project", id)})
		}
		return sdk.LoadSessionResponse{}, err
	}
	if err := s.startMCP(ctx, p.McpServers); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	msgs, err := s.store.Messages(ctx, id)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	sess := s.register(id)
	sess.turn.Lock() // no prompt of the session runs while it is replayed
	defer sess.turn.Unlock()
	if err := s.replay(ctx, sess, msgs); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s.log.Info("acp: session loaded", "session", id, "messages", len(msgs))
	s.announceCommands(ctx, id)
	return sdk.LoadSessionResponse{}, nil
}

// Cancel implements sdk.Agent (session/cancel): the SDK has cancelled the
// prompt's context already; the turn is cancelled here too, for a turn
// whose prompt the SDK no longer tracks.
func (s *Server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s.log.Info("acp: cancel", "session", string(p.SessionId))
	s.agent.Cancel(string(p.SessionId))
	return nil
}

// Prompt implements sdk.Agent: one turn.
func (s *Server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	id := string(p.SessionId)
	sess := s.lookup(id)
	if sess == nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %s: create it with session/new or load it with session/load first", id)})
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	s.turns.Add(1)
	s.busy[id]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.busy[id]--; s.busy[id] == 0 {
			delete(s.busy, id)
		}
		s.mu.Unlock()
		s.turns.Done()
	}()
	// One turn at a time: a prompt sent while one runs (whose context the
	// SDK then cancels) waits for it to end.
	sess.turn.Lock()
	defer sess.turn.Unlock()
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	tctx := tool.WithEditor(ctx, s.editor(sess))
	_, err = s.agent.Run(tctx, agent.TurnRequest{SessionID: id, Prompt: text, Channel: Channel,
		OnEvent: func(e agent.Event) { s.event(sess, e) }})
	var rejected *agent.PromptRejected
	switch {
	case err == nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, agent.ErrShuttingDown):
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case errors.As(err, &rejected):
		s.update(sess.id, sdk.UpdateAgentMessageText("The prompt was refused: "+rejected.Message))
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	case errors.Is(err, agent.ErrMaxSteps):
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	}
	s.log.Warn("acp: the turn failed", "session", id, "error", err.Error())
	return sdk.PromptResponse{}, err
}

// promptText is the prompt the model reads: text as it is, a resource
// link as its URI (a file by its path), an embedded text resource as its
// URI and text. Images, audio and binary resources are refused: the
// initialize answer said so.
func promptText(blocks []sdk.ContentBlock) (string, error) {
	var b strings.Builder
	for i, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			b.WriteString(linkText(c.ResourceLink.Uri))
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&b, "\n\n%s:\n```\n%s\n```\n", linkText(r.Uri), strings.TrimSuffix(r.Text, "\n"))
		case c.Resource != nil:
			return "", fmt.Errorf("prompt block %d is a binary resource; Podcode takes text only", i)
		case c.Image != nil:
			return "", fmt.Errorf("prompt block %d is an image; Podcode takes text only", i)
		case c.Audio != nil:
			return "", fmt.Errorf("prompt block %d is audio; Podcode takes text only", i)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", errors.New("the prompt is empty")
	}
	return b.String(), nil
}

// linkText names a URI for the model: a file by its path (decoded: an
// editor escapes spaces and the like).
func linkText(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && strings.HasPrefix(u.Path, "/") {
		return u.Path
	}
	return uri
}

// ListSessions implements sdk.Agent: not offered (no sessionCapabilities).
func (s *Server) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// CloseSession implements sdk.Agent: not offered.
func (s *Server) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

// ResumeSession implements sdk.Agent: not offered (session/load is).
func (s *Server) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption implements sdk.Agent: not offered.
func (s *Server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// SetSessionMode implements sdk.Agent: not offered (no modes).
func (s *Server) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetMode)
}

// startMCP starts the MCP servers the editor passes with a session. They
// are the user's own (the editor's configuration), so no trust check:
// they start as the user's podcode.json servers do, and their tools go
// through every hook as any tool's. A server already started under the
// same name and settings is not started again; one whose name is taken by
// another is refused.
func (s *Server) startMCP(ctx context.Context, servers []sdk.McpServer) error {
	var specs []mcpclient.Spec
	s.mu.Lock()
	for i, m := range servers {
		spec, err := mcpSpec(m)
		if err != nil {
			s.mu.Unlock()
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("mcpServers[%d]: %v", i, err)})
		}
		prev, ok := s.mcpSpecs[spec.Name]
		if k := slices.IndexFunc(specs, func(x mcpclient.Spec) bool { return x.Name == spec.Name }); k >= 0 {
			prev, ok = specs[k], true // named twice in this list
		}
		if ok {
			if !sameSpec(prev, spec) {
				s.mu.Unlock()
				return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("mcpServers[%d]: an MCP server named %q runs already with other settings", i, spec.Name)})
			}
			continue
		}
		for _, srv := range s.app.MCP.Servers() {
			if srv.Name() == spec.Name {
				s.mu.Unlock()
				return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("mcpServers[%d]: the project's config has an MCP server named %q already", i, spec.Name)})
			}
			// A project's server named to overlap (github_evil beside the
			// editor's github) would share the ids, and the rules, meant
			// for the editor's server's tools.
			if srv.Status().Project && mcpclient.NamesOverlap(srv.Name(), spec.Name) {
				s.mu.Unlock()
				return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("mcpServers[%d]: the project's MCP server %q overlaps the name %q: their tools' ids, and the permission rules for them, could be the same; rename one", i, srv.Name(), spec.Name)})
			}
		}
		specs = append(specs, spec)
	}
	// Recorded only once the whole list passed: a server recorded and
	// then not started (a later entry refused) would be taken for running.
	for _, spec := range specs {
		s.mcpSpecs[spec.Name] = spec
	}
	s.mu.Unlock()
	if len(specs) == 0 {
		return nil
	}
	o := mcpclient.Options{Cwd: s.app.Cwd, Log: s.log, Tools: s.app.Tools, Ask: s.app.AskMCP, Sample: s.app.SampleMCP}
	if ms := s.app.Config.Tools.PluginTimeoutMs; ms > 0 {
		o.CallTimeout = time.Duration(ms) * time.Millisecond
	}
	o.Hub = s.app.MCPHub // the agent finds the editor's servers' prompts and resources there
	set := mcpclient.Start(ctx, specs, o)
	s.mu.Lock()
	s.mcp = append(s.mcp, set)
	s.mu.Unlock()
	for _, st := range set.Servers() {
		status := st.Status()
		s.log.Info("acp: MCP server of the editor", "mcp_server", status.Name, "state", status.State, "tools", len(status.Tools), "error", status.Error)
	}
	return nil
}

// mcpSpec is the Spec of an MCP server the editor passes.
func mcpSpec(m sdk.McpServer) (mcpclient.Spec, error) {
	const origin = "the editor (ACP)"
	switch {
	case m.Stdio != nil:
		if m.Stdio.Name == "" || m.Stdio.Command == "" {
			return mcpclient.Spec{}, errors.New("a stdio MCP server needs a name and a command")
		}
		env := map[string]string{}
		for _, e := range m.Stdio.Env {
			env[e.Name] = e.Value
		}
		return mcpclient.Spec{Name: m.Stdio.Name, Transport: mcpclient.Stdio, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env, Origin: origin}, nil
	case m.Http != nil:
		return httpSpec(m.Http.Name, m.Http.Url, m.Http.Headers, mcpclient.HTTP, origin)
	case m.Sse != nil:
		return httpSpec(m.Sse.Name, m.Sse.Url, m.Sse.Headers, mcpclient.SSE, origin)
	case m.Acp != nil:
		return mcpclient.Spec{}, fmt.Errorf("MCP server %q: MCP over the ACP connection is not supported", m.Acp.Name)
	}
	return mcpclient.Spec{}, errors.New("an MCP server of an unknown type")
}

func httpSpec(name, url string, headers []sdk.HttpHeader, transport, origin string) (mcpclient.Spec, error) {
	if name == "" || url == "" {
		return mcpclient.Spec{}, fmt.Errorf("an %s MCP server needs a name and a url", transport)
	}
	h := map[string]string{}
	for _, kv := range headers {
		h[kv.Name] = kv.Value
	}
	return mcpclient.Spec{Name: name, Transport: transport, URL: url, Headers: h, Origin: origin}, nil
}

func sameSpec(a, b mcpclient.Spec) bool {
	return fmt.Sprint(a) == fmt.Sprint(b) // maps print sorted
}

// gatedReader reads r once open is closed.
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
