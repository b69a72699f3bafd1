// Package agent is the turn loop: the one place that decides when each
// hook fires. Every path that runs a turn (the CLI, the HTTP API, a
// sub-agent, later cron and webhooks) calls Run.
//
// # One turn, in order
//
//  1. UserPromptSubmit (extra.prompt holds the prompt). deny rejects the
//     prompt with the hook's message: nothing is stored, the caller gets a
//     *PromptRejected. ask puts the question to the user (refused when
//     nobody can answer). defer and allow go on.
//  2. A prompt that invokes a slash command ("/name args": the commands of
//     Claude Code's layout, App.Claude, then the MCP servers' prompts,
//     /mcp__<server>__<prompt>) becomes the command's text: its
//     "!`command`" lines run as bash calls and its "@path" files are read,
//     each through every hook and the guard; a prompt's text is the MCP
//     server's (prompts/get). Another prompt's @server:uri mentions of MCP
//     resources are read by the mcp_read_resource tool, through every
//     hook and the guard too (commands.go). The user message is stored;
//     the session is marked running.
//  3. A step: when the history nears the model's context limit, older
//     messages are compacted into a summary between PreCompact (deny skips
//     it this time) and PostCompact. Then chat.params (SPEC H12–H15) and the
//     model call, streamed. The assistant message is stored with its tool
//     calls, its usage and the chat.params steps.
//  4. Each tool call goes through the pipeline's CallTool: validation, the
//     guard (PreToolUse, permissions, loop guard), tool.execute.before,
//     execute, tool.execute.after, PostToolUse or PostToolUseFailure. A
//     PostToolUse deny cannot undo the call: its message is added to the
//     result the model reads. The tool message is stored with every hook run.
//     Every call gets a result: a turn cancelled during a call stores one
//     saying the call was cancelled, and one for each call not yet started
//     saying it did not run; calls left open by a turn that died are
//     answered when the session's next turn starts, so the history always
//     pairs each call with a result, as providers require.
//  5. Steps repeat while the model calls tools, up to MaxSteps.
//  6. AgentStop when the model stops. deny continues the turn with the
//     hook's message as a new user message, at most 3 times a turn (as
//     peers' stop hooks do); anything else ends it.
//
// Sessions: SessionStart fires when a session is created (deny refuses to
// create it); SessionEnd when it is deleted (reason "clear"), and, through
// App.Close, for the sessions that ran in the App when it closes (reason
// "other"); its votes are recorded: the session ends anyway.
//
// Every payload carries the session, the channel and extra.model,
// extra.max_context and extra.usage (SPEC L5).
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/internal/cluster"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// Defaults of the loop's limits.
const (
	DefaultMaxSteps  = 50
	maxContinuations = 3
)

// Event types the agent publishes on the bus.
const (
	EventSessionCreated = "session.created"   // {session, hooks: the SessionStart runs}
	EventSessionDeleted = "session.deleted"   // {sessionID}
	EventMessageStored  = "message.stored"    // {sessionID, message: the JSON stored (json.RawMessage in process)}
	EventTextDelta      = "message.delta"     // {sessionID, text}
	EventTurnStarted    = "turn.started"      // {sessionID}
	EventTurnFinished   = "turn.finished"     // {sessionID, status, error?, usage: the turn's (chat.Usage)}
	EventTurnRefused    = "turn.refused"      // {sessionID, error}: an async turn that never started (server)
	EventHookRun        = "hook.ran"          // {sessionID, hook}
	EventCompacted      = "session.compacted" // {sessionID, summarized}
)

// Agent runs turns.
type Agent struct {
	App      *app.App
	Store    *store.Store
	MaxSteps int

	// Node is this server as one node of many (JoinCluster), nil for one
	// process alone: then turns are claimed in the store before they
	// start, and cancels reach the node that runs the turn.
	Node *cluster.Node

	mu      sync.Mutex
	closing bool                          // Shutdown was called: no new turns
	running map[string]context.CancelFunc // turns under way, by session
	byModel map[string]provider.Provider  // providers made so far, by model
	// injected are the user messages Inject handed to a turn under way,
	// by session, for it to store before its next model call; injectable
	// are the sessions whose turn takes them (it holds the session: its
	// lease, on many nodes); ending, closed once the session's turn ended
	// and stored what came too late for it, the sessions whose turn ends
	injected   map[string][]*chat.Message
	injectable map[string]bool
	ending     map[string]chan struct{}
}

// New returns an agent over a booted app and an open store.
func New(a *app.App, st *store.Store) *Agent {
	ag := &Agent{App: a, Store: st, MaxSteps: a.Config.Agent.MaxSteps,
		running: map[string]context.CancelFunc{}, byModel: map[string]provider.Provider{},
		injected: map[string][]*chat.Message{}, injectable: map[string]bool{}, ending: map[string]chan struct{}{}}
	if ag.MaxSteps <= 0 {
		ag.MaxSteps = DefaultMaxSteps
	}
	a.SetMCPSampler(ag.sampleMCP)
	if def, ok := a.Tools.Get("task"); ok && def.Source == tool.Builtin {
		def.Execute = ag.task
		def.Description = taskDescription(def.Description, a.Claude)
	}
	return ag
}

