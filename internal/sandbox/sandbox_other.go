//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Probe returns what this machine can enforce: nothing, outside Linux.
func Probe() Support { return Support{} }

func wrap(*exec.Cmd, Policy) error {
	return errors.New("sandbox: confining a command needs Linux (Landlock), so the command was not run")
}
