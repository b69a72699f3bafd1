package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/internal/tool"
)

// prompt is a slash command of the catalog (App.Claude) offered as an MCP
// prompt, under the name the catalog lists it by.
type prompt struct {
	name string
	// positional: the body uses $1…$9, and args are those, in order;
	// otherwise args is one argument, "arguments" ($ARGUMENTS, or what is
	// appended after the body), or none.
	positional bool
	args       []promptArg
}

// promptArg is one argument of a prompt.
type promptArg struct {
	name     string
	hint     string   // its token of the command's argument-hint, as written
	choices  []string // the alternatives the hint gives ("[major|minor|patch]")
	paths    bool     // it names a file: completed with the project's paths
	required bool     // "<name>" in the hint
}

// argumentsArg is the name of the one argument of a command that takes
// its arguments whole.
const argumentsArg = "arguments"

var (
	positionalRef = regexp.MustCompile(`\$([1-9])`)
	// hintToken is a "[name]" or "<name>" of an argument-hint.
	hintToken = regexp.MustCompile(`\[([^\[\]]*)\]|<([^<>]*)>`)
	notInName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
)

// newPrompt derives the arguments of cmd from its body and argument-hint:
// a body that uses $1…$9 takes as many arguments as the highest it uses,
// named after the hint's tokens ("[pr] [priority]", "<file>"; a token of
// alternatives, "[major|minor|patch]", or none, names it argN); one that
// uses $ARGUMENTS, or has a hint, takes one, "arguments"; any other none.
func newPrompt(name string, cmd *claudecode.Command) *prompt {
	p := &prompt{name: name}
	n := 0
	for _, m := range positionalRef.FindAllStringSubmatch(cmd.Body, -1) {
		n = max(n, int(m[1][0]-'0'))
	}
	tokens := hintTokens(cmd.ArgumentHint)
	if n == 0 {
		if strings.Contains(cmd.Body, "$ARGUMENTS") || strings.TrimSpace(cmd.ArgumentHint) != "" {
			a := promptArg{name: argumentsArg, hint: strings.TrimSpace(cmd.ArgumentHint)}
			if len(tokens) == 1 {
				a.choices, a.paths = tokens[0].choices, tokens[0].paths
			} else {
				a.paths = pathLike(a.hint)
			}
			p.args = []promptArg{a}
		}
		return p
	}
	p.positional = true
	seen := map[string]bool{}
	for i := range n {
		a := promptArg{name: "arg" + strconv.Itoa(i+1)}
		if i < len(tokens) {
			t := tokens[i]
			a.hint, a.choices, a.paths, a.required = t.hint, t.choices, t.paths, t.required
			if t.name != "" {
				a.name = t.name
			}
		}
		for base, k := a.name, 2; seen[a.name]; k++ {
			a.name = base + "_" + strconv.Itoa(k)
		}
		seen[a.name] = true
		p.args = append(p.args, a)
	}
	return p
}

// hintTokens splits an argument-hint into its arguments: its "[…]" and
// "<…>" tokens, or, without any, its words.
func hintTokens(hint string) []promptArg {
	var out []promptArg
	add := func(text, written string, required bool) {
		t := promptArg{hint: written, required: required, paths: pathLike(text)}
		if strings.Contains(text, "|") {
			for c := range strings.SplitSeq(text, "|") {
				if c = strings.TrimSpace(c); c != "" {
					t.choices = append(t.choices, c)
				}
			}
		} else {
			t.name = strings.Trim(notInName.ReplaceAllString(strings.TrimSpace(text), "_"), "_")
		}
		out = append(out, t)
	}
	for _, m := range hintToken.FindAllStringSubmatch(hint, -1) {
		if m[0][0] == '<' {
			add(m[2], m[0], true)
		} else {
			add(m[1], m[0], false)
		}
	}
	if len(out) == 0 {
		for _, w := range strings.Fields(hint) {
			add(w, w, false)
		}
	}
	return out
}

// pathLike reports an argument that names a file.
func pathLike(s string) bool {
	s = strings.ToLower(s)
	return strings.HasPrefix(s, "@") || strings.Contains(s, "file") || strings.Contains(s, "path") || strings.Contains(s, "dir")
}

// describe is the prompt as prompts/list shows it.
func (p *prompt) describe(cmd *claudecode.Command) *mcp.Prompt {
	mp := &mcp.Prompt{Name: p.name, Description: cmd.Description}
	if mp.Description == "" {
		mp.Description = "/" + p.name
	}
	for i, a := range p.args {
		d := "The command's arguments"
		if p.positional {
			d = fmt.Sprintf("The command's $%d", i+1)
		}
		switch {
		case len(a.choices) > 0:
			d += ": one of " + strings.Join(a.choices, ", ")
		case a.hint != "":
			d += ": " + a.hint
		}
		mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.name, Description: d, Required: a.required})
	}
	return mp
}

func (p *prompt) arg(name string) *promptArg {
	for i := range p.args {
		if p.args[i].name == name {
			return &p.args[i]
		}
	}
	return nil
}