// Inject adds a user message to a session without a turn of its own (the
// noReply prompts of opencode's plugins): a turn running in the session
// stores it before its next model call, so that the model reads it then
// (never between a tool call and its result), or, when it came too late
// for that, as the turn ends, before the session is free; otherwise it is
// stored at once, for the session's next turn. A session whose turn runs
// on another node is busy (ErrBusy): its history is not ours to write. The
// message is returned with its id; a turn stores it later when one runs.
func (a *Agent) Inject(ctx context.Context, tenant, sessionID, text string) (chat.Message, error) {
	if tenant == "" {
		tenant = store.DefaultTenant
	}
	sess, err := a.Store.Session(ctx, tenant, sessionID)
	if err != nil {
		return chat.Message{}, err
	}
	m := &chat.Message{ID: chat.NewID("msg"), SessionID: sess.ID, Role: chat.RoleUser, Text: text, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	for {
		a.mu.Lock()
		if a.injectable[sess.ID] {
			a.injected[sess.ID] = append(a.injected[sess.ID], m)
			out := *m // the turn may write m once the lock is free
			a.mu.Unlock()
			return out, nil
		}
		ended := a.ending[sess.ID]
		a.mu.Unlock()
		if ended == nil {
			break
		}
		// the turn stores what it was given and frees the session: then
		// the session is as it is for any message
		select {
		case <-ended:
		case <-ctx.Done():
			return chat.Message{}, ctx.Err()
		}
		if sess, err = a.Store.Session(ctx, tenant, sessionID); err != nil {
			return chat.Message{}, err
		}
	}
	if sess.Status == store.SessionRunning {
		// a turn of another process's (a node of many)
		return chat.Message{}, fmt.Errorf("session %s: %w elsewhere", sess.ID, ErrBusy)
	}
	if err := a.appendMessage(ctx, sess, m, chat.Usage{}); err != nil {
		return chat.Message{}, err
	}
	return *m, nil
}

// takeInjected returns and forgets the messages injected into a
// session's turn.
func (a *Agent) takeInjected(id string) []*chat.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.injected[id]
	delete(a.injected, id)
	return list
}

// PromptRejected is a prompt a UserPromptSubmit hook denied.
type PromptRejected struct{ Message string }

func (e *PromptRejected) Error() string { return "prompt rejected: " + e.Message }

// ErrMaxSteps is in the error of a turn that made agent.max_steps model
// calls without the model stopping.
var ErrMaxSteps = errors.New("agent.max_steps")

// ErrBusy is returned for a turn in a session that already runs one.
var ErrBusy = errors.New("a turn is already running in this session")

// SessionRequest describes a session to create.
type SessionRequest struct {
	Tenant   string
	Title    string
	Channel  string
	Model    string // "provider/model"; the config's default when empty
	ParentID string
	UserID   string
	ChatID   string
	TenantID int64
}

// NewSession creates a session after SessionStart allowed it.
func (a *Agent) NewSession(ctx context.Context, r SessionRequest) (store.Session, error) {
	model, err := a.model(r.Model)
	if err != nil {
		return store.Session{}, err
	}
	sess := store.Session{ID: chat.NewID("ses"), Tenant: r.Tenant, Title: r.Title, Model: model.Name(), Channel: r.Channel, ParentID: r.ParentID}
	scope := chat.Scope{Tenant: r.Tenant, SessionID: sess.ID, Channel: r.Channel, ChatID: r.ChatID, UserID: r.UserID, TenantID: r.TenantID,
		Model: model.Name(), MaxContext: model.Limit.Context}
	rep, err := a.App.Hooks.DispatchReport(ctx, scope.Payload(plugin.HookSessionStart))
	if err != nil {
		return store.Session{}, err
	}
	if rep.Result.Decision == plugin.DecisionDeny {
		return store.Session{}, fmt.Errorf("a SessionStart hook refused the session: %s", rep.Result.Message)
	}
	sess, err = a.Store.CreateSession(ctx, sess)
	if err != nil {
		return store.Session{}, err
	}
	if err := a.addContext(ctx, sess, rep); err != nil {
		// Without what its hooks gave the model, the session is not the one
		// they allowed: it is taken back before anyone heard of it.
		a.Store.DeleteSession(context.WithoutCancel(ctx), sess.Tenant, sess.ID)
		return store.Session{}, err
	}
	hooks := []any{}
	for _, h := range pipeline.LifecycleRuns(rep) {
		hooks = append(hooks, toData(h))
	}
	a.App.Bus.PublishFor(sess.Tenant, EventSessionCreated, map[string]any{"session": toData(sess), "hooks": hooks})
	return sess, nil
}

