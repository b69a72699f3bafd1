package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// Question is a permission question for the user.
type Question struct {
	ID        string         `json:"id"`
	SessionID string         `json:"sessionID"`
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args"`
	Reason    string         `json:"reason"` // why the hooks or the config want to ask
	// Form, when set, asks for values (an MCP server's elicitation):
	// asked with AskForm, answered with an Answer (see Form).
	Form *Form `json:"form,omitempty"`
}

// Asker puts permission questions to whoever can answer them: a terminal,
// an API client. It returns the answer, or an error when nobody answered.
type Asker interface {
	Ask(ctx context.Context, q Question) (bool, error)
}

// ErrNobodyToAsk is the error of an Asker that has nobody to ask (a
// non-interactive run, cron, webhooks).
var ErrNobodyToAsk = errors.New("nobody can answer a permission question here")

// Refusal is a tool call the guard did not let run; Reason is what the
// model reads.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Defaults of the guard's limits.
const (
	DefaultLoopLimit  = 3
	DefaultAskTimeout = 5 * time.Minute
)

// Guard is the pipeline's ToolGate. Before, in order:
//
//  1. PreToolUse is dispatched; the config's permission policy votes there
//     as a handler in its own layer (see Policy.Voter), so neither a hook's
//     allow nor the config's outvotes the other's deny.
//  2. The merged decision: deny refuses the call with the message; ask puts
//     the question to the Asker (no answer, or no one to ask, is a refusal
//     that says so); defer, or no vote at all, falls back to the policy's
//     default (Policy.Default: the stricter "*" rule, else allow); allow
//     lets it run.
//  3. The loop guard refuses the call that would be the LoopLimit-th
//     identical call (same tool, same arguments) in a row in a session
//     (calls outside a session, like `podcode tool run`, are not counted).
//
// After dispatches PostToolUse (with the tool's output, truncated by the
// dispatcher) or PostToolUseFailure (with the error in extra.error), both
// with the elapsed time. Its votes are recorded; acting on them is the
// turn's business.
type Guard struct {
	Hooks      *plugin.Dispatcher
	Policy     *Policy
	AskTimeout time.Duration // DefaultAskTimeout if zero
	LoopLimit  int           // DefaultLoopLimit if zero

	asker atomic.Pointer[askerBox] // SetAsker's; nobody can answer when unset

	mu   sync.Mutex
	last map[string]repeat // by session
}

type askerBox struct{ a Asker }

// SetAsker sets who answers permission questions (nil: nobody). Safe while
// calls run: a plugin's process may ask at any time, from the start.
func (g *Guard) SetAsker(a Asker) { g.asker.Store(&askerBox{a}) }

// CurrentAsker is who SetAsker set, or nil.
func (g *Guard) CurrentAsker() Asker {
	if b := g.asker.Load(); b != nil {
		return b.a
	}
	return nil
}

type askerKey struct{}

// WithAsker returns ctx whose calls' permission questions go to a, not to
// SetAsker's: the MCP server asks the client of the call in flight
// (elicitation) this way.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// askerFor is who answers ctx's questions: ctx's (WithAsker), else
// SetAsker's.
func (g *Guard) askerFor(ctx context.Context) Asker {
	if a, ok := ctx.Value(askerKey{}).(Asker); ok {
		return a
	}
	return g.CurrentAsker()
}

type repeat struct {
	sig   string
	count int
}

var _ pipeline.ToolGate = (*Guard)(nil)

// Reset forgets a session's call history (a new turn starts afresh).
func (g *Guard) Reset(sessionID string) {
	g.mu.Lock()
	delete(g.last, sessionID)
	g.mu.Unlock()
}

func scopeOf(ctx context.Context, call tool.Call) chat.Scope {
	s := chat.ScopeFrom(ctx)
	if s.SessionID == "" {
		s.SessionID = call.SessionID
	}
	return s
}

func encode(args map[string]any) string {
	b, _ := json.Marshal(args) // map keys sorted: the same arguments encode the same
	return string(b)
}

// Before implements pipeline.ToolGate: Permit, then the loop guard.
func (g *Guard) Before(ctx context.Context, call tool.Call, def *tool.Def, args map[string]any, rep *pipeline.ToolReport) error {
	if err := g.Permit(ctx, call, def, args, rep); err != nil {
		return err
	}
	scope := scopeOf(ctx, call)
	return g.loopGuard(scope.SessionID, def.ID, encode(args))
}

