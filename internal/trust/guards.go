package trust

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/podcode/podcode/plugin"
)

// Guard is a guard an item declares: a handler that can deny what it
// matches, and that must not stop guarding because the project changed
// (a fail-closed manifest entry, a .claude PreToolUse hook that is not
// async). The store keeps the guards of what the user trusted, so that
// what a changed guard denies is read from what was trusted, not from the
// changed files.
type Guard struct {
	// Event is the event it handles, as its file names it (a manifest's
	// Podcode event, a .claude hook's Claude Code event).
	Event string `json:"event"`
	// Matcher is its tool pattern as written, in its file's syntax (a
	// manifest's regular expression over the whole tool id, a Claude Code
	// matcher); "" matches every tool.
	Matcher string `json:"matcher,omitempty"`
	// If is a .claude hook's `if` rule, "" when none.
	If string `json:"if,omitempty"`
	// Source names it, as its deny messages and `podcode plugin list` do:
	// "rm-guard (sh ./deny.sh)", "claude: ./check.sh (.claude/settings.json)".
	Source string `json:"source"`
	// Plugin is the id the user's config switches it off by (a manifest's
	// id; "" for .claude hooks, which go by "claude").
	Plugin string `json:"plugin,omitempty"`
}

// Describe says, for a person, what the guard handles: "PreToolUse on
// bash", "PreToolUse on every tool, if Bash(rm *)".
func (g Guard) Describe() string {
	s := g.Event
	if g.Matcher != "" {
		s += " on " + g.Matcher
	} else if plugin.HookEvent(g.Event).IsToolEvent() {
		s += " on every tool"
	}
	if g.If != "" {
		s += ", if " + g.If
	}
	return s
}

// notIn returns the guards of recorded that declared does not hold as
// they are.
func notIn(recorded, declared []Guard) []Guard {
	var out []Guard
	for _, r := range recorded {
		if !slices.Contains(declared, r) {
			out = append(out, r)
		}
	}
	return out
}

// completeGuards records the guards of an item found as trusted when its
// store entry e does not hold them as they are: an entry recorded before
// guards were, or by a Podcode that counted other handlers as guards. Its
// content is what the user trusted, so its guards are too.
func (g *Gate) completeGuards(it Item, e Entry) {
	s := g.Store
	needs := func(e Entry, ok bool) bool {
		switch {
		case !ok || e.Fingerprint != it.Fingerprint:
			return false
		case !e.GuardsKnown:
			return len(it.Declared) > 0
		}
		return !slices.Equal(e.Guards, it.Declared)
	}
	if !needs(e, true) {
		return
	}
	wrote := false
	err := s.update(g.Project, func(m map[string]Entry) bool {
		e, ok := m[it.Key()]
		if !needs(e, ok) {
			return false
		}
		m[it.Key()] = Entry{Fingerprint: it.Fingerprint, Guards: slices.Clone(it.Declared), GuardsKnown: true}
		wrote = true
		return true
	})
	switch {
	case g.Log == nil:
	case err != nil:
		g.Log.Warn("trust: the guards of a trusted item cannot be recorded", "kind", it.Kind, "name", it.Name, "error", err.Error())
	case wrote:
		g.Log.Info("trust: recorded the guards of an item trusted before guards were recorded", "kind", it.Kind, "name", it.Name, "guards", len(it.Declared))
	}
}

// Recorded is an item of the project whose guards the store records as
// the user trusted them, and which does not stand as trusted now:
// changed, unreadable, or missing (no longer asked about: its folder, file
// or entry removed, or it no longer loads). Guards are the recorded guards
// it no longer declares as they were; its owner registers, for each, a
// handler that denies what the guard matched (Denies), and says so
// (Denying).
type Recorded struct {
	Kind, Name string
	State      State // Changed or Unreadable; Changed when Missing
	Missing    bool
	Guards     []Guard

	g   *Gate
	key string
	w   *Watch // nil when missing
}