// DeleteSession cancels a running turn, fires SessionEnd and deletes the
// session.
func (a *Agent) DeleteSession(ctx context.Context, tenant, id string) error {
	sess, err := a.Store.Session(ctx, tenant, id)
	if err != nil {
		return err
	}
	a.CancelAnywhere(ctx, sess)
	// The caller's user (the server puts it in ctx) ends the session.
	caller := chat.ScopeFrom(ctx)
	scope := chat.Scope{Tenant: sess.Tenant, TenantID: store.TenantID(sess.Tenant), UserID: caller.UserID, ChatID: caller.ChatID,
		SessionID: sess.ID, Channel: sess.Channel, Model: sess.Model, Usage: sess.Usage}
	if _, err := a.App.EndSession(ctx, scope, app.EndDeleted); err != nil {
		return err
	}
	if err := a.Store.DeleteSession(ctx, tenant, id); err != nil {
		return err
	}
	a.App.Bus.PublishFor(sess.Tenant, EventSessionDeleted, map[string]any{"sessionID": id})
	return nil
}

// ErrShuttingDown is returned for a turn asked for after Shutdown.
var ErrShuttingDown = errors.New("the server is shutting down")

// Shutdown cancels every running turn and refuses new ones, so that no
// turn can start between the cancelling and the end of the server.
func (a *Agent) Shutdown() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closing = true
	for _, cancel := range a.running {
		cancel()
	}
}

// provider returns the provider of a model, made once and kept (a
// replayed recording keeps its place across turns).
func (a *Agent) provider(m provider.Model) (provider.Provider, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p := a.byModel[m.Name()]; p != nil {
		return p, nil
	}
	if r := m.Connection.Replay; r != "" && !filepath.IsAbs(r) {
		m.Connection.Replay = filepath.Join(a.App.Cwd, r) // relative to the project
	}
	p, err := provider.For(m, a.App.Log)
	if err != nil {
		return nil, err
	}
	a.byModel[m.Name()] = p
	return p, nil
}

// Cancel cancels the turn running in session id, if any.
func (a *Agent) Cancel(id string) bool {
	a.mu.Lock()
	cancel := a.running[id]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}

func (a *Agent) model(name string) (provider.Model, error) {
	if name == "" {
		return a.App.Model()
	}
	return a.App.Models.Lookup(name)
}

// TurnRequest is one user message to answer.
type TurnRequest struct {
	Tenant    string
	SessionID string
	Prompt    string
	Channel   string
	UserID    string
	ChatID    string
	TenantID  int64
	Agent     string         // the agent's name, for chat.params; "build" when empty
	Specified map[string]any // chat.params tunables the caller specified
	OnEvent   func(Event)    // progress, on the turn's goroutine (nil for none)
	// System is added to the configured system prompt (a sub-agent
	// type's prompt).
	System string
	// Tools are the tools the turn may use, as Claude Code lists an
	// agent's (claudecode.AllowsTool); nil for every tool.
	Tools []string
}

// Event is progress of a turn, for a caller that shows it as it happens.
type Event struct {
	Type    string // "text", "tool.start", "tool.end"
	Text    string // text delta
	Call    *chat.ToolCall
	Result  *chat.Result
	Message *chat.Message // tool.end: the stored tool message
}

// TurnResult is what a turn produced.
type TurnResult struct {
	Session  store.Session
	Messages []chat.Message // stored by this turn, in order
	Text     string         // the final assistant text
	// Usage is the turn's model calls, summed, with their cost: its own
	// and those of the sub-agents it ran (task), which its session's usage
	// does not count (theirs do).
	Usage chat.Usage
}

// usageSink collects what the sub-agents of a turn used: a turn puts its
// own in the context its tools run with, and a turn that finds one there
// (a sub-agent's) adds its usage to it when it ends.
type usageSink struct {
	mu sync.Mutex
	u  chat.Usage
}

type usageSinkKey struct{}

func (s *usageSink) add(u chat.Usage) {
	s.mu.Lock()
	s.u = s.u.Add(u)
	s.mu.Unlock()
}

func (s *usageSink) sum() chat.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.u
}

// turn is the state of one Run.
type turn struct {
	a     *Agent
	req   TurnRequest
	sess  store.Session
	model provider.Model
	scope chat.Scope
	prov  provider.Provider
	out   *TurnResult
	sub   *usageSink     // what the turn's sub-agents used
	hist  []chat.Message // what the model sees, loaded once a turn, then kept up to date
}

func (t *turn) emit(e Event) {
	if t.req.OnEvent != nil {
		t.req.OnEvent(e)
	}
}

func (t *turn) ctx(ctx context.Context) context.Context {
	return context.WithValue(chat.WithScope(ctx, t.scope), usageSinkKey{}, t.sub)
}

