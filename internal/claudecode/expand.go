package claudecode

import (
	"context"
	"fmt"
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
}

var (
	shellRef = regexp.MustCompile("!`([^`\n]+)`")
	fileRef  = regexp.MustCompile(`(^|[\s(])@([A-Za-z0-9_./~-][^\s)]*)`)
	argRef   = regexp.MustCompile(`\$(ARGUMENTS|[1-9])`)
)

// Expand is the prompt that "/name args" becomes, as Claude Code expands
// it, in this order:
//
//  1. $ARGUMENTS is replaced by args, and $1…$9 by its words (quotes group
//     words); a body that names neither gets "ARGUMENTS: args" appended
//     when args is not empty. Inside a "!`command`", each word is quoted
//     for the shell, so arguments are never run as code.
//  2. Each "@path" of the text (the body's and the arguments') that names
//     a file has the file's content appended, once per file.
//  3. Each "!`command`" runs (r.Shell) and is replaced by its output; a
//     refused or failed one by why. allowed-tools do not narrow what
//     runs: Claude Code refuses a command outside them because it cannot
//     ask then, where Podcode's r.Shell goes through the user's rules
//     (which may ask), as any bash call does.
func (c *Command) Expand(ctx context.Context, args string, r Runner) (string, error) {
	words := splitArgs(args)
	text := c.Body
	appendArgs := !argRef.MatchString(text) && args != ""
	// Arguments in shell commands first, quoted; then in the text.
	text = shellRef.ReplaceAllStringFunc(text, func(m string) string {
		cmd := shellRef.FindStringSubmatch(m)[1]
		cmd = argRef.ReplaceAllStringFunc(cmd, func(a string) string {
			if a == "$ARGUMENTS" {
				q := make([]string, len(words))
				for i, w := range words {
					q[i] = quote(w)
				}
				return strings.Join(q, " ")
			}
			if n := int(a[1] - '0'); n <= len(words) {
				return quote(words[n-1])
			}
			return "''"
		})
		return "!`" + cmd + "`"
	})
	text = replaceOutside(text, shellRef, func(s string) string {
		return argRef.ReplaceAllStringFunc(s, func(a string) string {
			if a == "$ARGUMENTS" {
				return args
			}
			if n := int(a[1] - '0'); n <= len(words) {
				return words[n-1]
			}
			return ""
		})
	})
	if appendArgs {
		text = strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + args
	}
	var files strings.Builder
	seen := map[string]bool{}
	if r.File != nil {
		for _, m := range fileRef.FindAllStringSubmatch(replaceOutside(text, shellRef, func(s string) string { return s }), -1) {
			path := strings.TrimRight(m[2], ".,;:!?")
			if seen[path] || strings.Contains(path, "@") {
				continue
			}
			seen[path] = true
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
	var runErr error
	text = shellRef.ReplaceAllStringFunc(text, func(m string) string {
		if runErr != nil {
			return m
		}
		cmd := shellRef.FindStringSubmatch(m)[1]
		if r.Shell == nil {
			return "(not run: commands cannot run here)"
		}
		out, err := r.Shell(ctx, cmd)
		if err != nil {
			if ctx.Err() != nil {
				runErr = ctx.Err()
				return m
			}
			return fmt.Sprintf("(%s failed: %v)", cmd, err)
		}
		return strings.TrimRight(out, "\n")
	})
	if runErr != nil {
		return "", runErr
	}
	return text + files.String(), nil
}

// replaceOutside applies f to the parts of s that re does not match.
func replaceOutside(s string, re *regexp.Regexp, f func(string) string) string {
	var b strings.Builder
	last := 0
	for _, loc := range re.FindAllStringIndex(s, -1) {
		b.WriteString(f(s[last:loc[0]]))
		b.WriteString(s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(f(s[last:]))
	return b.String()
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
