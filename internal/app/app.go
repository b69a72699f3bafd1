// Package app boots Podcode in a project directory: config, plugins, tools,
// and the pipeline runner. The server and every CLI command boot through
// Boot, so what `podcode plugin list` shows is what the server runs.
//
// Boot, in order:
//
//  1. Load the config (user's, then the project's, through config.Keys);
//     a bad file is an error that names file, line and key. The project's
//     settings that need trust are one trust item of kind config, merged
//     only once the gate allows it (gateProjectConfig), before anything
//     reads the config.
//  2. Register the built-in tools, read Claude Code's settings and find
//     the Claude Code plugins that run (readClaude), and start the MCP
//     servers (podcode.json's mcp, the project's .mcp.json, the Claude Code
//     plugins'; a project's once trusted), which go on
//     starting while the plugins load; their tools are registered as
//     <server>_<tool> when each is ready (package mcpclient).
//  3. Load the plugins (jsplugin's lifecycle: find, bundle, import,
//     validate, server(), drain tool, register).
//  4. Merge the plugins' tools into the registry by id, in pipeline order;
//     overrides of protected tools are refused and logged (SPEC H10).
//     Wait for the MCP servers (at most the start bound: one not ready by
//     then keeps starting in the background).
//  5. Make the lifecycle dispatcher and register, in this order: the
//     config's permission policy (config layer, PreToolUse), Options.Hooks
//     (an embedder's Go handlers), the JS plugins' lifecycle objects
//     (plugin layer, in pipeline order), manifest plugins (plugin layer,
//     in discovery order) and Claude Code hooks (project layer: the user's
//     ~/.claude/settings.json, the project's .claude/settings.json and
//     settings.local.json, Claude Code plugins; registerClaudeHooks),
//     then the commands, agents and skills of Claude Code's layout
//     (loadClaudeContent: App.Claude, the skill tool).
//     The config's hooks overrides and disabled_plugins remove handlers
//     here; registration order is what MaxHandlersPerEvent keeps.
//  6. The guard (PreToolUse, permissions, loop guard, PostToolUse) becomes
//     the gate of every tool call.
//
// Code that came with the project (its plugins, manifests, .claude hooks)
// passes the trust gate first (package trust): untrusted code is skipped
// with a warning before any of it runs, and a guard among it denies what
// it matches instead (trust.go in this package says how).
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/internal/claudehooks"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/manifest"
	"github.com/podcode/podcode/internal/mcpclient"
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
	Guard   *guard.Guard       // the Runner's gate; Guard.SetAsker sets who answers permission questions
	Redact  *logging.Redactor  // the secrets of the environment and the config, for what is stored and streamed
	Trust   *trust.Gate        // what project code was allowed or refused
	// MCP is the MCP servers whose tools are in Tools (nil when none is
	// configured).
	MCP *mcpclient.Set
	// MCPHub is every MCP server's, the config's and an editor's (ACP):
	// where a slash command finds an MCP server's prompt and an
	// @server:uri mention its server (App.Commands, the agent); never nil
	// after Boot.
	MCPHub *mcpclient.Hub
	// Claude is the commands, agents and skills of Claude Code's layout
	// (the user's ~/.claude, the project's .claude once trusted, the Claude
	// Code plugins that run); never nil after Boot.
	Claude *claudecode.Catalog
	// Manifests are the manifest plugins and their processes.
	Manifests *manifest.Set
	// DataDir holds the database and the tenants' workspaces, outside the
	// project (Options.DataDir, else store.DataDir); created when first
	// written.
	DataDir string

	claude      *claudehooks.Registration    // the Claude Code hooks, if any
	transcripts *claudehooks.Transcripts     // kept while Claude Code hooks are registered
	sessions    *liveSessions                // what Close ends
	execGuard   atomic.Pointer[guard.Guard]  // the guard of plugins' processes: bootGuard while they load, then Guard
	pluginAPI   atomic.Pointer[http.Handler] // what answers opencode plugins' client (SetPluginAPI)
	mcpSampler  atomic.Pointer[MCPSampler]   // who answers MCP servers' sampling (SetMCPSampler)
	unsubscribe []func()                     // bus listeners Close ends
}

