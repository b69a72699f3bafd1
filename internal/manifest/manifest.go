// Package manifest loads manifest plugins: a directory with a
// podcode-plugin.json that contributes lifecycle handlers run as separate
// programs, in any language (SPEC L2).
//
//	{
//	  "id": "secrets-guard",
//	  "version": "1.0.0",
//	  "activationEvents": ["onHook:PreToolUse"],
//	  "contributes": {"hooks": [
//	    {"event": "PreToolUse", "matcher": "bash|write", "failClosed": true,
//	     "handler": {"command": "./guard.sh", "timeout": 10}},
//	    {"event": "PostToolUse", "handler": {"process": "./audit", "args": ["--json"]}}
//	  ]}
//	}
//
// # Lifecycle of a manifest plugin
//
//  1. Found: a directory directly under .podcode/plugins/ or the user's
//     plugins folder, or named in the config's plugin array, holding
//     podcode-plugin.json.
//  2. Parsed and checked: every event name (in contributes.hooks and in
//     onHook: activation events) with plugin.IsValidHookEvent, every matcher
//     compiled; a bad manifest is refused with an error naming the file and
//     the entry, and the server carries on without it.
//  3. Registered, once Options.Trust lets it run: each enabled entry
//     becomes a handler of its event (in the plugin layer; fail-closed when
//     the entry says so; limited by its matcher to the tool names it
//     matches, the whole name), checked again before every call
//     (Verdict.Check). A manifest trust refuses registers its fail-closed
//     entries only, which deny what they match until it is trusted. The
//     guards the user trusted (Guards, as the trust store recorded them)
//     that a changed manifest no longer declares as they were, or that
//     went with it, are registered from the record instead
//     (RegisterRecordedGuard).
//  4. Activated: a process handler starts at start-up when the manifest has
//     onStart, otherwise the first time one of its events is dispatched
//     (onHook:<Event>, the default). It is restarted with backoff when it
//     dies, and stopped when the server stops. A command handler is a new
//     process per call.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

// FileName is the manifest's file name.
const FileName = "podcode-plugin.json"

// Manifest is a parsed podcode-plugin.json.
type Manifest struct {
	ID               string   `json:"id"`
	Version          string   `json:"version"`
	ActivationEvents []string `json:"activationEvents,omitempty"`
	Contributes      struct {
		Hooks []Entry `json:"hooks"`
	} `json:"contributes"`

	Dir     string `json:"-"` // the plugin's directory
	File    string `json:"-"` // its manifest
	Project bool   `json:"-"` // found in (or named by) the project, not the user's folder
}

// Entry is one contributed handler.
type Entry struct {
	Event      string  `json:"event"`
	Matcher    string  `json:"matcher,omitempty"` // a regular expression over the whole tool name
	Handler    Handler `json:"handler"`
	FailClosed bool    `json:"failClosed,omitempty"`
	Enabled    *bool   `json:"enabled,omitempty"` // false removes the entry

	matcher *regexp.Regexp
}

// Handler says what runs: a command per call, or a long-lived process.
type Handler struct {
	Command string   `json:"command,omitempty"`
	Timeout float64  `json:"timeout,omitempty"` // seconds, for a command
	Process string   `json:"process,omitempty"`
	Args    []string `json:"args,omitempty"`
}

