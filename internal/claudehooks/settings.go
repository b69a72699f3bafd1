package claudehooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/podcode/podcode/internal/trust"
)

// The settings files Load reads, relative to the project, in order.
const (
	SettingsFile      = ".claude/settings.json"
	LocalSettingsFile = ".claude/settings.local.json"
)

// DefaultTimeout bounds a hook without a timeout of its own; the dispatch
// deadline (60 s) bounds every hook too.
const DefaultTimeout = 60 * time.Second

// maxTimeout is the largest timeout accepted, in seconds.
const maxTimeout = 24 * 60 * 60

// Settings are the Claude Code hooks of a project.
type Settings struct {
	// Hooks are the hooks Podcode runs, settings.json's first, then
	// settings.local.json's, each in file order.
	Hooks []Hook
	// Warnings name what was read and will not run (an event Podcode does
	// not have, a matcher that can never match here), each with its file
	// and entry.
	Warnings []string
	// Files are the settings files that were read, relative to the
	// project, slash-separated.
	Files []string
	// DisableAllHooks is Claude Code's disableAllHooks setting, as the last
	// file that sets it says: Register then registers nothing.
	DisableAllHooks bool

	// EnabledPlugins is Claude Code's enabledPlugins ("name@marketplace":
	// true or false), merged key by key, the last file's value winning.
	EnabledPlugins map[string]bool
	// Plugin is, for the hooks of a Claude Code plugin (LoadPlugin), the
	// plugin; nil for settings files.
	Plugin *Plugin

	disableSet bool // the file sets disableAllHooks
	// counted is, by file, what Podcode reads of it (its hooks and
	// disableAllHooks, as canonical JSON), which TrustItem fingerprints;
	// no entry for a file that sets neither.
	counted map[string][]byte
}

// Hook is one command handler of a settings file.
type Hook struct {
	File    string // the settings file, relative to the project: ".claude/settings.json"
	Where   string // the entry in it: "hooks.PreToolUse[0].hooks[1]"
	Event   string // Claude Code's event name: "PreToolUse", "Stop", ...
	Matcher string // as written; "" matches everything
	Command string // a shell command (bash -c), or with Args the program
	Args    []string
	// Exec is true when the hook has an args array: Command is run
	// directly with Args, no shell.
	Exec bool
	// Shell is "" for Claude Code's default, bash (sh where there is no
	// bash), or "sh" when the hook asks for it.
	Shell string
	// If is the handler's `if` permission rule, "" when none.
	If      string
	Timeout time.Duration // 0 means DefaultTimeout
	// Async hooks run in the background: they never vote and their output
	// is discarded.
	Async bool
	// PluginRoot is, for a hook of a Claude Code plugin, the plugin's
	// directory: CLAUDE_PLUGIN_ROOT.
	PluginRoot string

	match    matcher
	cond     *ifRule
	compiled bool // match and cond are set
}

// compile sets h's matcher and `if` rule from Matcher and If, for a Hook
// made by hand rather than by Parse.
func (h *Hook) compile() error {
	pattern := h.Matcher
	if !takesMatcher(h.Event) {
		pattern = ""
	}
	m, err := compileMatcher(pattern)
	if err != nil {
		return err
	}
	h.match, h.cond = m, nil
	if strings.TrimSpace(h.If) != "" {
		if h.cond, err = parseIf(h.If); err != nil {
			return err
		}
	}
	h.compiled = true
	return nil
}

// Guard reports whether the hook guards: a PreToolUse hook that is not
// async can block the tool call. Changed since it was trusted, a guard
// denies the calls it matches instead of being skipped (see
// Options.Check).
func (h *Hook) Guard() bool { return h.Event == "PreToolUse" && !h.Async }

// Source names the hook in logs and reports:
// "claude: ./check.sh (.claude/settings.json)".
func (h *Hook) Source() string {
	cmd := h.Command
	if h.Exec && len(h.Args) > 0 {
		cmd += " " + strings.Join(h.Args, " ")
	}
	return fmt.Sprintf("claude: %s (%s)", cmd, h.File)
}

// MaxSettingsSize is the largest settings file Load reads.
const MaxSettingsSize = 4 << 20