// Options adjust Boot; the zero value is what the server uses.
type Options struct {
	Logger      *slog.Logger // nil: logging.New on LogTo, level from PODCODE_LOG_LEVEL
	LogTo       io.Writer    // where that logger writes; nil for stderr
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
	// PluginAPI makes, before the plugins load, what answers opencode
	// plugins' client while they start (package opencodeapi, without an
	// agent yet); nil: it answers 503 until SetPluginAPI.
	PluginAPI func(a *App) http.Handler
	// Hooks registers Go lifecycle handlers, such as an embedding program's
	// own, on the dispatcher before anything runs.
	Hooks func(d *plugin.Dispatcher) error
	// DataDir is where the database and the tenants' workspaces are kept
	// (--data); "" for store.DataDir, the user's data folder.
	DataDir string
	// ClaudeDir is Claude Code's user folder, whose settings.json hooks
	// run in every project; "" for claudehooks.UserDir() ($CLAUDE_CONFIG_DIR,
	// else ~/.claude), "-" for none.
	ClaudeDir string
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
		to := o.LogTo
		if to == nil {
			to = os.Stderr
		}
		log = logging.New(to, logging.LevelFromEnv(), secrets)
	}
	store, err := trust.Open(userDir)
	if err != nil {
		return nil, err
	}
	tlog := o.TrustLog
	if tlog == nil {
		tlog = log
	}
	gate := &trust.Gate{Project: cwd, Store: store, All: o.TrustAll, Disabled: cfg.DisableProjectPlugins, Log: tlog}
	// The project's settings that need trust are merged, or not, before
	// anything reads the config.
	gateProjectConfig(cwd, cfg, gate, log)
	for _, w := range cfg.Warnings {
		log.Warn("config: " + w)
	}
	a := &App{Cwd: cwd, Config: cfg, Log: log, Bus: bus.New(log), Tools: tool.NewRegistry(log), Models: provider.NewCatalog(cfg),
		Redact: logging.NewRedactor(secrets), Trust: gate, MCPHub: mcpclient.NewHub()}
	for _, w := range a.Models.Warnings {
		log.Warn("config: " + w)
	}
	if a.DataDir, err = DataDir(cwd, o.DataDir); err != nil {
		return nil, err
	}
	ws, err := a.Workspace(0)
	if err != nil {
		return nil, err
	}
	bash := time.Duration(cfg.Tools.BashTimeoutMs) * time.Millisecond
	for _, d := range tool.Builtins(tool.Options{Workspace: ws, BashTimeout: bash,
		Fetch: tool.FetchOptions{AllowPrivate: cfg.Tools.AllowPrivateFetch}}) {
		if err := a.Tools.Add(d); err != nil {
			return nil, err
		}
	}

	jsCfg, manifests, claudePlugins := splitPlugins(cfg)
	claudeDir := o.ClaudeDir
	switch claudeDir {
	case "":
		if claudeDir, err = claudehooks.UserDir(); err != nil {
			log.Warn("claude hooks: the user's settings are not read", "error", err.Error())
			claudeDir = ""
		}
	case "-":
		claudeDir = ""
	}
	claude := a.readClaude(claudeDir, claudePlugins)

	// The MCP servers start while the plugins load; Boot waits for both.
	waitMCP, err := a.startMCP(ctx, o.BootTimeout, claude)
	if err != nil {
		return nil, err
	}
	booted := false
	defer func() {
		if !booted {
			waitMCP()
			a.MCP.Close()
		}
	}()

	cache := o.BundleCache
	switch cache {
	case "":
		cache = jsplugin.DefaultCacheDir()
	case "-":
		cache = ""
	}
	policy := guard.NewPolicy(cfg.Permission, cfg.ProjectPermission)
	boot, err := bootGuard(policy, log)
	if err != nil {
		return nil, err
	}
	a.execGuard.Store(boot)
	if o.PluginAPI != nil {
		a.SetPluginAPI(o.PluginAPI(a))
	}
	a.Plugins, err = jsplugin.Load(ctx, jsplugin.Options{Cwd: cwd, Config: jsCfg, Logger: log, Bus: a.Bus,
		Bundler: jsplugin.NewBundler(cache), BootTimeout: o.BootTimeout, JobLimit: o.JobLimit, Trust: a.Trust.Allow,
		Exec: a.pluginExec, API: a.PluginAPI})
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
	waitMCP()
	a.Hooks = plugin.NewDispatcher(plugin.WithLogger(log))
	for tool, d := range policy.Loosening() {
		// A rule of the same key is named by the config already.
		if o := cfg.Origins("permission." + tool); len(o) > 0 && cfg.Permission[tool] == "" {
			log.Warn("config: " + o[len(o)-1].At() + fmt.Sprintf(": %s has no effect: the user's rules say %s for %s, and a project's file may only tighten them", o[len(o)-1].Value, d, tool))
		}
	}
	if err := registerPolicy(a.Hooks, policy); err != nil {
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
	mo := manifest.Options{Cwd: cwd, Log: log, Overrides: cfg.HookOverridesFor, Disabled: cfg.DisabledFor, Trust: a.manifestTrust}
	a.Manifests = manifest.Register(a.Hooks, manifest.Discover(cwd, userDir, manifests), mo)
	registerClaudeHooks(a, claude)
	loadClaudeContent(a, claude)
	a.sessions = followSessions(a)
	a.Guard = &guard.Guard{Hooks: a.Hooks, Policy: policy, LoopLimit: cfg.Agent.LoopGuard,
		AskTimeout: time.Duration(cfg.Agent.AskTimeoutMs) * time.Millisecond}
	a.execGuard.Store(a.Guard)
	a.Runner = &pipeline.Runner{Plugins: a.Plugins, Tools: a.Tools, Bus: a.Bus, Log: log, HookTimeout: o.HookTimeout, Gate: a.Guard,
		Redact: a.Redact, AskForm: a.askToolForm}
	booted = true
	return a, nil
}

