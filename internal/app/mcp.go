package app

import (
	"context"
	"time"

	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/trust"
)

// startMCP starts the MCP servers the config, the project's .mcp.json and
// the Claude Code plugins that run declare (mcpclient.Start: in parallel, waiting at most the start bound),
// while the rest of Boot goes on; the returned function waits for it. A
// project's server starts only once its entry is trusted (mcpTrust).
func (a *App) startMCP(ctx context.Context, bound time.Duration, claude *claudeFiles) (wait func(), err error) {
	fromPlugins, pw := claude.mcpSpecs()
	specs, warnings, err := mcpclient.Specs(a.Config, a.Cwd, fromPlugins...)
	if err != nil {
		return nil, err
	}
	warnings = append(pw, warnings...)
	for _, w := range warnings {
		a.Log.Warn("config: " + w)
	}
	if len(specs) == 0 {
		return func() {}, nil
	}
	o := mcpclient.Options{Cwd: a.Cwd, Log: a.Log, Tools: a.Tools, StartTimeout: bound, Allow: a.mcpTrust, Hub: a.MCPHub,
		CallTimeout: time.Duration(a.Config.Tools.PluginTimeoutMs) * time.Millisecond, Ask: a.AskMCP, Sample: a.SampleMCP}
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.MCP = mcpclient.Start(ctx, specs, o)
	}()
	return func() { <-done }, nil
}

// mcpTrust is mcpclient.Options.Allow: a project's server is an item of
// kind mcp (its entry, and the files its command runs; a directory its
// command reads in ways that cannot be known is an item of its own), and
// each start checks it again, so that a server edited since it was
// trusted is not started again.
func (a *App) mcpTrust(s mcpclient.Spec) (bool, string, func() error) {
	var reads []string
	main, ok, why := a.Trust.Watch(func() (trust.Item, error) {
		it, r, err := s.TrustItem(a.Cwd)
		reads = r
		return it, err
	})
	deps := append([]*trust.Watch{main}, a.readsWatches(trust.KindMCP, s.TrustName(a.Cwd), reads, map[string]*trust.Watch{})...)
	if !ok {
		return false, why, nil
	}
	check := func() error { return checkAll(deps) }
	if err := check(); err != nil {
		return false, err.Error(), nil
	}
	if a.Trust.All && !a.Trust.Disabled {
		check = nil
	}
	return true, "", check
}

// MCPStatus is the state of every MCP server, in the order of their
// declarations; never nil (what `podcode mcp list`, `plugin list` and
// /healthz show).
func (a *App) MCPStatus() []mcpclient.Status {
	out := []mcpclient.Status{}
	for _, s := range a.MCP.Servers() {
		out = append(out, s.Status())
	}
	return out
}
