// Package claudecode reads what Claude Code keeps beside its hooks, in its
// layout, so that a Claude Code plugin loads whole: slash commands
// (commands/**/*.md), sub-agent types (agents/*.md) and skills
// (skills/*/SKILL.md), from a plugin's folder, the user's ~/.claude and
// the project's .claude. (Hooks are package claudehooks'; a plugin's MCP
// servers are package mcpclient's, PluginSpecs.)
//
// Lifecycle: app.Boot calls Load once per source, in Claude Code's order
// (the user's folder, the project's, then each enabled plugin), after the
// trust gate allowed a project's source; the Catalog it fills is fixed
// from then on. Each use of a component (a command expanded, an agent
// started, a skill read) calls its source's check first, so a project's
// file edited since it was trusted stops being used at once.
//
// Names: the first source to define a name keeps it; a plugin's
// components are always reachable as "<plugin>:<name>" too, as Claude Code
// names them.
package claudecode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/claudehooks"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
)

// Bounds of what one source may hold; past them the rest is a warning.
const (
	maxFileSize   = 1 << 20 // one command, agent or skill file
	maxComponents = 500     // of each kind per source
)

// Source is a folder of components.
type Source struct {
	Root string // holds commands/, agents/, skills/
	// Plugin is the Claude Code plugin's name; "" for the user's or the
	// project's own .claude folder.
	Plugin string
	// Label says where the source is, for listings: "user", "project",
	// "plugin <key>".
	Label string
	// Check, when set, is called before each use of a component: an error
	// refuses the use (a project's file changed since it was trusted).
	Check func() error
}

// Command is a slash command.
type Command struct {
	Name         string // as typed after "/": "commit", or "commit-commands:commit"
	Namespace    string // the subfolder of commands/ it is in, "" for none
	Description  string
	ArgumentHint string
	AllowedTools []string // Claude Code's names: "Bash(git add:*)", "Read"
	Model        string
	Body         string // the Markdown after the frontmatter
	File         string // absolute
	Line         int    // of the body's first line
	Source       *Source
}

// Agent is a sub-agent type of the task tool.
type Agent struct {
	Name        string
	Description string
	Tools       []string // Claude Code's names; nil for every tool
	Model       string   // "sonnet", "inherit", a model's name; "" to inherit
	Prompt      string   // the system prompt
	File        string
	Source      *Source
}

// Skill is a skill: offered to the model by name and description, read
// when the model asks for it.
type Skill struct {
	Name        string
	Description string
	Dir         string // the skill's folder, which its SKILL.md refers to
	File        string // its SKILL.md
	Source      *Source
}

// Body reads the skill's SKILL.md again and returns what follows its
// frontmatter (the file may have changed: Source.Check said whether it
// may be read).
func (s *Skill) Body() (string, error) {
	data, err := trust.ReadFile(s.File, maxFileSize)
	if err != nil {
		return "", err
	}
	_, body, _, err := splitFrontmatter(s.File, data)
	return body, err
}

// names Claude Code allows for a command, agent or skill.
var names = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// Catalog holds the components of every source.
type Catalog struct {
	commands map[string]*Command
	agents   map[string]*Agent
	skills   map[string]*Skill
	sources  []*Source
	// Warnings say what could not be loaded, each naming the file (and
	// line when it is known).
	Warnings []string
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{commands: map[string]*Command{}, agents: map[string]*Agent{}, skills: map[string]*Skill{}}
}

// Load reads src's components into c. A missing folder is none; a file
// that cannot be read or parsed is a warning and is left out.
func (c *Catalog) Load(src *Source) {
	c.sources = append(c.sources, src)
	warn := func(s string) { c.Warnings = append(c.Warnings, s) }
	c.loadCommands(src, warn)
	c.loadAgents(src, warn)
	c.loadSkills(src, warn)
}

