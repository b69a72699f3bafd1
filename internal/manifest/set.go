package manifest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/podcode/podcode/plugin"
)

// Set is the loaded manifest plugins and their processes.
type Set struct {
	Manifests []*Manifest
	Warnings  []string
	processes []*Process
}

// Options configure Register.
type Options struct {
	Cwd string
	Log *slog.Logger
	// Overrides returns, for a plugin from the project or the user, the
	// config's hooks entries: "<plugin id>/<Event>" → false disables that
	// plugin's handlers of that event. nil: none. With project false they
	// are the user's alone: those are the only ones a fail-closed entry
	// of the project's listens to (a project's file cannot switch off a
	// guard; only the manifest, which trust covers, or the user can).
	Overrides func(project bool) map[string]bool
	// Disabled returns, likewise, the plugin ids not to load
	// (disabled_plugins). nil: none. A project's manifest that only the
	// project's entries disable still registers its fail-closed entries.
	Disabled func(project bool) []string
	// Trust decides, for each manifest loaded, whether it runs; nil runs
	// every one, unchecked. Podcode asks its trust gate there, which logs
	// why a manifest is refused.
	Trust func(m *Manifest) Verdict
}

// Verdict is what Options.Trust decides for a manifest.
type Verdict struct {
	// Run registers every enabled entry and starts the onStart processes.
	Run bool
	// Guard, when not Run, registers the enabled fail-closed entries
	// only: a guard that is not trusted must not stop guarding. Each
	// denies the events it matches while Check fails, and runs as itself
	// once it passes (the manifest trusted while Podcode runs). The other
	// entries are skipped until the next start.
	Guard bool
	// Why says why not Run, for the set's warnings.
	Why string
	// Check, when set, is called before every call of entry i (its index
	// in contributes.hooks) and before every start of a process; an error
	// stops that call: a fail-closed entry denies with the error in its
	// message, any other entry fails with it. Podcode checks there that
	// what runs is still what the user trusted.
	Check func(entry int) error
	// Guarded, when set, is told each fail-closed entry registered, with
	// its source name, so that what would deny can be shown.
	Guarded func(entry int, source string)
}

// Register loads each found manifest and registers its handlers on d
// (steps 2 to 4 of the lifecycle). A manifest that fails is skipped with a
// warning; the others load.
func Register(d *plugin.Dispatcher, found []Found, o Options) *Set {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	s := &Set{}
	warn := func(msg string, args ...any) {
		o.Log.Warn(msg, args...)
		var b strings.Builder
		b.WriteString(msg)
		for i := 0; i+1 < len(args); i += 2 {
			fmt.Fprintf(&b, " %v=%v", args[i], args[i+1])
		}
		s.Warnings = append(s.Warnings, b.String())
	}
	seen := map[string]bool{}
	var loaded []*Manifest
	verdicts := map[*Manifest]Verdict{}
	guardsOnly := map[*Manifest]bool{} // disabled by the project's file: its guards stay
	for _, f := range found {
		if seen[f.Dir] {
			continue
		}
		seen[f.Dir] = true
		m, err := Load(f)
		if err != nil {
			warn("manifest: plugin refused", "error", err.Error())
			continue
		}
		if o.Disabled != nil && slices.Contains(o.Disabled(m.Project), m.ID) {
			if !m.Project || slices.Contains(o.Disabled(false), m.ID) || !m.hasGuards(o) {
				o.Log.Info("manifest: disabled by the config; not loaded", "plugin", m.ID, "dir", m.Dir)
				continue
			}
			warn("manifest: the project's disabled_plugins does not switch off a fail-closed guard: only its other entries are off; to switch it off whole, list it in your own podcode.json",
				"plugin", m.ID, "dir", m.Dir)
			guardsOnly[m] = true
		}
		v := Verdict{Run: true}
		if o.Trust != nil {
			v = o.Trust(m)
		}
		verdicts[m] = v
		// As with JS plugins (P4), a later plugin with the same id
		// replaces the earlier one entirely; but only one that may run:
		// a project's manifest that is not trusted, named with the id of
		// the user's, would otherwise take the user's guards away.
		if k := slices.IndexFunc(loaded, func(x *Manifest) bool { return x.ID == m.ID }); k >= 0 {
			if !v.Run && verdicts[loaded[k]].Run {
				warn("manifest: duplicate id; the plugin found later is not trusted, so it does not replace the earlier one and is not loaded", "plugin", m.ID, "kept", loaded[k].File, "skipped", m.File)
				continue
			}
			warn("manifest: duplicate id; the plugin found later replaces the earlier one", "plugin", m.ID, "removed", loaded[k].File, "kept", m.File)
			loaded = slices.Delete(loaded, k, k+1)
		}
		loaded = append(loaded, m)
	}
	for _, m := range loaded {
		v := verdicts[m]
		if !v.Run {
			// Trust has said why in the log.
			msg := fmt.Sprintf("manifest plugin %s skipped: %s", m.ID, v.Why)
			if v.Guard && m.hasGuards(o) {
				msg += "; its fail-closed entries deny the events they match until it is trusted"
			}
			s.Warnings = append(s.Warnings, msg)
			if !v.Guard {
				continue
			}
		}
		if err := s.register(d, m, o, v, guardsOnly[m]); err != nil {
			warn("manifest: plugin refused", "plugin", m.ID, "error", err.Error())
			continue
		}
		if !v.Run {
			continue
		}
		s.Manifests = append(s.Manifests, m)
		if m.activatesOnStart() {
			for _, p := range s.processesOf(m) {
				if err := p.Start(); err != nil {
					warn("manifest: starting the process failed", "plugin", m.ID, "error", err.Error())
				}
			}
		}
	}
	return s
}

