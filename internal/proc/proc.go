// Package proc runs outside programs: the bash built-in's commands, hook
// commands (manifest command handlers, .claude hooks) and long-lived
// handler processes all start through Start and end through Wait (Run and
// Output are both, for a command bounded by a context).
//
// The lifecycle of a process started here:
//
//  1. Start puts it in a process group of its own (the group's id is its
//     pid) and gives each output the caller reads a pipe of its own, read
//     by a goroutine into the caller's writer.
//  2. It runs until it exits. Kill (a Run's context ending) kills the
//     whole group, the process Podcode started included.
//  3. Its answer is complete when the process Podcode started exits, not
//     when everything it left behind has: Wait sees that exit, kills the
//     group (so `server &` in a script dies with the script, and cannot
//     hold the script's output open), reads the output pipes to their end,
//     for at most DrainGrace (a process that left the group with setsid
//     may still hold them; what the pipes held is read all the same), and
//     reaps the process. Its exit status is then the result: never an
//     error because of what a child did.
//
// What a group kill does not reach: a process that left the group (setsid,
// or setpgid to a group of its own) before the exit. It keeps running;
// if it holds an output pipe, the call still returns after DrainGrace,
// with the output written until then.
//
// A group is killed by its id only while the process that leads it is not
// reaped: until then no other process or group can have that id. Wait
// sees the exit without reaping (waitid with WNOWAIT), kills the group,
// then reaps; Kill does nothing after that point.
package proc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// DrainGrace bounds how long Wait reads a process's outputs after the
// process exited and its group was killed. Normally the pipes end at once
// (every writer is dead); only a process that left the group holds them
// longer. What the pipes hold when the grace ends is still read.
const DrainGrace = 200 * time.Millisecond

// maxLateDrain bounds what is read from a pipe after DrainGrace: what it
// held then, unless a process that left the group keeps writing.
const maxLateDrain = 1 << 20

// Process is a started command; see the package documentation for its
// lifecycle. Wait must be called once.
type Process struct {
	cmd *exec.Cmd
	pid int

	mu     sync.Mutex
	reaped bool // no group kill after this

	outs      []*os.File // our ends of the output pipes
	writers   []io.Writer
	drains    sync.WaitGroup
	stdin     *os.File // our end of the input pipe when Start copies the input
	stdinDone chan struct{}
	exited    chan struct{}
}

// Start starts cmd, made with exec.Command (no context: Run or Kill bound
// it), in a process group of its own. cmd's Stdin, Stdout and Stderr are
// used as exec.Cmd uses them: nil is /dev/null, an *os.File is passed to
// the process as it is, any other reader or writer gets a pipe; when
// Stdout and Stderr are the same writer, the process gets one pipe for
// both, so that their lines keep their order. The writers are written
// from goroutines of Start's until Wait returns. A SysProcAttr that cmd
// already has (a sandbox's namespaces) is kept; Start sets Setpgid on it,
// and has the process killed when Podcode dies (dieWithServer).
func Start(cmd *exec.Cmd) (*Process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, 0
	dieWithServer(cmd.SysProcAttr)
	p := &Process{cmd: cmd, exited: make(chan struct{})}
	var childEnds []*os.File
	fail := func(err error) (*Process, error) {
		closeAll(childEnds)
		closeAll(p.outs)
		if p.stdin != nil {
			p.stdin.Close()
		}
		return nil, err
	}
	output := func(w io.Writer) (io.Writer, error) {
		if w == nil {
			return nil, nil
		}
		if f, ok := w.(*os.File); ok {
			return f, nil
		}
		r, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		childEnds = append(childEnds, pw)
		p.outs, p.writers = append(p.outs, r), append(p.writers, w)
		return pw, nil
	}
	stdout, stderr := cmd.Stdout, cmd.Stderr
	var err error
	if cmd.Stdout, err = output(stdout); err != nil {
		return fail(err)
	}
	if stderr != nil && interfaceEqual(stderr, stdout) {
		cmd.Stderr = cmd.Stdout
	} else if cmd.Stderr, err = output(stderr); err != nil {
		return fail(err)
	}
	input := cmd.Stdin
	if _, ok := input.(*os.File); input != nil && !ok {
		r, w, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		childEnds = append(childEnds, r)
		p.stdin, cmd.Stdin = w, r
	}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	closeAll(childEnds) // the process has its copies
	p.pid = cmd.Process.Pid
	for i, r := range p.outs {
		p.drains.Add(1)
		go func() { defer p.drains.Done(); drain(r, p.writers[i]) }()
	}
	if p.stdin != nil {
		p.stdinDone = make(chan struct{})
		go func() {
			defer close(p.stdinDone)
			// A process that exits without reading its input is not an
			// error: the write fails (EPIPE), or Wait closes the pipe.
			io.Copy(p.stdin, input)
			p.stdin.Close()
		}()
	}
	return p, nil
}

