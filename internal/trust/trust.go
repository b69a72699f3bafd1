// Package trust decides whether code that came with a project may run.
//
// Code from the project directory (auto-discovered plugins, plugins named
// by the project's podcode.json, manifest plugins and their commands, the
// hooks of .claude/settings.json, and the settings of the project's
// podcode.json that run code or are sent with the user's credentials: a
// replay, request options, new models, cron jobs, webhooks, as the
// config package's table says) runs only after the user trusted that
// exact content. Each such piece of code is an Item
// with a fingerprint: a SHA-256 over the contents of the files it runs
// and its command lines. `podcode trust` shows the items and records
// their fingerprints in the user's config folder (trust.json); any change
// to an item's files or commands makes it untrusted again, and only that
// item.
//
// # What a fingerprint covers
//
// What really runs, as far as it can be known (Hasher): the files of a
// plugin's folder, through symbolic links; the files a command names; and,
// followed into them, what those run in turn: the files a shell script
// sources or runs, the Makefile of `make` and what it includes and its
// recipes run. Where the files a command reads cannot be known (`npm
// test`, `python -m tool`, a program Podcode does not know to read only
// the files it is given), the item says so and the whole directory the
// command runs in becomes an item of its own (ReadsItem), on which that
// command depends. Bounds: see maxContentFiles and the constants near it;
// the item says what was left out.
//
// Code the user's own config names, or that lives in the user's config
// folder, is the user's and is always trusted. `--trust-all` or
// PODCODE_TRUST_ALL=1 trusts everything (for CI and tests); the user's
// disable_project_plugins refuses every project item whatever was trusted.
//
// # Order of a decision (Gate.Allow)
//
//  1. disable_project_plugins in the user's config: refused.
//  2. trust-all: allowed.
//  3. The item's fingerprint equals the one recorded for this project:
//     allowed.
//  4. Otherwise refused, with a warning that names the item, says whether
//     it was never trusted or changed since, and how to trust it.
//
// The same decision is made again before every run of code whose handlers
// stay registered (Watch.Check). A refused item does not run; the
// handlers its owner declared fail-closed guards (Watch.Guard) deny the
// events they match instead, so that a guard that changed does not
// silently stop guarding. Gate.Skipped lists what does not run, for every
// place the user looks.
//
// # Guards as trusted
//
// What a changed guard denies cannot be read from the changed files: the
// change may be to the declaration itself (failClosed dropped, another
// matcher, the handler made async, the entry, the file or the plugin
// folder removed). So the store keeps, next to each item's fingerprint,
// the guards the item declared when it was trusted (Item.Declared,
// Entry.Guards). While an item that is recorded with guards is changed,
// cannot be read or is missing, the guards it no longer declares as they
// were trusted are Gate.Recorded: its owner registers, for each, a handler
// that denies what the recorded matcher matches (Recorded.Denies), shown
// with the item (Asked.Lost, Skipped). Trusting the item again records
// the guards of its new content in their place; `podcode trust` shows the
// guards that this gives up before it asks, and forgets a missing item.
// An entry recorded before guards were (a plain fingerprint string) gets
// its guards at the first start that finds the item as trusted
// (Gate.Allow).
package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// FileName is the trust store's file in the user's config folder.
const FileName = "trust.json"

// EnvTrustAll is the environment variable that trusts everything when "1".
const EnvTrustAll = "PODCODE_TRUST_ALL"

// Kinds of items.
const (
	KindPlugin   = "plugin"       // a JavaScript or TypeScript plugin
	KindManifest = "manifest"     // a manifest plugin: its manifest and the programs it runs
	KindClaude   = "claude-hooks" // the hooks of .claude/settings.json and the scripts they run
	KindMCP      = "mcp"          // an MCP server the project declares (podcode.json's mcp, .mcp.json): its entry and the files its command runs
	KindConfig   = "config"       // the settings of the project's podcode.json that need trust (config.Keys), and the files they name
	// KindClaudeContent is the project's own Claude Code commands, agents
	// and skills (.claude/commands, agents, skills): every file of them,
	// since a command's "!`...`" lines run and a skill's scripts are run by
	// the model. (A Claude Code plugin's are its KindClaude item, of its
	// whole folder.)
	KindClaudeContent = "claude-content"
)

