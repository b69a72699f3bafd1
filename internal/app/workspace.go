package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
)

// DataDir is the data directory Boot uses for Options.DataDir dir: dir
// made absolute, or the user's data folder's directory for the project at
// cwd (for a command that writes there before booting).
func DataDir(cwd, dir string) (string, error) {
	if dir == "" {
		return store.DataDir(cwd)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("the data directory %q: %w", dir, err)
	}
	return abs, nil
}

// Workspace returns where the built-in tools of a tenant's turns work.
//
// The default tenant (id 0: the server's own token, no token, cron and
// webhook turns, the CLI) works in the project and tools.allowed_paths; its
// bash commands are sandboxed only with tools.sandbox. Any other tenant
// works in a directory of its own, DataDir/tenants/<id>, created (mode
// 0700) on first use, and nowhere else: not in the project, not in
// allowed_paths, and its bash commands are always sandboxed, whatever the
// config says. A sandboxed workspace's private temporary directory is
// DataDir/tmp/<id or "default">; tools.sandbox_network lets its commands
// use the network.
func (a *App) Workspace(tenantID int64) (tool.Workspace, error) {
	net := a.Config.Tools.SandboxNetwork
	switch {
	case tenantID < 0:
		return tool.Workspace{}, fmt.Errorf("tenant id %d: not a tenant", tenantID)
	case tenantID == 0:
		ws := tool.Workspace{Root: a.Cwd, Allowed: a.Config.Tools.AllowedPaths}
		if a.Config.Tools.Sandbox {
			ws.Sandbox = &tool.Sandbox{Tmp: filepath.Join(a.DataDir, "tmp", store.DefaultTenant), Network: net}
		}
		return ws, nil
	}
	id := strconv.FormatInt(tenantID, 10)
	root := filepath.Join(a.DataDir, "tenants", id)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return tool.Workspace{}, fmt.Errorf("tenant %d's workspace: %w", tenantID, err)
	}
	return tool.Workspace{Root: root, Sandbox: &tool.Sandbox{Tmp: filepath.Join(a.DataDir, "tmp", id), Network: net}}, nil
}
