package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// ToolPluginExec is the tool name under which a JS plugin's processes
// (child_process, Bun's $) pass the guard: PreToolUse handlers see it,
// with tool_input {command, argv, cwd, plugin, api}, and permission rules
// name it ("plugin_exec": "ask"). PostToolUse follows when the process
// ends, with its exit status.
const ToolPluginExec = "plugin_exec"

var pluginExecDef = &tool.Def{ID: ToolPluginExec, Source: tool.Builtin,
	Description: "a process a plugin starts (child_process, Bun's $); not offered to the model"}

// pluginExec is every JS plugin's jsrt.Exec: a process a plugin starts
// takes bash's path.
//
//  1. The guard: PreToolUse (the plugin's own lifecycle handlers abstain,
//     jsplugin.WithCaller) and the permission rules, as for a tool call
//     named plugin_exec; a denial, or an ask nobody answers, refuses it.
//     While plugins load, before the lifecycle handlers are registered,
//     only the permission rules decide (bootGuard).
//  2. Where it runs (execWorkspace): sandboxed for a tenant, and on a
//     server with tenants whenever the tenant is not known.
//  3. proc starts it in a process group of its own (jsrt), killed with
//     the plugin; PostToolUse once it ended.
func (a *App) pluginExec(ctx context.Context, req jsrt.ExecRequest) (*jsrt.ExecApproval, error) {
	g := a.execGuard.Load()
	if g == nil {
		return nil, fmt.Errorf("%s: the server is not ready to start processes", req.API)
	}
	scope := chat.ScopeFrom(ctx)
	ctx = jsplugin.WithCaller(ctx, req.Plugin)
	ws, err := a.execWorkspace(scope, req.Plugin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.API, err)
	}
	if !req.DirGiven {
		req.Dir = ws.Root // a tenant's process starts in its workspace, not in the project
	}
	// the guard sees where it will run
	args := map[string]any{"command": req.Command, "argv": req.Argv, "cwd": req.Dir, "plugin": req.Plugin, "api": req.API}
	call := tool.Call{SessionID: scope.SessionID}
	var rep pipeline.ToolReport
	if err := g.Permit(ctx, call, pluginExecDef, args, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", req.API, err)
	}
	cmd := req.Cmd()
	if err := ws.Confine(cmd); err != nil {
		return nil, fmt.Errorf("%s: %w", req.API, err)
	}
	start := time.Now()
	return &jsrt.ExecApproval{Cmd: cmd, Done: func(code int, output string, err error) {
		g.After(ctx, call, pluginExecDef, args, tool.Result{Output: output, Metadata: map[string]any{"exit": code}}, err, time.Since(start), &rep)
	}}, nil
}

// execWorkspace is where a plugin's process runs: a tenant's call's in the
// tenant's workspace (always sandboxed); one whose tenant is not known (a
// timer, an event, code after an await) on a server with tenants, in a
// sandboxed folder of the plugin's own, since a tenant's input may have
// led to it; otherwise as the user's bash runs (sandboxed with
// tools.sandbox).
func (a *App) execWorkspace(scope chat.Scope, plugin string) (tool.Workspace, error) {
	switch {
	case scope.TenantID > 0:
		return a.Workspace(scope.TenantID)
	case scope.Tenant == "" && a.HasTenants():
		dir := filepath.Join(a.DataDir, "plugins", safeName(plugin))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return tool.Workspace{}, fmt.Errorf("plugin %s's folder: %w", plugin, err)
		}
		return tool.Workspace{Root: dir, Sandbox: &tool.Sandbox{Tmp: filepath.Join(a.DataDir, "tmp", "plugin-"+safeName(plugin)),
			Network: a.Config.Tools.SandboxNetwork}}, nil
	}
	return a.Workspace(0)
}

// HasTenants reports whether the server serves tenants (a token of the
// config names one): what plugins do for no known caller is then not
// taken to be the user's.
func (a *App) HasTenants() bool {
	return slices.ContainsFunc(a.Config.Server.Tokens, func(t config.TenantToken) bool { return t.TenantID > 0 })
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeName is a plugin id as one folder name, distinct for distinct ids:
// an id that had to change ("a/b") takes a hash of itself after a "~", a
// character no id kept as it is has, or it would share the folder of
// another ("a_b").
func safeName(id string) string {
	s := unsafeChars.ReplaceAllString(id, "_")
	if s == id && s != "" && s != "." && s != ".." {
		return s
	}
	sum := sha256.Sum256([]byte(id))
	return s + "~" + hex.EncodeToString(sum[:8])
}

// bootGuard is the guard of the processes plugins start while they load:
// the permission rules alone, the lifecycle handlers not being registered
// yet.
func bootGuard(policy *guard.Policy, log *slog.Logger) (*guard.Guard, error) {
	d := plugin.NewDispatcher(plugin.WithLogger(log))
	if err := registerPolicy(d, policy); err != nil {
		return nil, err
	}
	return &guard.Guard{Hooks: d, Policy: policy}, nil
}

// registerPolicy registers the permission rules on d, in the config's
// layer.
func registerPolicy(d *plugin.Dispatcher, policy *guard.Policy) error {
	return d.Register(plugin.HookPreToolUse, policy.Voter(), plugin.WithLayer(plugin.LayerConfig), plugin.WithSource("config:permission"))
}
