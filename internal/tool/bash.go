package tool

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/podcode/podcode/internal/proc"
)

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
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir = dir
	// Its own process group, so a timeout or a cancelled turn kills the
	// command's children too, not only bash.
	proc.KillGroup(cmd)
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	exit := 0
	var ee *exec.ExitError
	switch {
	case parent.Err() != nil:
		return Result{}, fmt.Errorf("bash: %q was cancelled: %w", command, parent.Err())
	case ctx.Err() != nil:
		return Result{}, fmt.Errorf("bash: %q did not finish within %s and was killed; output so far:\n%s", command, timeout, out.String())
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		return Result{}, fmt.Errorf("bash: %w", err)
	}
	output := out.String()
	if exit != 0 {
		output += fmt.Sprintf("\n(exit status %d)", exit)
	}
	return Result{Title: command, Output: output,
		Metadata: map[string]any{"exit": exit, "elapsed_ms": time.Since(start).Milliseconds(), "truncated": out.dropped > 0}}, nil
}

// tailBuffer keeps the last maxOutputBytes written to it.
type tailBuffer struct {
	buf     []byte
	dropped int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - maxOutputBytes; over > 0 {
		t.dropped += over
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	s := strings.ToValidUTF8(string(t.buf), "�")
	if t.dropped > 0 {
		return fmt.Sprintf("(%d bytes of earlier output dropped)\n%s", t.dropped, s)
	}
	return s
}
