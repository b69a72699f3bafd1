package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
)

// maxCommand is the longest slash command's name a prompt may take: the
// longest name a prompt may invoke (claudecode.Invocation).
const maxCommand = 128

// maxPromptBytes bounds the text a prompt's messages make.
const maxPromptBytes = 256 << 10

// Bounds of a prompt's arguments: how many, and a name's length (a name
// is sent back as written, so it is not cut: a prompt past either is left
// out).
const (
	maxArguments = 32
	maxArgName   = 128
)

// Prompt is one of a server's prompts, as the slash command
// /mcp__<server>__<prompt> offers it.
type Prompt struct {
	Server      string           `json:"server"`
	Name        string           `json:"name"`    // as the server names it
	Command     string           `json:"command"` // PromptCommand(Server, Name)
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is an argument a prompt declares.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptCommand is the slash command a server's prompt is invoked by:
// mcp__<server>__<prompt>, Claude Code's name, sanitized as ClaudeName
// sanitizes a tool's (a character outside [A-Za-z0-9_-] becomes "_").
func PromptCommand(server, prompt string) string { return ClaudeName(server, prompt) }

// ArgumentHint is how the command's arguments are shown: "<city> [state]",
// a required one in angle brackets, an optional one in square brackets.
func (p Prompt) ArgumentHint() string {
	var parts []string
	for _, a := range p.Arguments {
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}

// ErrNoPrompt is the error of a command no server's prompt is invoked by.
var ErrNoPrompt = errors.New("no MCP server's prompt")

// listPrompts lists the server's prompts (prompts/list, bounded) and makes
// them the server's, if session is still the one calls use. A prompt
// whose command would be too long to type, or the same as an earlier
// one's, or whose arguments pass their bounds, is left out with a warning.
func (s *Server) listPrompts(ctx context.Context, session *sdk.ClientSession) error {
	got, cut, err := pages(ctx, maxPrompts, func(ctx context.Context, cursor string) ([]*sdk.Prompt, string, error) {
		res, err := session.ListPrompts(ctx, &sdk.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	})
	if err != nil {
		return err
	}
	if cut {
		s.log.Warn("mcp: the server lists more prompts than Podcode takes from one server; the rest are left out", "max", maxPrompts)
	}
	var list []Prompt
	seen := map[string]string{}
	for _, p := range got {
		if p == nil || p.Name == "" {
			continue
		}
		cmd := PromptCommand(s.spec.Name, p.Name)
		if len(cmd) > maxCommand {
			s.log.Warn("mcp: the prompt's command would be too long to type; it is left out", "prompt", chat.Shorten(p.Name, 80), "max", maxCommand)
			continue
		}
		if other, dup := seen[cmd]; dup {
			s.log.Warn("mcp: two prompts of the server make the same command; the second is left out", "prompt", p.Name, "other", other, "command", cmd)
			continue
		}
		seen[cmd] = p.Name
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		pr := Prompt{Server: s.spec.Name, Name: p.Name, Command: cmd, Description: chat.Shorten(desc, maxDescription)}
		for _, a := range p.Arguments {
			if a == nil || a.Name == "" {
				continue
			}
			pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: chat.Shorten(a.Description, maxDescription), Required: a.Required})
		}
		if len(pr.Arguments) > maxArguments || slices.ContainsFunc(pr.Arguments, func(a PromptArgument) bool { return len(a.Name) > maxArgName }) {
			s.log.Warn("mcp: the prompt declares more arguments, or longer names, than Podcode takes; it is left out", "prompt", p.Name,
				"max_arguments", maxArguments, "max_name", maxArgName)
			continue
		}
		list = append(list, pr)
	}
	s.current(session, func() { s.offered.promptList = list })
	return nil
}

// Prompts lists the prompts of the servers that are ready, in the order of
// the servers (a command two servers' prompts share is the first's).
func (h *Hub) Prompts() []Prompt {
	var out []Prompt
	seen := map[string]bool{}
	for _, s := range h.servers() {
		s.mu.Lock()
		if s.state == StateReady {
			for _, p := range s.offered.promptList {
				if !seen[p.Command] {
					seen[p.Command] = true
					out = append(out, p)
				}
			}
		}
		s.mu.Unlock()
	}
	return out
}

// Prompt finds the prompt command invokes, and its server. A command of a
// server that is not running (a prompt it listed before, or any
// mcp__<server>__… of a server never ready) is an error that says the
// server is not running; a command of no server is ErrNoPrompt.
func (h *Hub) Prompt(command string) (*Server, Prompt, error) {
	var down *Server
	for _, s := range h.servers() {
		s.mu.Lock()
		i := indexPrompt(s.offered.promptList, command)
		ready := s.state == StateReady
		var p Prompt
		if i >= 0 {
			p = s.offered.promptList[i]
		}
		s.mu.Unlock()
		switch {
		case i >= 0 && ready:
			return s, p, nil
		case down == nil && !ready && (i >= 0 || strings.HasPrefix(command, "mcp__"+sanitize(s.spec.Name)+"__")):
			down = s
		}
	}
	if down != nil {
		_, err := down.currentSession()
		if err == nil { // it came up since
			err = fmt.Errorf("MCP server %q is not ready", down.spec.Name)
		}
		return nil, Prompt{}, fmt.Errorf("/%s: %w", command, err)
	}
	return nil, Prompt{}, fmt.Errorf("/%s: %w", command, ErrNoPrompt)
}

func indexPrompt(list []Prompt, command string) int {
	for i, p := range list {
		if p.Command == command {
			return i
		}
	}
	return -1
}

// Bind maps what follows the command to the prompt's arguments, as Claude
// Code does: the words in order (quotes group words, and are removed), the
// last argument taking the rest of the line as typed. A required argument
// left without a value is an error that names it. A prompt that declares
// no argument returns what was typed as extra, for the caller to add to
// the prompt's text.
func (p Prompt) Bind(args string) (values map[string]string, extra string, err error) {
	args = strings.TrimSpace(args)
	if len(p.Arguments) == 0 {
		return nil, args, nil
	}
	words, starts := splitWords(args)
	values = map[string]string{}
	for i, a := range p.Arguments {
		switch {
		case i >= len(words):
		case i == len(p.Arguments)-1 && len(words) > i+1:
			values[a.Name] = strings.TrimSpace(args[starts[i]:])
		default:
			values[a.Name] = words[i]
		}
	}
	for _, a := range p.Arguments {
		if _, ok := values[a.Name]; !ok && a.Required {
			return nil, "", fmt.Errorf("/%s needs its argument %q (%s)", p.Command, a.Name, p.ArgumentHint())
		}
	}
	return values, "", nil
}

// splitWords splits s into words at spaces, tabs and newlines; single or
// double quotes group words and are removed. starts are where each word
// begins in s.
func splitWords(s string) (words []string, starts []int) {
	var cur strings.Builder
	in, inWord, start := rune(0), false, 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case in != 0 && r == in:
			in = 0
		case in == 0 && (r == '"' || r == '\''):
			if !inWord {
				inWord, start = true, i
			}
			in = r
		case in == 0 && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			if inWord {
				words, starts = append(words, cur.String()), append(starts, start)
				cur.Reset()
				inWord = false
			}
		default:
			if !inWord {
				inWord, start = true, i
			}
			cur.WriteString(s[i : i+n]) // as typed, a byte that is not UTF-8 too
		}
		i += n
	}
	if inWord {
		words, starts = append(words, cur.String()), append(starts, start)
	}
	return words, starts
}