// files lists the Markdown files under dir (recursively when deep), in
// name order, at most maxComponents.
func files(dir string, deep bool, warn func(string)) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			warn(fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		if d.IsDir() {
			if p != dir && (!deep || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			if len(out) == maxComponents {
				warn(fmt.Sprintf("%s: more than %d files; the rest are left out", dir, maxComponents))
				return fs.SkipAll
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		warn(fmt.Sprintf("%s: %v", dir, err))
	}
	return out
}

func read(path string, warn func(string)) (meta, string, int, bool) {
	data, err := trust.ReadFile(path, maxFileSize)
	if err != nil {
		warn(fmt.Sprintf("%s: %v", path, err))
		return meta{}, "", 0, false
	}
	m, body, line, err := splitFrontmatter(path, data)
	if err != nil {
		warn(err.Error())
		return meta{}, "", 0, false
	}
	return m, body, line, true
}

func (c *Catalog) loadCommands(src *Source, warn func(string)) {
	dir := filepath.Join(src.Root, "commands")
	for _, f := range files(dir, true, warn) {
		m, body, line, ok := read(f, warn)
		if !ok {
			continue
		}
		base := strings.TrimSuffix(filepath.Base(f), ".md")
		if !names.MatchString(base) {
			warn(fmt.Sprintf("%s: %q is not a command's name (letters, digits, '.', '_' and '-'); left out", f, base))
			continue
		}
		ns := ""
		if rel, err := filepath.Rel(dir, filepath.Dir(f)); err == nil && rel != "." {
			ns = filepath.ToSlash(rel)
		}
		cmd := &Command{Name: base, Namespace: ns, Description: m.str("description", warn), ArgumentHint: m.str("argument-hint", warn),
			AllowedTools: m.list("allowed-tools", warn), Model: m.str("model", warn), Body: body, File: f, Line: line, Source: src}
		if cmd.Description == "" {
			cmd.Description = firstLine(body)
		}
		put(c.commands, src, base, cmd, "command", f, warn)
	}
}

func (c *Catalog) loadAgents(src *Source, warn func(string)) {
	for _, f := range files(filepath.Join(src.Root, "agents"), false, warn) {
		m, body, _, ok := read(f, warn)
		if !ok {
			continue
		}
		name := m.str("name", warn)
		if name == "" {
			name = strings.TrimSuffix(filepath.Base(f), ".md")
		}
		if !names.MatchString(name) {
			warn(fmt.Sprintf("%s: name %q is not an agent's name (letters, digits, '.', '_' and '-'); left out", m.at("name"), name))
			continue
		}
		ag := &Agent{Name: name, Description: m.str("description", warn), Model: m.str("model", warn), Prompt: strings.TrimSpace(body),
			File: f, Source: src}
		if _, ok := m.vals["tools"]; ok {
			ag.Tools = m.list("tools", warn)
		}
		if ag.Description == "" {
			warn(fmt.Sprintf("%s: an agent needs a description (the task tool offers it by it); left out", f))
			continue
		}
		put(c.agents, src, name, ag, "agent", f, warn)
	}
}

func (c *Catalog) loadSkills(src *Source, warn func(string)) {
	dir := filepath.Join(src.Root, "skills")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("%s: %v", dir, err))
		}
		return
	}
	n := 0
	for _, e := range entries {
		f := filepath.Join(dir, e.Name(), "SKILL.md")
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if n++; n > maxComponents {
			warn(fmt.Sprintf("%s: more than %d skills; the rest are left out", dir, maxComponents))
			return
		}
		m, body, line, ok := read(f, warn)
		if !ok {
			continue
		}
		name := m.str("name", warn)
		if name == "" {
			name = e.Name()
		}
		if !names.MatchString(name) {
			warn(fmt.Sprintf("%s: name %q is not a skill's name (letters, digits, '.', '_' and '-'); left out", m.at("name"), name))
			continue
		}
		sk := &Skill{Name: name, Description: m.str("description", warn), Dir: filepath.Join(dir, e.Name()), File: f, Source: src}
		if sk.Description == "" {
			warn(fmt.Sprintf("%s: a skill needs a description (the model is offered it by it); left out", f))
			continue
		}
		// A skill is a command too, unless it says it is not
		// (user-invocable: false); a command of its name keeps it. It is
		// offered to the model unless disable-model-invocation is true.
		if on, set := m.vals["user-invocable"].(bool); !set || on {
			cmd := &Command{Name: name, Description: sk.Description, ArgumentHint: m.str("argument-hint", warn),
				AllowedTools: m.list("allowed-tools", warn), Model: m.str("model", warn), Body: body, File: f, Line: line, Source: src}
			if _, taken := c.commands[name]; !taken {
				c.commands[name] = cmd
			}
			if full := src.Plugin + ":" + name; src.Plugin != "" && c.commands[full] == nil {
				c.commands[full] = cmd
			}
		}
		if off, _ := m.vals["disable-model-invocation"].(bool); off {
			continue
		}
		put(c.skills, src, name, sk, "skill", f, warn)
	}
}