// Item is one piece of project code.
type Item struct {
	Kind string `json:"kind"`
	// Name identifies the item within the project: a path relative to the
	// project, or a specifier.
	Name string `json:"name"`
	// Runs lists what it runs, for a person to read: files and command
	// lines.
	Runs        []string `json:"runs"`
	Fingerprint string   `json:"fingerprint"`
	// Declared are the guards the item's content declares (see Guard);
	// `podcode trust` records them with the fingerprint.
	Declared []Guard `json:"declared_guards,omitempty"`
}

// Key is the item's key in the store.
func (it Item) Key() string { return it.Kind + ":" + it.Name }

// Store is the user's record of trusted fingerprints, by project, and of
// the guards each item declared when it was trusted.
//
//	{"projects": {"/home/ann/src/app": {
//	  "manifest:.podcode/plugins/guard": {"fingerprint": "sha256:…",
//	    "guards": [{"event": "PreToolUse", "matcher": "bash", "source": "rm-guard (sh ./deny.sh)", "plugin": "rm-guard"}]},
//	  "plugin:./plugins/a.ts": {"fingerprint": "sha256:…", "guards": []},
//	  "plugin:./plugins/b.ts": "sha256:…"}}}
//
// An entry written before guards were recorded is a plain fingerprint
// string: it is read as trusted as before, with its guards unknown
// (Entry.GuardsKnown), and written back as an object without "guards".
type Store struct {
	path string
	mu   sync.Mutex
	// Projects maps a project's absolute directory to item keys and what
	// was trusted of them.
	Projects map[string]map[string]Entry `json:"projects"`
}

// Entry is what the store keeps of one trusted item.
type Entry struct {
	Fingerprint string
	// Guards are the guards the item declared when it was trusted
	// (Item.Declared), when GuardsKnown.
	Guards []Guard
	// GuardsKnown is false for an entry recorded before guards were: a
	// plain fingerprint string, or an object without "guards".
	GuardsKnown bool
}

type entryJSON struct {
	Fingerprint *string  `json:"fingerprint"`
	Guards      *[]Guard `json:"guards,omitempty"`
}

// MarshalJSON writes the entry as an object; "guards" only when known.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON{Fingerprint: &e.Fingerprint}
	if e.GuardsKnown {
		g := e.Guards
		if g == nil {
			g = []Guard{}
		}
		j.Guards = &g
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads an entry: an object, or the plain fingerprint
// string of a store written before guards were recorded.
func (e *Entry) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		*e = Entry{}
		return json.Unmarshal(data, &e.Fingerprint)
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("an item's entry must be its fingerprint or an object holding it, not %.20s", data)
	}
	var j entryJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if j.Fingerprint == nil {
		return errors.New(`an item's entry has no "fingerprint"`)
	}
	*e = Entry{Fingerprint: *j.Fingerprint}
	if j.Guards != nil {
		e.Guards, e.GuardsKnown = *j.Guards, true
		if len(e.Guards) == 0 {
			e.Guards = nil
		}
	}
	return nil
}

// Open reads the store in userDir; a missing file is an empty store.
func Open(userDir string) (*Store, error) {
	s := &Store{path: filepath.Join(userDir, FileName), Projects: map[string]map[string]Entry{}}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("trust: %s is not a trust store (%v); remove it and trust your projects again", s.path, err)
	}
	if s.Projects == nil {
		s.Projects = map[string]map[string]Entry{}
	}
	return s, nil
}

