//go:build !linux

package proc

import (
	"errors"
	"syscall"
)

// dieWithServer cannot be had here: a process Podcode started may outlive
// a Podcode that was killed.
func dieWithServer(*syscall.SysProcAttr) {}

// waitExit cannot see an exit without reaping the process here, so the
// group is not killed at the exit (only by Kill, when a Run's context
// ends): it waits until the outputs end, as exec.Cmd does.
func (p *Process) waitExit() error {
	p.drains.Wait()
	return errors.ErrUnsupported
}
