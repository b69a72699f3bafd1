package jsrt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dop251/goja"
	"golang.org/x/sys/unix"

	"github.com/podcode/podcode/internal/logging"
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
	Plugin   string   // the runtime's name: the plugin id (Runtime.Name)
	API      string   // how it was asked for: "child_process.spawn", "child_process.execSync", "$"…
	Command  string   // the command line as a person reads it: as written for a shell, else the argv quoted
	Argv     []string // the program and its arguments (a shell's: [shell, "-c", Command])
	Dir      string   // absolute: the plugin's cwd, else the runtime's directory
	DirGiven bool     // the plugin named Dir (cwd)
	Env      []string // KEY=value
}

// defaultPath is where a program is looked for when the process's
// environment has no PATH (Node's, after execvp's).
const defaultPath = "/usr/bin:/bin"

// Cmd is the command req asks for, not started: its program found as Node
// finds it, on the PATH of req's environment (not the server's), else on
// defaultPath, an empty or relative entry being relative to req.Dir; in
// req.Dir, with req.Env. A program not found is the command's error (its
// Start fails with exec.ErrNotFound).
func (req ExecRequest) Cmd() *exec.Cmd {
	cmd := &exec.Cmd{Path: req.Argv[0], Args: req.Argv, Dir: req.Dir, Env: req.Env}
	if strings.Contains(req.Argv[0], "/") {
		if !filepath.IsAbs(cmd.Path) {
			cmd.Path = filepath.Join(req.Dir, cmd.Path)
		}
		return cmd
	}
	path := defaultPath
	for _, kv := range req.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if cmd.Path = lookProgram(req.Argv[0], path, req.Dir); cmd.Path == "" {
		cmd.Err = &exec.Error{Name: req.Argv[0], Err: exec.ErrNotFound}
	}
	return cmd
}

// lookProgram is the first executable file named name in the folders of
// path (a PATH), an empty or relative one being relative to dir; "" when
// there is none. ExecRequest.Cmd's search, and Bun.which's.
func lookProgram(name, path, dir string) string {
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, name); isProgram(p) {
			return p
		}
	}
	return ""
}

// isProgram reports whether p is a regular file the server may execute.
func isProgram(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && unix.Access(p, unix.X_OK) == nil
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
// is known (the call's own code, before it awaited anything: see
// Runtime.CallContext), and ends when the runtime stops; a refusal's error
// says why and is what the plugin's call fails with.
type Exec func(ctx context.Context, req ExecRequest) (*ExecApproval, error)

// Bounds of a runtime's processes.
const (
	// MaxProcesses is how many processes one runtime may have running.
	MaxProcesses = 32
	// maxChunksAhead bounds the output chunks of one stream posted to the
	// loop and not yet taken by the plugin (its Readable's buffer below
	// its high-water mark): past it the reader waits, and the process with
	// it once its pipe is full.
	maxChunksAhead = 16
	// DefaultMaxBuffer is the output a synchronous call or exec keeps of
	// each stream unless told otherwise (Node's default).
	DefaultMaxBuffer = 1 << 20
	// execTail is how much of a process's output Done is given.
	execTail = 8 << 10
	// inheritLinesPerSecond and inheritBurst bound the lines one process
	// with stdio "inherit" writes to the log; the rest are counted.
	inheritLinesPerSecond, inheritBurst = 100, 1000
)

// errProcessStopped is the error of a process whose runtime stopped before it
// could start.
var errProcessStopped = errors.New("the plugin stopped before the process started")

// childProc is a process of the runtime's. The loop owns the table of
// them (r.host.procs); p and stopped are shared with the goroutine that
// starts and waits for the process, under mu.
type childProc struct {
	mu      sync.Mutex
	p       *proc.Process // once started
	stopped bool          // the runtime stopped: nothing more starts, what started is killed

	stdin *stdinQueue     // nil unless its stdin is a pipe
	out   [3]*chunkWriter // its piped outputs (loop: their owed slots)
}

// start runs startFn unless the runtime stopped, and keeps its process.
func (cp *childProc) start(startFn func() (*proc.Process, error)) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return errProcessStopped
	}
	p, err := startFn()
	if err != nil {
		return err
	}
	cp.p = p
	return nil
}

func (cp *childProc) process() *proc.Process {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.p
}

// stop kills the process's group, now or, if it has not started yet,
// instead of starting it.
func (cp *childProc) stop() {
	cp.mu.Lock()
	cp.stopped = true
	if cp.p != nil {
		cp.p.Kill()
	}
	cp.mu.Unlock()
	if cp.stdin != nil {
		cp.stdin.close()
	}
}