// store appends m, with known secrets redacted, and tells the bus. The
// model reads the history from the store, so it never sees them either.
func (t *turn) store(ctx context.Context, m *chat.Message) error {
	return t.storeStep(ctx, m, chat.Usage{})
}

// storeStep is store that also adds a model call's usage to the session,
// in the same write (store.AppendStep).
func (t *turn) storeStep(ctx context.Context, m *chat.Message, usage chat.Usage) error {
	if err := t.a.appendMessage(ctx, t.sess, m, usage); err != nil {
		return err
	}
	t.out.Messages = append(t.out.Messages, *m)
	if t.hist != nil && m.Role != chat.RoleSummary {
		t.hist = append(t.hist, *m)
	}
	return nil
}

// update stores m again (the hooks that ran after it was stored added to
// it), redacted as store redacts.
func (t *turn) update(ctx context.Context, m *chat.Message) {
	redact(t.a.App.Redact, m)
	if err := t.a.Store.UpdateMessage(context.WithoutCancel(ctx), m); err != nil {
		t.a.App.Log.Warn("agent: storing the hook runs added to a message failed", "session", t.sess.ID, "message", m.ID, "error", err.Error())
	}
}

// appendMessage stores m in sess, with known secrets redacted, and usage
// added to the session's, and tells the bus.
func (a *Agent) appendMessage(ctx context.Context, sess store.Session, m *chat.Message, usage chat.Usage) error {
	m.SessionID = sess.ID
	redact(a.App.Redact, m)
	body, err := a.Store.AppendStep(context.WithoutCancel(ctx), m, usage)
	if err != nil {
		return err
	}
	// The JSON the store wrote, as it is: the followers copy it into their
	// events, and a listener that wants the message decodes it.
	a.App.Bus.PublishFor(sess.Tenant, EventMessageStored, map[string]any{"sessionID": sess.ID, "message": body})
	return nil
}

// closeOpenCalls stores a result for each tool call the session's last
// turn left without one (store.CloseOpenCalls) and tells the bus.
func (a *Agent) closeOpenCalls(ctx context.Context, sess store.Session) ([]chat.Message, error) {
	added, err := a.Store.CloseOpenCalls(context.WithoutCancel(ctx), sess.ID, chat.WhyInterrupted)
	if err != nil {
		return nil, err
	}
	for i := range added {
		a.App.Log.Info("agent: answered a tool call a stopped turn left open", "session", sess.ID, "call", added[i].Result.CallID, "tool", added[i].Result.Tool)
		raw, _ := json.Marshal(&added[i]) // a stored message: it encodes
		a.App.Bus.PublishFor(sess.Tenant, EventMessageStored, map[string]any{"sessionID": sess.ID, "message": json.RawMessage(raw)})
	}
	return added, nil
}

// hookContext is the text the handlers of a dispatch gave the model
// (plugin.DataAdditionalContext), or "".
func hookContext(rep *plugin.Report) string {
	if rep == nil {
		return ""
	}
	s, _ := rep.Result.Data[plugin.DataAdditionalContext].(string)
	return s
}

// addContext stores the text the handlers of rep gave the model, if any,
// as a context message of sess.
func (a *Agent) addContext(ctx context.Context, sess store.Session, rep *plugin.Report) error {
	text := hookContext(rep)
	if text == "" {
		return nil
	}
	return a.appendMessage(ctx, sess, &chat.Message{Role: chat.RoleContext, Text: text}, chat.Usage{})
}

