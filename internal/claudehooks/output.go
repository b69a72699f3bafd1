package claudehooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/podcode/podcode/plugin"
)

// Keys of HookResult.Data a Claude Code hook can fill.
const (
	// DataSystemMessage is systemMessage, a warning for the user.
	DataSystemMessage = "system_message"
	// DataUpdatedInput is PreToolUse's updatedInput, in Podcode's argument
	// names. Podcode cannot apply it (see fromClaudeOutput).
	DataUpdatedInput = "updated_input"
	// DataUpdatedToolOutput is PostToolUse's updatedToolOutput, which
	// Podcode does not apply.
	DataUpdatedToolOutput = "updated_tool_output"
)

// How an event reads a hook's answer.
type control int

const (
	gate     control = iota // PreToolUse: permissionDecision, legacy decision approve|block
	block                   // decision "block" denies: UserPromptSubmit, PostToolUse[Failure], PreCompact
	stop                    // Stop, SubagentStop: block denies the stop (the turn goes on)
	contexts                // SessionStart, SubagentStart: context only, never a vote
	none                    // SessionEnd, PostCompact: output ignored
)

var controls = map[string]control{
	"PreToolUse":         gate,
	"UserPromptSubmit":   block,
	"PostToolUse":        block,
	"PostToolUseFailure": block,
	"PreCompact":         block,
	"Stop":               stop,
	"SubagentStop":       stop,
	"SessionStart":       contexts,
	"SubagentStart":      contexts,
	"SessionEnd":         none,
	"PostCompact":        none,
}

// plainContext lists the events where plain stdout on exit 0 is context for
// the model, as in Claude Code.
var plainContext = map[string]bool{"UserPromptSubmit": true, "SessionStart": true}

// output is the JSON a Claude Code hook may print. Pointers tell a field
// left out from one set to its zero value.
type output struct {
	Continue           *bool            `json:"continue"`
	StopReason         *string          `json:"stopReason"`
	SuppressOutput     *bool            `json:"suppressOutput"`
	SystemMessage      *string          `json:"systemMessage"`
	Decision           *string          `json:"decision"`
	Reason             *string          `json:"reason"`
	HookSpecificOutput *specificOutput  `json:"hookSpecificOutput"`
	TerminalSequence   *json.RawMessage `json:"terminalSequence"`
}

type specificOutput struct {
	HookEventName            *string          `json:"hookEventName"`
	PermissionDecision       *string          `json:"permissionDecision"`
	PermissionDecisionReason *string          `json:"permissionDecisionReason"`
	UpdatedInput             map[string]any   `json:"updatedInput"`
	AdditionalContext        *string          `json:"additionalContext"`
	UpdatedToolOutput        *json.RawMessage `json:"updatedToolOutput"`
	UpdatedMCPToolOutput     *json.RawMessage `json:"updatedMCPToolOutput"`
}

// setsField reports whether o sets any field Claude Code reads.
func (o *output) setsField() bool {
	return o.Continue != nil || o.StopReason != nil || o.SuppressOutput != nil || o.SystemMessage != nil ||
		o.Decision != nil || o.Reason != nil || o.HookSpecificOutput != nil || o.TerminalSequence != nil
}

// errNotJSON: stdout is plain text, not an attempt at JSON.
var errNotJSON = errors.New("plain text")

// parseOutput reads stdout the way Claude Code does: it is JSON when,
// trimmed, it starts with '{' and ends with '}'; anything else is plain
// text (errNotJSON). Several lines that each parse as JSON and set no field
// are plain text too. JSON that does not decode, or that holds a value of
// the wrong type or an unknown decision, is an error.
func parseOutput(stdout []byte) (*output, error) {
	t := bytes.TrimSpace(stdout)
	if len(t) == 0 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, errNotJSON
	}
	var o output
	err := json.Unmarshal(t, &o)
	if err != nil {
		if lines := bytes.Split(t, []byte("\n")); len(lines) > 1 && allJSONWithoutFields(lines) {
			return nil, errNotJSON
		}
		return nil, fmt.Errorf("its output is not valid hook JSON: %v", err)
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("its output is not valid hook JSON: %v", err)
	}
	return &o, nil
}

func allJSONWithoutFields(lines [][]byte) bool {
	for _, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || !json.Valid(l) {
			return false
		}
		var o output
		if l[0] == '{' && json.Unmarshal(l, &o) == nil && o.setsField() {
			return false
		}
	}
	return true
}

