package app

import (
	"os"
	"slices"

	"github.com/podcode/podcode/internal/claudehooks"
	"github.com/podcode/podcode/internal/manifest"
	"github.com/podcode/podcode/internal/trust"
)

// How project code with lifecycle handlers (manifest plugins, .claude
// hooks) passes the trust gate.
//
// Each owner is an item (its files, commands and what they run), and each
// directory in which one of its commands reads files that cannot be known
// is an item of its own (trust.ReadsItem); a handler depends on its
// owner's item and on the directories its own command reads. At start-up
// the gate is asked about all of them (so that `podcode trust` lists them
// all); then, before every run, each handler checks the items it depends
// on again (trust.Watch.Check): an edit made while Podcode runs stops it,
// a `podcode trust` made meanwhile lets it run again.
//
// A handler that is not trusted does not run. A guard does not vanish
// instead: a fail-closed manifest entry (never trusted, or changed since)
// and a .claude PreToolUse hook the user trusted before (changed since)
// stay registered and deny the calls they match, with a message that
// names the item and says `podcode trust`, until it is trusted again. A
// .claude hook never trusted is skipped, and shown: the user never relied
// on it. With disable_project_plugins nothing of the project is
// registered.
//
// What a changed guard denies is not only read from the changed files,
// whose change may be to the declaration (failClosed dropped, another
// matcher, made async, the entry, file or folder removed): the trust
// store records the guards of what the user trusted, and each recorded
// guard that the item, changed or missing, no longer declares as it was
// is registered from the record (registerRecordedGuards), last of the
// project's handlers, and denies what it matched until `podcode trust`.

// readsWatches makes (once per directory, in have) the watches of the
// directories dirs, read by commands of the item owner.
func (a *App) readsWatches(kind, owner string, dirs []string, have map[string]*trust.Watch) []*trust.Watch {
	var out []*trust.Watch
	for _, d := range dirs {
		w := have[d]
		if w == nil {
			w, _, _ = a.Trust.Watch(func() (trust.Item, error) { return trust.ReadsItem(kind, owner, d, a.Cwd) })
			have[d] = w
		}
		out = append(out, w)
	}
	return out
}

// checkAll checks every watch, the owner's first.
func checkAll(ws []*trust.Watch) error {
	for _, w := range ws {
		if err := w.Check(); err != nil {
			return err
		}
	}
	return nil
}

// manifestTrust is manifest.Options.Trust: a project's manifest runs once
// trusted; its fail-closed entries deny until then.
func (a *App) manifestTrust(m *manifest.Manifest) manifest.Verdict {
	if !m.Project {
		return manifest.Verdict{Run: true} // the user's own
	}
	name := trust.Shown(m.Dir, a.Cwd)
	main, ok, why := a.Trust.Watch(func() (trust.Item, error) { return m.TrustItem(a.Cwd) })
	reads := map[string]*trust.Watch{}
	deps := make([][]*trust.Watch, len(m.Contributes.Hooks))
	for i := range m.Contributes.Hooks {
		deps[i] = append([]*trust.Watch{main}, a.readsWatches(trust.KindManifest, name, m.Reads(a.Cwd, i), reads)...)
	}
	v := manifest.Verdict{Run: ok, Guard: !a.Trust.Disabled, Why: why,
		Guarded: func(i int, source string) {
			for _, w := range deps[i] {
				w.Guard(source)
			}
		}}
	if !a.Trust.All || a.Trust.Disabled {
		v.Check = func(i int) error { return checkAll(deps[i]) }
	}
	return v
}

// registerClaudeHooks registers the project's .claude/settings.json hooks
// (registerClaudeSettings), then the guards recorded as trusted that the
// project's manifests and .claude hooks no longer declare
// (registerRecordedGuards). Boot calls it after the manifests.
func registerClaudeHooks(a *App, cf *claudeFiles) {
	registerClaudeSettings(a, cf)
	registerRecordedGuards(a)
}