// Run answers one user message (see the package doc for the order).
func (a *Agent) Run(ctx context.Context, req TurnRequest) (*TurnResult, error) {
	if req.Tenant == "" {
		req.Tenant = store.DefaultTenant
	}
	if req.Agent == "" {
		req.Agent = "build"
	}
	sess, err := a.Store.Session(ctx, req.Tenant, req.SessionID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		return nil, ErrShuttingDown
	}
	if a.running[sess.ID] != nil {
		a.mu.Unlock()
		return nil, ErrBusy
	}
	a.running[sess.ID] = cancel
	a.mu.Unlock()
	// The session is free again (here, and its lease) before turn.finished
	// goes out: a client that saw it may post the next turn at once, on
	// this node or another. Early returns free it on their way out.
	claimed := false
	var freed sync.Once
	free := func() {
		freed.Do(func() {
			// What came too late for the turn's last model call is the
			// next turn's to read: stored while the session is still
			// this turn's (its lease held, ctx fenced: a lease lost
			// meanwhile fails the write, which is logged), never into
			// the turn of a node that holds the session instead. Inject
			// waits for it to end meanwhile.
			a.mu.Lock()
			delete(a.injectable, sess.ID)
			ended := make(chan struct{})
			a.ending[sess.ID] = ended
			left := a.injected[sess.ID]
			delete(a.injected, sess.ID)
			a.mu.Unlock()
			for _, m := range left {
				if err := a.appendMessage(context.WithoutCancel(ctx), sess, m, chat.Usage{}); err != nil {
					a.App.Log.Error("agent: storing an injected message failed; it is lost", "session", sess.ID, "message", m.ID, "error", err.Error())
				}
			}
			if claimed {
				a.Node.Release(ctx, sess.ID)
			}
			a.mu.Lock()
			delete(a.running, sess.ID)
			delete(a.ending, sess.ID)
			a.mu.Unlock()
			close(ended)
		})
	}
	defer free()
	// One node at a time: the session's lease, held until the turn ends.
	// Once it is ours, no live turn runs anywhere, and a session still
	// marked running was left so by a node that died.
	if a.Node != nil {
		if sess, err = a.claim(ctx, sess, cancel); err != nil {
			return nil, err
		}
		claimed = true
		// The turn's writes count only while the lease is this node's.
		ctx = store.WithFence(ctx, sess.ID, a.Node.Holder())
	}
	a.mu.Lock()
	a.injectable[sess.ID] = true // the session is this turn's: messages injected are its to store
	a.mu.Unlock()
	// Tool calls a stopped turn left without a result (Podcode died during
	// them) get one now, or every provider call of the session fails. A
	// session still marked running has a turn in another process, whose
	// calls are not ours to close (unless the lease says that process is
	// gone).
	var closed []chat.Message
	if sess.Status != store.SessionRunning || claimed {
		if closed, err = a.closeOpenCalls(ctx, sess); err != nil {
			return nil, err
		}
	}

	model, err := a.model(sess.Model)
	if err != nil {
		return nil, err
	}
	prov, err := a.provider(model)
	if err != nil {
		return nil, err
	}
	channel := req.Channel
	if channel == "" {
		channel = sess.Channel
	}
	t := &turn{a: a, req: req, sess: sess, model: model, prov: prov, out: &TurnResult{Session: sess, Messages: closed}, sub: &usageSink{},
		scope: chat.Scope{Tenant: req.Tenant, SessionID: sess.ID, Channel: channel, ChatID: req.ChatID, UserID: req.UserID, TenantID: req.TenantID,
			Model: model.Name(), MaxContext: model.Limit.Context, Usage: sess.Usage}}
	// The loop guard counts within a turn: its count, and the arguments of
	// the last call it holds (a write of megabytes), go with the turn.
	a.App.Guard.Reset(sess.ID)
	defer a.App.Guard.Reset(sess.ID)

	// 1. UserPromptSubmit.
	p := t.scope.Payload(plugin.HookUserPromptSubmit)
	p.Extra["prompt"] = req.Prompt
	rep, err := a.App.Hooks.DispatchReport(ctx, p)
	if err != nil {
		return nil, err
	}
	switch rep.Result.Decision {
	case plugin.DecisionDeny:
		return nil, &PromptRejected{Message: rep.Result.Message}
	case plugin.DecisionAsk:
		if err := t.confirmPrompt(ctx, rep.Result.Message); err != nil {
			return nil, err
		}
	}
	// A slash command, and an @server:uri mention, is the person's: a
	// sub-agent's prompt, which the model wrote, is sent as written.
	var cmd *slashCommand
	person := ctx.Value(depthKey{}) == nil
	if person {
		if cmd, err = t.command(); err != nil {
			return nil, err
		}
	}

	// 2. The user message; the session runs.
	// Not with ctx: a cancel landing just after the write (Shutdown, Cancel)
	// would make SetStatus report an error for a write that was made, and
	// the turn would return here, leaving the session running with no
	// turn.finished. From here on, a cancel ends the turn as interrupted.
	if err := a.Store.SetStatus(context.WithoutCancel(ctx), sess.ID, store.SessionRunning); err != nil {
		return nil, err
	}
	a.App.Bus.PublishFor(sess.Tenant, EventTurnStarted, map[string]any{"sessionID": sess.ID})
	user := &chat.Message{Role: chat.RoleUser, Text: req.Prompt, Hooks: pipeline.LifecycleRuns(rep)}
	var runErr error
	if person {
		var runs []chat.HookRun
		user.Text, runs, runErr = t.expand(ctx, cmd)
		user.Hooks = append(user.Hooks, runs...)
	}
	if runErr == nil {
		runErr = t.store(ctx, user)
	}
	if runErr == nil && sess.Title == "" {
		// A session no one named is named after its first prompt, as
		// typed, its secrets redacted as the message's are.
		if err := a.Store.NameSession(ctx, sess.ID, chat.Title(a.App.Redact.String(req.Prompt))); err != nil {
			a.App.Log.Warn("agent: naming a session after its first prompt failed", "session", sess.ID, "error", err.Error())
		}
	}
	if text := hookContext(rep); runErr == nil && text != "" {
		runErr = t.store(ctx, &chat.Message{Role: chat.RoleContext, Text: text})
	}
	if runErr == nil {
		runErr = t.loop(ctx)
	}

	status, turnStatus := store.SessionIdle, "complete"
	if runErr != nil {
		turnStatus = "error"
		if ctx.Err() != nil {
			status, turnStatus = store.SessionInterrupted, "interrupted"
		}
	}
	t.out.Usage = t.out.Usage.Add(t.sub.sum())
	if parent, _ := ctx.Value(usageSinkKey{}).(*usageSink); parent != nil {
		parent.add(t.out.Usage) // a sub-agent's: its turn's cost is its caller's too
	}
	bg := context.WithoutCancel(ctx)
	if err := a.Store.SetStatus(bg, sess.ID, status); errors.Is(err, store.ErrLeaseLost) {
		// Another node holds the session now: the end of this turn is
		// its to announce (it reaped it), and a turn of its own may
		// have started.
		a.App.Log.Warn("agent: the turn's lease was lost; it ended without a word", "session", sess.ID)
		return t.out, runErr
	} else if err != nil {
		// The session stays marked running until a restart (or, on many
		// nodes, until its lease runs out): say so.
		a.App.Log.Error("agent: storing the status of a turn's end failed", "session", sess.ID, "status", status, "error", err.Error())
	}
	fin := map[string]any{"sessionID": sess.ID, "status": turnStatus, "usage": t.out.Usage}
	if runErr != nil {
		fin["error"] = runErr.Error()
	}
	free()
	a.App.Bus.PublishFor(req.Tenant, EventTurnFinished, fin)
	if s, err := a.Store.Session(bg, req.Tenant, sess.ID); err == nil {
		t.out.Session = s
	}
	return t.out, runErr
}

