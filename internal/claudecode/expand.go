package claudecode

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Invocation splits a prompt that invokes a slash command ("/name args")
// into the name and the arguments; ok is false for any other prompt.
func Invocation(prompt string) (name, args string, ok bool) {
	p := strings.TrimLeft(prompt, " \t\r\n")
	if !strings.HasPrefix(p, "/") {
		return "", "", false
	}
	p = p[1:]
	end := strings.IndexAny(p, " \t\r\n")
	if end < 0 {
		end = len(p)
	}
	name = p[:end]
	for _, part := range strings.Split(name, ":") {
		if !names.MatchString(part) {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(p[end:]), true
}

// Runner runs what a command's body asks for before the model reads it.
type Runner struct {
	// Shell runs the command of a "!`command`" in the body and returns its
	// output; an error's text is what the model reads instead.
	Shell func(ctx context.Context, command string) (string, error)
	// File reads the file of an "@path" reference; ok false leaves the
	// reference as it is written (no such file: an e-mail address, a
	// handle).
	File func(ctx context.Context, path string) (content string, ok bool, err error)
	// ArgFiles reads the "@path" references the arguments make too, as
	// Claude Code does for the person who typed them; without it only the
	// body's are read (arguments from a webhook's sender name no file).
	ArgFiles bool
}

var (
	shellRef = regexp.MustCompile("!`([^`\n]+)`")
	fileRef  = regexp.MustCompile(`(^|[\s(])@([A-Za-z0-9_./~-][^\s)]*)`)
	argRef   = regexp.MustCompile(`\$(ARGUMENTS|[1-9])`)
)

// MaxFileRefs bounds the @file references one expansion reads (each a read
// call through the hooks): the arguments of a command may come from a
// client of /mcp.
const MaxFileRefs = 20

// Expand is the prompt that "/name args" becomes, as Claude Code expands
// it. The body's "!`command`" lines are found in the body as written,
// before anything is put into it, so arguments never add one. Then:
//
//  1. In the text, $ARGUMENTS is replaced by args, and $1…$9 by its words
//     (quotes group words); a body that names neither gets "ARGUMENTS:
//     args" appended when args is not empty.
//  2. Each "@path" that names a file has the file's content appended, once
//     per file: the body's, and with Runner.ArgFiles the arguments' too.
//  3. Each "!`command`" runs (r.Shell) as written, and is replaced by its
//     output (never read again); a refused or failed one by why. A command
//     that uses $ARGUMENTS or $1…$9 gets them as the shell's own variables
//     and positional parameters, set in front of it ("set -- 'a' 'b';
//     ARGUMENTS='a b'; command"), so the shell quotes them where the
//     command does: an argument is data, never code. allowed-tools do not
//     narrow what runs: Claude Code refuses a command outside them because
//     it cannot ask then, where Podcode's r.Shell goes through the user's
//     rules (which may ask), as any bash call does.
func (c *Command) Expand(ctx context.Context, args string, r Runner) (string, error) {
	words := splitArgs(args)
	subst := func(s string) string {
		return argRef.ReplaceAllStringFunc(s, func(a string) string {
			if a == "$ARGUMENTS" {
				return args
			}
			if n := int(a[1] - '0'); n <= len(words) {
				return words[n-1]
			}
			return ""
		})
	}
	// The body in parts: text (even) and shell lines (odd).
	var parts []string
	last := 0
	for _, loc := range shellRef.FindAllStringSubmatchIndex(c.Body, -1) {
		parts = append(parts, c.Body[last:loc[0]], c.Body[loc[2]:loc[3]])
		last = loc[1]
	}
	parts = append(parts, c.Body[last:])
	appendArgs := args != "" && !argRef.MatchString(c.Body)
	var refs []string // where "@path" references are looked for
	for i := 0; i < len(parts); i += 2 {
		if r.ArgFiles {
			refs = append(refs, subst(parts[i]))
		} else {
			refs = append(refs, parts[i])
		}
	}
	if appendArgs && r.ArgFiles {
		refs = append(refs, args)
	}
	var files strings.Builder
	if r.File != nil {
		seen := map[string]bool{}
		for _, m := range fileRef.FindAllStringSubmatch(strings.Join(refs, "\n"), -1) {
			path := strings.TrimRight(m[2], ".,;:!?")
			if seen[filepath.Clean(path)] || strings.Contains(path, "@") {
				continue
			}
			if len(seen) == MaxFileRefs {
				fmt.Fprintf(&files, "\n\n(@%s and the references after it were not read: at most %d files a command)", path, MaxFileRefs)
				break
			}
			seen[filepath.Clean(path)] = true
			content, ok, err := r.File(ctx, path)
			if err != nil {
				if ctx.Err() != nil {
					return "", ctx.Err()
				}
				fmt.Fprintf(&files, "\n\n@%s could not be read: %v", path, err)
				continue
			}
			if ok {
				fmt.Fprintf(&files, "\n\nContents of @%s:\n%s", path, content)
			}
		}
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(subst(p))
			continue
		}
		if r.Shell == nil {
			b.WriteString("(not run: commands cannot run here)")
			continue
		}
		run := p
		if argRef.MatchString(p) {
			q := make([]string, len(words))
			for i, w := range words {
				q[i] = quote(w)
			}
			run = fmt.Sprintf("set -- %s; ARGUMENTS=%s; %s", strings.Join(q, " "), quote(args), p)
		}
		out, err := r.Shell(ctx, run)
		switch {
		case err != nil && ctx.Err() != nil:
			return "", ctx.Err()
		case err != nil:
			fmt.Fprintf(&b, "(%s failed: %v)", p, err)
		default:
			b.WriteString(strings.TrimRight(out, "\n"))
		}
	}
	text := b.String()
	if appendArgs {
		text = strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + args
	}
	return text + files.String(), nil
}

// splitArgs splits args into words at spaces; quotes (single or double)
// group words and are removed.
func splitArgs(args string) []string {
	var out []string
	var cur strings.Builder
	in, any := rune(0), false
	for _, r := range args {
		switch {
		case in != 0 && r == in:
			in = 0
		case in == 0 && (r == '"' || r == '\''):
			in, any = r, true
		case in == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if any {
				out = append(out, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}

func quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil { // a NUL byte or invalid UTF-8: nothing a shell takes
		return "''"
	}
	return q
}