// SetPluginAPI sets what answers, in process, the requests of opencode
// plugins' SDK client (package opencodeapi, over the agent the command
// makes once the App booted); until then they are answered 503.
func (a *App) SetPluginAPI(h http.Handler) { a.pluginAPI.Store(&h) }

// PluginAPI is what SetPluginAPI set, or nil.
func (a *App) PluginAPI() http.Handler {
	if h := a.pluginAPI.Load(); h != nil {
		return *h
	}
	return nil
}

// Close ends the sessions that ran in the App (EndSessions: SessionEnd,
// reason "other", while every handler is still there to hear it), then
// stops the plugins, the manifest plugins' processes and the Claude Code
// hooks still running in the background (waiting for them a while), and
// stops writing transcripts. The CLI closes the App when a command ends:
// the end of `podcode run`, a server stop. Close may be called more than
// once; later calls end nothing.
func (a *App) Close() {
	a.EndSessions(context.Background(), EndClosed)
	a.Plugins.Close()
	a.MCP.Close()
	a.Manifests.Close()
	a.claude.Close()
	for _, u := range a.unsubscribe {
		u()
	}
	a.unsubscribe = nil
}

// configItem is the trust item of the project's settings pending: each
// by its name (config.Setting.Name: a map key with dots in it is not the
// path it spells) and value, in name order, and the files they name.
func configItem(cwd string, pending []config.Setting) (trust.Item, error) {
	slices.SortStableFunc(pending, func(a, b config.Setting) int { return strings.Compare(a.Name(), b.Name()) })
	var h trust.Hasher
	for _, s := range pending {
		h.Text(s.Name()+" = "+string(s.Value), []byte(s.Name()+"\x00"+string(s.Value)))
		var file string
		if s.Row.File && json.Unmarshal(s.Value, &file) == nil && file != "" {
			if !filepath.IsAbs(file) {
				file = filepath.Join(filepath.Dir(s.File), file)
			}
			h.File(trust.Shown(file, cwd), file)
		}
	}
	return h.Item(trust.KindConfig, config.FileName)
}

