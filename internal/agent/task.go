package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// maxDepth bounds sub-agents starting sub-agents.
const maxDepth = 3

type depthKey struct{}

// task is the built-in task tool: it runs a sub-agent in a child session
// (of an agent type of App.Claude when subagent_type names one: its
// prompt added to the system prompt, only its tools, its model when the
// catalog knows it),
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
	kind, _ := args["subagent_type"].(string)
	var def *claudecode.Agent
	if kind != "" && kind != "general-purpose" {
		var err error
		if def, err = a.App.Claude.Agent(kind); err != nil {
			if errors.Is(err, claudecode.ErrUnknown) {
				return tool.Result{}, fmt.Errorf("task: no agent type %q; the types are: %s", kind, strings.Join(agentTypes(a.App.Claude), ", "))
			}
			return tool.Result{}, fmt.Errorf("task: %w", err)
		}
	}
	scope := chat.ScopeFrom(ctx)
	if scope.SessionID == "" {
		scope.SessionID = call.SessionID
	}
	start := scope.Payload(plugin.HookSubAgentStart)
	start.Extra["prompt"], start.Extra["description"] = prompt, desc
	if def != nil {
		start.Extra["agent_type"] = kind
	}
	rep, err := a.App.Hooks.DispatchReport(ctx, start)
	if err != nil {
		return tool.Result{}, err
	}
	if rep.Result.Decision == plugin.DecisionDeny {
		return tool.Result{}, fmt.Errorf("a SubAgentStart hook refused the sub-agent: %s", rep.Result.Message)
	}
	model := scope.Model
	turn := TurnRequest{Tenant: scope.Tenant, Prompt: prompt, Channel: scope.Channel, UserID: scope.UserID, ChatID: scope.ChatID,
		TenantID: scope.TenantID, Agent: "task"}
	if def != nil {
		// The agent type's prompt, tools and model (a model the catalog
		// does not know, "sonnet" say, is the caller's).
		turn.Agent, turn.System, turn.Tools = def.Name, def.Prompt, def.Tools
		if def.Model != "" && def.Model != "inherit" {
			if m, err := a.model(def.Model); err == nil {
				model = m.Name()
			}
		}
	}
	child, err := a.NewSession(ctx, SessionRequest{Tenant: scope.Tenant, Title: desc, Channel: scope.Channel, Model: model,
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
	turn.SessionID = child.ID
	res, runErr := a.Run(context.WithValue(ctx, depthKey{}, depth+1), turn)
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

// agentTypes are the names of the agent types the task tool offers.
func agentTypes(c *claudecode.Catalog) []string {
	out := []string{"general-purpose"}
	for _, a := range c.Agents() {
		out = append(out, a.Name)
	}
	return out
}

// taskDescription is the task tool's description with the agent types
// offered, each with its description.
func taskDescription(base string, c *claudecode.Catalog) string {
	base, _, _ = strings.Cut(base, " subagent_type picks")
	agents := c.Agents()
	if len(agents) == 0 {
		return base
	}
	var b strings.Builder
	b.WriteString(base)
	b.WriteString(" subagent_type picks the kind of agent:\n- general-purpose: every tool, no instructions of its own")
	for _, a := range agents {
		fmt.Fprintf(&b, "\n- %s: %s", a.Name, a.Value.Description)
	}
	return b.String()
}