// ProjectKey is the key of a project: its absolute, symlink-free path.
func ProjectKey(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// State says how an item stands against the store.
type State string

const (
	Trusted      State = "trusted"
	NeverTrusted State = "never trusted"
	Changed      State = "changed since it was trusted"
)

// State returns the item's state in project.
func (s *Store) State(project string, it Item) State {
	e, ok := s.entry(project, it.Key())
	return stateOf(e, ok, it)
}

// stateOf is the state of it against its store entry e (ok: there is one).
func stateOf(e Entry, ok bool, it Item) State {
	switch {
	case !ok:
		return NeverTrusted
	case e.Fingerprint != it.Fingerprint:
		return Changed
	}
	return Trusted
}

// Record trusts items in project, replacing what was recorded for them
// (their fingerprints and the guards they declare), and writes the store
// (atomically, readable by the user only).
func (s *Store) Record(project string, items []Item) error {
	return s.Update(project, items, nil)
}

// Update trusts items in project, as Record does, and forgets the items
// keyed forget (Item.Key), in one write. What another process recorded
// since the store was read is kept, but for those items.
func (s *Store) Update(project string, items []Item, forget []string) error {
	return s.update(project, func(m map[string]Entry) bool {
		for _, it := range items {
			m[it.Key()] = Entry{Fingerprint: it.Fingerprint, Guards: slices.Clone(it.Declared), GuardsKnown: true}
		}
		for _, k := range forget {
			delete(m, k)
		}
		return true
	})
}

// update applies change to the project's entries, read again from the
// file first (a `podcode trust` of another process is kept), and writes
// the store when change reports a change.
func (s *Store) update(project string, change func(m map[string]Entry) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fresh, err := Open(filepath.Dir(s.path)); err == nil {
		s.Projects = fresh.Projects
	}
	key := ProjectKey(project)
	m := s.Projects[key]
	if m == nil {
		m = map[string]Entry{}
		s.Projects[key] = m
	}
	if !change(m) {
		return nil
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("trust: writing %s: %w", s.path, err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("trust: writing %s: %w", s.path, err)
	}
	return nil
}

// entry returns what the store holds of the item keyed key in project.
func (s *Store) entry(project, key string) (Entry, bool) {
	p := ProjectKey(project)
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.Projects[p][key]
	return e, ok
}

// Reload reads the store again from its file, so that a `podcode trust`
// run while Podcode runs takes effect. A file that cannot be read leaves
// the store as it was.
func (s *Store) Reload() error {
	fresh, err := Open(filepath.Dir(s.path))
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.Projects = fresh.Projects
	s.mu.Unlock()
	return nil
}

// Gate decides, item by item, whether project code runs, and keeps how
// each item it was asked about stands, for the user to see (Asked,
// Skipped).
type Gate struct {
	Project  string
	Store    *Store // nil: nothing is trusted
	All      bool   // --trust-all or PODCODE_TRUST_ALL=1
	Disabled bool   // the user's disable_project_plugins
	Log      *slog.Logger

	mu      sync.Mutex
	seen    []Asked
	idx     map[string]int    // item key → index in seen
	watches map[string]*Watch // item key → the first Watch made of it
}

// Asked is an item the gate was asked about, and how it stands now.
type Asked struct {
	Item
	State State `json:"state"`
	// Guards are the fail-closed handlers that depend on the item: while
	// it is not trusted, each of them denies the events it matches rather
	// than being skipped ("rm-guard (sh ./deny.sh)").
	Guards []string `json:"guards,omitempty"`
	// Lost are guards the user trusted that the item, as it is now, no
	// longer declares as they were (removed, no longer fail-closed,
	// another matcher, made async): they deny what they matched, as
	// recorded, until the item is trusted again, which gives them up.
	Lost []Guard `json:"lost_guards,omitempty"`
	// Missing is set for an item trusted with guards that the project
	// no longer has (its folder, file or entry removed, or it no longer
	// loads); its State is Changed. Trusting forgets it.
	Missing bool `json:"missing,omitempty"`
}

// Unreadable is the state of an item whose files could not be read.
const Unreadable State = "cannot be read"

// state is the item's state in the store (NeverTrusted without a store).
func (g *Gate) state(it Item) State {
	if g.Store == nil {
		return NeverTrusted
	}
	return g.Store.State(g.Project, it)
}

// record keeps the item and its state, replacing what was kept under the
// same key; it returns the state kept before ("" for a new item).
func (g *Gate) record(it Item, st State) State {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i, ok := g.idx[it.Key()]; ok {
		before := g.seen[i].State
		g.seen[i].Item, g.seen[i].State = it, st
		return before
	}
	if g.idx == nil {
		g.idx = map[string]int{}
	}
	g.idx[it.Key()] = len(g.seen)
	g.seen = append(g.seen, Asked{Item: it, State: st})
	return ""
}

// Allow reports whether the item may run; when not, it logs a warning that
// names it and says how to trust it, and returns the reason.
//
// An item found as trusted whose store entry does not hold the guards its
// content declares (an entry recorded before guards were) gets them
// recorded now: its content is what the user trusted.
func (g *Gate) Allow(it Item) (bool, string) {
	st := NeverTrusted
	if g.Store != nil {
		e, ok := g.Store.entry(g.Project, it.Key())
		if st = stateOf(e, ok, it); st == Trusted {
			g.completeGuards(it, e)
		}
	}
	g.record(it, st)
	return g.decide(it, st)
}

func (g *Gate) decide(it Item, st State) (bool, string) {
	var why string
	switch {
	case g.Disabled:
		why = "disable_project_plugins is set in the user's config"
	case g.All || st == Trusted:
		return true, ""
	default:
		why = fmt.Sprintf("%s; to run it, review it and run `podcode trust` in %s (or start with --trust-all)", st, g.Project)
	}
	if g.Log != nil {
		g.Log.Warn("trust: project code skipped", "kind", it.Kind, "name", it.Name, "reason", why)
	}
	return false, why
}

// Watch asks the gate about the item make returns, as Allow does, and
// returns a Watch whose Check is to be called before each run of the
// item's code while the handlers it registered stay registered. An item
// make cannot finish (a file that cannot be read) is refused with that
// error as the reason.
func (g *Gate) Watch(make func() (Item, error)) (w *Watch, ok bool, why string) {
	it, err := make()
	w = &Watch{g: g, make: make, key: it.Key()}
	g.mu.Lock()
	if g.watches == nil {
		g.watches = map[string]*Watch{}
	}
	if g.watches[w.key] == nil {
		g.watches[w.key] = w
	}
	g.mu.Unlock()
	if err != nil {
		g.record(it, Unreadable)
		ok, why = false, err.Error()
		if g.Log != nil {
			g.Log.Warn("trust: project code skipped", "kind", it.Kind, "name", it.Name, "reason", why)
		}
	} else {
		ok, why = g.Allow(it)
	}
	if ok {
		w.allowed = it.Fingerprint
	}
	return w, ok, why
}

// A Watch keeps one item of project code checked while it runs.
//
// Lifecycle: made by Gate.Watch at start-up, which decides whether the
// item's handlers are registered at all. While Podcode runs, each of
// them calls Check before it runs the item's code (a command, a process
// start): the item is made again from the files on disk, and runs only
// while its fingerprint is trusted. A fingerprint other than the one last
// allowed is looked up in the store read again from its file, so that
// `podcode trust` takes effect without a restart, and an edit made while
// Podcode runs (a tool call, a git pull) stops the item at its next run.
// The gate's Asked and Skipped follow the state Check finds.
type Watch struct {
	g    *Gate
	make func() (Item, error)
	key  string

	mu      sync.Mutex
	allowed string // the fingerprint last allowed; "" for none
}

// Check makes the item again and returns nil when it may run now, or an
// error that names it, says how it stands and how to trust it. With
// trust-all nothing is checked.
func (w *Watch) Check() error {
	g := w.g
	if g.All && !g.Disabled {
		return nil
	}
	it, err := w.make()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil && w.allowed != "" && it.Fingerprint == w.allowed && !g.Disabled {
		return nil
	}
	st := Unreadable
	if err == nil {
		if g.Store != nil && g.Store.Reload() != nil && g.Log != nil {
			g.Log.Warn("trust: the trust store cannot be read again; going by what it held at start-up", "path", g.Store.path)
		}
		st = g.state(it)
	}
	if before := g.record(it, st); before != st && g.Log != nil {
		g.Log.Warn("trust: project code now "+string(st), "kind", it.Kind, "name", it.Name, "guards", len(g.guardsOf(w.key)))
	}
	if st == Trusted && !g.Disabled {
		w.allowed = it.Fingerprint
		return nil
	}
	switch {
	case g.Disabled:
		return fmt.Errorf("%s %s: disable_project_plugins is set in the user's config", it.Kind, it.Name)
	case err != nil:
		return fmt.Errorf("%s %s %s (%v); review it and run `podcode trust` in %s", it.Kind, it.Name, st, err, g.Project)
	}
	return fmt.Errorf("%s %s %s; review it and run `podcode trust` in %s", it.Kind, it.Name, st, g.Project)
}

// TrustedBefore reports whether the user trusted the item in this project
// at some time, whatever its content was then: code they relied on.
func (w *Watch) TrustedBefore() bool {
	s := w.g.Store
	if s == nil {
		return false
	}
	_, ok := s.entry(w.g.Project, w.key)
	return ok
}

// Guard records that the handler named source is a fail-closed guard
// depending on the item: while the item is not trusted, it denies the
// events it matches. Skipped shows the item as denying.
func (w *Watch) Guard(source string) {
	g := w.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if i, ok := g.idx[w.key]; ok && !slices.Contains(g.seen[i].Guards, source) {
		g.seen[i].Guards = append(g.seen[i].Guards, source)
	}
}

func (g *Gate) guardsOf(key string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i, ok := g.idx[key]; ok {
		return g.seen[i].Guards
	}
	return nil
}

// Asked lists every item the gate was asked about, in the order first
// asked, with the state it was last found in.
func (g *Gate) Asked() []Asked {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := slices.Clone(g.seen)
	for i := range out {
		out[i].Guards = slices.Clone(out[i].Guards)
		out[i].Lost = slices.Clone(out[i].Lost)
	}
	return out
}

// Effects of project code that does not run (Skip.Effect).
const (
	EffectSkipped = "skipped" // none of it runs
	EffectDenying = "denying" // none of it runs, and its fail-closed guards deny the events they match
)

// Skip is project code that does not run as it is, for the user to see
// (`podcode run`, `podcode plugin list`, /healthz, /plugins).
type Skip struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// State is "never trusted", "changed since it was trusted", "cannot
	// be read", or "disabled" (the user's disable_project_plugins).
	State State `json:"state"`
	// Effect is EffectSkipped or EffectDenying.
	Effect string `json:"effect"`
	// Meaning says in a sentence what Effect means for this item and how
	// to make it run.
	Meaning string `json:"meaning"`
	// Guards are the handlers that deny while the item is not trusted.
	Guards []string `json:"guards,omitempty"`
}

// DisabledState is a Skip's state when the user refuses all project code.
const DisabledState State = "disabled"

// Skipped lists the items that do not run now, in the order first asked:
// none with trust-all (unless the user refuses all project code).
func (g *Gate) Skipped() []Skip {
	out := []Skip{}
	for _, a := range g.Asked() {
		if !g.Disabled && (g.All || a.State == Trusted) {
			continue
		}
		s := Skip{Kind: a.Kind, Name: a.Name, State: a.State, Effect: EffectSkipped, Guards: a.Guards}
		switch {
		case g.Disabled:
			s.State, s.Guards = DisabledState, nil
			s.Meaning = "skipped: disable_project_plugins in your config refuses all project code"
		case a.Missing:
			s.Effect = EffectDenying
			s.Meaning = fmt.Sprintf("removed from the project since it was trusted (or it no longer loads); its guards, as you trusted them, deny the events they matched (%s) until you review the removal and run `podcode trust` in %s, which gives them up",
				strings.Join(a.Guards, "; "), g.Project)
		case len(a.Guards) > 0:
			s.Effect = EffectDenying
			s.Meaning = fmt.Sprintf("its fail-closed guards deny the events they match until it is trusted (%s); review it and run `podcode trust` in %s",
				strings.Join(a.Guards, "; "), g.Project)
			if len(a.Lost) > 0 {
				var lost []string
				for _, l := range a.Lost {
					lost = append(lost, l.Source)
				}
				s.Meaning += fmt.Sprintf("; it no longer declares %s as you trusted it, which trusting it gives up", strings.Join(lost, "; "))
			}
		default:
			s.Meaning = fmt.Sprintf("skipped until it is trusted; review it and run `podcode trust` in %s", g.Project)
		}
		out = append(out, s)
	}
	return out
}
