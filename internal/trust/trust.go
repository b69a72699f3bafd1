// Package trust decides whether code that came with a project may run.
//
// Code from the project directory (auto-discovered plugins, plugins named
// by the project's podcode.json, manifest plugins and their commands, the
// hooks of .claude/settings.json, and the cron jobs and webhooks of the
// project's podcode.json, which run prompts unattended) runs only after the user trusted that
// exact content. Each such piece of code is an Item with a fingerprint: a
// SHA-256 over the contents of the files it runs and its command lines.
// `podcode trust` shows the items and records their fingerprints in the
// user's config folder (trust.json); any change to an item's files or
// commands makes it untrusted again, and only that item.
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
package trust

import (
	"crypto/sha256"
	"encoding/hex"
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
	KindConfig   = "config"       // what the project's podcode.json runs unattended: cron jobs, webhooks
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

// Hasher builds a fingerprint. Parts are length-prefixed, so two different
// sequences never hash alike.
type Hasher struct {
	h    []byte
	runs []string
	err  error
}

func (h *Hasher) add(kind, name string, data []byte) {
	h.h = fmt.Appendf(h.h, "%s %d %s %d\n", kind, len(name), name, len(data))
	h.h = append(h.h, data...)
}

// File adds a file's path (as shown) and content. A missing file counts as
// empty, so that creating it later changes the fingerprint.
func (h *Hasher) File(shown, path string) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.err = errors.Join(h.err, fmt.Errorf("trust: reading %s: %w", path, err))
	}
	h.add("file", shown, data)
	h.runs = append(h.runs, shown)
}

// Text adds a piece of configuration shown as shown (a cron job, a
// webhook), with data its exact content.
func (h *Hasher) Text(shown string, data []byte) {
	h.add("text", shown, data)
	h.runs = append(h.runs, shown)
}

// Hash adds a file known by its content hash (a bundle's input).
func (h *Hasher) Hash(shown, hash string) {
	h.add("hash", shown, []byte(hash))
	h.runs = append(h.runs, shown)
}

// Dir adds every regular file under path (.git and node_modules left
// out), in name order, shown relative to root. A missing directory adds
// nothing.
func (h *Hasher) Dir(path, root string) {
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p != path {
				h.err = errors.Join(h.err, fmt.Errorf("trust: reading %s: %w", p, err))
			}
			return nil
		case d.IsDir() && p != path && (d.Name() == ".git" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.Type().IsRegular():
			h.File(Shown(p, root), p)
		}
		return nil
	})
}

// Shown is how an item shows path p: relative to root, slash-separated,
// when p lies inside root; as it is otherwise.
func Shown(p, root string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// Command adds a command line, and the content of every word of it that
// names a file inside root (a script the command runs). Words are read as
// a shell would for this purpose: quotes removed wherever they are
// ("$DIR"/x.sh), then $NAME and ${NAME} expanded from vars, then resolved
// against dir.
func (h *Hasher) Command(command, dir, root string, vars map[string]string) {
	h.add("command", command, nil)
	h.runs = append(h.runs, "$ "+command)
	for _, w := range strings.Fields(command) {
		w = unquote.Replace(w)
		w = os.Expand(w, func(k string) string { return vars[k] })
		if w == "" || strings.HasPrefix(w, "-") {
			continue
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
			continue // a program outside the project is not the project's code
		}
		h.File(Shown(p, root), p)
	}
}

// unquote removes a shell word's quotes, wherever they are.
var unquote = strings.NewReplacer(`"`, "", `'`, "")

// Item finishes the item.
func (h *Hasher) Item(kind, name string) (Item, error) {
	sum := sha256.Sum256(h.h)
	return Item{Kind: kind, Name: name, Runs: slices.Clone(h.runs), Fingerprint: "sha256:" + hex.EncodeToString(sum[:])}, h.err
}

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

// Gate decides, item by item, whether project code runs.
type Gate struct {
	Project  string
	Store    *Store // nil: nothing is trusted
	All      bool   // --trust-all or PODCODE_TRUST_ALL=1
	Disabled bool   // the user's disable_project_plugins
	Log      *slog.Logger

	mu   sync.Mutex
	seen []Asked
}

// Asked is an item the gate was asked about, and its state.
type Asked struct {
	Item
	State State `json:"state"`
}

// Allow reports whether the item may run; when not, it logs a warning that
// names it and says how to trust it, and returns the reason.
func (g *Gate) Allow(it Item) (bool, string) {
	st := NeverTrusted
	if g.Store != nil {
		st = g.Store.State(g.Project, it)
	}
	g.mu.Lock()
	g.seen = append(g.seen, Asked{it, st})
	g.mu.Unlock()
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

// Asked lists every item the gate was asked about, in order.
func (g *Gate) Asked() []Asked {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.seen)
}
