package claudehooks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// matcher is a compiled Claude Code matcher. Claude Code reads a matcher by
// the characters it holds:
//
//   - "", "*" or none: everything;
//   - only letters, digits, '_', '-', ' ', ',' and '|': a list of exact
//     names separated by '|' or ',' ("Bash", "Edit|Write", "Edit, Write");
//   - anything else: a regular expression, unanchored ("mcp__memory__.*",
//     "^Notebook"; "Edit.*" matches NotebookEdit too).
//
// Claude Code's regular expressions are JavaScript's; here they are Go's
// (RE2), which covers what matchers use. A pattern RE2 cannot compile
// (lookaround, back references) is refused at load time.
type matcher struct {
	all   bool
	names []string       // the exact names
	re    *regexp.Regexp // the regular expression
}

func isExactChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '_' || r == '-' || r == ' ' || r == ',' || r == '|'
}

func compileMatcher(s string) (matcher, error) {
	if s == "" || s == "*" {
		return matcher{all: true}, nil
	}
	exact := true
	for _, r := range s {
		if !isExactChar(r) {
			exact = false
			break
		}
	}
	if exact {
		var names []string
		for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return matcher{names: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("matcher %q: does not compile: %v", s, err)
	}
	return matcher{re: re}, nil
}

// match reports whether any of values matches.
func (m matcher) match(values ...string) bool {
	for _, v := range values {
		switch {
		case m.all:
			return true
		case m.re != nil:
			if m.re.MatchString(v) {
				return true
			}
		case slices.Contains(m.names, v):
			return true
		}
	}
	return false
}

// never is a regular expression that matches no tool name.
var never = regexp.MustCompile(`[^\x00-\x{10FFFF}]`)

// podcodeRegexp translates m, which tests Claude Code tool names, into a
// regular expression over Podcode's tool ids for plugin.WithMatcher; nil
// when m matches everything. For a list of names it is exact. For a
// regular expression it is the built-in tools whose Claude Code names match,
// or the expression itself tested on the id (other tools keep their names);
// that can match a built-in id the expression should not (for "^[a-z]",
// bash), so the handler tests the Claude Code name again.
// The dispatcher tests it on an MCP tool's Claude Code name too
// (plugin.ExtraToolAlias, mcp__<server>__<tool>).
func (m matcher) podcodeRegexp() *regexp.Regexp {
	if m.all {
		return nil
	}
	var ids []string
	for id := range toolNames {
		if m.match(claudeNames(id)...) {
			ids = append(ids, id)
		}
	}
	if m.re == nil {
		for _, n := range m.names {
			if _, builtin := toolNames[n]; !builtin {
				ids = append(ids, n) // a plugin's or an MCP server's tool keeps its name
			}
		}
	}
	sort.Strings(ids)
	ids = slices.Compact(ids)
	for i, id := range ids {
		ids[i] = regexp.QuoteMeta(id)
	}
	var expr string
	if len(ids) > 0 {
		expr = `^(?:` + strings.Join(ids, "|") + `)$`
	}
	if m.re != nil {
		if expr != "" {
			expr += "|"
		}
		expr += `(?:` + m.re.String() + `)`
	}
	if expr == "" {
		return never
	}
	return regexp.MustCompile(expr)
}

// ifRule is a handler's `if` field: one permission rule, "Tool" or
// "Tool(pattern)", that must match the tool call for the handler to run.
// Claude Code evaluates it on a best-effort basis and runs the hook when it
// cannot tell; so does this: the tool name is always checked, the pattern
// for Bash (against each subcommand) and for Read, Edit and Write (against
// file_path, gitignore style); any other pattern lets the hook run.
type ifRule struct {
	tool       string
	pattern    string
	hasPattern bool
}

var ruleTool = regexp.MustCompile(`^[A-Za-z0-9_\-]+(?:__[A-Za-z0-9_\-.*]+)*$`)

func parseIf(s string) (*ifRule, error) {
	s = strings.TrimSpace(s)
	r := &ifRule{tool: s}
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return nil, fmt.Errorf("if %q: a permission rule is Tool or Tool(pattern)", s)
		}
		r.tool, r.pattern, r.hasPattern = s[:i], s[i+1:len(s)-1], true
	}
	if !ruleTool.MatchString(r.tool) {
		return nil, fmt.Errorf("if %q: a permission rule is Tool or Tool(pattern)", s)
	}
	return r, nil
}

