package tool

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/podcode/podcode/internal/proc"
)

// bash runs a command with `bash -c` in the workspace (or workdir inside
// it), bounded by the call's timeout and context.
//
// The call is done when bash exits; its output is what bash and its
// children wrote until then. Whatever the command left running in the
// background (`server &`, nohup, a double fork) is then killed with the
// command's process group: nothing outlives the call, so a command that
// needs a server starts it, uses it and stops it within one call, and a
// server meant to outlive calls is started outside Podcode. A process that
// leaves the group itself (setsid) is not killed; if it holds the output
// open, the call returns proc.DrainGrace after bash exits, with the output
// so far.
func (b builtins) bash(parent context.Context, _ Call, args map[string]any) (Result, error) {
	ws := b.ws(parent)
	dir := ws.Root
	if wd := str(args, "workdir"); wd != "" {
		var err error
		if dir, err = ws.Resolve(wd); err != nil {
			return Result{}, err
		}
	}
	timeout := b.o.BashTimeout
	if ms := num(args, "timeout", 0); ms > 0 && time.Duration(ms)*time.Millisecond < timeout {
		timeout = time.Duration(ms) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	command := str(args, "command")
	cmd := bashCommand(command, dir)
	if err := ws.Confine(cmd); err != nil {
		return Result{}, err
	}
	out := tailBuffer{proc.Tail{Max: MaxOutputBytes}}
	w := &progressWriter{ctx: parent, w: &out}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	exit, err := proc.Run(ctx, cmd)
	switch {
	case parent.Err() != nil:
		return Result{}, fmt.Errorf("bash: %q was cancelled: %w", command, parent.Err())
	case ctx.Err() != nil:
		return Result{}, fmt.Errorf("bash: %q did not finish within %s and was killed; output so far:\n%s", command, timeout, out.String())
	case err != nil:
		return Result{}, fmt.Errorf("bash: %w", err)
	}
	output := out.String()
	if exit != 0 {
		output += fmt.Sprintf("\n(exit status %d)", exit)
	}
	return Result{Title: command, Output: output,
		Metadata: map[string]any{"exit": exit, "elapsed_ms": time.Since(start).Milliseconds(), "truncated": out.Dropped > 0}}, nil
}

// bashCommand is the one place bash's process is made: the command, run
// by bash in dir. proc.Run starts it in its own process group.
func bashCommand(command, dir string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	return cmd
}

// progressWriter passes a command's output on to w and reports the call's
// progress as it comes (tool.ReportProgress): the bytes written so far,
// and no line of them: progress is shown and sent before tool.execute.after
// runs, so a redactor plugin has not seen the output yet. Stdout and stderr
// share it, as they share the output.
type progressWriter struct {
	ctx context.Context
	w   io.Writer
	n   atomic.Int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	total := p.n.Add(int64(n))
	ReportProgress(p.ctx, Progress{Progress: float64(total), Message: fmt.Sprintf("%d bytes of output", total)})
	return n, err
}

// tailBuffer keeps the last MaxOutputBytes written to it.
type tailBuffer struct{ proc.Tail }

func (t *tailBuffer) String() string {
	s := strings.ToValidUTF8(string(t.Bytes()), "�")
	if t.Dropped > 0 {
		return fmt.Sprintf("(%d bytes of earlier output dropped)\n%s", t.Dropped, s)
	}
	return s
}