// Recorded lists, by key, the items of the project whose recorded guards
// do not all stand as trusted now (see the type), once every item was
// asked about. None with trust-all or disable_project_plugins: nothing of
// the project is checked, or nothing of it registered.
func (g *Gate) Recorded() []Recorded {
	if g.Store == nil || g.All || g.Disabled {
		return nil
	}
	project := ProjectKey(g.Project)
	g.Store.mu.Lock()
	entries := map[string]Entry{}
	for k, e := range g.Store.Projects[project] {
		if len(e.Guards) > 0 {
			entries[k] = e
		}
	}
	g.Store.mu.Unlock()
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Recorded
	for _, k := range keys {
		kind, name, _ := strings.Cut(k, ":")
		r := Recorded{Kind: kind, Name: name, State: Changed, g: g, key: k, w: g.watches[k]}
		if i, ok := g.idx[k]; ok {
			a := g.seen[i]
			if a.State == Trusted {
				continue
			}
			r.State, r.Guards = a.State, notIn(entries[k].Guards, a.Declared)
		} else {
			r.Missing, r.Guards = true, entries[k].Guards
		}
		if len(r.Guards) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// Lost returns the guards the store records for the watched item that
// the item, as last made, no longer declares as they were; none while it
// is trusted.
func (w *Watch) Lost() []Guard {
	for _, r := range w.g.Recorded() {
		if r.key == w.key {
			return r.Guards
		}
	}
	return nil
}

// Denies returns the check a handler standing for the recorded guard
// makes before each event its matcher matches: an error, whose text is
// the deny message (it names the guard and the item, says the project
// changed it since it was trusted and how to review it), while the item
// stands as found; nil once it is trusted again or the guard is no
// longer recorded (a `podcode trust` made meanwhile, by any process).
func (r Recorded) Denies(guard Guard) func() error {
	g := r.g
	var what string
	switch {
	case r.Missing:
		what = fmt.Sprintf("%s %s was removed since it was trusted, or no longer loads", r.Kind, r.Name)
	case r.State == Changed:
		what = fmt.Sprintf("%s %s changed since it was trusted and no longer declares it as it was", r.Kind, r.Name)
	default:
		what = fmt.Sprintf("%s %s %s", r.Kind, r.Name, r.State)
	}
	msg := fmt.Sprintf("%s is a guard you trusted, and the project changed it since (%s): as you trusted it, it denies what it matched until you review the change and run `podcode trust` in %s",
		guard.Source, what, g.Project)
	return func() error {
		if r.w != nil {
			if r.w.Check() == nil {
				return nil // trusted again: its guards are what it declares now
			}
		} else if err := g.Store.Reload(); err != nil && g.Log != nil {
			g.Log.Warn("trust: the trust store cannot be read again; going by what it held at start-up", "path", g.Store.path, "error", err.Error())
		}
		if e, ok := g.Store.entry(g.Project, r.key); !ok || !slices.Contains(e.Guards, guard) {
			return nil
		}
		return errors.New(msg)
	}
}

// Denying records that a handler standing for the recorded guard is
// registered: Asked and Skipped show the item with it (a missing item is
// added, as changed).
func (r Recorded) Denying(guard Guard) {
	g := r.g
	g.mu.Lock()
	defer g.mu.Unlock()
	i, ok := g.idx[r.key]
	if !ok {
		if g.idx == nil {
			g.idx = map[string]int{}
		}
		i = len(g.seen)
		g.idx[r.key] = i
		g.seen = append(g.seen, Asked{Item: Item{Kind: r.Kind, Name: r.Name}, State: Changed, Missing: true})
	}
	a := &g.seen[i]
	if !slices.Contains(a.Lost, guard) {
		a.Lost = append(a.Lost, guard)
	}
	if !slices.Contains(a.Guards, guard.Source) {
		a.Guards = append(a.Guards, guard.Source)
	}
}