// registerRecordedGuards registers, for each guard the trust store
// recorded as trusted that its item (changed, unreadable or missing) no
// longer declares as it was, a handler built from the record: it denies
// what the recorded matcher matches, with a message that names the guard,
// says the project changed it since it was trusted and to run `podcode
// trust`, until the item is trusted again (trust.Recorded). As with the
// guards the files declare, only the user's podcode.json switches one off
// (disabled_plugins, hooks "<id>/<Event>": false); the project's does not.
func registerRecordedGuards(a *App) {
	recorded := a.Trust.Recorded()
	if len(recorded) == 0 {
		return
	}
	log := a.Trust.Log
	if log == nil {
		log = a.Log
	}
	userOff, userOverrides := a.Config.DisabledFor(false), a.Config.HookOverridesFor(false)
	for _, r := range recorded {
		for _, g := range r.Guards {
			id, event := g.Plugin, g.Event
			var register func() (bool, error)
			switch r.Kind {
			case trust.KindManifest:
				register = func() (bool, error) { return manifest.RegisterRecordedGuard(a.Hooks, g, r.Denies(g)) }
			case trust.KindClaude:
				id = ClaudeHooksID
				if ev, ok := claudehooks.PodcodeEvent(g.Event); ok {
					event = string(ev)
				}
				register = func() (bool, error) { return claudehooks.RegisterRecordedGuard(a.Hooks, g, a.Cwd, r.Denies(g)) }
			default:
				log.Warn("trust: a guard recorded for an item that has none; ignored", "kind", r.Kind, "name", r.Name, "guard", g.Source)
				continue
			}
			if on, ok := userOverrides[id+"/"+event]; slices.Contains(userOff, id) || ok && !on {
				a.Log.Info("trust: a guard recorded as trusted is switched off by the user's config", "kind", r.Kind, "name", r.Name, "guard", g.Source)
				continue
			}
			ok, err := register()
			if err != nil {
				log.Warn("trust: a guard recorded as trusted", "kind", r.Kind, "name", r.Name, "guard", g.Source, "error", err.Error())
			}
			if !ok {
				continue
			}
			r.Denying(g)
			log.Warn("trust: a guard you trusted was changed by the project; as trusted, it denies what it matched until `podcode trust`",
				"kind", r.Kind, "name", r.Name, "guard", g.Source, "handles", g.Describe(), "missing", r.Missing)
		}
	}
}

// registerClaudeSettings registers the Claude Code hooks where Claude Code
// reads them, in its order: the user's own ~/.claude/settings.json (no
// trust needed: the user wrote it), then the project's
// .claude/settings.json and .claude/settings.local.json, each its own trust
// item, each registered once the trust gate allows it (see above for what
// a changed guard does). A hook defined the same way in two files runs
// once, from the first. A settings file that does not parse is a warning:
// the server carries on without it.
//
// disableAllHooks is taken from the last file that sets it, a project's
// only once trusted. From the user's file it switches off every hook; from
// a project's, every hook but the user's guards: a project does not stop
// the user's guards.
//
// The project's podcode.json switches off hooks (disabled_plugins
// "claude", hooks "claude/<Event>": false), but not guards: a pulled
// line of config must not stop a guard the user trusted, any more than an
// edit of the hook does. Only the user's file switches a guard off.
func registerClaudeSettings(a *App, cf *claudeFiles) {
	if slices.Contains(a.Config.DisabledFor(false), ClaudeHooksID) {
		a.Log.Info("claude hooks: disabled by the config; not loaded")
		return
	}
	user := cf.user
	deps := map[string][]*trust.Watch{} // by hook (claudeKey)
	parts := []*claudehooks.Settings{a.claudeFilter(user, false)}
	for _, f := range cf.project {
		parts = append(parts, a.projectClaudePart(f.name, f.settings, deps))
	}
	parts = append(parts, a.claudePlugins(cf.plugins, deps)...)
	s := claudehooks.Merge(parts...)
	if s.DisableAllHooks {
		// Set by the user: nothing runs. Set by a trusted project file:
		// the user's guards still do.
		userSet := user != nil && user.SetsDisableAllHooks() && slices.IndexFunc(parts[1:], func(p *claudehooks.Settings) bool {
			return p != nil && p.SetsDisableAllHooks()
		}) < 0
		kept := s.Hooks[:0]
		for _, h := range s.Hooks {
			if !userSet && h.File == claudehooks.UserSettingsFile && h.Guard() {
				kept = append(kept, h)
			}
		}
		switch {
		case len(s.Hooks) == 0:
		case userSet:
			a.Log.Info("claude hooks: disableAllHooks is true in your settings; no Claude Code hook runs", "files", s.Files)
		default:
			a.Log.Info("claude hooks: disableAllHooks is true in the project's settings; no Claude Code hook runs but your own guards", "files", s.Files, "guards", len(kept))
		}
		s.Hooks, s.DisableAllHooks = kept, false
	}
	if len(s.Hooks) == 0 {
		return
	}
	byHook := map[*claudehooks.Hook][]*trust.Watch{}
	for i := range s.Hooks {
		h := &s.Hooks[i]
		byHook[h] = deps[claudeKey(h)]
		if h.Guard() {
			for _, w := range byHook[h] {
				w.Guard(h.Source())
			}
		}
	}
	a.transcripts = claudehooks.NewTranscripts(a.DataDir, a.Cwd, a.Log)
	a.unsubscribe = append(a.unsubscribe, a.transcripts.Listen(a.Bus))
	o := claudehooks.Options{ProjectDir: a.Cwd, Log: a.Log, Transcripts: a.transcripts}
	if !a.Trust.All {
		o.Check = func(h *claudehooks.Hook) error { return checkAll(byHook[h]) }
	}
	var err error
	a.claude, err = claudehooks.Register(a.Hooks, s, o)
	if err != nil {
		a.Log.Warn("claude hooks: some were not registered", "error", err.Error())
	}
}

// claudeKey names a hook among all settings files.
func claudeKey(h *claudehooks.Hook) string { return h.File + "\x00" + h.Where }

