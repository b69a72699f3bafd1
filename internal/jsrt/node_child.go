package jsrt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dop251/goja"
	"golang.org/x/sys/unix"

	"github.com/podcode/podcode/internal/proc"
)

// The Go half of node:child_process (and of Bun's $, which runs on it).
//
// A runtime starts no process by itself: each goes to Options.Exec, which
// decides whether the plugin may run it (the host's guard: permission
// rules, PreToolUse) and how (a sandbox), and returns the command to start.
// The runtime then starts it through proc (a process group of its own),
// streams its outputs to the loop (a stream's chunks in flight are bounded,
// so a process that writes faster than the plugin reads waits on its pipe),
// and kills the group of every process still running when the runtime
// stops. A synchronous call (spawnSync, execSync) holds the loop: it ends,
// killing the process, at its timeout or when the watchdog interrupts the
// job (Options.JobLimit).

// ExecRequest is a process a plugin asks to start.
type ExecRequest struct {
	Plugin  string   // the runtime's name: the plugin id (Runtime.Name)
	API     string   // how it was asked for: "child_process.spawn", "child_process.execSync", "$"…
	Command string   // the command line as a person reads it: as written for a shell, else the argv quoted
	Argv    []string // the program and its arguments (a shell's: [shell, "-c", Command])
	Dir     string   // absolute
	Env     []string // KEY=value
}

// Cmd is the command req asks for, not started: its program found on the
// PATH of req's environment (as Node finds it, not the server's), in
// req.Dir, with req.Env.
func (req ExecRequest) Cmd() *exec.Cmd {
	name := req.Argv[0]
	if !strings.Contains(name, "/") {
		path := ""
		for _, kv := range req.Env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				path = v
			}
		}
		if found := lookPath(name, path); found != "" {
			name = found
		}
	}
	cmd := exec.Command(name, req.Argv[1:]...)
	cmd.Args[0] = req.Argv[0]
	cmd.Dir, cmd.Env = req.Dir, req.Env
	return cmd
}

// lookPath finds an executable file name in the folders of path.
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// ExecApproval is what Options.Exec answers for a process it lets run: the
// command to start (built, perhaps confined, not started), and Done, called
// once the process ended (exit status, -1 when a signal ended it, or the
// error that kept it from starting) with the tail of its output.
type ExecApproval struct {
	Cmd  *exec.Cmd
	Done func(code int, output string, err error)
}

// Exec decides whether a plugin's process may run and how. ctx carries the
// scope of the host call the plugin was serving when it asked, when that
// is known (a call made as the job of a hook started, not after an await);
// a refusal's error says why and is what the plugin's call fails with.
type Exec func(ctx context.Context, req ExecRequest) (*ExecApproval, error)

// Bounds of a runtime's processes.
const (
	// MaxProcesses is how many processes one runtime may have running.
	MaxProcesses = 32
	// maxChunksInFlight bounds the output chunks of one stream posted to
	// the loop and not yet delivered: past it the reader waits, and the
	// process with it when its pipe is full.
	maxChunksInFlight = 16
	// DefaultMaxBuffer is the output a synchronous call or exec keeps of
	// each stream unless told otherwise (Node's default).
	DefaultMaxBuffer = 1 << 20
	// execTail is how much of a process's output Done is given.
	execTail = 8 << 10
)

// childProc is a running process of the runtime's (loop goroutine only,
// but for its fields set before the goroutines start).
type childProc struct {
	p     *proc.Process
	stdin *stdinQueue // nil unless its stdin is a pipe
}

// stdinQueue feeds what a plugin writes to a process's stdin to its pipe,
// in order, from one goroutine: a write to a pipe the process does not
// read waits there, never on the loop. end closes the pipe once what was
// queued before it was written.
type stdinQueue struct {
	mu    sync.Mutex
	items []stdinItem
	ended bool
	wake  chan struct{}
	pipe  *io.PipeWriter
}

type stdinItem struct {
	data []byte
	done func(error) // on the loop
}

func newStdinQueue(w *io.PipeWriter) *stdinQueue {
	return &stdinQueue{pipe: w, wake: make(chan struct{}, 1)}
}

func (q *stdinQueue) push(it stdinItem) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	q.signal()
}

func (q *stdinQueue) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	q.signal()
}