// GetPrompt gets the prompt with its arguments (prompts/get), with the
// turn's cancellation and the server's time limit, and returns the text
// its messages make (RenderPrompt).
func (s *Server) GetPrompt(ctx context.Context, p Prompt, args map[string]string) (string, error) {
	session, err := s.currentSession()
	if err != nil {
		return "", err
	}
	limit := s.callTimeout()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := session.GetPrompt(ctx, &sdk.GetPromptParams{Name: p.Name, Arguments: args})
	switch {
	case err == nil:
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && context.Cause(ctx) == context.DeadlineExceeded:
		return "", fmt.Errorf("MCP server %q: prompt %s did not answer within %s", s.spec.Name, p.Name, limit)
	default:
		return "", fmt.Errorf("MCP server %q: prompt %s: %w", s.spec.Name, p.Name, err)
	}
	return RenderPrompt(res), nil
}

// RenderPrompt is the text a prompt's messages make, the user message of
// the turn: each message's content as Render makes a tool's (text as it
// is; an image or audio described; an embedded resource by its text, or
// described when binary; a resource link by its name and URI), the
// messages apart by a blank line, an assistant's message after
// "Assistant: ". At most maxPromptBytes, then cut with a note.
func RenderPrompt(res *sdk.GetPromptResult) string {
	var b strings.Builder
	for _, m := range res.Messages {
		if m == nil || m.Content == nil {
			continue
		}
		text, _ := Render(&sdk.CallToolResult{Content: []sdk.Content{m.Content}})
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if m.Role == "assistant" {
			b.WriteString("Assistant: ")
		}
		b.WriteString(text)
		if b.Len() > maxPromptBytes {
			break
		}
	}
	return cut(b.String(), maxPromptBytes)
}

// cut cuts text at max bytes, at the start of a character, with a note.
func cut(text string, max int) string {
	if len(text) <= max {
		return text
	}
	n := max
	for n > 0 && !utf8Start(text[n]) {
		n--
	}
	return text[:n] + fmt.Sprintf("\n[cut at %d bytes]", max)
}