// Load reads the hooks of <projectDir>/.claude/settings.json and then of
// <projectDir>/.claude/settings.local.json, appending the second file's
// hooks to the first's (see the package documentation). Missing files are
// not errors; one that is not a regular file (a FIFO, a device, wherever
// its links lead) or is larger than MaxSettingsSize is, and is not read.
// The first mistake in a file is returned, naming the file and the entry,
// and nothing is loaded.
func Load(projectDir string) (*Settings, error) {
	var parts []*Settings
	for _, name := range []string{SettingsFile, LocalSettingsFile} {
		one, err := LoadFile(projectDir, name)
		if err != nil {
			return nil, err
		}
		parts = append(parts, one)
	}
	return Merge(parts...), nil
}

// LoadFile reads one of the project's settings files, name relative to
// projectDir (SettingsFile, LocalSettingsFile), as Load does. A missing
// file gives empty Settings that list no file.
func LoadFile(projectDir, name string) (*Settings, error) {
	// The project brings these files: a link to /dev/zero or a FIFO
	// must neither hang nor exhaust memory (trust.ReadFile).
	return readSettings(filepath.Join(projectDir, filepath.FromSlash(name)), name)
}

// UserSettingsFile is how the user's own settings file is named in hooks'
// sources, warnings and errors.
const UserSettingsFile = "~/.claude/settings.json"

// ConfigDirEnv moves Claude Code's user folder, as in Claude Code.
const ConfigDirEnv = "CLAUDE_CONFIG_DIR"

// UserDir is Claude Code's user folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func UserDir() (string, error) {
	if d := os.Getenv(ConfigDirEnv); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("claude hooks: no home folder for ~/.claude: %w", err)
	}
	return filepath.Join(home, ".claude"), nil
}

// LoadUser reads the user's own settings, <dir>/settings.json (dir is
// UserDir()), as Load reads a project's; its hooks' File is
// UserSettingsFile. A missing file gives empty Settings.
func LoadUser(dir string) (*Settings, error) {
	return readSettings(filepath.Join(dir, "settings.json"), UserSettingsFile)
}

func readSettings(path, name string) (*Settings, error) {
	data, err := trust.ReadFile(path, MaxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return &Settings{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return Parse(name, data)
}

// SetsDisableAllHooks reports whether a file of s sets disableAllHooks
// (true or false), which then overrides what files before it said.
func (s *Settings) SetsDisableAllHooks() bool { return s.disableSet }

// IgnoreDisableAllHooks makes s as if its files did not set
// disableAllHooks (a file changed since it was trusted: its setting is not
// trusted either).
func (s *Settings) IgnoreDisableAllHooks() { s.DisableAllHooks, s.disableSet = false, false }

// Merge is the settings of several files in order, as Claude Code merges
// them: every file's hooks, a hook defined the same way as an earlier one
// dropped (dedupe), and disableAllHooks as the last file that sets it says.
func Merge(parts ...*Settings) *Settings {
	s := &Settings{}
	for _, one := range parts {
		if one == nil {
			continue
		}
		s.Hooks = append(s.Hooks, one.Hooks...)
		s.Warnings = append(s.Warnings, one.Warnings...)
		s.Files = append(s.Files, one.Files...)
		for f, c := range one.counted {
			if s.counted == nil {
				s.counted = map[string][]byte{}
			}
			s.counted[f] = c
		}
		if one.disableSet {
			s.DisableAllHooks, s.disableSet = one.DisableAllHooks, true
		}
		for k, v := range one.EnabledPlugins {
			if s.EnabledPlugins == nil {
				s.EnabledPlugins = map[string]bool{}
			}
			s.EnabledPlugins[k] = v
		}
		if len(parts) == 1 {
			s.Plugin = one.Plugin
		}
	}
	s.Hooks = dedupe(s.Hooks)
	return s
}

// dedupe drops a hook defined the same way as an earlier one: Claude Code
// runs a handler defined in more than one settings file once.
func dedupe(hooks []Hook) []Hook {
	seen := map[string]bool{}
	var out []Hook
	for _, h := range hooks {
		key, _ := json.Marshal([]any{h.Event, h.Matcher, h.Command, h.Args, h.Exec, h.Shell, h.If, h.Async, h.PluginRoot})
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		out = append(out, h)
	}
	return out
}

// Parse decodes the hooks block of one settings file. file names the file
// in errors and in each Hook, as the user knows it (".claude/settings.json").
// Keys other than "hooks" and "disableAllHooks" are ignored. An empty file
// has no hooks.
func Parse(file string, data []byte) (*Settings, error) {
	s := &Settings{Files: []string{file}}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(file, data, err)
	}
	if top == nil {
		return nil, fmt.Errorf("%s: the settings must be a JSON object", file)
	}
	if c, err := counted(top); err == nil && c != nil {
		s.counted = map[string][]byte{file: c}
	}
	if v, ok := top["enabledPlugins"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &s.EnabledPlugins); err != nil {
			return nil, fmt.Errorf("%s: enabledPlugins must be an object of \"name@marketplace\": true or false, not %s", file, kind(v))
		}
	}
	if v, ok := top["disableAllHooks"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &s.DisableAllHooks); err != nil {
			return nil, fmt.Errorf("%s: disableAllHooks must be true or false, not %s", file, kind(v))
		}
		s.disableSet = true
	}
	raw, ok := top["hooks"]
	if !ok || isNull(raw) {
		return s, nil
	}
	p := parser{file: file, s: s}
	if err := p.hooks(raw); err != nil {
		return nil, err
	}
	return s, nil
}

