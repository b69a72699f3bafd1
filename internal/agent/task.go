package agent

import (
	"context"
	"fmt"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// maxDepth bounds sub-agents starting sub-agents.
const maxDepth = 3

type depthKey struct{}

// task is the built-in task tool: it runs a sub-agent in a child session,
// between SubAgentStart (deny refuses it, and the tool fails with the
// message) and SubAgentStop. The sub-agent's tool calls go through every
// hook, as any turn's do.
func (a *Agent) task(ctx context.Context, call tool.Call, args map[string]any) (tool.Result, error) {
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= maxDepth {
		return tool.Result{}, fmt.Errorf("task: sub-agents may nest %d deep at most", maxDepth)
	}
	prompt, _ := args["prompt"].(string)
	desc, _ := args["description"].(string)
	scope := chat.ScopeFrom(ctx)
	if scope.SessionID == "" {
		scope.SessionID = call.SessionID
	}
	start := scope.Payload(plugin.HookSubAgentStart)
	start.Extra["prompt"], start.Extra["description"] = prompt, desc
	rep, err := a.App.Hooks.DispatchReport(ctx, start)
	if err != nil {
		return tool.Result{}, err
	}
	if rep.Result.Decision == plugin.DecisionDeny {
		return tool.Result{}, fmt.Errorf("a SubAgentStart hook refused the sub-agent: %s", rep.Result.Message)
	}
	child, err := a.NewSession(ctx, SessionRequest{Tenant: scope.Tenant, Title: desc, Channel: scope.Channel, Model: scope.Model,
		ParentID: call.SessionID, UserID: scope.UserID, ChatID: scope.ChatID, TenantID: scope.TenantID})
	if err != nil {
		return tool.Result{}, err
	}
	// The child's session ends with its task, however the task ends:
	// SessionEnd pairs the SessionStart it fired (a plugin that sets
	// something up per session would leak it at every sub-agent otherwise).
	defer func() {
		if _, err := a.App.EndSession(context.WithoutCancel(ctx), chat.Scope{Tenant: scope.Tenant, SessionID: child.ID, Channel: scope.Channel,
			Model: scope.Model, UserID: scope.UserID, ChatID: scope.ChatID, TenantID: scope.TenantID}, app.EndClosed); err != nil {
			a.App.Log.Warn("agent: SessionEnd of a sub-agent's session failed", "session", child.ID, "error", err.Error())
		}
	}()
	if err := a.addContext(ctx, child, rep); err != nil {
		return tool.Result{}, err
	}
	res, runErr := a.Run(context.WithValue(ctx, depthKey{}, depth+1), TurnRequest{Tenant: scope.Tenant, SessionID: child.ID, Prompt: prompt,
		Channel: scope.Channel, UserID: scope.UserID, ChatID: scope.ChatID, TenantID: scope.TenantID, Agent: "task"})
	stop := scope.Payload(plugin.HookSubAgentStop)
	stop.Extra["child_session_id"] = child.ID
	if runErr != nil {
		stop.Extra[plugin.ExtraError] = runErr.Error()
	}
	a.App.Hooks.DispatchReport(context.WithoutCancel(ctx), stop)
	if runErr != nil {
		return tool.Result{}, fmt.Errorf("the sub-agent failed: %w", runErr)
	}
	title := desc
	if title == "" {
		title = "task"
	}
	return tool.Result{Title: title, Output: res.Text, Metadata: map[string]any{"sessionID": child.ID}}, nil
}