func (q *stdinQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// feed writes the queue to the pipe until end, or until the pipe breaks;
// report runs each write's callback on the loop.
func (q *stdinQueue) feed(report func(stdinItem, error)) {
	var broken error
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			ended := q.ended
			q.mu.Unlock()
			if ended {
				q.pipe.Close()
				return
			}
			<-q.wake
			continue
		}
		it := q.items[0]
		q.items = q.items[1:]
		q.mu.Unlock()
		err := broken
		if err == nil {
			if _, err = q.pipe.Write(it.data); err != nil {
				err = &SysError{Errno: syscall.EPIPE, Syscall: "write"}
				broken = err
			}
		}
		report(it, err)
	}
}

func init() {
	nodeHosts["child_process"] = func(r *Runtime) (*goja.Object, error) {
		h := r.vm.NewObject()
		h.Set("spawn", r.childSpawn)
		h.Set("spawnSync", r.childSpawnSync)
		h.Set("write", r.childWrite)
		h.Set("endInput", r.childEndInput)
		h.Set("kill", r.childKill)
		h.Set("signals", signalNumbers())
		h.Set("maxBuffer", DefaultMaxBuffer)
		return h, nil
	}
}

func signalNumbers() map[string]int {
	out := map[string]int{}
	for sig := syscall.Signal(1); sig < 32; sig++ {
		if name := unix.SignalName(sig); name != "" {
			out[name] = int(sig)
		}
	}
	return out
}

// execRequest reads a request from its JavaScript form {api, command,
// argv, cwd, env}.
func (r *Runtime) execRequest(o *goja.Object) ExecRequest {
	req := ExecRequest{Plugin: r.Name(), API: o.Get("api").String(), Command: o.Get("command").String(), Dir: r.abs(o.Get("cwd").String())}
	if err := r.vm.ExportTo(o.Get("argv"), &req.Argv); err != nil || len(req.Argv) == 0 {
		panic(r.vm.NewTypeError("child_process: no program to run"))
	}
	var env map[string]string
	if e := o.Get("env"); e != nil && !goja.IsUndefined(e) && !goja.IsNull(e) {
		if err := r.vm.ExportTo(e, &env); err != nil {
			panic(r.vm.NewTypeError("child_process: env must map names to strings"))
		}
	} else {
		env = r.opts.Env
	}
	for k, v := range env {
		req.Env = append(req.Env, k+"="+v)
	}
	return req
}

// callContext is the context of the host call being started, or
// Background, without its cancel: a process a hook starts and does not
// wait for outlives the call. Loop goroutine only.
func (r *Runtime) callContext() context.Context {
	if r.callCtx != nil {
		return context.WithoutCancel(r.callCtx)
	}
	return context.Background()
}

// approve asks Options.Exec about req; ctx is callContext's, taken on the
// loop.
func (r *Runtime) approve(ctx context.Context, req ExecRequest) (*ExecApproval, error) {
	if r.opts.Exec == nil {
		return nil, fmt.Errorf("%s: this runtime starts no processes", req.API)
	}
	a, err := r.opts.Exec(ctx, req)
	if err == nil && (a == nil || a.Cmd == nil) {
		err = fmt.Errorf("%s: the host gave no command to run", req.API)
	}
	return a, err
}

// spawnError is a process that did not start, as Node reports it: its
// errno when the system refused (ENOENT for a program not found), else
// the host's reason.
func spawnError(req ExecRequest, err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound) {
		return &SysError{Errno: syscall.ENOENT, Syscall: "spawn " + req.Argv[0], Path: req.Argv[0]}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &SysError{Errno: errno, Syscall: "spawn " + req.Argv[0], Path: req.Argv[0]}
	}
	return err
}

// spawnErrorValue is spawnError as the JavaScript error Node's spawn
// emits, with spawnargs.
func (r *Runtime) spawnErrorValue(req ExecRequest, err error) goja.Value {
	v := r.errorValue(spawnError(req, err))
	if o, ok := v.(*goja.Object); ok {
		var se *SysError
		if errors.As(spawnError(req, err), &se) {
			// Node's message for a failed spawn: "spawn git ENOENT"
			o.Set("message", se.Syscall+" "+se.Code())
		} else {
			o.Set("code", "EPERM")
		}
		o.Set("spawnargs", req.Argv[1:])
	}
	return v
}

