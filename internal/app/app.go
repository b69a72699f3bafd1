// Package app boots Podcode in a project directory: config, plugins, tools,
// and the pipeline runner. The server and every CLI command boot through
// Boot, so what `podcode plugin list` shows is what the server runs.
//
// Boot, in order:
//
//  1. Load the config (user's, then the project's); a bad file is an error
//     that names file, line and key.
//  2. Register the built-in tools.
//  3. Load the plugins (jsplugin's lifecycle: find, bundle, import,
//     validate, server(), drain tool, register).
//  4. Merge the plugins' tools into the registry by id, in pipeline order;
//     overrides of protected tools are refused and logged (SPEC H10).
//  5. Make the lifecycle dispatcher and register, in this order: the
//     config's permission policy (config layer, PreToolUse), Options.Hooks
//     (an embedder's Go handlers), the JS plugins' lifecycle objects
//     (plugin layer, in pipeline order), manifest plugins (plugin layer,
//     in discovery order) and .claude/settings.json hooks (project layer).
//     The config's hooks overrides and disabled_plugins remove handlers
//     here; registration order is what MaxHandlersPerEvent keeps.
//  6. The guard (PreToolUse, permissions, loop guard, PostToolUse) becomes
//     the gate of every tool call.
//
// Code that came with the project (its plugins, manifests, .claude hooks)
// passes the trust gate first (package trust): untrusted code is skipped
// with a warning before any of it runs.
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/claudehooks"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/manifest"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

// App is a booted Podcode.
type App struct {
	Cwd     string
	Config  *config.Config
	Log     *slog.Logger
	Bus     *bus.Bus
	Plugins *jsplugin.Set
	Tools   *tool.Registry
	Models  *provider.Catalog
	Runner  *pipeline.Runner
	Hooks   *plugin.Dispatcher // the lifecycle events
	Guard   *guard.Guard       // the Runner's gate; set Guard.Asker to answer permission questions
	Redact  *logging.Redactor  // the secrets of the environment and the config, for what is stored and streamed
	Trust   *trust.Gate        // what project code was allowed or refused
	// Manifests are the manifest plugins and their processes.
	Manifests *manifest.Set

	claude *claudehooks.Registration // the project's Claude Code hooks, if any
}

// Options adjust Boot; the zero value is what the server uses.
type Options struct {
	Logger      *slog.Logger // nil: logging.New on stderr, level from PODCODE_LOG_LEVEL
	BundleCache string       // "": jsplugin.DefaultCacheDir(); "-": no disk cache
	HookTimeout time.Duration
	JobLimit    time.Duration
	BootTimeout time.Duration
	UserDir     string // the user's Podcode folder; "" for $XDG_CONFIG_HOME/podcode
	// TrustAll runs project code without asking the trust store
	// (--trust-all, or PODCODE_TRUST_ALL=1, which the command reads).
	TrustAll bool
	// TrustLog replaces the trust gate's logger (for `podcode trust`, which
	// lists what the gate was asked about rather than warning about it).
	TrustLog *slog.Logger
	// Hooks registers Go lifecycle handlers, such as an embedding program's
	// own, on the dispatcher before anything runs.
	Hooks func(d *plugin.Dispatcher) error
}

