package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// self is how the helper is started: this very binary, even if its file
// was replaced since.
const self = "/proc/self/exe"

var (
	probeOnce sync.Once
	probed    Support
)

// Probe returns what this machine can enforce; it is measured once per
// process (the Landlock ABI by a system call, the namespaces by starting
// the helper in them).
func Probe() Support {
	probeOnce.Do(func() {
		probed = Support{ABI: landlockABI()}
		if probed.ABI > 0 {
			probed.NetNS = probeNS(netNS)
			probed.PIDNS = probeNS(pidNS)
		}
	})
	return probed
}

// probeNS starts the helper in the namespaces ns asks for, doing there
// what a confined command's helper does first (mounting its /proc), and
// says whether it succeeded.
func probeNS(ns func(*syscall.SysProcAttr)) bool {
	cmd := exec.Command(self)
	a := &syscall.SysProcAttr{}
	ns(a)
	data, _ := json.Marshal(request{Probe: true, PIDNS: a.Cloneflags&syscall.CLONE_NEWPID != 0})
	cmd.Env = []string{env + "=" + string(data)}
	cmd.SysProcAttr = a
	return cmd.Run() == nil
}

// userNS asks for a new user namespace that maps the caller's ids to
// themselves (so that an unprivileged server can make the namespaces
// below, and files keep their owners).
func userNS(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// netNS asks for the command to start in a new network namespace (in a new
// user namespace). The new namespace has only a loopback device, down.
func netNS(a *syscall.SysProcAttr) {
	userNS(a)
	a.Cloneflags |= syscall.CLONE_NEWNET
}

// pidNS asks for the command to start as the first process of a new PID
// namespace, with a mount namespace of its own where the helper mounts a
// /proc of that PID namespace (in a new user namespace). When the first
// process exits, the kernel kills every other process of its namespace:
// nothing the command started outlives it, whatever group or session it
// moved to.
func pidNS(a *syscall.SysProcAttr) {
	userNS(a)
	a.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
}

func wrap(cmd *exec.Cmd, p Policy) error {
	s := Probe()
	if err := s.check(p); err != nil {
		return err
	}
	if err := os.MkdirAll(p.Tmp, 0o700); err != nil {
		return fmt.Errorf("sandbox: the private temporary directory: %w", err)
	}
	data, err := json.Marshal(request{Path: cmd.Path, Writable: p.Writable, Tmp: p.Tmp, Network: p.Network, PIDNS: s.PIDNS})
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	cmd.Env = append(confinedEnv(cmd.Env, p.Tmp), env+"="+string(data))
	cmd.Path = self
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !p.Network && s.NetNS {
		netNS(cmd.SysProcAttr)
	}
	if s.PIDNS {
		pidNS(cmd.SysProcAttr)
	}
	return nil
}