// stdinQueue feeds what a plugin writes to a process's stdin to its pipe,
// in order, from one goroutine: a write to a pipe the process does not
// read waits there, never on the loop. end closes the pipe once what was
// queued before it was written; close, once the process ended, fails what
// is queued and whatever is written later.
type stdinQueue struct {
	mu     sync.Mutex
	items  []stdinItem
	ended  bool // end: close the pipe once the queue is written
	closed bool // the process ended, or the runtime stopped
	wake   chan struct{}
	pipe   *io.PipeWriter
}

type stdinItem struct {
	data []byte
	done func(error) // on the loop
}

func newStdinQueue(w *io.PipeWriter) *stdinQueue {
	return &stdinQueue{pipe: w, wake: make(chan struct{}, 1)}
}

// push queues it; false when the queue is closed (it is not taken).
func (q *stdinQueue) push(it stdinItem) bool {
	q.mu.Lock()
	if q.closed || q.ended {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, it)
	q.mu.Unlock()
	q.signal()
	return true
}

func (q *stdinQueue) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	q.signal()
}

func (q *stdinQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.pipe.CloseWithError(io.ErrClosedPipe)
	q.signal()
}

func (q *stdinQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// feed writes the queue to the pipe until end or close; report runs each
// item's callback on the loop (every item queued gets one).
func (q *stdinQueue) feed(report func(stdinItem, error)) {
	var broken error
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			done := q.ended || q.closed
			q.mu.Unlock()
			if done {
				q.pipe.Close()
				return
			}
			<-q.wake
			continue
		}
		it := q.items[0]
		q.items = q.items[1:]
		closed := q.closed
		q.mu.Unlock()
		err := broken
		if err == nil && closed {
			err = &SysError{Errno: syscall.EPIPE, Syscall: "write"}
		}
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
		r.AttributeCalls() // a process runs where its call's tenant runs
		h := r.vm.NewObject()
		h.Set("spawn", r.childSpawn)
		h.Set("spawnSync", r.childSpawnSync)
		h.Set("write", r.childWrite)
		h.Set("endInput", r.childEndInput)
		h.Set("readMore", r.childReadMore)
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
// argv, cwd, env}; a cwd left out is the runtime's directory.
func (r *Runtime) execRequest(o *goja.Object) ExecRequest {
	req := ExecRequest{Plugin: r.Name(), API: o.Get("api").String(), Command: o.Get("command").String(), Dir: r.opts.Cwd}
	if cwd := o.Get("cwd"); cwd != nil && !goja.IsUndefined(cwd) && !goja.IsNull(cwd) {
		req.Dir, req.DirGiven = r.abs(cwd.String()), true
	}
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

// execContext is the context a process's approval and life run in: the
// values of the host call being started (its scope), not its cancel (a
// process a hook starts and does not wait for outlives the call), ended
// when the runtime stops. Loop goroutine only; release it when done.
func (r *Runtime) execContext() (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(r.CallContext())
	stop := context.AfterFunc(r.stopCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

// approve asks Options.Exec about req.
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
	err = spawnError(req, err)
	v := r.errorValue(err)
	if o, ok := v.(*goja.Object); ok {
		var se *SysError
		if errors.As(err, &se) {
			// Node's message for a failed spawn: "spawn git ENOENT"
			o.Set("message", se.Syscall+" "+se.Code())
		} else {
			o.Set("code", "EPERM")
		}
		o.Set("spawnargs", req.Argv[1:])
	}
	return v
}

// pipeOutputs makes the chunkWriters of the outputs stdio pipes, in
// cp.out. On the loop, which reads cp.out (readMore) from then on.
func (r *Runtime) pipeOutputs(cp *childProc, stdio []string, deliver func(fd int, b []byte) bool) {
	for fd := 1; fd <= 2; fd++ {
		if fd >= len(stdio) || stdio[fd] == "pipe" {
			cp.out[fd] = &chunkWriter{r: r, fd: fd, deliver: deliver, slots: make(chan struct{}, maxChunksAhead), tail: newTail()}
		}
	}
}

// outputs wires cmd's stdout and stderr as stdio says: "pipe" to its
// chunkWriter in cp.out (pipeOutputs), which delivers to the loop,
// "inherit" to the log, else nowhere. It returns what Done gets of the
// output: its tail, once the process ended.
func (r *Runtime) outputs(cp *childProc, cmd *exec.Cmd, stdio []string) (tail func() string, flush func()) {
	var tails []*proc.Tail
	var lines []*lineWriter
	for fd, dst := range map[int]*io.Writer{1: &cmd.Stdout, 2: &cmd.Stderr} {
		mode := "pipe"
		if fd < len(stdio) {
			mode = stdio[fd]
		}
		t := newTail()
		if w := cp.out[fd]; mode == "pipe" && w != nil {
			t = w.tail
		}
		tails = append(tails, t)
		switch mode {
		case "pipe":
			*dst = cp.out[fd]
		case "inherit":
			lw := r.newLineWriter(fd, t)
			lines = append(lines, lw)
			*dst = lw
		}
	}
	return func() string {
			var b strings.Builder
			for _, t := range tails {
				b.Write(t.Bytes())
			}
			return b.String()
		}, func() {
			for _, lw := range lines {
				lw.flush()
			}
		}
}

// childSpawn starts a process in the background: approval and start run
// off the loop, and events (the callbacks of events) arrive on it:
// spawn(pid), data(fd, ArrayBuffer) (its result: whether the plugin wants
// more now), error(err), exit(code, signal) once the process ended and
// its outputs were read. stdio says for fds 0, 1 and 2 whether each is a
// pipe ("pipe"), the log ("inherit") or nothing ("ignore"). It returns a
// handle id for write, endInput, readMore and kill.
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
	call := func(fn goja.Callable, args ...goja.Value) goja.Value {
		if fn == nil {
			return goja.Undefined()
		}
		v, err := fn(goja.Undefined(), args...)
		if err != nil {
			r.LogError("plugin: a child process listener threw", err)
			return goja.Undefined()
		}
		return v
	}
	deliver := func(fd int, b []byte) bool {
		v := call(onData, r.vm.ToValue(fd), r.vm.ToValue(r.vm.NewArrayBuffer(b)))
		return v == nil || goja.IsUndefined(v) || v.ToBoolean()
	}
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
	r.pipeOutputs(cp, stdio, deliver)
	ctx, release := r.execContext()
	go func() {
		defer release()
		var a *ExecApproval
		var tail func() string
		flush := func() {}
		err := func() error {
			var err error
			if a, err = r.approve(ctx, req); err != nil {
				return err
			}
			tail, flush = r.outputs(cp, a.Cmd, stdio)
			if stdinR != nil {
				a.Cmd.Stdin = stdinR // not a nil *io.PipeReader in an interface: proc would read it
			}
			return cp.start(func() (*proc.Process, error) { return proc.Start(a.Cmd) })
		}()
		if err != nil {
			if a != nil && a.Done != nil {
				a.Done(0, "", err)
			}
			if stdinR != nil {
				stdinR.Close()
				cp.stdin.close()
			}
			r.enqueue(func() {
				delete(r.host.procs, id)
				call(onError, r.spawnErrorValue(req, err))
				r.drain()
			})
			return
		}
		p := cp.process()
		if stdinR != nil {
			// proc's copy of the input waits on this pipe: once the
			// process exited, nothing more goes in, and Wait must not wait
			// for the plugin to end its input
			go func() {
				<-p.Exited()
				stdinR.CloseWithError(io.ErrClosedPipe)
				cp.stdin.close()
			}()
		}
		pid := p.Pid()
		r.enqueue(func() {
			call(onSpawn, r.vm.ToValue(pid))
			r.drain()
		})
		code, werr := p.Wait()
		flush()
		sig := p.Signaled()
		r.enqueue(func() {
			delete(r.host.procs, id)
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
		if a.Done != nil {
			a.Done(code, tail(), werr)
		}
	}()
	return id
}

// chunkWriter posts what a process writes to the loop. A chunk holds one
// of maxChunksAhead slots until the plugin took it: at once if its
// Readable wanted more (deliver's result), else when it asks for more
// (readMore); a process that writes faster than the plugin reads waits.
type chunkWriter struct {
	r       *Runtime
	fd      int
	deliver func(fd int, b []byte) bool // on the loop
	slots   chan struct{}
	owed    int // loop only: slots kept for chunks the plugin did not want yet
	tail    *proc.Tail
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	select {
	case w.slots <- struct{}{}:
	case <-w.r.closed:
		return 0, ErrClosed
	}
	b := append([]byte(nil), p...)
	w.tail.Write(b)
	if !w.r.enqueue(func() {
		if w.deliver(w.fd, b) {
			<-w.slots
		} else {
			w.owed++
		}
		w.r.drain()
	}) {
		return 0, ErrClosed
	}
	return len(p), nil
}

// more frees the slots of the chunks the plugin has taken since it last
// wanted no more. Loop goroutine only.
func (w *chunkWriter) more() {
	for ; w.owed > 0; w.owed-- {
		<-w.slots
	}
}

// newTail keeps the last execTail bytes of an output, for Done. proc
// writes it until Wait returned, and Done reads it after.
func newTail() *proc.Tail { return &proc.Tail{Max: execTail} }

// lineWriter writes what a process writes (stdio "inherit") to the log,
// a line at a time (logging.Lines: each cut at ConsoleLineChars), at info
// for stdout and warn for stderr, within its own line budget (the lines
// past it are counted and reported when it ends), keeping its tail.
// proc's reading goroutine alone writes to it.
type lineWriter struct {
	logging.Lines
	log     *slog.Logger
	tail    *proc.Tail
	budget  logging.LineBudget
	dropped int
}

func (r *Runtime) newLineWriter(fd int, tail *proc.Tail) *lineWriter {
	w := &lineWriter{log: r.Log(), tail: tail, budget: logging.LineBudget{Burst: inheritBurst, PerSecond: inheritLinesPerSecond}}
	level := slog.LevelInfo
	if fd == 2 {
		level = slog.LevelWarn
	}
	line := func(b []byte) {
		if ok, _ := w.budget.Allow(time.Now()); !ok {
			w.dropped++
			return
		}
		w.log.Log(context.Background(), level, strings.ToValidUTF8(string(b), "\uFFFD"), "source", "process")
	}
	w.Lines = logging.Lines{Max: ConsoleLineChars, Line: line, Over: line}
	return w
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.tail.Write(p)
	return w.Lines.Write(p)
}

// flush writes the last line, which had no newline, and says how many
// lines the budget dropped.
func (w *lineWriter) flush() {
	w.Lines.Flush()
	if w.dropped > 0 {
		w.log.Warn("plugin: a process's output was more lines than the log takes; the rest were dropped", "dropped", w.dropped)
	}
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
	epipe := &SysError{Errno: syscall.EPIPE, Syscall: "write"}
	if cp == nil || cp.stdin == nil {
		done(epipe)
		return
	}
	if err := r.hold("write", len(b)); err != nil {
		done(err)
		return
	}
	if !cp.stdin.push(stdinItem{data: b, done: done}) {
		r.host.held -= int64(len(b))
		done(epipe) // the process ended, or its input did
		return
	}
}

// childEndInput closes a process's stdin once what was written reached it.
func (r *Runtime) childEndInput(id int64) {
	if cp := r.host.procs[id]; cp != nil && cp.stdin != nil {
		cp.stdin.end()
	}
}

// childReadMore says the plugin wants more of a process's output fd.
func (r *Runtime) childReadMore(id int64, fd int) {
	if cp := r.host.procs[id]; cp != nil && fd > 0 && fd < len(cp.out) && cp.out[fd] != nil {
		cp.out[fd].more()
	}
}

// childKill signals a running process's group; false when it ended.
func (r *Runtime) childKill(id int64, sig int) bool {
	cp := r.host.procs[id]
	if cp == nil {
		return false
	}
	p := cp.process()
	return p != nil && p.Signal(syscall.Signal(sig))
}

// stopProcesses kills every process the runtime still runs, and keeps
// those not started yet from starting, as it stops.
func (r *Runtime) stopProcesses() {
	for id, cp := range r.host.procs {
		cp.stop()
		delete(r.host.procs, id)
	}
}

// childSpawnSync runs a process to its end while the loop waits: input on
// its stdin, each output kept up to maxBuffer (past it the process is
// killed, ENOBUFS), at most timeout (ms; 0: none). Approval, the process
// and PostToolUse run off the loop, which only waits: when the watchdog
// interrupts the job (the job limit), or the runtime stops, the call is
// given up (the approval cancelled, the process killed). It returns
// {pid, status, signal, stdout, stderr, error}.
func (r *Runtime) childSpawnSync(o *goja.Object, stdio []string, input goja.Value, timeoutMs int64, maxBuffer int64, killSignal int) *goja.Object {
	req := r.execRequest(o)
	out := r.vm.NewObject()
	if limit := min(int64(DefaultMaxBuffer), r.maxRead()); maxBuffer <= 0 {
		maxBuffer = limit
	} else if maxBuffer > r.maxRead() {
		maxBuffer = r.maxRead()
	}
	mode := func(fd int) string {
		if fd < len(stdio) {
			return stdio[fd]
		}
		return "pipe"
	}
	var in []byte
	if input != nil && !goja.IsUndefined(input) && !goja.IsNull(input) && mode(0) == "pipe" {
		in = r.argBytes(input)
	}
	type result struct {
		pid        int
		code       int
		sig        syscall.Signal
		why, err   error
		bufs       [3]*syncLimited
		spawnError bool
	}
	ctx, release := r.execContext()
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan result, 1)
	go func() {
		var res result
		a, err := r.approve(ctx, req)
		if err != nil {
			res.err, res.spawnError = err, true
			done <- res
			return
		}
		cmd := a.Cmd
		if in != nil {
			cmd.Stdin = bytes.NewReader(in)
		}
		over := make(chan struct{}, 2)
		var lines []*lineWriter
		tails := map[int]*proc.Tail{}
		for fd, dst := range map[int]*io.Writer{1: &cmd.Stdout, 2: &cmd.Stderr} {
			switch mode(fd) {
			case "pipe":
				res.bufs[fd] = &syncLimited{max: maxBuffer, over: over}
				*dst = res.bufs[fd]
			case "inherit":
				tails[fd] = newTail()
				lw := r.newLineWriter(fd, tails[fd])
				lines = append(lines, lw)
				*dst = lw
			}
		}
		p, err := proc.Start(cmd)
		if err != nil {
			if a.Done != nil {
				a.Done(0, "", err)
			}
			res.err, res.spawnError = err, true
			done <- res
			return
		}
		res.pid = p.Pid()
		exited, watched := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(watched) // res.why is read once the watch ended
			var timeout <-chan time.Time
			if timeoutMs > 0 {
				t := time.NewTimer(time.Duration(timeoutMs) * time.Millisecond)
				defer t.Stop()
				timeout = t.C
			}
			for {
				select {
				case <-exited:
					return
				case <-timeout:
					p.Signal(syscall.Signal(killSignal))
					res.why = &SysError{Errno: syscall.ETIMEDOUT, Syscall: "spawnSync " + req.Argv[0], Path: req.Argv[0]}
					timeout = nil
				case <-over:
					p.Kill()
					res.why = &SysError{Errno: syscall.ENOBUFS, Syscall: "spawnSync " + req.Argv[0], Path: req.Argv[0]}
				case <-ctx.Done():
					p.Kill()
					return
				}
			}
		}()
		res.code, res.err = p.Wait()
		close(exited)
		<-watched
		for _, lw := range lines {
			lw.flush()
		}
		res.sig = p.Signaled()
		done <- res
		if a.Done != nil {
			var tail strings.Builder
			for fd := 1; fd <= 2; fd++ {
				if res.bufs[fd] != nil {
					tail.WriteString(res.bufs[fd].tail())
				} else if tails[fd] != nil {
					tail.Write(tails[fd].Bytes())
				}
			}
			a.Done(res.code, tail.String(), res.err)
		}
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var gaveUp error
	var res result
wait:
	for {
		select {
		case res = <-done:
			break wait
		case <-tick.C:
			if gaveUp == nil && (r.interrupted.Load() || r.closing()) {
				gaveUp = fmt.Errorf("%s: %q was still running (or waiting to be allowed) when the plugin's job ran out of time (%s), and was given up", req.API, req.Command, r.opts.JobLimit)
				cancel()
			}
		}
	}
	if res.spawnError {
		err := res.err
		if gaveUp != nil {
			err = gaveUp
		}
		out.Set("error", r.spawnErrorValue(req, err))
		out.Set("status", goja.Null())
		out.Set("signal", goja.Null())
		return out
	}
	out.Set("pid", res.pid)
	for fd := 1; fd <= 2; fd++ {
		if res.bufs[fd] != nil {
			out.Set([]string{"", "stdout", "stderr"}[fd], r.vm.NewArrayBuffer(res.bufs[fd].bytes()))
		}
	}
	if res.sig != 0 {
		out.Set("status", goja.Null())
		out.Set("signal", unix.SignalName(res.sig))
	} else {
		out.Set("status", res.code)
		out.Set("signal", goja.Null())
	}
	why := res.why
	if gaveUp != nil {
		why = gaveUp
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