// Boot starts Podcode in cwd.
func Boot(ctx context.Context, cwd string, o Options) (*App, error) {
	userDir := o.UserDir
	if userDir == "" {
		var err error
		if userDir, err = config.UserDir(); err != nil {
			return nil, err
		}
	}
	cfg, err := config.LoadFrom(cwd, userDir)
	if err != nil {
		return nil, err
	}
	secrets := Secrets(cfg)
	log := o.Logger
	if log == nil {
		log = logging.New(os.Stderr, logging.LevelFromEnv(), secrets)
	}
	for _, w := range cfg.Warnings {
		log.Warn("config: " + w)
	}
	a := &App{Cwd: cwd, Config: cfg, Log: log, Bus: bus.New(log), Tools: tool.NewRegistry(log), Models: provider.NewCatalog(cfg),
		Redact: logging.NewRedactor(secrets)}
	bash := time.Duration(cfg.Tools.BashTimeoutMs) * time.Millisecond
	for _, d := range tool.Builtins(tool.Options{Workspace: tool.Workspace{Root: cwd, Allowed: cfg.Tools.AllowedPaths}, BashTimeout: bash,
		Fetch: tool.FetchOptions{AllowPrivate: cfg.Tools.AllowPrivateFetch}}) {
		if err := a.Tools.Add(d); err != nil {
			return nil, err
		}
	}
	store, err := trust.Open(userDir)
	if err != nil {
		return nil, err
	}
	tlog := o.TrustLog
	if tlog == nil {
		tlog = log
	}
	a.Trust = &trust.Gate{Project: cwd, Store: store, All: o.TrustAll,
		Disabled: cfg.DisableProjectPlugins, Log: tlog}

	cache := o.BundleCache
	switch cache {
	case "":
		cache = jsplugin.DefaultCacheDir()
	case "-":
		cache = ""
	}
	jsCfg, manifests := splitPlugins(cfg)
	a.Plugins, err = jsplugin.Load(ctx, jsplugin.Options{Cwd: cwd, Config: jsCfg, Logger: log, Bus: a.Bus,
		Bundler: jsplugin.NewBundler(cache), BootTimeout: o.BootTimeout, JobLimit: o.JobLimit, Trust: a.Trust.Allow})
	if err != nil {
		return nil, err
	}
	for _, p := range a.Plugins.Plugins {
		for _, d := range p.Tools {
			if err := a.Tools.Add(d); err != nil {
				a.Plugins.Warnings = append(a.Plugins.Warnings, err.Error())
			}
		}
	}
	a.Hooks = plugin.NewDispatcher(plugin.WithLogger(log))
	policy := guard.NewPolicy(cfg.Permission)
	if err := a.Hooks.Register(plugin.HookPreToolUse, policy.Voter(), plugin.WithLayer(plugin.LayerConfig), plugin.WithSource("config:permission")); err != nil {
		return nil, err
	}
	if o.Hooks != nil {
		if err := o.Hooks(a.Hooks); err != nil {
			a.Plugins.Close()
			return nil, fmt.Errorf("registering lifecycle handlers: %w", err)
		}
	}
	for _, p := range a.Plugins.Plugins {
		overrides := cfg.HookOverridesFor(p.Project)
		for _, ev := range p.Lifecycle {
			if on, ok := overrides[p.ID+"/"+string(ev)]; ok && !on {
				log.Info("plugin: lifecycle handler disabled by the config", "plugin", p.ID, "event", string(ev))
				continue
			}
			if err := a.Hooks.Register(ev, p.LifecycleHandler(ev), plugin.WithLayer(plugin.LayerPlugin), plugin.WithSource(p.ID)); err != nil {
				a.Plugins.Close()
				return nil, err
			}
		}
	}
	var trusted sync.Map // *manifest.Manifest → the fingerprint it was allowed with
	mo := manifest.Options{Cwd: cwd, Log: log, Overrides: cfg.HookOverridesFor, Disabled: cfg.DisabledFor,
		Allow: func(m *manifest.Manifest) (bool, string) {
			if !m.Project {
				return true, ""
			}
			it, err := m.TrustItem(cwd)
			if err != nil {
				log.Warn("manifest: plugin refused", "plugin", m.ID, "error", err.Error())
				return false, err.Error()
			}
			ok, why := a.Trust.Allow(it)
			if ok {
				trusted.Store(m, it.Fingerprint)
			}
			return ok, why
		}}
	if !a.Trust.All {
		// Scripts are read again at every run: what runs must still be
		// what was trusted, whatever changed the files since (a tool
		// call, a git pull).
		mo.Recheck = func(m *manifest.Manifest) error {
			fp, ok := trusted.Load(m)
			if !ok {
				return nil // the user's own
			}
			return stillTrusted(m.TrustItem(cwd))(fp.(string))
		}
	}
	a.Manifests = manifest.Register(a.Hooks, manifest.Discover(cwd, userDir, manifests), mo)
	registerClaudeHooks(a, cfg.HookOverridesFor(true))
	gateProjectJobs(a)
	a.Guard = &guard.Guard{Hooks: a.Hooks, Policy: policy, LoopLimit: cfg.Agent.LoopGuard,
		AskTimeout: time.Duration(cfg.Agent.AskTimeoutMs) * time.Millisecond}
	a.Runner = &pipeline.Runner{Plugins: a.Plugins, Tools: a.Tools, Bus: a.Bus, Log: log, HookTimeout: o.HookTimeout, Gate: a.Guard}
	return a, nil
}

// Close stops the plugins, the manifest plugins' processes and the Claude
// Code hooks still running in the background.
func (a *App) Close() {
	a.Plugins.Close()
	a.Manifests.Close()
	a.claude.Close()
}