// Error is a problem with a manifest: the file, the position and the entry.
type Error struct {
	File      string
	Line, Col int    // 1-based; 0 when unknown
	Where     string // e.g. contributes.hooks[2].event
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if e.Where != "" {
		b.WriteString(": " + e.Where)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// Parse reads and checks a manifest (steps 2 of the lifecycle). The file
// is JSON with comments and trailing commas, as podcode.json is; every
// error carries the line and column of what it is about.
func Parse(file string, data []byte) (*Manifest, error) {
	m, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func parse(file string, data []byte) (*Manifest, *Error) {
	ast, perr := config.ParseJSONC(file, data, maxNesting)
	if perr != nil {
		return nil, &Error{File: file, Line: perr.Line, Col: perr.Col, Msg: perr.Msg}
	}
	// Standardizing blanks comments and trailing commas in place, so the
	// offsets of the standard text are those of the file.
	std := ast.Clone()
	std.Standardize()
	m, err := parseStd(file, std.Pack())
	if err != nil && err.Line == 0 {
		err.Line, err.Col = config.Position(data, offsetOf(&ast, err.Where, err.field))
	}
	if err != nil {
		return nil, err.Error
	}
	return m, nil
}

// posError is an Error before its position is known: field is an unknown
// field's name, looked up under Where.
type posError struct {
	*Error
	field string
}

func parseStd(file string, data []byte) (*Manifest, *posError) {
	m := &Manifest{File: file, Dir: filepath.Dir(file)}
	fail := func(where, msg string) (*Manifest, *posError) {
		return nil, &posError{Error: &Error{File: file, Where: where, Msg: msg}}
	}
	var raw struct {
		ID               string   `json:"id"`
		Version          string   `json:"version"`
		ActivationEvents []string `json:"activationEvents"`
		Contributes      struct {
			Hooks []json.RawMessage `json:"hooks"`
		} `json:"contributes"`
	}
	if err := decodeStrict(data, &raw); err != nil {
		return nil, &posError{Error: &Error{File: file, Where: err.where, Msg: err.msg}, field: err.field}
	}
	m.ID, m.Version, m.ActivationEvents = raw.ID, raw.Version, raw.ActivationEvents
	m.Contributes.Hooks = make([]Entry, len(raw.Contributes.Hooks))
	for i, r := range raw.Contributes.Hooks {
		if err := decodeStrict(r, &m.Contributes.Hooks[i]); err != nil {
			where := fmt.Sprintf("contributes.hooks[%d]", i)
			if err.where != "" {
				where += "." + err.where
			}
			return nil, &posError{Error: &Error{File: file, Where: where, Msg: err.msg}, field: err.field}
		}
	}
	if strings.TrimSpace(m.ID) == "" {
		return fail("id", "a manifest needs an id")
	}
	for i, a := range m.ActivationEvents {
		where := fmt.Sprintf("activationEvents[%d]", i)
		switch {
		case a == "onStart":
		case strings.HasPrefix(a, "onHook:"):
			if ev := strings.TrimPrefix(a, "onHook:"); !plugin.IsValidHookEvent(ev) {
				_, perr := plugin.ParseHookEvent(ev)
				return fail(where, perr.Error())
			}
		default:
			return fail(where, fmt.Sprintf("%q is not onStart or onHook:<Event>", a))
		}
	}
	for i := range m.Contributes.Hooks {
		e := &m.Contributes.Hooks[i]
		where := fmt.Sprintf("contributes.hooks[%d]", i)
		if !plugin.IsValidHookEvent(e.Event) {
			_, perr := plugin.ParseHookEvent(e.Event)
			return fail(where+".event", perr.Error())
		}
		if e.Matcher != "" && !plugin.HookEvent(e.Event).IsToolEvent() {
			return fail(where+".matcher", fmt.Sprintf("%s is not a tool event: a matcher (on the tool name) would never apply", e.Event))
		}
		if e.Matcher != "" {
			re, err := regexp.Compile(`^(?:` + e.Matcher + `)$`)
			if err != nil {
				return fail(where+".matcher", fmt.Sprintf("%q does not compile: %v", e.Matcher, err))
			}
			e.matcher = re
		}
		h := e.Handler
		switch {
		case h.Command != "" && h.Process != "":
			return fail(where+".handler", "give either command or process, not both")
		case h.Command == "" && h.Process == "":
			return fail(where+".handler", "a handler needs a command or a process")
		case h.Timeout < 0:
			return fail(where+".handler.timeout", "must not be negative")
		}
	}
	return m, nil
}

type decodeError struct{ where, msg, field string }

// decodeStrict decodes one JSON value into v: unknown fields, a wrong type
// and anything after the value are errors, with where (a dotted path, when
// known) and what.
func decodeStrict(data []byte, v any) *decodeError {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &decodeError{te.Field, fmt.Sprintf("want %s, found a JSON %s", te.Type, te.Value), ""}
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return &decodeError{"", "unknown field " + f, strings.Trim(f, `"`)}
		}
		return &decodeError{"", "not valid JSON: " + err.Error(), ""}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &decodeError{"", "something follows the JSON object", ""}
	}
	return nil
}

// enabled reports whether the entry runs: not switched off in the manifest
// nor in the config's hooks overrides.
func (e *Entry) enabled(overrides map[string]bool, id string) bool {
	if e.Enabled != nil && !*e.Enabled {
		return false
	}
	if on, ok := overrides[id+"/"+e.Event]; ok && !on {
		return false
	}
	return true
}

// activatesOn reports whether a call of event starts the manifest's
// processes: when it names onHook:<event>, or names no onHook: event at
// all (then any of its events does).
func (m *Manifest) activatesOn(event string) bool {
	any := false
	for _, a := range m.ActivationEvents {
		if ev, ok := strings.CutPrefix(a, "onHook:"); ok {
			any = true
			if ev == event {
				return true
			}
		}
	}
	return !any
}

// activatesOnStart reports whether the manifest's processes start at boot.
func (m *Manifest) activatesOnStart() bool { return slices.Contains(m.ActivationEvents, "onStart") }

// Found is a manifest directory found in a plugins folder or the config.
type Found struct {
	Dir     string
	Project bool
}

// Discover lists manifest directories: the directories (or links to
// directories) directly under the project's .podcode/plugins and the
// user's plugins folder that hold a manifest (each folder in name order),
// then extra (from the config).
func Discover(cwd, userDir string, extra []Found) []Found {
	var out []Found
	for _, d := range []Found{{filepath.Join(cwd, ".podcode", "plugins"), true}, {filepath.Join(userDir, "plugins"), false}} {
		entries, err := os.ReadDir(d.Dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(d.Dir, e.Name())
			// A folder, or a link to one (a plugin kept elsewhere): its
			// fingerprint reads it through the link.
			if st, err := os.Stat(dir); err == nil && st.IsDir() && IsPluginDir(dir) {
				out = append(out, Found{Dir: dir, Project: d.Project})
			}
		}
	}
	return append(out, extra...)
}

// IsPluginDir reports whether dir holds a manifest.
func IsPluginDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, FileName))
	return err == nil && st.Mode().IsRegular()
}

