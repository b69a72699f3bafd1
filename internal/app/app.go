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
//  5. Make the lifecycle dispatcher: the config's permission policy votes on
//     PreToolUse in its own layer, then Options.Hooks registers its handlers;
//     the guard (PreToolUse, permissions, loop guard, PostToolUse) becomes
//     the gate of every tool call.
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/tool"
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
}

// Options adjust Boot; the zero value is what the server uses.
type Options struct {
	Logger      *slog.Logger // nil: logging.New on stderr, level from PODCODE_LOG_LEVEL
	BundleCache string       // "": jsplugin.DefaultCacheDir(); "-": no disk cache
	HookTimeout time.Duration
	JobLimit    time.Duration
	BootTimeout time.Duration
	UserDir     string // the user's Podcode folder; "" for $XDG_CONFIG_HOME/podcode
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
	cache := o.BundleCache
	switch cache {
	case "":
		cache = jsplugin.DefaultCacheDir()
	case "-":
		cache = ""
	}
	a.Plugins, err = jsplugin.Load(ctx, jsplugin.Options{Cwd: cwd, Config: cfg, Logger: log, Bus: a.Bus,
		Bundler: jsplugin.NewBundler(cache), BootTimeout: o.BootTimeout, JobLimit: o.JobLimit})
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
	a.Guard = &guard.Guard{Hooks: a.Hooks, Policy: policy, LoopLimit: cfg.Agent.LoopGuard,
		AskTimeout: time.Duration(cfg.Agent.AskTimeoutMs) * time.Millisecond}
	a.Runner = &pipeline.Runner{Plugins: a.Plugins, Tools: a.Tools, Bus: a.Bus, Log: log, HookTimeout: o.HookTimeout, Gate: a.Guard}
	return a, nil
}

// Close stops the plugins.
func (a *App) Close() { a.Plugins.Close() }

// Secrets are the values no log line may show: secret-looking environment
// variables and config values.
func Secrets(cfg *config.Config) []string {
	s := logging.EnvSecrets(os.Environ())
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
