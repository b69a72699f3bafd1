// Package chat is the vocabulary of a conversation, shared by the agent
// loop, the model providers, the store and the HTTP API: messages, tool
// calls and their results, token usage, and what the hooks did.
package chat

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Roles of a message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"    // the result of one tool call
	RoleSummary   = "summary" // older messages, compacted
	// RoleContext is text that lifecycle hooks gave the model to read
	// (plugin.DataAdditionalContext); the model reads it as user input.
	RoleContext = "context"
)

// Statuses of a message.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted" // the turn was cancelled or the server stopped mid-turn
	StatusError       = "error"
)

// Message is one message of a session.
type Message struct {
	ID        string     `json:"id"`
	SessionID string     `json:"sessionID"`
	Seq       int64      `json:"seq"` // order within the session
	Role      string     `json:"role"`
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"` // assistant messages
	Result    *Result    `json:"result,omitempty"`    // tool messages
	Hooks     []HookRun  `json:"hooks,omitempty"`     // what ran around this message
	Usage     *Usage     `json:"usage,omitempty"`     // assistant messages: the model call's tokens
	Model     string     `json:"model,omitempty"`     // assistant messages: the model that answered, "provider/model"
	// Reasoning is the thinking that came with an assistant message, kept
	// to be sent back to the model that made it (Model): see Reasoning.
	Reasoning []Reasoning `json:"reasoning,omitempty"`
	Through   int64       `json:"through,omitempty"` // summary messages: the last seq they summarize
	Status    string      `json:"status"`
	Error     string      `json:"error,omitempty"`
	CreatedAt time.Time   `json:"createdAt"`
}

// Size is the number of bytes of m a model reads: its text, its tool calls
// and its result (estimates of tokens start from it).
func (m *Message) Size() int {
	n := len(m.Text)
	for _, c := range m.ToolCalls {
		n += len(c.Args) + len(c.Tool)
	}
	if m.Result != nil {
		n += len(m.Result.Output)
	}
	return n
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID   string          `json:"id"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	// Signature is the provider's opaque token for the call (Gemini's
	// thought signature), sent back with it to the model that made it.
	Signature string `json:"signature,omitempty"`
}

// Reasoning is one piece of a model's thinking, as its provider gave it.
// What it holds is sent back unchanged, and only to the model that made it
// (the message's Model): Anthropic refuses a tool loop whose signed
// thinking was altered or left out, the Responses API continues its
// reasoning across tool calls only from its own encrypted items, Gemini
// from its thought signatures. A piece without Signature or Data (cut off
// mid-stream, or altered when secrets were redacted) is shown, never sent.
type Reasoning struct {
	Text      string `json:"text,omitempty"`      // the thinking as the model showed it (a summary, for OpenAI and Gemini)
	Signature string `json:"signature,omitempty"` // Anthropic: the thinking block's signature; Gemini: the part's thought signature
	Data      string `json:"data,omitempty"`      // opaque: Anthropic's redacted_thinking data, OpenAI's encrypted_content
	ID        string `json:"id,omitempty"`        // OpenAI: the reasoning item's id
}

// Result is the outcome of one tool call, as the model sees it.
type Result struct {
	CallID   string         `json:"callID"`
	Tool     string         `json:"tool"`
	Title    string         `json:"title,omitempty"`
	Output   string         `json:"output"`
	Metadata map[string]any `json:"metadata,omitempty"`
	IsError  bool           `json:"isError,omitempty"`
}

// Usage counts the tokens of a model call (or of a turn, a session: the
// sum of its calls) and what they cost. The counts mean the same for every
// provider: Input is every token the model read, those its prompt cache
// served or stored included; CacheRead and CacheWrite are the parts of
// Input read from and written to the cache; Output is every token it
// wrote, Reasoning the part of it that was thinking.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead,omitempty"`
	CacheWrite int64 `json:"cacheWrite,omitempty"`
	Reasoning  int64 `json:"reasoning,omitempty"`
	// Cost is in US dollars, at the model's prices in the catalog when
	// the call was made; 0 when its prices are not known.
	Cost float64 `json:"cost,omitempty"`
}