// registerClaudeHooks registers the project's .claude/settings.json hooks
// once the trust gate allows them. A settings file that does not parse is
// a warning: the server carries on without them.
func registerClaudeHooks(a *App, overrides map[string]bool) {
	if slices.Contains(a.Config.DisabledFor(true), ClaudeHooksID) {
		a.Log.Info("claude hooks: disabled by the config; not loaded")
		return
	}
	s, err := claudehooks.Load(a.Cwd)
	if err != nil {
		a.Log.Warn("claude hooks: not loaded", "error", err.Error())
		return
	}
	if len(s.Hooks) == 0 {
		return
	}
	it, err := s.TrustItem(a.Cwd)
	if err != nil {
		a.Log.Warn("claude hooks: not loaded", "error", err.Error())
		return
	}
	if ok, _ := a.Trust.Allow(it); !ok {
		return // the gate said why
	}
	var recheck func() error
	if !a.Trust.All {
		recheck = func() error { return stillTrusted(s.TrustItem(a.Cwd))(it.Fingerprint) }
	}
	kept := s.Hooks[:0]
	for _, h := range s.Hooks {
		ev, _ := claudehooks.PodcodeEvent(h.Event)
		if on, ok := overrides[ClaudeHooksID+"/"+string(ev)]; ok && !on {
			a.Log.Info("claude hooks: disabled by the config", "event", h.Event, "command", h.Command)
			continue
		}
		kept = append(kept, h)
	}
	s.Hooks = kept
	a.claude, err = claudehooks.Register(a.Hooks, s, claudehooks.Options{ProjectDir: a.Cwd, Log: a.Log, Recheck: recheck})
	if err != nil {
		a.Log.Warn("claude hooks: some were not registered", "error", err.Error())
	}
}

// stillTrusted compares an item computed now with the fingerprint it was
// trusted with at start-up.
func stillTrusted(now trust.Item, err error) func(fingerprint string) error {
	return func(fp string) error {
		if err != nil {
			return err
		}
		if now.Fingerprint != fp {
			return fmt.Errorf("%s %s changed since it was trusted; run `podcode trust` and restart", now.Kind, now.Name)
		}
		return nil
	}
}

// gateProjectJobs keeps the project's cron jobs and webhooks in the config
// only if the trust gate allows them: they run prompts with no one there.
func gateProjectJobs(a *App) {
	var h trust.Hasher
	var n int
	for _, j := range a.Config.Cron {
		if j.Project {
			data, _ := json.Marshal(j)
			h.Text(fmt.Sprintf("cron %s: %q at %q", j.Name, j.Prompt, j.Schedule), data)
			n++
		}
	}
	names := slices.Sorted(maps.Keys(a.Config.Webhooks))
	for _, name := range names {
		if w := a.Config.Webhooks[name]; w.Project {
			data, _ := json.Marshal(w)
			h.Text(fmt.Sprintf("webhook %s: %q", name, w.Prompt), append([]byte(name+"\x00"), data...))
			n++
		}
	}
	if n == 0 {
		return
	}
	it, err := h.Item(trust.KindConfig, config.FileName)
	if err == nil {
		if ok, _ := a.Trust.Allow(it); ok {
			return
		}
	}
	a.Config.Cron = slices.DeleteFunc(a.Config.Cron, func(j config.CronJob) bool { return j.Project })
	maps.DeleteFunc(a.Config.Webhooks, func(_ string, w config.Webhook) bool { return w.Project })
}

// ClaudeHooksID is the id the config's hooks overrides and disabled_plugins
// use for the project's .claude/settings.json hooks ("claude/PreToolUse").
const ClaudeHooksID = "claude"

// splitPlugins separates the config's plugin entries that name a manifest
// plugin's directory from the JavaScript plugins: it returns the config
// the JS loader sees and the manifest directories, in config order.
func splitPlugins(cfg *config.Config) (*config.Config, []manifest.Found) {
	js := *cfg
	js.Plugin = nil
	var found []manifest.Found
	for _, ref := range cfg.Plugin {
		dir := ref.Spec
		if u, ok := strings.CutPrefix(dir, "file://"); ok {
			dir = u
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(ref.Dir, dir)
		}
		if (strings.HasPrefix(ref.Spec, ".") || filepath.IsAbs(ref.Spec) || strings.HasPrefix(ref.Spec, "file://")) && manifest.IsPluginDir(dir) {
			found = append(found, manifest.Found{Dir: filepath.Clean(dir), Project: ref.Project})
			continue
		}
		js.Plugin = append(js.Plugin, ref)
	}
	return &js, found
}

// Secrets are the values no log line may show: secret-looking environment
// variables and config values.
func Secrets(cfg *config.Config) []string {
	s := logging.EnvSecrets(os.Environ())
	for _, w := range cfg.Webhooks {
		s = append(s, config.ExpandEnv(w.Secret))
	}
	for _, t := range cfg.Server.Tokens {
		s = append(s, config.ExpandEnv(t.Token))
	}
	s = append(s, cfg.Server.Token)
	var tree any
	if b, err := json.Marshal(map[string]any{"provider": cfg.Provider, "plugin_config": cfg.PluginConfig}); err == nil {
		if json.Unmarshal(b, &tree) == nil {
			s = append(s, logging.ValueSecrets(tree)...)
		}
	}
	return s
}

// Model returns the model the config selects.
func (a *App) Model() (provider.Model, error) {
	m, err := a.Models.Default()
	if err != nil {
		return provider.Model{}, fmt.Errorf("config: %w", err)
	}
	return m, nil
}