// matches reports whether the rule lets the hook run for a call of a tool
// known by names (its Claude Code names) with Claude Code's tool_input.
func (r *ifRule) matches(names []string, input map[string]any, dir string) bool {
	if !r.toolMatches(names) {
		return false
	}
	if !r.hasPattern || r.pattern == "" || r.pattern == "*" {
		return true
	}
	switch r.tool {
	case "Bash":
		cmd, ok := input["command"].(string)
		return !ok || bashMatches(r.pattern, cmd)
	case "Read", "Edit", "Write":
		path, ok := input["file_path"].(string)
		return !ok || pathMatches(r.pattern, path, dir)
	}
	return true
}

// toolMatches: the rule's tool is the tool, or for an MCP server
// ("mcp__memory") any of its tools.
func (r *ifRule) toolMatches(names []string) bool {
	for _, n := range names {
		if n == r.tool || strings.HasPrefix(r.tool, "mcp__") && !r.hasPattern && strings.HasPrefix(n, r.tool+"__") {
			return true
		}
		if strings.HasSuffix(r.tool, "*") && strings.HasPrefix(n, strings.TrimSuffix(r.tool, "*")) {
			return true
		}
	}
	return false
}

// envAssign is a leading VAR=value assignment, stripped before matching.
var envAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*\s+`)

// bashMatches reports whether a Bash rule's pattern ("git *", "npm run
// test:*") matches the command or one of its subcommands. A command that
// runs commands we do not parse ($(...), backticks) matches, as in Claude
// Code when it cannot tell.
func bashMatches(pattern, command string) bool {
	if strings.Contains(command, "$(") || strings.Contains(command, "`") {
		return true
	}
	re := bashPattern(pattern)
	if re.MatchString(strings.TrimSpace(command)) {
		return true
	}
	for _, sub := range subcommands(command) {
		for {
			loc := envAssign.FindStringIndex(sub)
			if loc == nil {
				break
			}
			sub = sub[loc[1]:]
		}
		if re.MatchString(sub) {
			return true
		}
	}
	return false
}

// bashPattern compiles a Bash rule's pattern: '*' is any text; "cmd *" also
// matches the bare "cmd"; the legacy "prefix:*" matches the prefix followed
// by nothing or by a space and anything.
func bashPattern(p string) *regexp.Regexp {
	if prefix, ok := strings.CutSuffix(p, ":*"); ok {
		return regexp.MustCompile(`(?s)^` + regexp.QuoteMeta(prefix) + `(?:\s.*)?$`)
	}
	parts := strings.Split(p, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	expr := strings.Join(parts, ".*")
	if base, ok := strings.CutSuffix(p, " *"); ok && !strings.Contains(base, "*") {
		expr = regexp.QuoteMeta(base) + `(?:\s.*)?`
	}
	return regexp.MustCompile(`(?s)^` + expr + `$`)
}

// subcommands splits a shell command on &&, ||, ;, |, & and newlines,
// outside quotes.
func subcommands(cmd string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(rs) {
				cur.WriteRune(c)
				i++
				c = rs[i]
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(rs):
			cur.WriteRune(c)
			i++
			c = rs[i]
		case c == ';' || c == '|' || c == '&' || c == '\n':
			flush()
			continue
		}
		cur.WriteRune(c)
	}
	flush()
	return out
}

// pathMatches reports whether a file rule's pattern matches path, the way
// Claude Code's permission rules read it: "//abs" is absolute, "~/p" under
// the home directory, "/p" and "p" relative to the project; a pattern
// without a '/' matches a name at any depth (gitignore). A pattern that does
// not compile matches.
func pathMatches(pattern, path, dir string) bool {
	base := dir
	switch {
	case strings.HasPrefix(pattern, "//"):
		base, pattern = "/", pattern[2:]
	case strings.HasPrefix(pattern, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return true
		}
		base, pattern = home, pattern[2:]
	case strings.HasPrefix(pattern, "/"):
		pattern = pattern[1:]
	default:
		pattern = strings.TrimPrefix(pattern, "./")
		if !strings.Contains(pattern, "/") {
			pattern = "**/" + pattern
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	ok, err := doublestar.Match(pattern, filepath.ToSlash(rel))
	return ok || err != nil
}
