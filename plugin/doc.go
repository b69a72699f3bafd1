// Package plugin is Podcode's public Go SDK for lifecycle hooks.
//
// Podcode fires a lifecycle event ([HookEvent]) at fixed moments of a
// session: before and after each tool call, when a prompt is submitted, when
// the agent stops, around compaction and sub-agents, and when a cron job or a
// webhook triggers. Handlers ([HookHandler]) registered for an event receive
// a [HookPayload] and vote allow, deny, ask or defer ([HookDecision]); a
// [Dispatcher] runs them in a defined order, within one deadline, isolated
// from one another, and merges their votes (deny > defer > ask > allow).
//
// Everything in Podcode that fires a lifecycle event does so through a
// Dispatcher: the agent loop, the cron scheduler, the webhook endpoint, and
// the adapters that run manifest, process and JavaScript handlers. A Go
// program that embeds Podcode registers its own handlers on the same
// Dispatcher.
//
// A minimal guard:
//
//	d := plugin.NewDispatcher()
//	d.Register(plugin.HookPreToolUse, func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
//		if p.ToolName == "bash" && strings.Contains(p.ToolInput, "rm -rf") {
//			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "not here"}, nil
//		}
//		return nil, nil // abstain
//	}, plugin.FailClosed())
//	res, err := d.Dispatch(ctx, &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: in})
package plugin
