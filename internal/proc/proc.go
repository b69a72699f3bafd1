// Package proc holds what every place that runs an outside program needs:
// killing the program's whole process group, bounded output buffers, and
// running a command with input for its exit status and output.
package proc

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// OwnGroup puts cmd in its own process group, so that KillGroupOf its pid
// kills its children too. It must be called before cmd starts.
func OwnGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// KillGroupOf kills the process group of pid, a process started after
// OwnGroup.
func KillGroupOf(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }

// KillGroup puts cmd in its own process group and, when cmd's context
// ends, kills the whole group, so a script's children die with it rather
// than holding its pipes open. It must be called before cmd starts, on a
// cmd made with exec.CommandContext.
func KillGroup(cmd *exec.Cmd) {
	OwnGroup(cmd)
	cmd.Cancel = func() error { return KillGroupOf(cmd.Process.Pid) }
	cmd.WaitDelay = 2 * time.Second
}

// Run runs cmd, made with exec.CommandContext and not started, in its own
// process group (KillGroup), with input on its stdin, and returns its exit
// status and the first limit bytes of its stdout and of its stderr. A
// non-zero exit status is not an error; not starting, or not finishing
// cleanly, is. When cmd's context ends first the group is killed and the
// status is a killed process's (-1): callers test their context before the
// status.
func Run(cmd *exec.Cmd, input []byte, limit int) (code int, stdout, stderr []byte, err error) {
	cmd.Stdin = bytes.NewReader(input)
	out, errOut := Head{Max: limit}, Head{Max: limit}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	KillGroup(cmd)
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.Bytes(), errOut.Bytes(), nil
	}
	return 0, out.Bytes(), errOut.Bytes(), err
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

// ReadFrom reads r to its end through Write. Without it io.Copy, which
// exec uses to fill a command's Stdout and Stderr, would take the embedded
// Buffer's ReadFrom and keep everything.
func (h *Head) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{h}, r)
}
