package plugin

import (
	"context"
	"encoding/json"
	"fmt"
)

// HookEvent names a moment in a Podcode turn or session at which lifecycle
// handlers are dispatched. The string values are part of the wire format
// (manifests, external hook processes, the HTTP API) and never change.
type HookEvent string

// The lifecycle events, in the order a turn usually meets them. Each fires at
// the moment its comment names; the host (the agent loop, the cron scheduler,
// the webhook endpoint) is the only code that fires them, always through a
// [Dispatcher].
const (
	HookPreToolUse       HookEvent = "PreToolUse"         // Before a tool is executed.
	HookPostToolUse      HookEvent = "PostToolUse"        // After a tool execution succeeds.
	HookPostToolUseError HookEvent = "PostToolUseFailure" // When a tool execution fails.
	HookUserPromptSubmit HookEvent = "UserPromptSubmit"   // When the user submits a prompt.
	HookAgentStop        HookEvent = "AgentStop"          // When the agent loop terminates.
	HookSessionStart     HookEvent = "SessionStart"       // At the beginning of a new session.
	HookSessionEnd       HookEvent = "SessionEnd"         // When a session concludes.
	HookSubAgentStart    HookEvent = "SubAgentStart"      // Before a sub-agent is launched.
	HookSubAgentStop     HookEvent = "SubAgentStop"       // After a sub-agent completes.
	HookPreCompact       HookEvent = "PreCompact"         // Before message history compaction.
	HookPostCompact      HookEvent = "PostCompact"        // After message history compaction.
	HookCronFired        HookEvent = "CronFired"          // When a scheduled cron job triggers.
	HookWebhookReceived  HookEvent = "WebhookReceived"    // When an inbound webhook arrives.
)

// events lists every HookEvent; its index is the event's slot in a Dispatcher.
var events = [...]HookEvent{
	HookPreToolUse, HookPostToolUse, HookPostToolUseError, HookUserPromptSubmit,
	HookAgentStop, HookSessionStart, HookSessionEnd, HookSubAgentStart,
	HookSubAgentStop, HookPreCompact, HookPostCompact, HookCronFired,
	HookWebhookReceived,
}

// HookEvents returns every lifecycle event, in declaration order.
func HookEvents() []HookEvent {
	out := make([]HookEvent, len(events))
	copy(out, events[:])
	return out
}

// eventIndex returns the slot of e, or -1 when e is not a lifecycle event.
// A switch keeps the hot path of Dispatch free of map lookups.
func eventIndex(e HookEvent) int {
	switch e {
	case HookPreToolUse:
		return 0
	case HookPostToolUse:
		return 1
	case HookPostToolUseError:
		return 2
	case HookUserPromptSubmit:
		return 3
	case HookAgentStop:
		return 4
	case HookSessionStart:
		return 5
	case HookSessionEnd:
		return 6
	case HookSubAgentStart:
		return 7
	case HookSubAgentStop:
		return 8
	case HookPreCompact:
		return 9
	case HookPostCompact:
		return 10
	case HookCronFired:
		return 11
	case HookWebhookReceived:
		return 12
	}
	return -1
}

// IsValidHookEvent reports whether name is exactly one of the lifecycle event
// names (case-sensitive). Manifests use it to check `contributes.hooks`
// entries and `onHook:<Event>` activation events at load time.
func IsValidHookEvent(name string) bool { return eventIndex(HookEvent(name)) >= 0 }

// ParseHookEvent returns the event named name, or an error that quotes the
// name and lists the valid ones.
func ParseHookEvent(name string) (HookEvent, error) {
	if IsValidHookEvent(name) {
		return HookEvent(name), nil
	}
	return "", fmt.Errorf("plugin: unknown hook event %q (valid: %s)", name, validEventList)
}

var validEventList = func() string {
	s := ""
	for i, e := range events {
		if i > 0 {
			s += ", "
		}
		s += string(e)
	}
	return s
}()

// IsToolEvent reports whether e concerns one tool call; only these events
// carry ToolName, ToolInput and ToolElapsedMs (SPEC L6).
func (e HookEvent) IsToolEvent() bool {
	return e == HookPreToolUse || e == HookPostToolUse || e == HookPostToolUseError
}

// UnmarshalJSON accepts the names of lifecycle events and the empty string
// (unset, as when the key is absent), so a payload or manifest with a
// misspelt event fails to decode with a message naming it. Dispatch refuses
// an unset event.
func (e *HookEvent) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("plugin: hook event must be a string: %w", err)
	}
	if s == "" {
		*e = ""
		return nil
	}
	ev, err := ParseHookEvent(s)
	if err != nil {
		return err
	}
	*e = ev
	return nil
}