// childSpawn starts a process in the background: approval and start run
// off the loop, and events (the callbacks of events) arrive on it:
// spawn(pid), data(fd, ArrayBuffer), error(err), exit(code, signal) once
// the process ended and its outputs were read. stdio says for fds 0, 1
// and 2 whether each is a pipe ("pipe"), the log ("inherit") or nothing
// ("ignore"). It returns a handle id for write, endInput and kill.
func (r *Runtime) childSpawn(o *goja.Object, stdio []string, events *goja.Object) int64 {
	req := r.execRequest(o)
	if len(r.host.procs) >= MaxProcesses {
		panic(r.vm.NewGoError(fmt.Errorf("%s: this plugin already runs %d processes, the most one plugin may; wait for some to end", req.API, MaxProcesses)))
	}
	cb := func(name string) goja.Callable {
		fn, _ := goja.AssertFunction(events.Get(name))
		return fn
	}
	onSpawn, onData, onError, onExit := cb("spawn"), cb("data"), cb("error"), cb("exit")
	r.host.nextProc++
	id := r.host.nextProc
	cp := &childProc{}
	r.host.procs[id] = cp
	call := func(fn goja.Callable, args ...goja.Value) {
		if fn == nil {
			return
		}
		if _, err := fn(goja.Undefined(), args...); err != nil {
			r.LogError("plugin: a child process listener threw", err)
		}
	}
	ended := func() { delete(r.host.procs, id) }
	var stdinR *io.PipeReader
	if len(stdio) > 0 && stdio[0] == "pipe" {
		var w *io.PipeWriter
		stdinR, w = io.Pipe()
		cp.stdin = newStdinQueue(w)
		go cp.stdin.feed(func(it stdinItem, err error) {
			r.enqueue(func() {
				r.host.held -= int64(len(it.data))
				it.done(err)
				r.drain()
			})
		})
	}
	ctx := r.callContext()
	go func() {
		a, err := r.approve(ctx, req)
		if err == nil {
			var in io.Reader // not a nil *io.PipeReader: proc would read it
			if stdinR != nil {
				in = stdinR
			}
			err = r.startChild(cp, a, stdio, in, onData, call)
		}
		if err != nil {
			if a != nil && a.Done != nil {
				a.Done(0, "", err)
			}
			if stdinR != nil {
				stdinR.Close()
				cp.stdin.end()
			}
			r.enqueue(func() {
				ended()
				call(onError, r.spawnErrorValue(req, err))
				r.drain()
			})
			return
		}
		pid := cp.p.Pid()
		if stdinR != nil {
			// proc's copy of the input waits on this pipe: once the
			// process exited, nothing more goes in, and Wait must not wait
			// for the plugin to end its input
			go func() {
				<-cp.p.Exited()
				stdinR.CloseWithError(io.ErrClosedPipe)
			}()
		}
		r.enqueue(func() {
			call(onSpawn, r.vm.ToValue(pid))
			r.drain()
		})
		code, werr := cp.p.Wait()
		sig := cp.p.Signaled()
		if stdinR != nil {
			stdinR.Close() // writes still queued fail with EPIPE
			cp.stdin.end()
		}
		if a.Done != nil {
			a.Done(code, "", werr)
		}
		r.enqueue(func() {
			ended()
			if werr != nil {
				call(onError, r.errorValue(werr))
			}
			var codeV, sigV goja.Value = r.vm.ToValue(code), goja.Null()
			if sig != 0 {
				codeV, sigV = goja.Null(), r.vm.ToValue(unix.SignalName(sig))
			}
			call(onExit, codeV, sigV)
			r.drain()
		})
	}()
	return id
}