func (t *turn) confirmPrompt(ctx context.Context, reason string) error {
	ok, err := t.a.App.Guard.Ask(ctx, guard.Question{ID: chat.NewID("perm"), SessionID: t.sess.ID, Tool: "prompt", Reason: reason})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return &PromptRejected{Message: fmt.Sprintf("a hook wants the prompt confirmed (%s), and %v", reason, err)}
	}
	if !ok {
		return &PromptRejected{Message: "the user did not confirm the prompt"}
	}
	return nil
}

// loop runs steps until the model stops and AgentStop lets the turn end.
func (t *turn) loop(ctx context.Context) error {
	continuations := 0
	for step := 0; ; step++ {
		if step >= t.a.MaxSteps {
			return fmt.Errorf("the turn stopped after %d model calls (%w)", t.a.MaxSteps, ErrMaxSteps)
		}
		// Messages injected meanwhile (Inject) go in now: after the
		// results of the last step's calls, before the model reads.
		for _, m := range t.a.takeInjected(t.sess.ID) {
			if err := t.store(ctx, m); err != nil {
				return err
			}
		}
		calls, err := t.step(ctx)
		if err != nil {
			return err
		}
		if len(calls) > 0 {
			// The message that made the calls (the one step stored last),
			// for every call of it: each call's result is stored after it.
			assistantID := t.out.Messages[len(t.out.Messages)-1].ID
			for i := range calls {
				if ctx.Err() != nil {
					// Every call gets a result, the ones never started too.
					t.unfinished(ctx, calls[i:], chat.WhyNotRun)
					return ctx.Err()
				}
				if err := t.runTool(ctx, calls[i], assistantID); err != nil {
					if ctx.Err() != nil {
						t.unfinished(ctx, calls[i+1:], chat.WhyNotRun)
					}
					return err
				}
			}
			continue
		}
		// 6. AgentStop.
		rep, err := t.a.App.Hooks.DispatchReport(ctx, t.scope.Payload(plugin.HookAgentStop))
		if err != nil {
			return err
		}
		if rep.Result.Decision != plugin.DecisionDeny || continuations >= maxContinuations {
			if n := len(t.out.Messages); n > 0 {
				last := &t.out.Messages[n-1]
				last.Hooks = append(last.Hooks, pipeline.LifecycleRuns(rep)...)
				t.update(ctx, last)
			}
			return nil
		}
		continuations++
		// The reason is the next prompt: the loop guard starts afresh, as
		// for a new turn, so that a hook that loops until the tests pass
		// may run the same test command again.
		t.a.App.Guard.Reset(t.sess.ID)
		msg := rep.Result.Message
		if msg == "" {
			msg = "Continue."
		}
		if err := t.store(ctx, &chat.Message{Role: chat.RoleUser, Text: msg, Hooks: pipeline.LifecycleRuns(rep)}); err != nil {
			return err
		}
	}
}