// Permit is Before without the loop guard (steps 1 and 2): whether the
// hooks and the permission rules let def run with args. A plugin's
// processes (plugin_exec) pass here: the loop guard is about a model
// repeating itself, and a plugin may run the same command many times.
func (g *Guard) Permit(ctx context.Context, call tool.Call, def *tool.Def, args map[string]any, rep *pipeline.ToolReport) error {
	scope := scopeOf(ctx, call)
	input := encode(args)
	p := scope.Payload(plugin.HookPreToolUse)
	p.ToolName, p.ToolInput = def.ID, input
	if def.Alias != "" {
		p.Extra[plugin.ExtraToolAlias] = def.Alias
	}
	report, err := g.Hooks.DispatchReport(ctx, p)
	rep.Pre = report
	if err != nil {
		return err
	}
	decision, reason := report.Result.Decision, report.Result.Message
	if decision == plugin.DecisionDefer {
		decision = g.Policy.Default()
		if reason == "" {
			reason = "the default permission"
		}
	}
	switch decision {
	case plugin.DecisionDeny:
		if reason == "" {
			reason = "a PreToolUse hook denied it"
		}
		return &Refusal{Reason: fmt.Sprintf("%s was denied: %s", def.ID, reason)}
	case plugin.DecisionAsk:
		return g.ask(ctx, scope, def, args, reason)
	}
	return nil
}

func (g *Guard) ask(ctx context.Context, scope chat.Scope, def *tool.Def, args map[string]any, reason string) error {
	ok, err := g.Ask(ctx, Question{ID: chat.NewID("perm"), SessionID: scope.SessionID, Tool: def.ID, Args: args, Reason: reason})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return &Refusal{Reason: fmt.Sprintf("%s needs permission (%s), and %s: refused", def.ID, reason, err)}
	case !ok:
		return &Refusal{Reason: fmt.Sprintf("the user refused to run %s", def.ID)}
	}
	return nil
}

// Ask puts q to the asker (ctx's, WithAsker, else SetAsker's) and waits for the answer, at most AskTimeout.
// With no Asker the error is ErrNobodyToAsk; with no answer in time it
// says so, naming the wait.
func (g *Guard) Ask(ctx context.Context, q Question) (bool, error) {
	asker := g.askerFor(ctx)
	if asker == nil {
		return false, ErrNobodyToAsk
	}
	timeout := g.AskTimeout
	if timeout <= 0 {
		timeout = DefaultAskTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := asker.Ask(actx, q)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return false, fmt.Errorf("nobody answered within %s", timeout)
	}
	return ok, err
}

func (g *Guard) loopGuard(session, id, input string) error {
	if session == "" {
		return nil // the guard counts calls within a session; a lone call has none
	}
	limit := g.LoopLimit
	if limit <= 0 {
		limit = DefaultLoopLimit
	}
	sig := id + "\x00" + input
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.last == nil {
		g.last = map[string]repeat{}
	}
	r := g.last[session]
	if r.sig == sig {
		r.count++
	} else {
		r = repeat{sig: sig, count: 1}
	}
	if r.count >= limit {
		g.last[session] = repeat{} // the next call starts counting again
		return &Refusal{Reason: fmt.Sprintf("%s was refused: the same call with the same arguments %d times in a row looks like a loop; try something else", id, limit)}
	}
	g.last[session] = r
	return nil
}

// After implements pipeline.ToolGate.
func (g *Guard) After(ctx context.Context, call tool.Call, def *tool.Def, args map[string]any, res tool.Result, err error, elapsed time.Duration, rep *pipeline.ToolReport) {
	scope := scopeOf(ctx, call)
	event := plugin.HookPostToolUse
	if err != nil {
		event = plugin.HookPostToolUseError
	}
	p := scope.Payload(event)
	p.ToolName, p.ToolInput, p.ToolElapsedMs = def.ID, encode(args), elapsed.Milliseconds()
	if def.Alias != "" {
		p.Extra[plugin.ExtraToolAlias] = def.Alias
	}
	if err != nil {
		p.Extra[plugin.ExtraError] = err.Error()
	} else {
		p.ToolOutput = res.Output
	}
	// The call is over: its hooks get their own deadline even if the turn
	// was just cancelled, so that failures are reported too.
	report, _ := g.Hooks.DispatchReport(context.WithoutCancel(ctx), p)
	rep.Post = report
}
