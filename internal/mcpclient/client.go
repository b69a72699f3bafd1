// Package mcpclient makes the tools of Model Context Protocol servers
// Podcode's tools: each server's tools are registered as <server>_<tool>
// in the tool registry, and a call goes through exactly the path of a
// built-in's (validation against the tool's input schema, PreToolUse and
// the permission rules, tool.execute.before, the call, tool.execute.after,
// PostToolUse): nothing here knows of hooks. The protocol is the official
// Go SDK's (github.com/modelcontextprotocol/go-sdk).
//
// Where servers come from (Specs): podcode.json's mcp (opencode's shape;
// the user's file, then the project's, which never replaces one of the
// user's) and the project's .mcp.json (Claude Code's shape). A project's
// server is project code: it starts only once its entry is trusted
// (Options.Allow; Spec.TrustItem).
//
// A server's lifecycle (Server):
//
//  1. Start starts every server at once, each in a goroutine of its own,
//     and waits for them at most Options.StartTimeout: a server that is
//     not ready by then is reported and keeps starting in the background;
//     its tools appear when it is ready.
//  2. Starting: a local server's command runs through proc.Start (its own
//     process group, in the project directory, with its environment),
//     its stdout and stdin the protocol, its stderr logged line by line,
//     bounded (logging.Stderr); a remote one is reached over streamable
//     HTTP (or SSE). The session is initialized and the tools listed,
//     then the prompts and resources it offers (offers.go).
//  3. Ready: the tools are in the registry, the prompts are slash commands
//     (Hub). notifications/tools/list_changed lists the tools again: new
//     ones are added, gone ones removed (the prompts' and resources'
//     notifications list those again).
//  4. A server that dies (its process exits, its connection ends) or
//     cannot start is started again after a backoff that doubles from
//     minBackoff to maxBackoff; its tools stay registered, and a call
//     meanwhile fails with an error that says the server is not running.
//  5. Close stops every server: the session is closed (a local server's
//     stdin with it), a server that has not exited stopGrace later is
//     killed with its whole process group, and none is started again.
package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/proc"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/version"
)

// Defaults and bounds of a server's life.
const (
	// DefaultStartTimeout bounds how long Start waits for the servers, and
	// each server's start (connecting, listing its tools) unless its
	// timeout says otherwise.
	DefaultStartTimeout = 5 * time.Second
	// resumeRetries bounds how often a streamable-HTTP stream the server
	// closed mid-call (or a standalone stream) is resumed with
	// Last-Event-ID, after the server's retry: delay or a backoff from 1 s;
	// past them the session ends and the server restarts as any broken one.
	resumeRetries = 3
	// DefaultCallTimeout bounds a call unless the server's timeout says
	// otherwise (the user's tools.plugin_timeout_ms replaces it).
	DefaultCallTimeout = 2 * time.Minute
	minBackoff         = 200 * time.Millisecond
	maxBackoff         = 30 * time.Second
	stableRun          = time.Minute // a run this long starts the backoff again from minBackoff
	stopGrace          = 2 * time.Second
)

// States of a server.
const (
	StateStarting  = "starting"
	StateReady     = "ready"
	StateRetrying  = "retrying"  // down, and started again after the backoff
	StateStopped   = "stopped"   // Close was called
	StateUntrusted = "untrusted" // a project's server the user has not trusted
)

// Options configure Start.
type Options struct {
	Cwd   string       // the project directory: where local servers run
	Log   *slog.Logger // nil: slog.Default()
	Tools *tool.Registry
	// StartTimeout: DefaultStartTimeout when zero.
	StartTimeout time.Duration
	// CallTimeout: DefaultCallTimeout when zero.
	CallTimeout time.Duration
	// Allow decides whether a project's server may start (a user's always
	// may): ok false leaves it out with why; check, when not nil, is asked
	// again before every start, so that a server edited since it was
	// trusted is not restarted. Nil allows every server.
	Allow func(s Spec) (ok bool, why string, check func() error)
	// Env is the environment local servers start with, before their own
	// variables; nil for Podcode's.
	Env []string
	// Getenv expands ${NAME} in a trusted .mcp.json entry; nil for
	// os.LookupEnv.
	Getenv func(string) (string, bool)
	// Ask puts a server's questions to whoever answers the permission
	// questions of ctx's session (guard.Guard.AskForm): an elicitation's
	// form, sampling's consent (yes/no: Accept is yes). ctx is the call in
	// flight's (mcp_calls.go). Nil: nobody; forms are declined, sampling
	// refused unless allowed.
	Ask func(ctx context.Context, q guard.Question) (guard.Answer, error)
	// Sample answers a server's sampling/createMessage with a model (the
	// agent's model call: chat.params, then the provider), ctx the call in
	// flight's or, with none, the request's. Nil: sampling is refused.
	Sample func(ctx context.Context, r SampleRequest) (SampleResult, error)
	// Hub gathers the servers of every Set started on Tools, for the
	// prompts, the mentions and the resource tools (offers.go); nil for a
	// hub of this Set's alone.
	Hub *Hub
}

