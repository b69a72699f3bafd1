package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/podcode/podcode/internal/chat"
)

// OfflineModel is the built-in model that needs no key and no network. It
// is deterministic, for trying Podcode on a fresh machine and for testing
// plugins against fixed turns:
//
//   - when the latest user message has lines "/tool <id> <json-args>" and no
//     tool has answered since, it calls those tools, one call per line, in
//     order;
//   - otherwise it answers with text: the last tool result if there is one
//     since the latest user message, else the prompt itself; on the first
//     answer of a session on the cli channel (`podcode run`), the echo
//     adds Intro, for whoever expected a real model to answer.
type OfflineModel struct{}

// Intro is what the offline model tells a new user, after its first echo
// in a session of `podcode run`: what answered, and where it says how to
// configure a real model.
const Intro = "(This is Podcode's built-in offline model: no model provider is configured, so it echoes " +
	"your prompt, and a line \"/tool <id> <json-args>\" makes it call that tool. To talk to a real model, set " +
	"ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or add a provider (Bedrock, Vertex AI, OpenRouter, Ollama, " +
	"any OpenAI-compatible server) to your podcode.json: docs/providers.md says how; podcode models lists the models.)"

// Stream implements Provider.
func (OfflineModel) Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	last := -1
	for i, m := range req.Messages {
		if m.Role == chat.RoleUser {
			last = i
		}
	}
	var res Response
	var prompt string
	var lastResult *chat.Result
	if last >= 0 {
		prompt = req.Messages[last].Text
		for _, m := range req.Messages[last+1:] {
			if m.Role == chat.RoleTool && m.Result != nil {
				lastResult = m.Result
			}
		}
	}
	calls, problems := ParseToolLines(prompt)
	switch {
	case lastResult == nil && len(calls) > 0:
		for i := range calls {
			calls[i].ID = chat.NewID("call")
			onEvent(Event{ToolCall: &calls[i]})
		}
		res.ToolCalls, res.StopReason = calls, "tool_calls"
	case lastResult != nil:
		verb := "returned"
		if lastResult.IsError {
			verb = "failed"
		}
		res.Text = fmt.Sprintf("Tool %s %s:\n%s", lastResult.Tool, verb, lastResult.Output)
		res.StopReason = "stop"
	default:
		res.Text = "You said: " + prompt
		for _, p := range problems {
			res.Text += "\n(" + p + ")"
		}
		if req.Channel == "cli" && !slices.ContainsFunc(req.Messages, func(m chat.Message) bool { return m.Role == chat.RoleAssistant }) {
			res.Text += "\n\n" + Intro
		}
		res.StopReason = "stop"
	}
	if res.Text != "" {
		onEvent(Event{TextDelta: res.Text})
	}
	if res.Text != "" && res.StopReason == "stop" && req.Params.MaxOutputTokens > 0 {
		if max := req.Params.MaxOutputTokens * 4; len(res.Text) > max {
			res.Text, res.StopReason = res.Text[:max], "length"
		}
	}
	res.Usage = chat.Usage{Input: estimateTokens(req), Output: int64(len(res.Text)/4 + 16*len(res.ToolCalls))}
	return res, nil
}

// estimateTokens counts about four characters a token, as a real model's
// usage would, so that compaction and usage in hooks see plausible numbers.
func estimateTokens(req Request) int64 {
	n := len(req.System)
	for _, m := range req.Messages {
		n += m.Size()
	}
	return int64(n/4 + 1)
}

// ParseToolLines reads the "/tool <id> <json-args>" lines of a prompt. A
// line that starts with /tool but is malformed is not a call: it is
// described in problems (with its line number) instead.
func ParseToolLines(text string) (calls []chat.ToolCall, problems []string) {
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "/tool")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest = strings.TrimSpace(rest)
		id, args := rest, ""
		if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
			id, args = rest[:i], strings.TrimSpace(rest[i:])
		}
		if args == "" {
			args = "{}"
		}
		if id == "" {
			problems = append(problems, fmt.Sprintf("line %d: /tool needs a tool id", n+1))
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
			problems = append(problems, fmt.Sprintf("line %d: the arguments of /tool %s are not a JSON object", n+1, id))
			continue
		}
		calls = append(calls, chat.ToolCall{Tool: id, Args: json.RawMessage(args)})
	}
	return calls, problems
}