// invocation is the arguments of "/name args" that values give: a
// positional prompt's values quoted into words as the command splits them
// (claudecode.Command.Expand), the arguments of another as they are.
func (p *prompt) invocation(values map[string]string) (string, error) {
	for k := range values {
		if p.arg(k) == nil {
			names := make([]string, len(p.args))
			for i, a := range p.args {
				names[i] = a.name
			}
			return "", fmt.Errorf("prompt %s has no argument %q (it has: %s)", p.name, k, strings.Join(names, ", "))
		}
	}
	for _, a := range p.args {
		if _, ok := values[a.name]; a.required && !ok {
			return "", fmt.Errorf("prompt %s needs its argument %q", p.name, a.name)
		}
	}
	if !p.positional {
		return values[argumentsArg], nil
	}
	var words []string
	last := 0 // words up to the last argument given
	for i, a := range p.args {
		v, ok := values[a.name]
		if ok {
			last = i + 1
		}
		words = append(words, quoteWord(v))
	}
	return strings.Join(words[:last], " "), nil
}

// quoteWord is v as one word of a command's arguments: in double quotes
// when it holds spaces or quotes (a double quote itself in single ones),
// so that splitting the arguments gives v back.
func quoteWord(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\r\n\"'") {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `"'"'"`) + `"`
}

// addPrompts offers the catalog's commands as prompts. The catalog is
// fixed once booted, so the list does not change (no list_changed); a
// project's command whose files changed since they were trusted is left
// out of prompts/list and refused by prompts/get (usablePrompts, the
// catalog's check).
func (f *features) addPrompts() {
	f.prompts = map[string]*prompt{}
	for _, c := range f.s.app.Claude.Commands() {
		p := newPrompt(c.Name, c.Value)
		f.prompts[c.Name] = p
		f.s.mcp.AddPrompt(p.describe(c.Value), f.getPrompt)
	}
}

// usablePrompts is list without the prompts whose command may not be used
// now (its source's trust check fails); each source is checked once.
func (f *features) usablePrompts(list []*mcp.Prompt) []*mcp.Prompt {
	sources := map[string]*claudecode.Source{}
	for _, c := range f.s.app.Claude.Commands() {
		sources[c.Name] = c.Value.Source
	}
	checked := map[*claudecode.Source]error{}
	return slices.DeleteFunc(list, func(mp *mcp.Prompt) bool {
		src, ok := sources[mp.Name]
		switch {
		case !ok:
			return true
		case src == nil || src.Check == nil:
			return false
		}
		err, done := checked[src]
		if !done {
			err = src.Check()
			checked[src] = err
		}
		return err != nil
	})
}

// getPrompt expands the command as a turn does (agent: turn.expand): its
// "!`command`" lines run as bash tool calls and its "@path" references,
// the arguments' too, are read by read tool calls, each through the whole
// path of a call (the guard, the hooks) with the scope of a tools/call
// (channel "mcp"). The expanded text, redacted, is one user message; an
// image or audio file an @file reference read follows it, a message each.
func (f *features) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Name
	p := f.prompts[name]
	if p == nil {
		return nil, invalid(fmt.Errorf("unknown prompt %q", name))
	}
	args, err := p.invocation(req.Params.Arguments)
	if err != nil {
		return nil, invalid(err)
	}
	cmd, err := f.s.app.Claude.Command(name) // its source's trust, checked again
	if err != nil {
		return nil, f.refusal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(f.s.stopped, cancel)()
	defer cancel()
	ctx, root, err := f.root(ctx)
	if err != nil {
		return nil, f.refusal(err)
	}
	var attached []tool.Attachment // what the @file reads returned besides text (an image)
	text, err := cmd.Expand(ctx, args, claudecode.Runner{ArgFiles: true,
		Shell: func(ctx context.Context, command string) (string, error) {
			res, _, err := f.s.callTool(ctx, root, "bash", map[string]any{"command": command})
			return res.Output, err
		},
		File: func(ctx context.Context, path string) (string, bool, error) {
			// As a turn: a mention of no file in the project (a handle,
			// an address) stays text, without a call; one outside it is
			// the read tool's to refuse.
			p := path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			if _, inside := beneath(filepath.Clean(p), root); inside {
				// Lstat: whether a link's target exists outside is the
				// read tool's to refuse to tell.
				if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
					return "", false, nil
				}
			}
			res, _, err := f.s.callTool(ctx, root, readTool, map[string]any{"path": path})
			if err != nil {
				return "", false, err
			}
			attached = append(attached, res.Attachments...)
			return res.Output, true, nil
		},
	})
	if err != nil {
		return nil, f.refusal(fmt.Errorf("expanding /%s: %w", name, err))
	}
	msgs := []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: f.s.app.Redact.String(text)}}}
	for _, a := range attached {
		msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: f.s.attachment(a)})
	}
	return &mcp.GetPromptResult{Description: cmd.Description, Messages: msgs}, nil
}
