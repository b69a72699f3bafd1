package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/opencodeapi"
	"github.com/podcode/podcode/internal/sandbox"
	"github.com/podcode/podcode/internal/store"
)

// dataHelp says where the database is, for the commands that open it.
const dataHelp = `The session database and the tenants' workspaces are kept outside the project, in
$XDG_DATA_HOME/podcode/projects/<project name>-<hash> (by default under
~/.local/share), or in the directory --data names. A database an older Podcode kept in
the project's .podcode folder is moved there on first start (the log says so).`

// dataFlag adds --data to cmd: the data directory, into *dir.
func dataFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "data", "", "keep the database and the tenants' workspaces in this directory (default: the user's data folder)")
}

// withData returns the boot options with the data directory dir.
func withData(dir string) app.Options {
	o := bootOptions
	o.DataDir = dir
	return o
}

// openStore opens the database in a's data directory, first moving there
// the one an older Podcode kept in the project (saying so once, in the
// log: after the move there is nothing left to move).
func openStore(ctx context.Context, a *app.App) (*store.Store, error) {
	if u := a.Config.Store.URL; u != "" {
		// The user's PostgreSQL database (store.url): nothing to adopt.
		st, err := store.OpenPostgres(ctx, config.ExpandEnv(u))
		if err != nil {
			return nil, fmt.Errorf("store.url %s: %w", logging.RedactURL(u), err)
		}
		a.Log.Debug("store: opened", "database", logging.RedactURL(u))
		return st, nil
	}
	ad, err := store.Adopt(a.Cwd, a.DataDir)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(a.Cwd, a.DataDir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		a.Log.Warn("store: the data directory is inside the project: the default tenant's tools can read the database there", "data", a.DataDir)
	}
	switch {
	case ad.Moved:
		a.Log.Info("store: moved the database out of the project, where tools could read it", "from", ad.From, "to", ad.To)
	case ad.From != "":
		a.Log.Warn("store: the project still holds a database of an older Podcode, not used: move or delete it", "unused", ad.From, "database", ad.To)
	}
	st, err := store.Open(ctx, ad.To)
	if err != nil {
		return nil, err
	}
	a.Log.Debug("store: opened", "database", ad.To)
	return st, nil
}

// logSandbox says what the sandbox can enforce here, when something will
// be sandboxed: tenants' commands always are, the default tenant's with
// tools.sandbox.
func logSandbox(a *app.App, tenants bool) {
	if !tenants && !a.Config.Tools.Sandbox {
		return
	}
	s := sandbox.Probe()
	attrs := []any{"landlock_abi", s.ABI, "network_namespace", s.NetNS, "pid_namespace", s.PIDNS}
	if msg, warn := sandboxLine(s); warn {
		a.Log.Warn(msg, attrs...)
	} else {
		a.Log.Info(msg, attrs...)
	}
}

// sandboxLine is logSandbox's line for s, and whether it is a warning: the
// gravest gap first.
func sandboxLine(s sandbox.Support) (string, bool) {
	switch {
	case s.ABI == 0:
		return "sandbox: " + s.String(), true
	case !s.SignalsScoped():
		gap := "a sandboxed command can signal (kill) the server and other tenants' commands"
		if !s.NetNS {
			gap += ", reach abstract unix sockets outside its sandbox, and send UDP and other non-TCP traffic"
		}
		return "sandbox: " + s.String() + "; below Landlock ABI 6 and without a PID namespace, " + gap, true
	case !s.NetNS && s.ABI < 10:
		return "sandbox: " + s.String() + "; without a network namespace, UDP and other non-TCP traffic of sandboxed commands is not stopped", true
	case !s.PIDNS:
		return "sandbox: " + s.String() + "; without a PID namespace, sandboxed commands see other processes in /proc and can leave processes running", true
	}
	return "sandbox: " + s.String(), false
}

// startAgent opens the store (openStore), makes the agent (newAgent) and
// joins the deployment when the store is shared (joinCluster), as every
// command that runs turns does; release leaves and closes, in that order.
func startAgent(ctx context.Context, a *app.App, command string) (ag *agent.Agent, release func(), err error) {
	st, err := openStore(ctx, a)
	if err != nil {
		return nil, nil, err
	}
	ag = newAgent(a, st)
	leave, err := joinCluster(ctx, a, st, ag, command)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return ag, func() { leave(); st.Close() }, nil
}

// newAgent is the agent of a's turns over st, and what answers opencode
// plugins' client over it (opencodeapi), for every command that runs
// turns.
func newAgent(a *app.App, st *store.Store) *agent.Agent {
	ag := agent.New(a, st)
	a.SetPluginAPI(opencodeapi.New(a, ag))
	return ag
}