func (o *output) validate() error {
	if o.Decision != nil {
		switch *o.Decision {
		case "approve", "block", "":
		default:
			return fmt.Errorf(`decision %q: must be "block" (or, for PreToolUse, the deprecated "approve")`, *o.Decision)
		}
	}
	if s := o.HookSpecificOutput; s != nil && s.PermissionDecision != nil {
		switch *s.PermissionDecision {
		case "allow", "deny", "ask", "defer", "":
		default:
			return fmt.Errorf(`permissionDecision %q: must be "allow", "deny", "ask" or "defer"`, *s.PermissionDecision)
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// fromClaudeOutput translates how a Claude Code hook of event (Claude Code's
// name) ended into a vote. exitCode is the command's exit status; stdout and
// stderr are what it printed.
//
//   - Exit 2 blocks: a deny on PreToolUse, UserPromptSubmit, PostToolUse,
//     PostToolUseFailure, PreCompact, Stop and SubagentStop (on Stop it keeps
//     the turn going, as in Claude Code), with the reason of a blocking JSON
//     decision or else stderr as the message. On the events that cannot
//     block (SessionStart, SubagentStart, SessionEnd, PostCompact) it is a
//     non-blocking error.
//   - Exit 0: JSON on stdout decides (see docs/claude-hooks.md); plain text
//     is context for UserPromptSubmit and SessionStart
//     (Data[plugin.DataAdditionalContext]) and ignored elsewhere; nothing abstains.
//   - Any other exit: a non-blocking error (the dispatcher logs it and
//     carries on), unless stdout is JSON that sets a field, which then
//     decides as on exit 0, as in Claude Code.
//
// Invalid JSON on stdout is a non-blocking error, except on exit 2, which
// blocks anyway with stderr or, when stderr is empty, a reason the JSON
// still gives (looseReason).
func fromClaudeOutput(event string, exitCode int, stdout, stderr []byte) (*plugin.HookResult, error) {
	ctl, ok := controls[event]
	if !ok {
		//lint:ignore ST1005 the message starts with a product name
		return nil, fmt.Errorf("Podcode does not run %s hooks", event)
	}
	o, perr := parseOutput(stdout)
	if exitCode == 2 {
		if ctl == contexts || ctl == none {
			return nil, fmt.Errorf("exit status 2 (%s cannot block): %s", event, firstLine(stderr))
		}
		res := &plugin.HookResult{Decision: plugin.DecisionDeny}
		if perr == nil {
			o.data(ctl, res)
			if d, msg := o.vote(event, ctl); d == plugin.DecisionDeny && msg != "" {
				res.Message = msg
			}
		}
		if res.Message == "" {
			res.Message = strings.TrimSpace(string(stderr))
		}
		if res.Message == "" && perr != nil {
			res.Message = looseReason(stdout)
		}
		if res.Message == "" {
			res.Message = fmt.Sprintf("a Claude Code %s hook blocked it (exit status 2)", event)
		}
		return clean(res), nil
	}
	if errors.Is(perr, errNotJSON) {
		if exitCode != 0 {
			return nil, fmt.Errorf("exit status %d: %s", exitCode, firstLine(stderr))
		}
		text := strings.TrimSpace(string(stdout))
		if text == "" || !plainContext[event] {
			return nil, nil
		}
		return &plugin.HookResult{Data: map[string]any{plugin.DataAdditionalContext: text}}, nil
	}
	if perr != nil {
		if exitCode != 0 {
			return nil, fmt.Errorf("exit status %d: %s; %v", exitCode, firstLine(stderr), perr)
		}
		return nil, perr
	}
	if exitCode != 0 && !o.setsField() {
		return nil, fmt.Errorf("exit status %d: %s", exitCode, firstLine(stderr))
	}
	res := &plugin.HookResult{}
	o.data(ctl, res)
	res.Decision, res.Message = o.vote(event, ctl)
	return clean(res), nil
}

// looseReason is the reason a hook that exits 2 gives in JSON that is not
// valid hook output, most often a decision Claude Code does not know
// ({"decision": "deny", "reason": ...}, written for hosts that take it): the
// call is blocked anyway, and the author's words tell the model why better
// than a generic message. "" when stdout holds no such string.
func looseReason(stdout []byte) string {
	var o struct {
		Reason             any `json:"reason"`
		StopReason         any `json:"stopReason"`
		HookSpecificOutput struct {
			PermissionDecisionReason any `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(bytes.TrimSpace(stdout), &o) != nil {
		return ""
	}
	for _, v := range []any{o.Reason, o.HookSpecificOutput.PermissionDecisionReason, o.StopReason} {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// clean returns nil for a result that neither votes nor carries data.
func clean(r *plugin.HookResult) *plugin.HookResult {
	if r.Decision == "" && len(r.Data) == 0 {
		return nil
	}
	return r
}

// data copies the fields that carry information, not a vote.
func (o *output) data(ctl control, res *plugin.HookResult) {
	if ctl == none {
		return
	}
	set := func(k string, v any) {
		if res.Data == nil {
			res.Data = map[string]any{}
		}
		res.Data[k] = v
	}
	if o.SystemMessage != nil && *o.SystemMessage != "" {
		set(DataSystemMessage, *o.SystemMessage)
	}
	s := o.HookSpecificOutput
	if s == nil {
		return
	}
	if s.AdditionalContext != nil && *s.AdditionalContext != "" {
		set(plugin.DataAdditionalContext, *s.AdditionalContext)
	}
	if s.UpdatedInput != nil && ctl == gate {
		set(DataUpdatedInput, s.UpdatedInput)
	}
	if out := s.UpdatedToolOutput; out != nil || s.UpdatedMCPToolOutput != nil {
		if out == nil {
			out = s.UpdatedMCPToolOutput
		}
		var v any
		if json.Unmarshal(*out, &v) == nil {
			set(DataUpdatedToolOutput, v)
		}
	}
}

// vote is the decision a parsed answer makes for event, and its message.
func (o *output) vote(event string, ctl control) (plugin.HookDecision, string) {
	stopped := o.Continue != nil && !*o.Continue
	stopMsg := deref(o.StopReason)
	if stopMsg == "" {
		stopMsg = fmt.Sprintf("a Claude Code %s hook stopped processing (continue: false)", event)
	}
	decision, reason := deref(o.Decision), deref(o.Reason)
	var context string
	if s := o.HookSpecificOutput; s != nil {
		context = deref(s.AdditionalContext)
	}
	switch ctl {
	case gate:
		if stopped {
			return plugin.DecisionDeny, stopMsg
		}
		d, msg := plugin.HookDecision(""), reason
		switch decision {
		case "approve":
			d = plugin.DecisionAllow
		case "block":
			d = plugin.DecisionDeny
		}
		if s := o.HookSpecificOutput; s != nil && deref(s.PermissionDecision) != "" {
			d, msg = plugin.HookDecision(*s.PermissionDecision), deref(s.PermissionDecisionReason)
		}
		if s := o.HookSpecificOutput; s != nil && s.UpdatedInput != nil && d != plugin.DecisionDeny && d != plugin.DecisionDefer {
			// Podcode's lifecycle handlers cannot rewrite a tool's
			// arguments; running the original ones instead of the
			// rewritten ones could run exactly what the hook meant to
			// change, so the call is refused.
			return plugin.DecisionDeny, "a Claude Code PreToolUse hook rewrote the tool's input (updatedInput), which Podcode cannot apply; rewrite arguments in a tool.execute.before plugin hook instead"
		}
		if d == plugin.DecisionDeny && msg == "" {
			msg = "a Claude Code PreToolUse hook denied it"
		}
		return d, msg
	case block:
		if stopped && event != "PreCompact" { // PreCompact discards continue
			return plugin.DecisionDeny, stopMsg
		}
		if decision == "block" {
			if reason == "" {
				reason = fmt.Sprintf("a Claude Code %s hook blocked it", event)
			}
			return plugin.DecisionDeny, reason
		}
	case stop:
		if stopped {
			// continue: false wins over everything: the agent stops, which
			// is what allowing the stop means.
			return plugin.DecisionAllow, stopMsg
		}
		if decision == "block" {
			if reason == "" {
				reason = "Continue."
			}
			return plugin.DecisionDeny, reason
		}
		if context != "" {
			// Non-error feedback: Claude Code goes on with it, like block.
			return plugin.DecisionDeny, context
		}
	case contexts:
		if stopped && event == "SessionStart" {
			return plugin.DecisionDeny, stopMsg
		}
	}
	return "", ""
}

// firstLine is the first non-empty line of a command's stderr, or a note
// that it wrote none.
func firstLine(stderr []byte) string {
	for _, l := range strings.Split(string(stderr), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "(no stderr)"
}
