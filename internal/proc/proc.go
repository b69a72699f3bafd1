// Package proc holds what every place that runs an outside program needs:
// killing the program's whole process group, and bounded output buffers.
package proc

import (
	"bytes"
	"os/exec"
	"syscall"
	"time"
)

// KillGroup puts cmd in its own process group and, when cmd's context
// ends, kills the whole group, so a script's children die with it rather
// than holding its pipes open. It must be called before cmd starts, on a
// cmd made with exec.CommandContext.
func KillGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
}

// Head keeps the first Max bytes written to it and counts the rest.
type Head struct {
	Max     int
	Dropped int
	bytes.Buffer
}

func (h *Head) Write(p []byte) (int, error) {
	room := max(h.Max-h.Len(), 0)
	h.Buffer.Write(p[:min(len(p), room)])
	h.Dropped += len(p) - min(len(p), room)
	return len(p), nil
}