// put adds v under name, and under "<plugin>:<name>" for a plugin's; a
// name another source took first stays theirs.
func put[T any](m map[string]T, src *Source, name string, v T, kind, file string, warn func(string)) {
	if src.Plugin != "" {
		full := src.Plugin + ":" + name
		if _, taken := m[full]; taken {
			warn(fmt.Sprintf("%s: %s %s is defined twice; the first is kept", file, kind, full))
			return
		}
		m[full] = v
	}
	if _, taken := m[name]; taken {
		if src.Plugin == "" {
			warn(fmt.Sprintf("%s: %s %s is defined by an earlier source; that one is kept", file, kind, name))
		}
		return
	}
	m[name] = v
}

func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			return chat.Shorten(l, 100)
		}
	}
	return ""
}

// Command looks up a command by name, checking its source may be used.
func (c *Catalog) Command(name string) (*Command, error) {
	if c == nil {
		return nil, fmt.Errorf("command %s: %w", name, ErrUnknown)
	}
	return lookup(c.commands, name, "command")
}

// Agent looks up an agent by name, checking its source may be used.
func (c *Catalog) Agent(name string) (*Agent, error) {
	if c == nil {
		return nil, fmt.Errorf("agent %s: %w", name, ErrUnknown)
	}
	return lookup(c.agents, name, "agent")
}

// Skill looks up a skill by name, checking its source may be used.
func (c *Catalog) Skill(name string) (*Skill, error) {
	if c == nil {
		return nil, fmt.Errorf("skill %s: %w", name, ErrUnknown)
	}
	return lookup(c.skills, name, "skill")
}

// ErrUnknown is the error of a name no source defines.
var ErrUnknown = errors.New("not defined")

type sourced interface {
	*Command | *Agent | *Skill
}

func sourceOf(v any) *Source {
	switch v := v.(type) {
	case *Command:
		return v.Source
	case *Agent:
		return v.Source
	case *Skill:
		return v.Source
	}
	return nil
}

func lookup[T sourced](m map[string]T, name, kind string) (T, error) {
	var zero T
	v, ok := m[name]
	if !ok {
		return zero, fmt.Errorf("%s %s: %w", kind, name, ErrUnknown)
	}
	if src := sourceOf(v); src != nil && src.Check != nil {
		if err := src.Check(); err != nil {
			return zero, fmt.Errorf("%s %s: %w", kind, name, err)
		}
	}
	return v, nil
}

// Named is a component under the name a listing shows it by.
type Named[T sourced] struct {
	Name  string
	Value T
}

// Commands lists the commands, each once, by name: its short name when
// it holds it, else "<plugin>:<name>".
func (c *Catalog) Commands() []Named[*Command] {
	if c == nil {
		return nil
	}
	return listed(c.commands)
}

// Agents lists the agents as Commands lists commands.
func (c *Catalog) Agents() []Named[*Agent] {
	if c == nil {
		return nil
	}
	return listed(c.agents)
}

// Skills lists the skills as Commands lists commands.
func (c *Catalog) Skills() []Named[*Skill] {
	if c == nil {
		return nil
	}
	return listed(c.skills)
}

// listed is each value of m once, under its shortest name, by name.
func listed[T sourced](m map[string]T) []Named[T] {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	seen := map[any]bool{}
	var out []Named[T]
	for _, k := range keys {
		v := m[k]
		if seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, Named[T]{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b Named[T]) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Sources are the sources loaded, in order.
func (c *Catalog) Sources() []*Source {
	if c == nil {
		return nil
	}
	return c.sources
}

// AllowsTool reports whether a list of tools as Claude Code writes them
// (an agent's tools: "Read, Grep, Bash(git:*)", mcp__<server>__<tool>, or
// mcp__<server> for all of a server's) names the tool d; a nil list names
// every tool. A pattern in parentheses names its tool only: Podcode does
// not make it a rule (the user's permission rules decide each call).
func AllowsTool(names []string, d *tool.Def) bool {
	if names == nil {
		return true
	}
	for _, n := range names {
		if i := strings.IndexByte(n, '('); i > 0 {
			n = n[:i]
		}
		switch {
		case n == d.ID || n == "*" || claudehooks.PodcodeToolName(n) == d.ID:
			return true
		case d.Alias != "" && (n == d.Alias || strings.HasPrefix(n, "mcp__") && !strings.Contains(n[5:], "__") && strings.HasPrefix(d.Alias, n+"__")):
			return true
		}
	}
	return false
}

// ShellLines are the commands of the "!`command`" lines of a command's
// body, as trust fingerprints what they run.
func ShellLines(body string) []string {
	var out []string
	for _, m := range shellRef.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}