// startChild starts a's command with the runtime's stdio choices.
func (r *Runtime) startChild(cp *childProc, a *ExecApproval, stdio []string, stdin io.Reader, onData goja.Callable, call func(goja.Callable, ...goja.Value)) error {
	cmd := a.Cmd
	mode := func(fd int) string {
		if fd < len(stdio) {
			return stdio[fd]
		}
		return "pipe"
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	for fd, dst := range map[int]*io.Writer{1: &cmd.Stdout, 2: &cmd.Stderr} {
		switch mode(fd) {
		case "pipe":
			*dst = &chunkWriter{r: r, fd: fd, deliver: func(fd int, b []byte) {
				call(onData, r.vm.ToValue(fd), r.vm.ToValue(r.vm.NewArrayBuffer(b)))
			}}
		case "inherit":
			level := map[int]string{1: "info", 2: "warn"}[fd]
			*dst = &lineWriter{emit: func(line string) {
				r.enqueue(func() { r.hostLog(level, r.vm.ToValue(line)) })
			}}
		}
	}
	p, err := proc.Start(cmd)
	if err != nil {
		return err
	}
	cp.p = p
	return nil
}

// chunkWriter posts what a process writes to the loop, at most
// maxChunksInFlight chunks at a time: a process that writes faster than
// the loop takes its output waits.
type chunkWriter struct {
	r       *Runtime
	fd      int
	deliver func(fd int, b []byte)
	slots   chan struct{}
	once    sync.Once
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { w.slots = make(chan struct{}, maxChunksInFlight) })
	select {
	case w.slots <- struct{}{}:
	case <-w.r.closed:
		return 0, ErrClosed
	}
	b := append([]byte(nil), p...)
	if !w.r.enqueue(func() {
		<-w.slots
		w.deliver(w.fd, b)
		w.r.drain()
	}) {
		return 0, ErrClosed
	}
	return len(p), nil
}

// lineWriter cuts what it is given into lines for the log.
type lineWriter struct {
	emit    func(string)
	pending []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.pending = append(w.pending, p...)
	for {
		i := strings.IndexByte(string(w.pending), '\n')
		if i < 0 {
			break
		}
		w.emit(string(w.pending[:i]))
		w.pending = w.pending[i+1:]
	}
	if len(w.pending) > ConsoleLineChars {
		w.emit(string(w.pending))
		w.pending = nil
	}
	return len(p), nil
}

// childWrite queues data for a process's stdin; cb runs on the loop once
// it was written (or failed). Data waiting counts against MaxHeldBytes.
func (r *Runtime) childWrite(id int64, data goja.Value, cb goja.Value) {
	cp := r.host.procs[id]
	b := r.argBytes(data)
	fn, _ := goja.AssertFunction(cb)
	done := func(err error) {
		if fn == nil {
			return
		}
		var ev goja.Value = goja.Null()
		if err != nil {
			ev = r.errorValue(err)
		}
		if _, err := fn(goja.Undefined(), ev); err != nil {
			r.LogError("plugin: a child process listener threw", err)
		}
	}
	if cp == nil || cp.stdin == nil {
		done(&SysError{Errno: syscall.EPIPE, Syscall: "write"})
		return
	}
	if r.host.held+int64(len(b)) > MaxHeldBytes {
		done(fmt.Errorf("write: the plugin's writes under way hold %d MiB already, the most one plugin may hold is %d MiB", r.host.held>>20, MaxHeldBytes>>20))
		return
	}
	r.host.held += int64(len(b))
	cp.stdin.push(stdinItem{data: b, done: done})
}

// childEndInput closes a process's stdin once what was written reached it.
func (r *Runtime) childEndInput(id int64) {
	if cp := r.host.procs[id]; cp != nil && cp.stdin != nil {
		cp.stdin.end()
	}
}

// childKill signals a running process's group; false when it ended.
func (r *Runtime) childKill(id int64, sig int) bool {
	cp := r.host.procs[id]
	if cp == nil || cp.p == nil {
		return false
	}
	return cp.p.Signal(syscall.Signal(sig))
}

// stopProcesses kills every process the runtime still runs, as it stops.
func (r *Runtime) stopProcesses() {
	for id, cp := range r.host.procs {
		if cp.p != nil {
			cp.p.Kill()
		}
		if cp.stdin != nil {
			cp.stdin.pipe.Close()
			cp.stdin.end()
		}
		delete(r.host.procs, id)
	}
}