// Line is u for a person, as podcode run and the terminal chat write it:
// "tokens: 12,345 in (10,000 read from the cache), 678 out · $0.0123";
// "" for no model call.
func (u Usage) Line() string {
	if u.Input == 0 && u.Output == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tokens: %s in", thousands(u.Input))
	if u.CacheRead > 0 || u.CacheWrite > 0 {
		var parts []string
		if u.CacheRead > 0 {
			parts = append(parts, thousands(u.CacheRead)+" read from the cache")
		}
		if u.CacheWrite > 0 {
			parts = append(parts, thousands(u.CacheWrite)+" written to it")
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, ", %s out", thousands(u.Output))
	if u.Reasoning > 0 {
		fmt.Fprintf(&b, " (%s thinking)", thousands(u.Reasoning))
	}
	if u.Cost > 0 {
		fmt.Fprintf(&b, " · $%s", dollars(u.Cost))
	}
	return b.String()
}

// thousands writes n with commas between its thousands.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// dollars writes a cost with four significant decimals for small ones.
func dollars(c float64) string {
	if c >= 1 {
		return strconv.FormatFloat(c, 'f', 2, 64)
	}
	return strconv.FormatFloat(c, 'f', 4, 64)
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{Input: u.Input + v.Input, Output: u.Output + v.Output, CacheRead: u.CacheRead + v.CacheRead,
		CacheWrite: u.CacheWrite + v.CacheWrite, Reasoning: u.Reasoning + v.Reasoning, Cost: u.Cost + v.Cost}
}

// HookRun is one hook that ran: a plugin's pipeline hook or a lifecycle
// handler, in the order they ran.
//
// StartUs is when the run started, in microseconds after the start of the
// call it ran around, so that runs can be drawn as a waterfall:
//
//   - a tool call starts when Podcode takes it up, before its arguments are
//     validated; its PreToolUse handlers, tool.execute.before and
//     tool.execute.after steps and PostToolUse(Failure) handlers count
//     from there (the tool's execute and a wait for a permission answer
//     are the gaps between them);
//   - a model call starts when its chat.params pipeline starts;
//   - a lifecycle dispatch that is not part of a call (UserPromptSubmit,
//     AgentStop, PreCompact, SessionStart) counts from its own start, so a
//     run whose StartUs is lower than the one listed before it belongs to a
//     later dispatch.
//
// Input and Output are set for pipeline steps only: the JSON of what the
// step received and of what it returned, without the call's ctx (the same
// for every step, and not a hook's to change) (chat.params: the params
// object; tool.execute.before: {toolID, args}; tool.execute.after: the
// same plus result). Both are redacted like the rest of the message and at most
// MaxRunData bytes, cut with a note saying how long they were. Output is
// empty when the step returned nothing usable (unchanged, threw, timed
// out).
type HookRun struct {
	Kind       string `json:"kind"`    // "pipeline" or "lifecycle"
	Hook       string `json:"hook"`    // chat.params, tool.execute.before, PreToolUse, ...
	Source     string `json:"source"`  // the plugin id or handler source
	Outcome    string `json:"outcome"` // changed, unchanged, threw, timed_out, voted, abstained, ...
	Decision   string `json:"decision,omitempty"`
	Layer      string `json:"layer,omitempty"`   // a lifecycle handler's layer (config, plugin, project, ...)
	Message    string `json:"message,omitempty"` // a lifecycle handler's reason for its vote
	Error      string `json:"error,omitempty"`
	DurationUs int64  `json:"durationUs"`
	StartUs    int64  `json:"startUs"`
	Input      string `json:"input,omitempty"`  // pipeline steps: the JSON the step received
	Output     string `json:"output,omitempty"` // pipeline steps: the JSON the step returned
}

// MaxRunData bounds a HookRun's Input and Output, in bytes.
const MaxRunData = 4 << 10

// Title is a session's title made from its first prompt: the prompt's
// first line, shortened.
func Title(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	return Shorten(line, 60)
}

// Shorten writes s on one line (runs of white space become one space) and,
// when that is longer than n bytes, keeps at most n of them, cut before a
// rune that would cross n, and adds "…".
func Shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