// gateProjectConfig asks the trust gate about the settings of the
// project's podcode.json that need trust (config.Keys: a replay, request
// options, new models, cron jobs, webhooks) as one item of kind config.
// Its fingerprint covers exactly those settings, in key order, with their
// values in canonical JSON, and the content of the files they name (a
// replay's recording): editing another key, a comment or the layout does
// not untrust it; editing one of them does. Allowed, they are merged into
// the config; refused, each is named in a warning with its position.
func gateProjectConfig(cwd string, cfg *config.Config, gate *trust.Gate, log *slog.Logger) {
	pending := cfg.Pending()
	if len(pending) == 0 {
		return
	}
	it, err := configItem(cwd, pending)
	why := ""
	switch {
	case err != nil:
		why = err.Error()
	default:
		var ok bool
		if ok, why = gate.Allow(it); ok {
			if err := cfg.ApplyTrusted(); err != nil {
				log.Warn("config: the project's trusted settings", "error", err.Error())
			}
			return
		}
	}
	if gate.Log != nil { // the gate's logger: quiet while `podcode trust` surveys
		log = gate.Log
	}
	for _, s := range pending {
		log.Warn("config: " + s.At() + ": not applied until the project's configuration is trusted (" + s.Row.Why + "): " + why)
	}
}

// ClaudeHooksID is the id the config's hooks overrides and disabled_plugins
// use for the project's .claude/settings.json hooks ("claude/PreToolUse").
const ClaudeHooksID = "claude"

// splitPlugins separates the config's plugin entries that name a manifest
// plugin's directory, or a Claude Code plugin's, from the JavaScript
// plugins: it returns the config the JS loader sees, the manifest
// directories and the Claude Code plugins' directories, in config order.
func splitPlugins(cfg *config.Config) (*config.Config, []manifest.Found, []manifest.Found) {
	js := *cfg
	js.Plugin = nil
	var found, claude []manifest.Found
	for _, ref := range cfg.Plugin {
		dir := ref.Spec
		if u, ok := strings.CutPrefix(dir, "file://"); ok {
			dir = u
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(ref.Dir, dir)
		}
		local := strings.HasPrefix(ref.Spec, ".") || filepath.IsAbs(ref.Spec) || strings.HasPrefix(ref.Spec, "file://")
		if local && manifest.IsPluginDir(dir) {
			found = append(found, manifest.Found{Dir: filepath.Clean(dir), Project: ref.Project})
			continue
		}
		if local && claudehooks.IsPluginDir(dir) {
			claude = append(claude, manifest.Found{Dir: filepath.Clean(dir), Project: ref.Project})
			continue
		}
		js.Plugin = append(js.Plugin, ref)
	}
	return &js, found, claude
}

// Secrets are the values no log line may show: secret-looking environment
// variables and config values, the project's settings still held back for
// trust included (they are logged when refused). {env:NAME} values count
// as written and as expanded.
func Secrets(cfg *config.Config) []string {
	s := logging.EnvSecrets(os.Environ())
	for _, w := range cfg.Webhooks {
		s = append(s, config.ExpandEnv(w.Secret))
	}
	for _, t := range cfg.Server.Tokens {
		s = append(s, config.ExpandEnv(t.Token))
	}
	s = append(s, cfg.Server.Token, config.ExpandEnv(cfg.Server.Token))
	for _, m := range cfg.MCP {
		if m.OAuth != nil && m.OAuth.ClientSecret != "" { // a remote MCP server's client (the user's)
			s = append(s, m.OAuth.ClientSecret, config.ExpandEnv(m.OAuth.ClientSecret))
		}
	}
	held := map[string]any{}
	for _, p := range cfg.Pending() {
		held[p.Key] = map[string]json.RawMessage{p.Path[len(p.Path)-1]: p.Value}
	}
	var tree any
	if b, err := json.Marshal(map[string]any{"provider": cfg.Provider, "plugin_config": cfg.PluginConfig,
		"project_plugin_config": cfg.ProjectPluginConfig, "held": held}); err == nil {
		if json.Unmarshal(b, &tree) == nil {
			for _, v := range logging.ValueSecrets(tree) {
				s = append(s, v)
				if x := config.ExpandEnv(v); x != v {
					s = append(s, x)
				}
			}
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