// Set is the servers Start started.
type Set struct {
	servers []*Server
	opts    Options
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// Start starts the servers (step 1 of the lifecycle) and returns once each
// is ready, has failed a first time, or StartTimeout has passed. ctx bounds
// that wait only; Close stops the servers.
func Start(ctx context.Context, specs []Spec, o Options) *Set {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Getenv == nil {
		o.Getenv = os.LookupEnv
	}
	if o.Hub == nil {
		o.Hub = NewHub()
	}
	o.Hub.register(o.Tools, o.Log) // before any server's tools can take the ids
	life, stop := context.WithCancel(context.Background())
	set := &Set{opts: o, stop: stop}
	for _, spec := range specs {
		s := &Server{spec: spec, set: set, log: o.Log.With("mcp_server", spec.Name), state: StateStarting,
			first: make(chan struct{}), registered: map[string]string{}, sampling: make(chan struct{}, 1)}
		set.servers = append(set.servers, s)
		if o.Allow != nil && spec.Project {
			ok, why, check := o.Allow(spec)
			if !ok {
				s.state, s.lastErr = StateUntrusted, why
				close(s.first)
				continue
			}
			s.check = check
		}
		// A project's entry is expanded once trusted (above); the user's
		// Claude Code plugins' are the user's own.
		s.spec = spec.Expand(o.Getenv)
		set.wg.Add(1)
		go func() { defer set.wg.Done(); s.run(life) }()
	}
	o.Hub.add(set)
	wait, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	for _, s := range set.servers {
		select {
		case <-s.first:
		case <-wait.Done():
		}
	}
	for _, s := range set.servers {
		if st := s.Status(); st.State == StateStarting {
			s.log.Warn("mcp: the server is not ready yet; it keeps starting in the background, and its tools appear when it is ready", "after", o.StartTimeout.String())
		}
	}
	return set
}

// Close stops every server (step 5) and waits for them.
func (set *Set) Close() {
	if set == nil {
		return
	}
	set.stop()
	set.wg.Wait()
	set.opts.Hub.remove(set)
	for _, s := range set.servers {
		s.mu.Lock()
		if s.state != StateUntrusted {
			s.state = StateStopped
		}
		s.mu.Unlock()
	}
}

// Servers returns the servers, in the order of their specs.
func (set *Set) Servers() []*Server {
	if set == nil {
		return nil
	}
	return slices.Clone(set.servers)
}

// Server is one MCP server and its session.
type Server struct {
	spec  Spec
	set   *Set
	log   *slog.Logger
	check func() error
	first chan struct{} // closed when the first start succeeded or failed
	calls calls         // tools/call in flight (mcp_calls.go)
	pages openPages     // pages the server asked to be opened (mcp_pages.go)
	// sampling holds the one model call a server's sampling request runs
	// at a time (mcp_sampling.go).
	sampling chan struct{}

	listMu  sync.Mutex // held by list
	offerMu sync.Mutex // held while prompts or resources are listed

	mu         sync.Mutex
	state      string
	lastErr    string
	session    *sdk.ClientSession
	registered map[string]string // tool id → the server's tool name
	restarts   int
	pid        int
	firstDone  bool
	offered    offers       // its prompts and resources (offers.go)
	oauth      *oauthClient // a remote server's OAuth, made on first use (oauth.go)
}

// Status is what `podcode mcp list`, `plugin list` and /healthz show.
type Status struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	Origin    string   `json:"origin"`
	Project   bool     `json:"project"`
	State     string   `json:"state"`
	Error     string   `json:"error,omitempty"`
	Tools     []string `json:"tools"` // the ids they are registered as
	Restarts  int      `json:"restarts"`
	PID       int      `json:"pid,omitempty"`

	// Prompts are the commands its prompts are invoked by
	// (mcp__<server>__<prompt>), Resources its resources' URIs,
	// ResourceTemplates its URI templates, as last listed.
	Prompts           []string `json:"prompts,omitempty"`
	Resources         []string `json:"resources,omitempty"`
	ResourceTemplates []string `json:"resourceTemplates,omitempty"`
}

// Status returns the server's state now.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.registered))
	for id := range s.registered {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	st := Status{Name: s.spec.Name, Transport: s.spec.Transport, Origin: s.spec.Origin, Project: s.spec.Project,
		State: s.state, Error: s.lastErr, Tools: ids, Restarts: s.restarts, PID: s.pid}
	s.offered.status(&st)
	return st
}

