package claudehooks

import (
	"slices"

	"github.com/podcode/podcode/plugin"
)

// events maps Claude Code's event names to Podcode's.
var events = map[string]plugin.HookEvent{
	"PreToolUse":         plugin.HookPreToolUse,
	"PostToolUse":        plugin.HookPostToolUse,
	"PostToolUseFailure": plugin.HookPostToolUseError,
	"UserPromptSubmit":   plugin.HookUserPromptSubmit,
	"Stop":               plugin.HookAgentStop,
	"SubagentStart":      plugin.HookSubAgentStart,
	"SubagentStop":       plugin.HookSubAgentStop,
	"SessionStart":       plugin.HookSessionStart,
	"SessionEnd":         plugin.HookSessionEnd,
	"PreCompact":         plugin.HookPreCompact,
	"PostCompact":        plugin.HookPostCompact,
}

// claudeEvents is events the other way round.
var claudeEvents = func() map[plugin.HookEvent]string {
	m := make(map[plugin.HookEvent]string, len(events))
	for c, p := range events {
		m[p] = c
	}
	return m
}()

// unsupported lists the events Claude Code has and Podcode cannot honour,
// with the reason given in the warning.
var unsupported = map[string]string{
	"Setup":               "Podcode has no --init or --maintenance run",
	"UserPromptExpansion": "Podcode expands slash commands without this event",
	"PermissionRequest":   "Podcode asks through PreToolUse's ask vote, not a separate permission event",
	"PermissionDenied":    "Podcode has no auto mode classifier",
	"PostToolBatch":       "Podcode runs tool calls one at a time and has no batch event",
	"Notification":        "Podcode sends no notifications",
	"MessageDisplay":      "Podcode has no display hook",
	"TaskCreated":         "Podcode has no task list tools",
	"TaskCompleted":       "Podcode has no task list tools",
	"StopFailure":         "Podcode has no event for a turn ended by an API error",
	"TeammateIdle":        "Podcode has no agent teams",
	"InstructionsLoaded":  "Podcode loads no CLAUDE.md files",
	"ConfigChange":        "Podcode does not watch its settings",
	"CwdChanged":          "Podcode's working directory does not change",
	"DirectoryAdded":      "Podcode has no /add-dir",
	"FileChanged":         "Podcode does not watch files",
	"WorktreeCreate":      "Podcode creates no worktrees",
	"WorktreeRemove":      "Podcode creates no worktrees",
	"PreModelSwitch":      "a Podcode session keeps its model",
	"PostModelSwitch":     "a Podcode session keeps its model",
	"Elicitation":         "Podcode runs no hooks on an MCP server's questions: its forms go to the person, as permission questions",
	"ElicitationResult":   "Podcode runs no hooks on an MCP server's questions: its forms go to the person, as permission questions",
}

// PodcodeEvent returns the Podcode event a Claude Code event name maps to.
func PodcodeEvent(claude string) (plugin.HookEvent, bool) {
	e, ok := events[claude]
	return e, ok
}

// ClaudeEvent returns the Claude Code name of a Podcode event, or "" when
// Claude Code has no such event (CronFired, WebhookReceived).
func ClaudeEvent(e plugin.HookEvent) string { return claudeEvents[e] }

// matchValue is, for events whose matcher filters something other than a
// tool name, the field the matcher tests and the values Podcode ever gives
// it, the one it gives when the payload does not say first: a Podcode
// session always starts new, compacts automatically, and has one kind of
// sub-agent; it ends deleted ("clear") or with the process ("other"; see
// EndReason). Events absent here and from tool events take no matcher (it
// is ignored, as in Claude Code).
var matchValue = map[string]struct {
	field  string
	values []string
}{
	"SessionStart":  {"source", []string{"startup"}},
	"SessionEnd":    {"reason", []string{ReasonOther, ReasonClear}},
	"PreCompact":    {"trigger", []string{"auto"}},
	"PostCompact":   {"trigger", []string{"auto"}},
	"SubagentStart": {"agent_type", []string{"general-purpose"}},
	"SubagentStop":  {"agent_type", []string{"general-purpose"}},
}

// SessionEnd's reasons Podcode gives (Claude Code's reason field; its
// others, logout, prompt_input_exit, resume and
// bypass_permissions_disabled, have no counterpart in Podcode).
const (
	// ReasonClear: the session was deleted, its conversation discarded,
	// as Claude Code's /clear discards one.
	ReasonClear = "clear"
	// ReasonOther: the process that ran the session ends (the server
	// stops, `podcode run` is done), as Claude Code gives when it exits
	// in print mode or otherwise.
	ReasonOther = "other"
)

// ExtraEndReason is the key of a SessionEnd payload's Extra that holds the
// reason (ReasonClear, ReasonOther); absent or unknown, the reason is
// ReasonOther.
const ExtraEndReason = "reason"

// eventValue is the value event's matcher tests for payload p (see
// matchValue), "" for events without one.
func eventValue(event string, p *plugin.HookPayload) string {
	mv, ok := matchValue[event]
	if !ok {
		return ""
	}
	if p != nil {
		if v, _ := p.Extra[mv.field].(string); v != "" && slices.Contains(mv.values, v) {
			return v
		}
	}
	return mv.values[0]
}

// takesMatcher reports whether a matcher filters event's hooks: on tool
// events, and on the events of matchValue.
func takesMatcher(event string) bool {
	_, filtered := matchValue[event]
	return filtered || events[event].IsToolEvent()
}

// toolNames maps Podcode's built-in tool ids to Claude Code's tool names.
// Podcode's task tool is Claude Code's Agent tool, called Task before
// Claude Code 2.1.63; a matcher or `if` rule naming Task matches it too.
var toolNames = map[string]string{
	"bash":     "Bash",
	"read":     "Read",
	"write":    "Write",
	"edit":     "Edit",
	"glob":     "Glob",
	"grep":     "Grep",
	"webfetch": "WebFetch",
	"task":     "Agent",
	"skill":    "Skill",
}

// legacyTask is the Agent tool's name before Claude Code 2.1.63.
const legacyTask = "Task"

// podcodeTools is toolNames the other way round, with the legacy name.
var podcodeTools = func() map[string]string {
	m := map[string]string{legacyTask: "task"}
	for p, c := range toolNames {
		m[c] = p
	}
	return m
}()

// ClaudeToolName returns the name a Claude Code hook sees for a Podcode
// tool: Bash for bash, Agent for task, and so on; any other tool (a
// plugin's, an MCP server's) keeps its name.
func ClaudeToolName(podcode string) string {
	if c, ok := toolNames[podcode]; ok {
		return c
	}
	return podcode
}

// claudeNames lists the names a matcher is tested against for a Podcode
// tool: its Claude Code name, and Task for the task tool.
func claudeNames(podcode string) []string {
	c := ClaudeToolName(podcode)
	if c == "Agent" {
		return []string{c, legacyTask}
	}
	return []string{c}
}

// payloadNames lists the names a matcher is tested against for the tool of
// a tool event: an MCP tool's Claude Code name (mcp__<server>__<tool>,
// plugin.ExtraToolAlias), else claudeNames of its id.
func payloadNames(p *plugin.HookPayload) []string {
	if a, _ := p.Extra[plugin.ExtraToolAlias].(string); a != "" {
		return []string{a}
	}
	return claudeNames(p.ToolName)
}

// PodcodeToolName is ClaudeToolName the other way round: bash for Bash,
// task for Agent and Task; any other name is kept.
func PodcodeToolName(claude string) string {
	if p, ok := podcodeTools[claude]; ok {
		return p
	}
	return claude
}
