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
// process (the Landlock ABI by a system call, the network namespace by
// starting the helper in one).
func Probe() Support {
	probeOnce.Do(func() {
		probed = Support{ABI: landlockABI()}
		if probed.ABI > 0 {
			probed.NetNS = probeNetNS()
		}
	})
	return probed
}

// probeNetNS starts the helper in a new user and network namespace and
// says whether it ran.
func probeNetNS() bool {
	cmd := exec.Command(self)
	data, _ := json.Marshal(request{Probe: true})
	cmd.Env = []string{env + "=" + string(data)}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	netNS(cmd.SysProcAttr)
	return cmd.Run() == nil
}

// netNS asks for the command to start in a new network namespace, inside
// a new user namespace that maps the caller's ids to themselves (so that
// an unprivileged server can make it, and files keep their owners). The
// new namespace has only a loopback device, down.
func netNS(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

func wrap(cmd *exec.Cmd, p Policy) error {
	s := Probe()
	if err := s.check(p); err != nil {
		return err
	}
	if err := os.MkdirAll(p.Tmp, 0o700); err != nil {
		return fmt.Errorf("sandbox: the private temporary directory: %w", err)
	}
	data, err := json.Marshal(request{Path: cmd.Path, Writable: p.Writable, Tmp: p.Tmp, Network: p.Network})
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	cmd.Env = append(confinedEnv(cmd.Env, p.Tmp), env+"="+string(data))
	cmd.Path = self
	if !p.Network && s.NetNS {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		netNS(cmd.SysProcAttr)
	}
	return nil
}