// Pid is the process's id, which is also its group's.
func (p *Process) Pid() int { return p.pid }

// Exited is closed once the process Podcode started has exited (before
// Wait has killed its group and read its outputs).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Kill kills the process's whole group. It may be called at any time, from
// any goroutine; once Wait has reaped the process it does nothing.
func (p *Process) Kill() { p.Signal(syscall.SIGKILL) }

// Signal sends sig to the process's whole group, as Kill does (a plugin's
// child.kill("SIGTERM") lets the process end itself). It reports whether
// the group was signalled: false once Wait reaped the process, or when
// the group is gone.
func (p *Process) Signal(sig syscall.Signal) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.reaped && syscall.Kill(-p.pid, sig) == nil
}

// Signaled is, after Wait, the signal that ended the process (0 when it
// exited by itself).
func (p *Process) Signaled() syscall.Signal {
	if p.cmd.ProcessState == nil {
		return 0
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// Wait waits until the process Podcode started has exited, then kills its
// group, reads its outputs (bounded by DrainGrace), and reaps it. It
// returns the exit status (-1 when a signal ended the process); a non-zero
// status is not an error.
func (p *Process) Wait() (code int, err error) {
	waitErr := p.waitExit()
	close(p.exited)
	if waitErr == nil {
		p.Kill() // what it left running in the background
	}
	deadline := time.Now().Add(DrainGrace)
	for _, r := range p.outs {
		r.SetReadDeadline(deadline)
	}
	p.drains.Wait()
	if p.stdin != nil {
		p.stdin.Close() // unblocks a write to a pipe nobody reads
		<-p.stdinDone
	}
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	err = p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// Run starts cmd (Start), kills its group if ctx ends first, and waits for
// it (Wait). When ctx ended first, the status is a killed process's (-1):
// callers test their context before the status.
func Run(ctx context.Context, cmd *exec.Cmd) (code int, err error) {
	p, err := Start(cmd)
	if err != nil {
		return 0, err
	}
	stop := context.AfterFunc(ctx, p.Kill)
	defer stop()
	return p.Wait()
}

// Output runs cmd (Run) with input on its stdin, and returns its exit
// status and the first limit bytes of its stdout and of its stderr.
func Output(ctx context.Context, cmd *exec.Cmd, input []byte, limit int) (code int, stdout, stderr []byte, err error) {
	cmd.Stdin = bytes.NewReader(input)
	out, errOut := Head{Max: limit}, Head{Max: limit}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code, err = Run(ctx, cmd)
	return code, out.Bytes(), errOut.Bytes(), err
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// drain copies r to w until r ends, or until its read deadline: then it
// reads what r holds at that moment without waiting, so output written
// before the process exited is kept even when this goroutine was not
// scheduled in time. A writer's error stops the writing, not the reading.
func drain(r *os.File, w io.Writer) {
	defer r.Close()
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var werr error
	write := func(b []byte) {
		// No empty writes: a writer may count its writes (bash's progress
		// reports).
		if werr == nil && len(b) > 0 {
			_, werr = w.Write(b)
		}
	}
	for {
		n, err := r.Read(buf)
		write(buf[:n])
		if errors.Is(err, os.ErrDeadlineExceeded) {
			lateDrain(r, buf, write)
		}
		if err != nil {
			return
		}
	}
}

func lateDrain(r *os.File, buf []byte, write func([]byte)) {
	rc, err := r.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) { // the descriptor is non-blocking
		for total := 0; total < maxLateDrain; {
			n, err := syscall.Read(int(fd), buf)
			if n <= 0 || err != nil {
				return
			}
			write(buf[:n])
			total += n
		}
	})
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// interfaceEqual is a == b, false when they are not comparable (as
// exec.Cmd decides whether Stdout and Stderr share a pipe).
func interfaceEqual(a, b any) (eq bool) {
	defer func() { recover() }()
	return a == b
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

// ReadFrom reads r to its end through Write. Without it io.Copy would take
// the embedded Buffer's ReadFrom and keep everything.
func (h *Head) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{h}, r)
}

// Tail keeps the last Max bytes written to it and counts those it let go.
type Tail struct {
	Max     int
	Dropped int
	buf     []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.Max; over > 0 {
		t.Dropped += over
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// Bytes is what Tail kept.
func (t *Tail) Bytes() []byte { return t.buf }