type parser struct {
	file string
	s    *Settings
}

func (p *parser) errorf(where, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", p.file, where, fmt.Sprintf(format, args...))
}

func (p *parser) warnf(where, format string, args ...any) {
	p.s.Warnings = append(p.s.Warnings, fmt.Sprintf("%s: %s: %s", p.file, where, fmt.Sprintf(format, args...)))
}

func (p *parser) hooks(raw json.RawMessage) error {
	byEvent, err := objectKeys(raw)
	if err != nil {
		return p.errorf("hooks", "must be an object of event names, not %s", kind(raw))
	}
	for _, kv := range byEvent {
		where := "hooks." + kv.key
		if _, ok := events[kv.key]; !ok {
			if why, known := unsupported[kv.key]; known {
				if n := countHandlers(kv.value); n > 0 {
					p.warnf(where, "Podcode does not run %s hooks (%s); %s ignored", kv.key, why, plural(n, "hook"))
				}
				continue
			}
			return p.errorf(where, "unknown event %q (Claude Code's events that Podcode runs: %s)", kv.key, eventList())
		}
		if isNull(kv.value) {
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(kv.value, &groups); err != nil {
			return p.errorf(where, "must be an array of matcher groups, not %s", kind(kv.value))
		}
		for i, g := range groups {
			if err := p.group(kv.key, fmt.Sprintf("%s[%d]", where, i), g); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *parser) group(event, where string, raw json.RawMessage) error {
	var g map[string]json.RawMessage
	if err := json.Unmarshal(raw, &g); err != nil || g == nil {
		return p.errorf(where, `must be an object like {"matcher": "Bash", "hooks": [...]}, not %s`, kind(raw))
	}
	var pattern string
	if m, ok := g["matcher"]; ok && !isNull(m) {
		if err := json.Unmarshal(m, &pattern); err != nil {
			return p.errorf(where, "matcher must be a string, not %s", kind(m))
		}
	}
	if !takesMatcher(event) {
		pattern = "" // no matcher support: ignored, as in Claude Code
	}
	match, err := compileMatcher(pattern)
	if err != nil {
		return p.errorf(where, "%v", err)
	}
	var handlers []json.RawMessage
	hs, ok := g["hooks"]
	if !ok || isNull(hs) {
		return p.errorf(where, "hooks is missing: a matcher group needs a hooks array")
	}
	if err := json.Unmarshal(hs, &handlers); err != nil {
		return p.errorf(where, "hooks must be an array of hook handlers, not %s", kind(hs))
	}
	if mv, ok := matchValue[event]; ok {
		// the matcher filters values Podcode gives few of
		if !slices.ContainsFunc(mv.values, func(v string) bool { return match.match(v) }) {
			if len(handlers) > 0 {
				is := fmt.Sprintf("is always %q", mv.values[0])
				if len(mv.values) > 1 {
					is = fmt.Sprintf("is one of %q", mv.values)
				}
				p.warnf(where, "matcher %q never matches in Podcode, where %s's %s %s; %s ignored",
					pattern, event, mv.field, is, plural(len(handlers), "hook"))
			}
			return nil
		}
	}
	for i, h := range handlers {
		if err := p.handler(event, pattern, match, fmt.Sprintf("%s.hooks[%d]", where, i), h); err != nil {
			return err
		}
	}
	return nil
}

// handlerFields are the fields of a hook handler Podcode reads; the others
// (statusMessage, once, ...) are ignored.
type handlerFields struct {
	Type        *string      `json:"type"`
	Command     *string      `json:"command"`
	Args        *[]string    `json:"args"`
	Timeout     *json.Number `json:"timeout"`
	Async       *bool        `json:"async"`
	AsyncRewake *bool        `json:"asyncRewake"`
	Shell       *string      `json:"shell"`
	If          *string      `json:"if"`
}

func (p *parser) handler(event, pattern string, match matcher, where string, raw json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return p.errorf(where, `must be an object like {"type": "command", "command": "./check.sh"}, not %s`, kind(raw))
	}
	var f handlerFields
	for _, field := range []struct {
		name string
		dst  any
		want string
	}{
		{"type", &f.Type, "a string"},
		{"command", &f.Command, "a string"},
		{"args", &f.Args, "an array of strings"},
		{"timeout", &f.Timeout, "a number of seconds"},
		{"async", &f.Async, "true or false"},
		{"asyncRewake", &f.AsyncRewake, "true or false"},
		{"shell", &f.Shell, "a string"},
		{"if", &f.If, "a string"},
	} {
		v, ok := obj[field.name]
		if !ok || isNull(v) {
			continue
		}
		if err := json.Unmarshal(v, field.dst); err != nil || field.name == "timeout" && kind(v) != "a number" {
			return p.errorf(where, "%s must be %s, not %s", field.name, field.want, kind(v))
		}
	}
	switch {
	case f.Type == nil:
		return p.errorf(where, `type is missing (Podcode runs "command" hooks)`)
	case *f.Type != "command":
		return p.errorf(where, "type %q is not supported (Podcode runs \"command\" hooks only)", *f.Type)
	case f.Command == nil || strings.TrimSpace(*f.Command) == "":
		return p.errorf(where, "command is missing")
	}
	h := Hook{File: p.file, Where: where, Event: event, Matcher: pattern, Command: *f.Command, match: match, compiled: true}
	if f.Args != nil {
		h.Exec, h.Args = true, *f.Args
	}
	if f.Timeout != nil {
		sec, err := f.Timeout.Float64()
		if err != nil || math.IsNaN(sec) || sec <= 0 || sec > maxTimeout {
			return p.errorf(where, "timeout %s: must be a number of seconds above 0 and at most %d", f.Timeout, maxTimeout)
		}
		h.Timeout = time.Duration(sec * float64(time.Second))
	}
	if f.Shell != nil {
		switch *f.Shell {
		case "bash", "": // Claude Code's default
		case "sh":
			h.Shell = "sh"
		default:
			return p.errorf(where, "shell %q is not supported (Podcode runs hooks with bash, its default, or sh)", *f.Shell)
		}
	}
	if f.Async != nil {
		h.Async = *f.Async
	}
	if f.AsyncRewake != nil && *f.AsyncRewake {
		h.Async = true
		p.warnf(where, "asyncRewake is not supported: the hook runs in the background and its exit code is ignored")
	}
	if f.If != nil && strings.TrimSpace(*f.If) != "" {
		if !events[event].IsToolEvent() {
			p.warnf(where, "if %q is set on %s, and Claude Code evaluates if on tool events only, so the hook never runs; ignored", *f.If, event)
			return nil
		}
		cond, err := parseIf(*f.If)
		if err != nil {
			return p.errorf(where, "%v", err)
		}
		h.If, h.cond = strings.TrimSpace(*f.If), cond
	}
	p.s.Hooks = append(p.s.Hooks, h)
	return nil
}

// kv is one member of a JSON object.
type kv struct {
	key   string
	value json.RawMessage
}

// objectKeys returns the members of a JSON object in the order written.
func objectKeys(raw json.RawMessage) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []kv
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(out, func(x kv) bool { return x.key == key }); i >= 0 {
			out[i].value = v // the last one wins, as in JSON.parse
			continue
		}
		out = append(out, kv{key, v})
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

// countHandlers counts the handlers under an event, for a warning.
func countHandlers(raw json.RawMessage) int {
	var groups []struct {
		Hooks []json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(raw, &groups) != nil {
		return 1
	}
	n := 0
	for _, g := range groups {
		n += len(g.Hooks)
	}
	return n
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// kind names a JSON value's type for an error.
func kind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func eventList() string {
	names := make([]string, 0, len(events))
	for n := range events {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// jsonError says where a settings file is not JSON: "file:line:col: message".
func jsonError(file string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("%s:%d:%d: %v", file, line, col, err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s: the settings must be a JSON object, not %s", file, typ.Value)
	}
	return fmt.Errorf("%s: %v", file, err)
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}

// counted is what Podcode reads of a settings file, its hooks and
// disableAllHooks, as canonical JSON (compact, object keys sorted); nil
// when it sets neither.
func counted(top map[string]json.RawMessage) ([]byte, error) {
	part := map[string]json.RawMessage{}
	for _, k := range []string{"hooks", "disableAllHooks"} {
		if v, ok := top[k]; ok {
			part[k] = v
		}
	}
	if len(part) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(part)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// TrustItem is the project's Claude Code hooks as trust sees them: what
// Podcode reads of the settings files (their hooks and disableAllHooks,
// in canonical JSON: the rest, such as the permissions Claude Code
// records as you approve commands, and the layout, may change without
// untrusting the hooks), every file under .claude/hooks (through symbolic
// links), and every command they run, with what those run of the project
// (trust.Hasher.Command: scripts, what they source, a Makefile and its
// includes).
func (s *Settings) TrustItem(projectDir string) (trust.Item, error) {
	var h trust.Hasher
	for _, f := range s.Files {
		if c, ok := s.counted[f]; ok {
			h.Text(f, c)
		}
	}
	// The scripts' usual home, whole: a plugin's whole folder.
	name := SettingsFile
	if s.Plugin != nil {
		h.Dir(s.Plugin.Dir, projectDir)
		name = s.Plugin.ItemName()
	} else {
		h.Dir(filepath.Join(projectDir, ".claude", "hooks"), projectDir)
		if len(s.Files) == 1 {
			name = s.Files[0] // one file, one item
		}
	}
	for i := range s.Hooks {
		s.Hooks[i].hash(&h, projectDir)
	}
	it, err := h.Item(trust.KindClaude, name)
	it.Declared = s.Guards()
	return it, err
}

// Guards are the settings' guards as trust records them: each hook that
// is a guard (Hook.Guard); none when disableAllHooks is true, since then
// none of them runs.
func (s *Settings) Guards() []trust.Guard {
	if s.DisableAllHooks {
		return nil
	}
	var out []trust.Guard
	for i := range s.Hooks {
		if h := &s.Hooks[i]; h.Guard() {
			out = append(out, h.TrustGuard())
		}
	}
	return out
}

// TrustGuard is the hook as trust records a guard: its event, matcher,
// `if` rule and source.
func (h *Hook) TrustGuard() trust.Guard {
	return trust.Guard{Event: h.Event, Matcher: h.Matcher, If: h.If, Source: h.Source()}
}

// Reads lists the directories in which the hook's command reads files
// that cannot be known, outside .claude/hooks, which TrustItem covers
// whole: the hook runs only while each of them, as a trust.ReadsItem, is
// trusted too.
func (h *Hook) Reads(projectDir string) []string {
	var th trust.Hasher
	hooks := filepath.Join(projectDir, ".claude", "hooks")
	if h.PluginRoot != "" {
		hooks = h.PluginRoot // the plugin's item has all of it
	}
	var out []string
	for _, d := range h.hash(&th, projectDir) {
		if rel, err := filepath.Rel(hooks, d); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			out = append(out, d)
		}
	}
	return out
}

// inside reports whether path is dir or under it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// hash adds what the hook runs to th and returns the directories its
// command reads whole.
func (h *Hook) hash(th *trust.Hasher, projectDir string) []string {
	vars := map[string]string{ProjectDirEnv: projectDir}
	if h.PluginRoot != "" {
		vars[PluginRootEnv] = h.PluginRoot
	}
	// A plugin installed outside the project (Claude Code's cache in the
	// user's home) is followed into its own folder, which its item has
	// whole; the project's files its commands run are then not followed,
	// as for the user's own hooks. One inside the project is followed as
	// the project's hooks are.
	root := projectDir
	if h.PluginRoot != "" && !inside(projectDir, h.PluginRoot) {
		root = h.PluginRoot
	}
	if h.Exec {
		expand := func(s string) string { return expandVars(s, projectDir, h.PluginRoot) }
		args := make([]string, len(h.Args))
		for i, a := range h.Args {
			args[i] = expand(a)
		}
		return th.Exec(expand(h.Command), args, projectDir, root, vars)
	}
	return th.Command(h.Command, projectDir, root, vars)
}