func (s *Set) processesOf(m *Manifest) []*Process {
	var out []*Process
	for _, p := range s.processes {
		if p.name == m.ID {
			out = append(out, p)
		}
	}
	return out
}

// hasGuards reports whether m has an enabled fail-closed entry.
func (m *Manifest) hasGuards(o Options) bool {
	for i := range m.Contributes.Hooks {
		if e := &m.Contributes.Hooks[i]; e.FailClosed && m.entryEnabled(e, o) {
			return true
		}
	}
	return false
}

// entryEnabled reports whether e is on: the manifest's own "enabled" and
// the config's hooks entries say so. A fail-closed entry of the project's
// listens to the user's entries only: a project's file cannot switch off
// a guard (an edit of the manifest can, and trust covers that).
func (m *Manifest) entryEnabled(e *Entry, o Options) bool {
	if o.Overrides == nil {
		return e.enabled(nil, m.ID)
	}
	if m.Project && e.FailClosed {
		return e.enabled(o.Overrides(false), m.ID)
	}
	return e.enabled(o.Overrides(m.Project), m.ID)
}

// register registers m's enabled entries, only the fail-closed ones when
// not v.Run or guardsOnly.
func (s *Set) register(d *plugin.Dispatcher, m *Manifest, o Options, v Verdict, guardsOnly bool) error {
	env := append(os.Environ(), "PODCODE_PLUGIN_DIR="+m.Dir, "PODCODE_PROJECT_DIR="+o.Cwd)
	procs := map[string]*Process{}
	for i := range m.Contributes.Hooks {
		e := &m.Contributes.Hooks[i]
		if !m.entryEnabled(e, o) {
			o.Log.Info("manifest: handler disabled", "plugin", m.ID, "event", e.Event, "entry", i)
			continue
		}
		if o.Overrides != nil && m.Project && e.FailClosed && !e.enabled(o.Overrides(true), m.ID) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("manifest plugin %s: the project's hooks entry %s/%s does not switch off a fail-closed guard; to switch it off, set it in your own podcode.json", m.ID, m.ID, e.Event))
			o.Log.Warn("manifest: the project's hooks entry does not switch off a fail-closed guard; to switch it off, set it in your own podcode.json",
				"plugin", m.ID, "event", e.Event, "entry", i)
		}
		if (!v.Run || guardsOnly) && !e.FailClosed {
			continue
		}
		var check func() error
		if v.Check != nil {
			check = func() error { return v.Check(i) }
		}
		var h plugin.HookHandler
		if c := e.Handler.Command; c != "" {
			h = commandHandler(c, time.Duration(e.Handler.Timeout*float64(time.Second)), m.Dir, env)
		} else {
			key := e.Handler.Process + "\x00" + strings.Join(e.Handler.Args, "\x00")
			p := procs[key]
			if p == nil {
				p = newProcess(m.ID, m.processPath(e.Handler.Process), e.Handler.Args, m.Dir, env, o.Log, check)
				procs[key] = p
				s.processes = append(s.processes, p)
			}
			h = p.Handler(m.activatesOn(e.Event))
		}
		source := m.source(e)
		if check != nil {
			h = checked(h, check, e.FailClosed, source)
		}
		opts := []plugin.RegisterOption{plugin.WithLayer(plugin.LayerPlugin), plugin.WithSource(source)}
		if e.matcher != nil {
			opts = append(opts, plugin.WithMatcher(e.matcher))
		}
		if e.FailClosed {
			opts = append(opts, plugin.FailClosed())
		}
		if err := d.Register(plugin.HookEvent(e.Event), h, opts...); err != nil {
			return err
		}
		if e.FailClosed && v.Guarded != nil {
			v.Guarded(i, source)
		}
	}
	return nil
}

// checked runs check before h. A failed check stops the call: a
// fail-closed entry denies it, through the dispatcher's merge like any
// deny, with a message that names the guard and says why it does not run
// (a guard that changed must not silently stop guarding); any other entry
// fails with it.
func checked(h plugin.HookHandler, check func() error, failClosed bool, source string) plugin.HookHandler {
	return func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if err := check(); err != nil {
			if failClosed {
				return &plugin.HookResult{Decision: plugin.DecisionDeny,
					Message: fmt.Sprintf("%s is a fail-closed guard and does not run: %v", source, err)}, nil
			}
			return nil, fmt.Errorf("not run: %w", err)
		}
		return h(ctx, p)
	}
}

// Close stops every process.
func (s *Set) Close() {
	for _, p := range s.processes {
		p.Stop()
	}
}

// Processes lists the long-lived processes (for tests and listings).
func (s *Set) Processes() []*Process { return s.processes }