// HookPayload is what a lifecycle handler is told about the event.
//
// Which fields are set depends on the event (SPEC L6): ToolName, ToolInput
// and ToolElapsedMs on tool events only (PreToolUse, PostToolUse,
// PostToolUseFailure); ToolOutput on PostToolUse only. The Dispatcher clears
// the fields an event does not carry before any handler sees them.
//
// ToolOutput is truncated to [MaxToolOutputBytes] on a UTF-8 boundary; when
// that happened Extra[ExtraToolOutputTruncated] is true and
// Extra[ExtraToolOutputBytes] holds the full length. Do not rely on it for a
// file's full content.
//
// Extra carries session context injected by the engine: the model name
// (ExtraModel), its maximum context (ExtraMaxContext) and the token usage so
// far (ExtraUsage). On PostToolUseFailure, Extra[ExtraError] is the error text.
type HookPayload struct {
	Event         HookEvent      `json:"event"`
	ToolName      string         `json:"tool_name,omitempty"`
	ToolInput     string         `json:"tool_input,omitempty"`
	ToolOutput    string         `json:"tool_output,omitempty"`     // tool execution result (PostToolUse only)
	ToolElapsedMs int64          `json:"tool_elapsed_ms,omitempty"` // tool execution duration in ms
	SessionID     string         `json:"session_id,omitempty"`
	Channel       string         `json:"channel,omitempty"`
	ChatID        string         `json:"chat_id,omitempty"`
	UserID        string         `json:"user_id,omitempty"`
	TenantID      int64          `json:"tenant_id,omitempty"`
	Extra         map[string]any `json:"extra,omitempty"`
}

// Keys of HookPayload.Extra that Podcode itself sets.
const (
	ExtraModel               = "model"                 // "provider/model" of the session
	ExtraMaxContext          = "max_context"           // the model's context limit, in tokens
	ExtraUsage               = "usage"                 // {"input": n, "output": n} tokens so far
	ExtraError               = "error"                 // error text, on PostToolUseFailure
	ExtraToolOutputTruncated = "tool_output_truncated" // true when ToolOutput was cut
	ExtraToolOutputBytes     = "tool_output_bytes"     // ToolOutput's length before the cut
	// ExtraToolAlias is, on tool events, the tool's other name when it has
	// one: mcp__<server>__<tool> for an MCP server's tool (registered as
	// <server>_<tool>), as Claude Code names it.
	ExtraToolAlias = "tool_alias"
)

// MaxToolOutputBytes caps HookPayload.ToolOutput (SPEC L4).
const MaxToolOutputBytes = 8192

// HookDecision is a handler's vote.
type HookDecision string

// The four votes. When several handlers vote, the strongest wins:
// deny > defer > ask > allow (see [Dispatcher]).
const (
	DecisionAllow HookDecision = "allow" // Permit the operation to proceed.
	DecisionDeny  HookDecision = "deny"  // Block the operation, optionally with a reason.
	DecisionAsk   HookDecision = "ask"   // Prompt the user for confirmation before proceeding.
	DecisionDefer HookDecision = "defer" // Hand the decision to the host's own policy.
)

// rank orders decisions for the merge: a higher rank wins. An empty or
// unknown decision ranks 0 (no vote).
func (d HookDecision) rank() int {
	switch d {
	case DecisionAllow:
		return 1
	case DecisionAsk:
		return 2
	case DecisionDefer:
		return 3
	case DecisionDeny:
		return 4
	}
	return 0
}

// Valid reports whether d is one of the four decisions.
func (d HookDecision) Valid() bool { return d.rank() > 0 }

// UnmarshalJSON accepts the four decisions and the empty string (no vote),
// and refuses anything else with a message that quotes it.
func (d *HookDecision) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("plugin: hook decision must be a string: %w", err)
	}
	if s != "" && !HookDecision(s).Valid() {
		return fmt.Errorf("plugin: unknown hook decision %q (valid: allow, deny, ask, defer)", s)
	}
	*d = HookDecision(s)
	return nil
}

// HookResult is a handler's answer.
//
// A nil *HookResult, or one whose Decision is empty, abstains: it is not a
// vote. An abstaining result's Data is still merged. A Decision that is not
// one of the four is an error of the handler.
type HookResult struct {
	Decision HookDecision   `json:"decision"`
	Message  string         `json:"message,omitempty"` // explanation for deny/ask
	Data     map[string]any `json:"data,omitempty"`
}

// DataAdditionalContext is the key of HookResult.Data under which a handler
// gives the model text to read, whatever it votes: a string. The host adds
// it on SessionStart at the start of the new session, on SubAgentStart at
// the start of the sub-agent's session, on UserPromptSubmit after the
// prompt, and on PostToolUse and PostToolUseFailure after the tool's result;
// other events ignore it. Unlike other keys, the strings of several handlers
// are not replaced but joined, in dispatch order, with a blank line.
const DataAdditionalContext = "additional_context"

// HookHandler handles one lifecycle event.
//
// It must honour ctx: the Dispatcher cancels it at the dispatch deadline and
// abandons a handler that has not returned by then. The payload is the
// handler's own copy; see [Dispatcher] for what may and may not be changed.
// The Dispatcher never modifies a returned *HookResult, so a handler may
// return the same result on every call.
type HookHandler func(ctx context.Context, payload *HookPayload) (*HookResult, error)