// MaxManifestSize is the largest manifest Load reads.
const MaxManifestSize = 4 << 20

// Load reads and checks the manifest in dir. A project brings it, and it
// is read before anything is trusted: one that is not a regular file (a
// FIFO, a link to a device) or is larger than MaxManifestSize is refused
// unread.
func Load(f Found) (*Manifest, error) {
	file := filepath.Join(f.Dir, FileName)
	data, err := trust.ReadFile(file, MaxManifestSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{File: file, Msg: "no manifest"}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	m, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	m.Project = f.Project
	return m, nil
}

// TrustItem is the manifest plugin as trust sees it: every file of its
// directory (through symbolic links: a plugin folder linked from elsewhere
// is read where it points), and every command and program it runs, with
// what those run of the project (trust.Hasher.Command: scripts, what they
// source, a Makefile and its includes).
func (m *Manifest) TrustItem(project string) (trust.Item, error) {
	var h trust.Hasher
	root := m.trustRoot(project)
	h.Dir(m.Dir, root)
	for i := range m.Contributes.Hooks {
		m.hashEntry(&h, i, project, root)
	}
	it, err := h.Item(trust.KindManifest, trust.Shown(m.Dir, project))
	it.Declared = m.Guards()
	return it, err
}

// Guards are the manifest's guards as trust records them: its fail-closed
// entries that the manifest does not switch off (the user's config may
// still switch one off; the project's may not).
func (m *Manifest) Guards() []trust.Guard {
	var out []trust.Guard
	for i := range m.Contributes.Hooks {
		e := &m.Contributes.Hooks[i]
		if e.FailClosed && e.enabled(nil, m.ID) {
			out = append(out, trust.Guard{Event: e.Event, Matcher: e.Matcher, Source: m.source(e), Plugin: m.ID})
		}
	}
	return out
}

// source names an entry's handler in logs, reports and deny messages:
// "rm-guard (sh ./deny.sh)", "proc (./audit --json)".
func (m *Manifest) source(e *Entry) string {
	what := e.Handler.Command
	if what == "" {
		what = strings.TrimSpace(e.Handler.Process + " " + strings.Join(e.Handler.Args, " "))
	}
	return fmt.Sprintf("%s (%s)", m.ID, what)
}

// Reads lists the directories in which the command of entry i (of
// contributes.hooks) reads files that cannot be known, outside the
// plugin's directory, which TrustItem covers whole: the entry runs only
// while each of them, as a trust.ReadsItem, is trusted too.
func (m *Manifest) Reads(project string, i int) []string {
	var h trust.Hasher
	root := m.trustRoot(project)
	var out []string
	for _, d := range m.hashEntry(&h, i, project, root) {
		if rel, err := filepath.Rel(m.Dir, d); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			out = append(out, d)
		}
	}
	return out
}

// trustRoot is the folder whose files count as the plugin's code: the
// project, or the plugin's own folder for one the project names from
// outside it.
func (m *Manifest) trustRoot(project string) string {
	if rel, err := filepath.Rel(project, m.Dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return m.Dir
	}
	return project
}

// hashEntry adds what entry i runs to h and returns the directories its
// command reads whole.
func (m *Manifest) hashEntry(h *trust.Hasher, i int, project, root string) []string {
	e := m.Contributes.Hooks[i]
	vars := map[string]string{"PODCODE_PLUGIN_DIR": m.Dir, "PODCODE_PROJECT_DIR": project}
	if c := e.Handler.Command; c != "" {
		return h.Command(c, m.Dir, root, vars)
	}
	return h.Exec(m.processPath(e.Handler.Process), e.Handler.Args, m.Dir, root, vars)
}

// processPath is the program a process handler runs: a path with a slash
// is the plugin's, relative to its folder; a bare name is looked up in
// PATH.
func (m *Manifest) processPath(p string) string {
	if !filepath.IsAbs(p) && strings.Contains(p, string(filepath.Separator)) {
		return filepath.Join(m.Dir, p)
	}
	return p
}