// step makes one model call and stores the assistant message. A call the
// provider refuses as longer than the model's context is made again once,
// after compacting the history whatever its estimated size; refused again,
// or with nothing to compact, the turn fails saying what to do.
func (t *turn) step(ctx context.Context) ([]chat.ToolCall, error) {
	calls, err := t.call(ctx, false)
	if !errors.Is(err, provider.ErrContextOverflow) {
		return calls, err
	}
	first := err
	calls, err = t.call(ctx, true)
	var none noCompaction
	switch {
	case errors.As(err, &none):
		return nil, fmt.Errorf("%w, and %s: start a new session, or pick a model with a larger context (--model)", first, none.why)
	case errors.Is(err, provider.ErrContextOverflow):
		return nil, fmt.Errorf("%w; it is still too long after compaction: start a new session, or pick a model with a larger context (--model)", err)
	}
	return calls, err
}

// call is step's model call, after compacting the history when it is
// near the model's context, or, with force, whenever there is something to
// compact. A refusal for the context's length is not stored: the step is
// made again (step).
func (t *turn) call(ctx context.Context, force bool) ([]chat.ToolCall, error) {
	history, err := t.history(ctx, force)
	if err != nil {
		return nil, err
	}
	// Paired: a history an older Podcode left with an unanswered call
	// further back is still one the provider accepts.
	system := t.a.App.Config.Agent.System
	if t.req.System != "" {
		system = strings.TrimSpace(system + "\n\n" + t.req.System)
	}
	req := provider.Request{System: system, Messages: chat.Paired(history), Tools: t.toolSpecs(),
		Channel: t.scope.Channel, SessionID: t.sess.ID}
	// The text is redacted as it streams, once, for every reader of the
	// turn's progress (an editor, the CLI, /events), as the stored message
	// is: a secret split between two deltas waits for the second.
	redacted := t.a.App.Redact.Stream()
	send := func(text string) {
		if text != "" {
			t.emit(Event{Type: "text", Text: text})
			t.a.App.Bus.PublishFor(t.sess.Tenant, EventTextDelta, map[string]any{"sessionID": t.sess.ID, "text": text})
		}
	}
	in := pipeline.ChatInput{SessionID: t.sess.ID, Agent: t.req.Agent, Model: t.model, Specified: t.req.Specified}
	res, steps, err := t.a.modelCall(t.ctx(ctx), t.prov, in, req, func(e provider.Event) {
		if e.TextDelta != "" {
			send(redacted.Next(e.TextDelta))
		}
	})
	send(redacted.Rest())
	msg := &chat.Message{Role: chat.RoleAssistant, Text: res.Text, ToolCalls: res.ToolCalls, Usage: &res.Usage, Hooks: pipeline.StepRuns(steps),
		Model: t.model.Name(), Reasoning: res.Reasoning}
	if err != nil && errors.Is(err, provider.ErrContextOverflow) && !force && res.Text == "" {
		return nil, fmt.Errorf("model %s: %w", t.model.Name(), err)
	}
	// What the call used counts, a call cut short too (a provider bills it).
	t.scope.Usage = t.scope.Usage.Add(res.Usage)
	t.out.Usage = t.out.Usage.Add(res.Usage)
	if err != nil {
		msg.Status, msg.Error = chat.StatusError, err.Error()
		if ctx.Err() != nil {
			msg.Status = chat.StatusInterrupted
		}
		// Stored even when the turn was cancelled: the text the user saw
		// (res.Text holds what streamed), why it stopped, and its usage.
		if serr := t.storeStep(context.WithoutCancel(ctx), msg, res.Usage); serr != nil {
			t.a.App.Log.Warn("agent: storing a failed model call's message failed", "session", t.sess.ID, "error", serr.Error())
		}
		return nil, fmt.Errorf("model %s: %w", t.model.Name(), err)
	}
	if err := t.storeStep(ctx, msg, res.Usage); err != nil {
		return nil, err
	}
	if res.Text != "" {
		t.out.Text = msg.Text // redacted when it was stored, as the text streamed was
	}
	return res.ToolCalls, nil
}

// modelCall is one model call as a turn makes it: chat.params, in ctx's
// scope, decides the request's params (with Podcode's defaults after it,
// pipeline.Finalize); then prov streams the answer, each event to
// onEvent; the usage gets its cost. req's Model and Params are set here; a
// MaxOutputTokens already in req.Params caps what chat.params decided. A
// turn's steps and an MCP server's sampling request (mcp_sampling.go)
// both call the model through it.
func (a *Agent) modelCall(ctx context.Context, prov provider.Provider, in pipeline.ChatInput, req provider.Request, onEvent func(provider.Event)) (provider.Response, []pipeline.Step, error) {
	params, steps := a.App.Runner.ChatParams(ctx, in)
	if limit := req.Params.MaxOutputTokens; limit > 0 && (params.MaxOutputTokens <= 0 || params.MaxOutputTokens > limit) {
		params.MaxOutputTokens = limit
	}
	req.Model, req.Params = in.Model, params
	res, err := prov.Stream(ctx, req, onEvent)
	res.Usage.Cost = in.Model.Cost(res.Usage)
	return res, steps, err
}

