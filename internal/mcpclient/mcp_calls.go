package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/tool"
)

// A server's requests to Podcode (elicitation/create, sampling/createMessage,
// roots/list) and its notifications (notifications/progress) arrive on the
// SDK's handlers with the session's context, not the context of the tool
// call that made the server ask: the protocol does not say which call a
// request is for (only progress names its call, by token). So each server
// keeps the calls it has in flight, and a request is taken to be on behalf
// of the most recent one: its session's asker answers the question, its
// session's model samples, its workspace is the root. With no call in
// flight there is nobody to ask: elicitation is declined and sampling
// refused (unless the user's config allows it), each logged. Nor is there
// when calls of more than one party (tenant, user, session) are in flight:
// a question about one's call must not be put to another.

// inflight is one tools/call under way.
type inflight struct {
	ctx   context.Context // the call's: its scope, workspace and progress listener
	tool  string          // the tool's id in the registry
	token string          // its progress token
	seq   uint64
}

// calls are a server's calls in flight. The zero value is ready.
type calls struct {
	mu  sync.Mutex
	seq uint64
	by  map[string]*inflight // by progress token
}

// add records a call in flight; done forgets it.
func (c *calls) add(ctx context.Context, toolID string) (call *inflight, done func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	call = &inflight{ctx: ctx, tool: toolID, token: "podcode-" + strconv.FormatUint(c.seq, 10), seq: c.seq}
	if c.by == nil {
		c.by = map[string]*inflight{}
	}
	c.by[call.token] = call
	return call, func() {
		c.mu.Lock()
		delete(c.by, call.token)
		c.mu.Unlock()
	}
}

// latest is the call in flight that started last, or nil; nil too, with
// mixed true, when calls of more than one party are in flight: another
// tenant, another user of the tenant, or another session (a question about
// one's call must not be put to another, nor its sampling paid by them).
func (c *calls) latest() (call *inflight, mixed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	parties := map[[4]string]bool{}
	for _, x := range c.by {
		sc := chat.ScopeFrom(x.ctx)
		parties[[4]string{sc.Tenant, sc.UserID, sc.Channel, sc.SessionID}] = true
		if call == nil || x.seq > call.seq {
			call = x
		}
	}
	if len(parties) > 1 {
		return nil, true
	}
	return call, false
}

// byToken is the call in flight whose progress token is token, or nil.
func (c *calls) byToken(token any) *inflight {
	s, ok := token.(string)
	if !ok {
		return nil // Podcode's tokens are strings; a server's other is not ours
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by[s]
}

// callTool is execute's tools/call: recorded in flight for its length, with
// a progress token that notifications/progress name it by.
func (s *Server) callTool(ctx context.Context, session *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, error) {
	call, done := s.calls.add(ctx, ToolID(s.spec.Name, name))
	defer done()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken(call.token)
	res, err := session.CallTool(ctx, params)
	// Refused until pages are opened (mcp_pages.go): sent again once.
	if refused, perr := s.pagesFirst(ctx, call, err); refused {
		if perr != nil {
			return nil, perr
		}
		return session.CallTool(ctx, params)
	}
	return res, err
}

// onBehalf is the context a server's request is handled in: the values of
// the call in flight it is taken to be for (its session's scope, its
// workspace), ended when the request's context or the call's ends; with no
// call in flight, the request's own. call is nil then.
func (s *Server) onBehalf(req context.Context) (ctx context.Context, call *inflight, done func()) {
	call, mixed := s.calls.latest()
	if mixed {
		s.log.Info("mcp: the server's request came while calls of several tenants, users or sessions are in flight: nobody of theirs is asked")
	}
	if call == nil {
		return req, nil, func() {}
	}
	ctx, cancel := context.WithCancelCause(call.ctx)
	stop := context.AfterFunc(req, func() { cancel(context.Cause(req)) })
	return ctx, call, func() { stop(); cancel(nil) }
}

// progress turns a server's notifications/progress about a call in flight
// into the call's progress (tool.ReportProgress: the runner throttles it
// and publishes tool.call.progress). A token Podcode did not give, or of a
// call that ended, is dropped: the SDK hands notifications over apart from
// answers, so the last ones a server sends right before its answer may
// come after it, when the call's result is already shown.
func (s *Server) progress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	call := s.calls.byToken(p.ProgressToken)
	if call == nil {
		return
	}
	tool.ReportProgress(call.ctx, tool.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
}

// maxLogData bounds what is logged of a server's notifications/message.
const maxLogData = 2000

// logMessage logs a server's notifications/message at debug, with the
// server's name (as on every line of the server's), its level and logger.
func (s *Server) logMessage(ctx context.Context, req *sdk.LoggingMessageRequest) {
	p := req.Params
	if p == nil {
		return
	}
	data, ok := p.Data.(string)
	if !ok {
		raw, err := json.Marshal(p.Data)
		if err != nil {
			data = fmt.Sprintf("%v", p.Data)
		} else {
			data = string(raw)
		}
	}
	s.log.DebugContext(ctx, "mcp: the server logs", "level", string(p.Level), "logger", chat.Shorten(p.Logger, 100), "data", chat.Shorten(data, maxLogData))
}