// childSpawnSync runs a process to its end while the loop waits: input on
// its stdin, each output kept up to maxBuffer (past it the process is
// killed, ENOBUFS), at most timeout (ms; 0: none) and never past the job
// limit. It returns {pid, status, signal, stdout, stderr, error}.
func (r *Runtime) childSpawnSync(o *goja.Object, stdio []string, input goja.Value, timeoutMs int64, maxBuffer int64, killSignal int) *goja.Object {
	req := r.execRequest(o)
	out := r.vm.NewObject()
	fail := func(err error) *goja.Object {
		out.Set("error", r.spawnErrorValue(req, err))
		out.Set("status", goja.Null())
		out.Set("signal", goja.Null())
		return out
	}
	if maxBuffer <= 0 || maxBuffer > r.maxRead() {
		maxBuffer = min(DefaultMaxBuffer, r.maxRead())
		if b := r.maxRead(); b > 0 {
			maxBuffer = min(maxBuffer, b)
		}
	}
	a, err := r.approve(r.callContext(), req)
	if err != nil {
		return fail(err)
	}
	cmd := a.Cmd
	mode := func(fd int) string {
		if fd < len(stdio) {
			return stdio[fd]
		}
		return "pipe"
	}
	if input != nil && !goja.IsUndefined(input) && !goja.IsNull(input) && mode(0) == "pipe" {
		cmd.Stdin = strings.NewReader(bytesString(r.argBytes(input)))
	}
	var bufs [3]*syncLimited
	over := make(chan struct{}, 2)
	for fd, dst := range map[int]*io.Writer{1: &cmd.Stdout, 2: &cmd.Stderr} {
		switch mode(fd) {
		case "pipe":
			bufs[fd] = &syncLimited{max: maxBuffer, over: over}
			*dst = bufs[fd]
		case "inherit":
			var lines []string
			var mu sync.Mutex
			bufs[fd] = nil
			*dst = &lineWriter{emit: func(line string) { mu.Lock(); lines = append(lines, line); mu.Unlock() }}
			level := map[int]string{1: "info", 2: "warn"}[fd]
			defer func() {
				for _, l := range lines {
					r.hostLog(level, r.vm.ToValue(l))
				}
			}()
		}
	}
	p, err := proc.Start(cmd)
	if err != nil {
		if a.Done != nil {
			a.Done(0, "", err)
		}
		return fail(err)
	}
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := p.Wait()
		done <- result{code, err}
	}()
	var timeout <-chan time.Time
	if timeoutMs > 0 {
		t := time.NewTimer(time.Duration(timeoutMs) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var why error
	var res result
wait:
	for {
		select {
		case res = <-done:
			break wait
		case <-timeout:
			p.Signal(syscall.Signal(killSignal))
			why = &SysError{Errno: syscall.ETIMEDOUT, Syscall: "spawnSync " + req.Argv[0], Path: req.Argv[0]}
			timeout = nil
		case <-over:
			p.Kill()
			why = &SysError{Errno: syscall.ENOBUFS, Syscall: "spawnSync " + req.Argv[0], Path: req.Argv[0]}
		case <-tick.C:
			if r.interrupted.Load() || r.closing() {
				p.Kill()
				why = fmt.Errorf("%s: %q was still running when the plugin's job ran out of time (%s) and was killed", req.API, req.Command, r.opts.JobLimit)
			}
		}
	}
	sig := p.Signaled()
	tail := ""
	for _, b := range bufs[1:] {
		if b != nil {
			tail += b.tail()
		}
	}
	if a.Done != nil {
		a.Done(res.code, tail, res.err)
	}
	out.Set("pid", p.Pid())
	for fd := 1; fd <= 2; fd++ {
		if bufs[fd] != nil {
			out.Set([]string{"", "stdout", "stderr"}[fd], r.vm.NewArrayBuffer(bufs[fd].bytes()))
		}
	}
	if sig != 0 {
		out.Set("status", goja.Null())
		out.Set("signal", unix.SignalName(sig))
	} else {
		out.Set("status", res.code)
		out.Set("signal", goja.Null())
	}
	if why == nil {
		why = res.err
	}
	if why != nil {
		out.Set("error", r.errorValue(why))
	}
	return out
}

// syncLimited keeps what a process writes, up to max bytes and the chunk
// that passes it (as Node keeps it: at most one pipe read more); past it,
// it signals over once and keeps nothing more.
type syncLimited struct {
	mu   sync.Mutex
	buf  []byte
	max  int64
	over chan struct{}
	full bool
}

func (s *syncLimited) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.full {
		return len(p), nil
	}
	s.buf = append(s.buf, p...)
	if int64(len(s.buf)) > s.max {
		s.full = true
		s.over <- struct{}{}
	}
	return len(p), nil
}

func (s *syncLimited) bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf
}

func (s *syncLimited) tail() string {
	b := s.bytes()
	if len(b) > execTail {
		b = b[len(b)-execTail:]
	}
	return string(b)
}
