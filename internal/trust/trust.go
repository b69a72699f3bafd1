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
package trust

import (
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
	KindConfig   = "config"       // the settings of the project's podcode.json that need trust (config.Keys), and the files they name
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
}

// Key is the item's key in the store.
func (it Item) Key() string { return it.Kind + ":" + it.Name }

// Store is the user's record of trusted fingerprints, by project.
type Store struct {
	path string
	mu   sync.Mutex
	// Projects maps a project's absolute directory to item keys and their
	// trusted fingerprints.
	Projects map[string]map[string]string `json:"projects"`
}

// Open reads the store in userDir; a missing file is an empty store.
func Open(userDir string) (*Store, error) {
	s := &Store{path: filepath.Join(userDir, FileName), Projects: map[string]map[string]string{}}
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
		s.Projects = map[string]map[string]string{}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	fp, ok := s.Projects[ProjectKey(project)][it.Key()]
	switch {
	case !ok:
		return NeverTrusted
	case fp != it.Fingerprint:
		return Changed
	}
	return Trusted
}

// Record trusts items in project, replacing what was recorded for them,
// and writes the store (atomically, readable by the user only).
func (s *Store) Record(project string, items []Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := ProjectKey(project)
	m := s.Projects[key]
	if m == nil {
		m = map[string]string{}
		s.Projects[key] = m
	}
	for _, it := range items {
		m[it.Key()] = it.Fingerprint
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

	mu   sync.Mutex
	seen []Asked
	idx  map[string]int // item key → index in seen
}

// Asked is an item the gate was asked about, and how it stands now.
type Asked struct {
	Item
	State State `json:"state"`
	// Guards are the fail-closed handlers that depend on the item: while
	// it is not trusted, each of them denies the events it matches rather
	// than being skipped ("rm-guard (sh ./deny.sh)").
	Guards []string `json:"guards,omitempty"`
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
func (g *Gate) Allow(it Item) (bool, string) {
	st := g.state(it)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.Projects[ProjectKey(w.g.Project)][w.key]
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
		case len(a.Guards) > 0:
			s.Effect = EffectDenying
			s.Meaning = fmt.Sprintf("its fail-closed guards deny the events they match until it is trusted (%s); review it and run `podcode trust` in %s",
				strings.Join(a.Guards, "; "), g.Project)
		default:
			s.Meaning = fmt.Sprintf("skipped until it is trusted; review it and run `podcode trust` in %s", g.Project)
		}
		out = append(out, s)
	}
	return out
}