// Name is the server's name.
func (s *Server) Name() string { return s.spec.Name }

// run is the server's life: start, serve until the session ends, start
// again after the backoff, until life ends.
func (s *Server) run(life context.Context) {
	backoff := time.Duration(0)
	for {
		began := time.Now()
		conn, err := s.connect(life)
		if err == nil {
			s.setReady()
			conn.wait(life)
			conn.close()
		}
		if life.Err() != nil {
			return
		}
		if err == nil {
			err = errors.New("the server ended its session")
			if ws := conn.exitStatus(); ws != "" {
				err = fmt.Errorf("the server exited (%s)", ws)
			}
		}
		if time.Since(began) >= stableRun {
			backoff = 0
		}
		backoff = min(max(backoff*2, minBackoff), maxBackoff)
		s.setDown(err, backoff)
		select {
		case <-life.Done():
			return
		case <-time.After(backoff):
		}
	}
}

func (s *Server) startTimeout() time.Duration {
	if s.spec.Timeout > 0 {
		return s.spec.Timeout
	}
	return s.set.opts.StartTimeout
}

func (s *Server) callTimeout() time.Duration {
	if s.spec.Timeout > 0 {
		return s.spec.Timeout
	}
	return s.set.opts.CallTimeout
}

// conn is one session with the server: for a local server, one run of
// its process.
type conn struct {
	cancel  context.CancelFunc // ends the connection's context
	session *sdk.ClientSession
	process *proc.Process
	exited  chan struct{} // closed when the process is reaped
	status  string        // how it exited, once exited is closed
}

// connect starts the server (step 2): its process or its connection, the
// session, the first list of its tools.
func (s *Server) connect(life context.Context) (*conn, error) {
	if s.check != nil {
		if err := s.check(); err != nil {
			return nil, err
		}
	}
	// The transports keep the context of Connect for the connection's
	// life (SSE's stream), so it is not the start bound's: the bound
	// cancels it only if the start has not finished in time.
	ctx, cancel := context.WithCancel(life)
	timer := time.AfterFunc(s.startTimeout(), cancel)
	c := &conn{cancel: cancel}
	// notifications/tools/list_changed (and the prompts' and resources')
	// are coalesced: see coalesce.
	toolsChanged := s.coalesce(ctx, func() { s.relist(ctx) })
	promptsChanged := s.coalesce(ctx, func() { s.relistOffers(ctx, true, false) })
	resourcesChanged := s.coalesce(ctx, func() { s.relistOffers(ctx, false, true) })
	client := sdk.NewClient(&sdk.Implementation{Name: "podcode", Version: version.App()}, &sdk.ClientOptions{
		// Forms and URLs (mcp_elicit.go); roots without
		// listChanged (mcp_roots.go); sampling as CreateMessageHandler
		// infers it. Roots, sampling and logging are deprecated from
		// protocol 2026-07-28 (SEP-2577), not removed: servers of
		// 2025-11-25 and before use them.
		//lint:ignore SA1019 see above
		Capabilities: &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{},
			Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler:         s.elicit,
		ElicitationCompleteHandler: s.elicitationComplete,
		//lint:ignore SA1019 see above
		CreateMessageHandler:        s.sample,
		ProgressNotificationHandler: s.progress,
		//lint:ignore SA1019 see above
		LoggingMessageHandler:      s.logMessage,
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { toolsChanged() },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { promptsChanged() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { resourcesChanged() },
	})
	client.AddReceivingMiddleware(s.roots) // roots/list (mcp_roots.go)
	var err error
	switch s.spec.Transport {
	case Stdio:
		err = s.startProcess(ctx, client, c)
	case Remote:
		// Streamable HTTP first, then SSE for an older server (opencode's
		// order for "remote").
		if c.session, err = client.Connect(ctx, s.streamable(life), nil); err != nil && !authFailed(err) {
			s.log.Info("mcp: streamable HTTP refused; trying SSE", "error", err.Error())
			c.session, err = client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.spec.URL, HTTPClient: s.httpClient()}, nil)
		}
	case HTTP:
		c.session, err = client.Connect(ctx, s.streamable(life), nil)
	case SSE:
		c.session, err = client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.spec.URL, HTTPClient: s.httpClient()}, nil)
	default:
		err = fmt.Errorf("unknown transport %q", s.spec.Transport)
	}
	if err == nil {
		if err = s.list(ctx, c.session, true); err != nil {
			err = fmt.Errorf("listing its tools: %w", err)
		}
	}
	timedOut := !timer.Stop() // the bound cancelled the connection
	if timedOut && err == nil {
		err = context.DeadlineExceeded
	}
	if err != nil {
		c.close()
		if timedOut && life.Err() == nil {
			err = fmt.Errorf("not ready within %s: %w", s.startTimeout(), err)
		}
		return nil, fmt.Errorf("starting: %w", err)
	}
	// What it offers besides its tools is listed once the start is done,
	// bounded on its own: a slow or failed list is a warning, never a
	// start that fails (and is tried again and again).
	octx, ocancel := context.WithTimeout(ctx, s.startTimeout())
	s.listOffers(octx, c.session)
	ocancel()
	return c, nil
}