func (t *turn) toolSpecs() []provider.ToolSpec {
	defs := t.a.App.Tools.List()
	out := make([]provider.ToolSpec, 0, len(defs))
	for _, d := range defs {
		if claudecode.AllowsTool(t.req.Tools, d) {
			out = append(out, provider.ToolSpec{Name: d.ID, Description: d.Description, Parameters: d.Parameters})
		}
	}
	return out
}

// runTool runs one tool call of the assistant message assistantID and
// stores its result.
func (t *turn) runTool(ctx context.Context, call chat.ToolCall, assistantID string) error {
	t.emit(Event{Type: "tool.start", Call: &call})
	var args map[string]any
	var res tool.Result
	var rep pipeline.ToolReport
	var err error
	if d, ok := t.a.App.Tools.Get(call.Tool); ok && !claudecode.AllowsTool(t.req.Tools, d) {
		err = fmt.Errorf("%s is not among the tools of agent %s (%s)", call.Tool, t.req.Agent, strings.Join(t.req.Tools, ", "))
	} else if jerr := json.Unmarshal(call.Args, &args); jerr != nil || args == nil {
		err = fmt.Errorf("the arguments of %s are not a JSON object", call.Tool)
	} else {
		// The folder the call works in: a tenant's turn carries its
		// workspace, which plugin tools and hooks are told (ctx.cwd), not
		// the project's.
		cwd := tool.WorkspaceFrom(ctx, tool.Workspace{Root: t.a.App.Cwd}).Root
		tc := tool.Call{SessionID: t.sess.ID, MessageID: assistantID, CallID: call.ID, Agent: t.req.Agent, Cwd: cwd}
		res, rep, err = t.a.App.Runner.CallTool(t.ctx(ctx), tc, call.Tool, args)
	}
	if ctx.Err() != nil && err != nil {
		// Cancelled mid-call: the call still gets its result, saying so
		// (what the tool may return later is dropped).
		t.unfinished(ctx, []chat.ToolCall{call}, chat.WhyCancelled)
		return ctx.Err()
	}
	result := &chat.Result{CallID: call.ID, Tool: call.Tool, Title: res.Title, Output: res.Output, Metadata: res.Metadata}
	if err != nil {
		result.IsError, result.Output, result.Title = true, err.Error(), call.Tool
	}
	if rep.Post != nil && rep.Post.Result.Decision == plugin.DecisionDeny && rep.Post.Result.Message != "" {
		result.Output += "\n\n(a " + string(rep.Post.Event) + " hook objects: " + rep.Post.Result.Message + ")"
	}
	if text := hookContext(rep.Post); text != "" {
		result.Output += "\n\n(from a " + string(rep.Post.Event) + " hook: " + text + ")"
	}
	msg := &chat.Message{Role: chat.RoleTool, Result: result, Hooks: rep.Runs()}
	if err := t.store(ctx, msg); err != nil {
		return err
	}
	t.emit(Event{Type: "tool.end", Call: &call, Result: result, Message: msg})
	return nil
}

// unfinished stores, for each of calls, a result saying why the tool's
// own never came (chat.Unfinished). A failure to store is left to the
// next turn, which closes what is still open (closeOpenCalls).
func (t *turn) unfinished(ctx context.Context, calls []chat.ToolCall, why string) {
	for i := range calls {
		msg := chat.Unfinished(calls[i], why)
		if err := t.store(ctx, &msg); err != nil {
			t.a.App.Log.Warn("agent: could not store the result of an unfinished tool call", "session", t.sess.ID, "call", calls[i].ID, "err", err)
			return
		}
		t.emit(Event{Type: "tool.end", Call: &calls[i], Result: msg.Result, Message: &msg})
	}
}

// redact replaces known secrets in what a message carries.
func redact(r interface{ String(string) string }, m *chat.Message) {
	m.Text, m.Error = r.String(m.Text), r.String(m.Error)
	for i := range m.Reasoning {
		// Signed thinking that redaction changed would be refused if sent
		// back: it is kept to be shown, unsigned (chat.Reasoning).
		if text := r.String(m.Reasoning[i].Text); text != m.Reasoning[i].Text {
			m.Reasoning[i].Text, m.Reasoning[i].Signature = text, ""
		}
	}
	for i := range m.ToolCalls {
		m.ToolCalls[i].Args = json.RawMessage(r.String(string(m.ToolCalls[i].Args)))
	}
	if m.Result != nil {
		m.Result.Output, m.Result.Title = r.String(m.Result.Output), r.String(m.Result.Title)
	}
	// A hook's reason or error may quote what it saw.
	for i := range m.Hooks {
		m.Hooks[i].Message, m.Hooks[i].Error = r.String(m.Hooks[i].Message), r.String(m.Hooks[i].Error)
	}
}

// toData turns a value into JSON-shaped data for the bus.
func toData(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}
