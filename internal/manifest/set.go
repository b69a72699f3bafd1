package manifest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
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
	// plugin's handlers of that event. nil: none.
	Overrides func(project bool) map[string]bool
	// Disabled returns, likewise, the plugin ids not to load
	// (disabled_plugins). nil: none.
	Disabled func(project bool) []string
	// Recheck, when set, runs before every command and every start of a
	// process of m; an error stops that run (it counts as the handler's
	// error). Podcode checks there that m is still what the user trusted.
	Recheck func(m *Manifest) error
	// Allow says whether a manifest may run (trust); nil allows all. A
	// manifest refused here is skipped; Allow logs why.
	Allow func(m *Manifest) (bool, string)
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
			o.Log.Info("manifest: disabled by the config; not loaded", "plugin", m.ID, "dir", m.Dir)
			continue
		}
		// As with JS plugins (P4), a later plugin with the same id
		// replaces the earlier one entirely.
		if k := slices.IndexFunc(loaded, func(x *Manifest) bool { return x.ID == m.ID }); k >= 0 {
			warn("manifest: duplicate id; the plugin found later replaces the earlier one", "plugin", m.ID, "removed", loaded[k].File, "kept", m.File)
			loaded = slices.Delete(loaded, k, k+1)
		}
		loaded = append(loaded, m)
	}
	for _, m := range loaded {
		if o.Allow != nil {
			if ok, why := o.Allow(m); !ok {
				// Allow has said why in the log.
				s.Warnings = append(s.Warnings, fmt.Sprintf("manifest plugin %s skipped: %s", m.ID, why))
				continue
			}
		}
		if err := s.register(d, m, o); err != nil {
			warn("manifest: plugin refused", "plugin", m.ID, "error", err.Error())
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

func (s *Set) register(d *plugin.Dispatcher, m *Manifest, o Options) error {
	env := append(os.Environ(), "PODCODE_PLUGIN_DIR="+m.Dir, "PODCODE_PROJECT_DIR="+o.Cwd)
	var overrides map[string]bool
	if o.Overrides != nil {
		overrides = o.Overrides(m.Project)
	}
	var recheck func() error
	if o.Recheck != nil {
		recheck = func() error { return o.Recheck(m) }
	}
	procs := map[string]*Process{}
	for i := range m.Contributes.Hooks {
		e := &m.Contributes.Hooks[i]
		if !e.enabled(overrides, m.ID) {
			o.Log.Info("manifest: handler disabled", "plugin", m.ID, "event", e.Event, "entry", i)
			continue
		}
		var h plugin.HookHandler
		var what string
		if c := e.Handler.Command; c != "" {
			h = commandHandler(c, time.Duration(e.Handler.Timeout*float64(time.Second)), m.Dir, env)
			if recheck != nil {
				h = rechecked(h, recheck)
			}
			what = c
		} else {
			key := e.Handler.Process + "\x00" + strings.Join(e.Handler.Args, "\x00")
			p := procs[key]
			if p == nil {
				path := e.Handler.Process
				if !filepath.IsAbs(path) && strings.Contains(path, string(filepath.Separator)) {
					path = filepath.Join(m.Dir, path)
				}
				p = newProcess(m.ID, path, e.Handler.Args, m.Dir, env, o.Log, recheck)
				procs[key] = p
				s.processes = append(s.processes, p)
			}
			h = p.Handler(m.activatesOn(e.Event))
			what = strings.TrimSpace(e.Handler.Process + " " + strings.Join(e.Handler.Args, " "))
		}
		opts := []plugin.RegisterOption{plugin.WithLayer(plugin.LayerPlugin), plugin.WithSource(fmt.Sprintf("%s (%s)", m.ID, what))}
		if e.matcher != nil {
			opts = append(opts, plugin.WithMatcher(e.matcher))
		}
		if e.FailClosed {
			opts = append(opts, plugin.FailClosed())
		}
		if err := d.Register(plugin.HookEvent(e.Event), h, opts...); err != nil {
			return err
		}
	}
	return nil
}

// rechecked runs check before h; its error stops the call.
func rechecked(h plugin.HookHandler, check func() error) plugin.HookHandler {
	return func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if err := check(); err != nil {
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