// sameDir reports whether a and b are the same directory.
func sameDir(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// claudeFilter drops from s the hooks the config switches off, and logs
// them. project says whether s came with the project: the project's
// podcode.json reaches only hooks that came with it, and no guard of
// theirs; the user's reaches every hook. It returns s.
func (a *App) claudeFilter(s *claudehooks.Settings, project bool) *claudehooks.Settings {
	if s == nil {
		return nil
	}
	projectOff := project && slices.Contains(a.Config.DisabledFor(true), ClaudeHooksID)
	overrides, userOverrides := a.Config.HookOverridesFor(project), a.Config.HookOverridesFor(false)
	kept := s.Hooks[:0]
	for _, h := range s.Hooks {
		ev, _ := claudehooks.PodcodeEvent(h.Event)
		key := ClaudeHooksID + "/" + string(ev)
		switch on, ok := overrides[key]; {
		case h.Guard() && (projectOff || ok && !on):
			if on, ok := userOverrides[key]; ok && !on {
				a.Log.Info("claude hooks: disabled by the config", "event", h.Event, "command", h.Command, "file", h.File)
				continue
			}
			a.Log.Warn("claude hooks: the project's podcode.json does not switch off a guard; to switch it off, set it in your own podcode.json",
				"event", h.Event, "command", h.Command, "file", h.File)
		case projectOff:
			a.Log.Info("claude hooks: disabled by the project's config", "event", h.Event, "command", h.Command, "file", h.File)
			continue
		case ok && !on:
			a.Log.Info("claude hooks: disabled by the config", "event", h.Event, "command", h.Command, "file", h.File)
			continue
		}
		kept = append(kept, h)
	}
	s.Hooks = kept
	return s
}

// claudePlugins loads the hooks of the Claude Code plugins that run
// (claudeFiles.plugins): a user's as the user's own, a project's each a
// trust item of its own.
func (a *App) claudePlugins(list []claudeFound, deps map[string][]*trust.Watch) []*claudehooks.Settings {
	var out []*claudehooks.Settings
	for _, f := range list {
		s, err := claudehooks.LoadPlugin(f.dir, f.key)
		if err != nil {
			a.Log.Warn("claude hooks: a Claude Code plugin is not loaded", "plugin", f.key, "dir", f.dir, "error", err.Error())
			continue
		}
		a.Log.Info("claude hooks: a Claude Code plugin", "plugin", s.Plugin.Key, "dir", s.Plugin.Dir, "hooks", len(s.Hooks), "enabled_by", f.by)
		if !f.project {
			out = append(out, a.claudeFilter(s, false))
			continue
		}
		out = append(out, a.projectClaudePart(s.Plugin.ItemName(), s, deps))
	}
	return out
}

// projectClaudePart is what may run of s, the project's settings file name
// (relative to the project) or a Claude Code plugin the project enables,
// nil for nothing: all of it once the gate allows its item, only its
// guards still declared as trusted when it changed since it was trusted,
// nothing when it never was. It records in deps, by hook (claudeKey), the
// watches each depends on.
func (a *App) projectClaudePart(name string, s *claudehooks.Settings, deps map[string][]*trust.Watch) *claudehooks.Settings {
	if len(s.Hooks) == 0 && !s.DisableAllHooks {
		return nil
	}
	// The item is the file as written, every hook included; the hooks
	// registered are fewer when the config switches some off.
	all := *s
	all.Hooks = slices.Clone(s.Hooks)
	main, ok, _ := a.Trust.Watch(func() (trust.Item, error) { return all.TrustItem(a.Cwd) })
	reads := map[string]*trust.Watch{}
	guardsOnly := false
	if !ok {
		if a.Trust.Disabled || !main.TrustedBefore() {
			// Never trusted: skipped, and shown (the gate has it). Its
			// directories are asked about all the same, for `podcode
			// trust` to list.
			for i := range s.Hooks {
				a.readsWatches(trust.KindClaude, name, s.Hooks[i].Reads(a.Cwd), reads)
			}
			return nil
		}
		guardsOnly = true
		// The file changed since it was trusted: its disableAllHooks is
		// not trusted either, and must not stop the guards denying.
		s.IgnoreDisableAllHooks()
	}
	s = a.claudeFilter(s, true)
	// Guards as trusted that the file no longer declares so (with a
	// disableAllHooks added, all of them) deny from the record
	// (registerRecordedGuards), not twice.
	lost := main.Lost()
	kept := s.Hooks[:0]
	for _, h := range s.Hooks {
		if guardsOnly && (!h.Guard() || slices.Contains(lost, h.TrustGuard())) {
			continue
		}
		kept = append(kept, h)
	}
	s.Hooks = kept
	for i := range s.Hooks {
		h := &s.Hooks[i]
		deps[claudeKey(h)] = append([]*trust.Watch{main}, a.readsWatches(trust.KindClaude, name, h.Reads(a.Cwd), reads)...)
	}
	return s
}