// coalesce runs do on a worker of its own for ctx's life, once per call
// of the returned function; a call while do runs leaves at most one more
// pending, so that a server flooding a list_changed notification costs two
// lists in a row, not one each.
func (s *Server) coalesce(ctx context.Context, do func()) (poke func()) {
	pending := make(chan struct{}, 1)
	s.set.wg.Add(1) // run holds the group above zero, so Close waits for this too
	go func() {
		defer s.set.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-pending:
				do()
			}
		}
	}()
	return func() {
		select {
		case pending <- struct{}{}:
		default: // one is pending already, and will see this change
		}
	}
}

// startProcess starts a local server's command and its session.
func (s *Server) startProcess(ctx context.Context, client *sdk.Client, c *conn) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	cmd := exec.Command(s.spec.Command, s.spec.Args...)
	cmd.Dir = s.set.opts.Cwd
	env := s.set.opts.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = slices.Clone(env)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.spec.Env {
			if !yield(k) {
				return
			}
		}
	}) {
		cmd.Env = append(cmd.Env, k+"="+s.spec.Env[k])
	}
	stderr := logging.NewStderr(s.log, "mcp")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	p, err := proc.Start(cmd)
	inR.Close() // the process has its copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return err
	}
	c.process, c.exited = p, make(chan struct{})
	s.mu.Lock()
	s.pid = p.Pid()
	s.mu.Unlock()
	s.log.Info("mcp: server started", "pid", p.Pid(), "command", s.spec.Command)
	go func() {
		code, err := p.Wait()
		stderr.Close()
		switch {
		case err != nil:
			c.status = err.Error()
		case code == -1:
			c.status = "killed by a signal"
		default:
			c.status = fmt.Sprintf("status %d", code)
		}
		close(c.exited)
	}()
	c.session, err = client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	return err
}

// wait returns when the session ends or life does.
func (c *conn) wait(life context.Context) {
	done := make(chan struct{})
	go func() { c.session.Wait(); close(done) }()
	select {
	case <-done:
	case <-c.exited: // nil, never ready, for a remote server
	case <-life.Done():
	}
}

// close ends the session and, for a local server, its process: closing the
// session closes the server's stdin; one that has not exited stopGrace
// later is killed with its group.
func (c *conn) close() {
	if c.session != nil {
		c.session.Close()
	}
	c.cancel()
	if c.process == nil {
		return
	}
	select {
	case <-c.exited:
	case <-time.After(stopGrace):
		c.process.Kill()
		<-c.exited
	}
}

// exitStatus says how the process exited; "" for a remote server. Call
// it after close, which waits for the exit.
func (c *conn) exitStatus() string {
	if c.exited == nil {
		return ""
	}
	<-c.exited
	return c.status
}

// headerTransport adds a remote server's headers to each request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

func (s *Server) httpClient() *http.Client {
	return &http.Client{Transport: headerTransport{headers: s.spec.Headers, base: http.DefaultTransport}}
}

func (s *Server) setReady() {
	s.mu.Lock()
	s.state, s.lastErr = StateReady, ""
	n := len(s.registered)
	s.markFirstLocked()
	s.mu.Unlock()
	s.log.Info("mcp: server ready", "tools", n)
}

func (s *Server) setDown(err error, backoff time.Duration) {
	s.mu.Lock()
	s.state, s.lastErr, s.session, s.pid = StateRetrying, err.Error(), nil, 0
	s.restarts++
	s.markFirstLocked()
	s.mu.Unlock()
	s.log.Warn("mcp: the server is down; starting it again", "error", err.Error(), "after", backoff.String())
}

func (s *Server) markFirstLocked() {
	if !s.firstDone {
		s.firstDone = true
		close(s.first)
	}
}

// currentSession is the session calls use, or an error that says why
// there is none.
func (s *Server) currentSession() (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != nil {
		return s.session, nil
	}
	why := s.state
	if s.lastErr != "" {
		why += ": " + s.lastErr
	}
	return nil, fmt.Errorf("MCP server %q is not running (%s)", s.spec.Name, why)
}
