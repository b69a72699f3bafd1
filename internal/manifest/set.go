package manifest

import (
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
	Cwd       string
	Log       *slog.Logger
	Overrides map[string]bool // "<plugin id>/<Event>": false disables that plugin's handlers of that event
	Disabled  []string        // plugin ids not loaded (disabled_plugins)
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
		if slices.Contains(o.Disabled, m.ID) {
			o.Log.Info("manifest: disabled by the config; not loaded", "plugin", m.ID, "dir", m.Dir)
			continue
		}
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
	procs := map[string]*Process{}
	for i := range m.Contributes.Hooks {
		e := &m.Contributes.Hooks[i]
		if !e.enabled(o.Overrides, m.ID) {
			o.Log.Info("manifest: handler disabled", "plugin", m.ID, "event", e.Event, "entry", i)
			continue
		}
		var h plugin.HookHandler
		var what string
		if c := e.Handler.Command; c != "" {
			h = commandHandler(c, time.Duration(e.Handler.Timeout*float64(time.Second)), m.Dir, env)
			what = c
		} else {
			key := e.Handler.Process + "\x00" + strings.Join(e.Handler.Args, "\x00")
			p := procs[key]
			if p == nil {
				path := e.Handler.Process
				if !filepath.IsAbs(path) && strings.Contains(path, string(filepath.Separator)) {
					path = filepath.Join(m.Dir, path)
				}
				p = newProcess(m.ID, path, e.Handler.Args, m.Dir, env, o.Log)
				procs[key] = p
				s.processes = append(s.processes, p)
			}
			h = p.Handler()
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

// Close stops every process.
func (s *Set) Close() {
	for _, p := range s.processes {
		p.Stop()
	}
}

// Processes lists the long-lived processes (for tests and listings).
func (s *Set) Processes() []*Process { return s.processes }
