package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/podcode/podcode/internal/chat"

	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/tool"
)

// MCPSampler answers an MCP server's sampling request with a model: the
// agent's (agent.New sets it with SetMCPSampler).
type MCPSampler func(ctx context.Context, r mcpclient.SampleRequest) (mcpclient.SampleResult, error)

// SetMCPSampler sets who answers MCP servers' sampling requests (nil:
// nobody; they are refused). Safe while servers run: they start before
// the agent exists.
func (a *App) SetMCPSampler(fn MCPSampler) { a.mcpSampler.Store(&fn) }

// AskMCP is mcpclient.Options.Ask: an MCP server's question (an
// elicitation's form, sampling's consent) through the guard
// (guard.Guard.AskForm), so it goes to whoever answers the permission
// questions of ctx's session. While the plugins load there is nobody to
// ask.
func (a *App) AskMCP(ctx context.Context, q guard.Question) (guard.Answer, error) {
	g := a.execGuard.Load() // the boot guard while plugins load, then Guard; never a torn read
	if g == nil {
		return guard.Answer{}, guard.ErrNobodyToAsk
	}
	return g.AskForm(ctx, q)
}

// SampleMCP is mcpclient.Options.Sample: SetMCPSampler's.
func (a *App) SampleMCP(ctx context.Context, r mcpclient.SampleRequest) (mcpclient.SampleResult, error) {
	fn := a.mcpSampler.Load()
	if fn == nil || *fn == nil {
		return mcpclient.SampleResult{}, errors.New("no agent answers MCP servers' sampling requests here")
	}
	return (*fn)(ctx, r)
}

// askToolForm is pipeline.Runner.AskForm: a running tool's form (a plugin
// tool's ctx.ask) as a form question of the call's session, through the
// guard's question flow as an MCP server's elicitation goes (AskMCP). The
// form is read as an elicitation's schema is (guard.DecodeForm: bounded,
// flat fields), and an accepted answer is completed with its defaults and
// checked against it.
func (a *App) askToolForm(ctx context.Context, def *tool.Def, _ tool.Call, message string, schema any) (tool.FormAnswer, error) {
	form, err := guard.DecodeForm(def.Source, message, schema)
	if err != nil {
		return tool.FormAnswer{}, fmt.Errorf("a form that cannot be asked: %w", err)
	}
	form.Plugin = def.Source != tool.Builtin
	ans, err := a.AskMCP(ctx, guard.NewFormQuestion(chat.ScopeFrom(ctx).SessionID, def.ID, form))
	if err != nil {
		return tool.FormAnswer{}, err
	}
	if ans.Action != guard.Accept {
		return tool.FormAnswer{Action: ans.Action}, nil
	}
	content, err := form.Complete(ans.Content)
	if err != nil {
		return tool.FormAnswer{}, fmt.Errorf("the answer does not fit the form: %w", err)
	}
	return tool.FormAnswer{Action: guard.Accept, Content: content}, nil
}
