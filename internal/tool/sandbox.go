package tool

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/podcode/podcode/internal/sandbox"
)

// Sandbox is how a workspace's bash commands are confined (package
// sandbox): Root and Allowed read-write, the system's directories
// read-only, nothing else of the file system, no network unless Network,
// and an environment without the server's secrets.
type Sandbox struct {
	// Tmp is the workspace's private temporary directory, outside it
	// (TMPDIR and HOME of its commands); created on first use.
	Tmp     string
	Network bool // let commands use the network (tools.sandbox_network)
}

// Confine makes cmd, built but not started, run in w's sandbox, when w has
// one. It fails, and cmd must not run, when the sandbox cannot be applied
// on this machine: a workspace that asks for it is never run without it.
func (w Workspace) Confine(cmd *exec.Cmd) error {
	if w.Sandbox == nil {
		return nil
	}
	// An allowed path that does not exist grants nothing (the helper
	// refuses a rule it cannot open); the root must exist.
	writable := []string{w.Root}
	for _, d := range w.Allowed {
		if _, err := os.Stat(d); err == nil {
			writable = append(writable, d)
		}
	}
	if err := sandbox.Wrap(cmd, sandbox.Policy{Writable: writable, Tmp: w.Sandbox.Tmp, Network: w.Sandbox.Network}); err != nil {
		return fmt.Errorf("bash: %w", err)
	}
	return nil
}
