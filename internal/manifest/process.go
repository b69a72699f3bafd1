package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/podcode/podcode/internal/logging"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/proc"
	"github.com/podcode/podcode/plugin"
)

// The process protocol: newline-delimited JSON-RPC 2.0 over the process's
// stdin and stdout. Podcode sends one request a line:
//
//	{"jsonrpc":"2.0","id":7,"method":"hook","params":<HookPayload>}
//
// and the process answers each, in any order, one line each:
//
//	{"jsonrpc":"2.0","id":7,"result":<HookResult or null>}
//	{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"why"}}
//
// A null result abstains; an error is the handler's error. A response
// whose result is not a HookResult object (42, [], a bad decision), or
// that has neither a result nor an error, fails its call at once. A line
// that answers no call (not JSON, JSON that is not a response, an id
// Podcode never sent) fails every call then waiting for an answer, at
// once, with what was wrong: the answer each of them waits for may be the
// line that was garbled. The process is kept: its next answers are read as
// usual. An answer to a call that was already given up (past its deadline)
// is dropped. Anything the process writes to stderr goes to the log with
// the plugin's id, bounded (see logging.Stderr).
//
// rpcRequest is a request without its id, which Handler puts in front.
type rpcRequest struct {
	JSONRPC string              `json:"jsonrpc"`
	Method  string              `json:"method"`
	Params  *plugin.HookPayload `json:"params"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      rpcID           `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// rpcID is a response's id, read without a second decoding: ok when it is
// a positive integer, as every id Podcode sends.
type rpcID struct {
	n       int64
	set, ok bool
}

func (id *rpcID) UnmarshalJSON(b []byte) error {
	id.set = string(b) != "null"
	var n int64
	for i, c := range b {
		if c < '0' || c > '9' || i == 0 && c == '0' || i >= 18 {
			return nil
		}
		n = n*10 + int64(c-'0')
	}
	id.n, id.ok = n, len(b) > 0
	return nil
}

// DecodeResponse reads one response line of the process protocol. id is
// the call the line answers, 0 when it names none (the line is not JSON,
// not a response, or its id is not a positive integer); err says what was
// wrong with the line, quoting it cut to a readable length.
func DecodeResponse(line []byte) (id int64, res *plugin.HookResult, err error) {
	var r rpcResponse
	if err := json.Unmarshal(line, &r); err != nil {
		return 0, nil, fmt.Errorf("%s is not a JSON-RPC response: %v", quote(line), err)
	}
	if !r.ID.set {
		return 0, nil, fmt.Errorf("%s is not a JSON-RPC response: no id", quote(line))
	}
	if !r.ID.ok {
		return 0, nil, fmt.Errorf("%s is not a JSON-RPC response: its id is not one Podcode sends (a positive integer)", quote(line))
	}
	id = r.ID.n
	hasResult, hasError := len(r.Result) > 0, len(r.Error) > 0 && string(r.Error) != "null"
	switch {
	case hasResult && hasError:
		return id, nil, fmt.Errorf("response %d has both a result and an error", id)
	case hasError:
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(r.Error, &e); err != nil {
			return id, nil, fmt.Errorf("response %d: error %s is not a JSON-RPC error object", id, cut(r.Error))
		}
		return id, nil, fmt.Errorf("the process answered an error: %s", e.Message)
	case !hasResult:
		return id, nil, fmt.Errorf("response %d has neither a result nor an error", id)
	case string(r.Result) == "null":
		return id, nil, nil
	case r.Result[0] != '{':
		return id, nil, fmt.Errorf("response %d: result %s is not a HookResult (an object)", id, cut(r.Result))
	}
	res = &plugin.HookResult{}
	if err := json.Unmarshal(r.Result, res); err != nil {
		return id, nil, fmt.Errorf("response %d: result %s is not a HookResult: %s", id, cut(r.Result), cut([]byte(err.Error())))
	}
	return id, res, nil
}

// quoteMax bounds what an error message quotes of a process's output.
const quoteMax = 200

// quote is a line for an error message: quoted, cut after quoteMax bytes.
func quote(b []byte) string {
	if len(b) > quoteMax {
		return fmt.Sprintf("%q… (%d bytes)", b[:quoteMax], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// cut is a JSON value (one line, already escaped) for an error message,
// cut after quoteMax bytes.
func cut(b []byte) string {
	if len(b) > quoteMax {
		return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(string(b[:quoteMax]), "?"), len(b))
	}
	return strings.ToValidUTF8(string(b), "?")
}

// Restart backoff of a process that died: it doubles from minBackoff up to
// maxBackoff, and starts again from minBackoff after a run that lasted
// stableRun.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
	stableRun  = time.Minute
)

// maxLine bounds one line the process writes on stdout; a longer one breaks
// the protocol, and the process is killed (and restarted).
const maxLine = 4 << 20

// ErrProcessDown is the error of a call while the process is not running
// (dead and waiting to restart, or stopped).
var ErrProcessDown = errors.New("the plugin's process is not running")

type answer struct {
	res *plugin.HookResult
	err error
}

// Process is one long-lived handler process shared by the entries that
// name it.
//
// Lifecycle: started by Start (onStart) or by the first call of an event
// that activates it (onHook:<Event>), through proc.Start, in a process
// group of its own. When it exits, for whatever reason, what it left
// running is killed with its group, what it wrote before the exit is read
// (proc.Process.Wait), its pending calls fail, and it is started again
// after the backoff. Stop closes its input, kills its group if it has not
// exited two seconds later, and it is not started again.
type Process struct {
	name    string // the plugin id, in logs
	path    string
	args    []string
	dir     string
	env     []string
	log     *slog.Logger
	recheck func() error // before every start; nil: none

	mu       sync.Mutex
	cur      *instance // nil when not running
	pending  map[int64]chan answer
	nextID   int64 // the last id sent; ids are never reused, across runs too
	stopped  bool
	started  bool // activated at least once
	backoff  time.Duration
	restarts int

	// garbage bounds the warnings about lines that answer no call.
	garbage logging.LineBudget
}

// instance is one run of the process.
type instance struct {
	proc  *proc.Process
	cmd   *exec.Cmd
	start time.Time
	// stdin is the write end of the process's input pipe. Writes carry the
	// caller's deadline, so a process that stops reading blocks nobody
	// past it; wmu keeps each request line whole.
	wmu    sync.Mutex
	stdin  *os.File
	ready  chan struct{} // closed once proc is set
	exited chan struct{} // closed once the process is reaped and its calls failed
}

func newProcess(name, path string, args []string, dir string, env []string, log *slog.Logger, recheck func() error) *Process {
	return &Process{garbage: logging.ProcessBudget(), name: name, path: path, args: args, dir: dir, env: env, log: log.With("plugin", name),
		recheck: recheck, pending: map[int64]chan answer{}}
}

// Start starts the process if it is not running. It is what activation does.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = true
	err := p.startLocked()
	if err != nil {
		p.scheduleRestartLocked()
	}
	return err
}

func (p *Process) startLocked() error {
	if p.cur != nil || p.stopped {
		return nil
	}
	if p.recheck != nil {
		if err := p.recheck(); err != nil {
			return err
		}
	}
	r, w, err := os.Pipe() // its input; the outputs are proc.Start's
	if err != nil {
		return fmt.Errorf("starting %s: %w", p.path, err)
	}
	in := &instance{cmd: exec.Command(p.path, p.args...), start: time.Now(), stdin: w,
		ready: make(chan struct{}), exited: make(chan struct{})}
	stdout := &logging.Lines{Max: maxLine, Line: func(l []byte) { p.response(l) }, Over: func([]byte) {
		p.log.Warn("manifest: the process wrote a line longer than the protocol allows; killing it", "process", p.path, "max_bytes", maxLine)
		in.kill()
	}}
	stderr := logging.NewStderr(p.log, "manifest")
	in.cmd.Dir, in.cmd.Env = p.dir, p.env
	in.cmd.Stdin, in.cmd.Stdout, in.cmd.Stderr = r, stdout, stderr
	in.proc, err = proc.Start(in.cmd)
	r.Close() // the process has its copy
	if err != nil {
		w.Close()
		return fmt.Errorf("starting %s: %w", p.path, err)
	}
	close(in.ready)
	p.cur = in
	go p.wait(in, stdout, stderr)
	p.log.Info("manifest: process started", "process", p.path, "pid", in.proc.Pid())
	return nil
}

// kill kills the run's whole process group.
func (in *instance) kill() {
	<-in.ready // a line can arrive before proc.Start has returned
	in.proc.Kill()
}

// send writes one request line by the deadline of ctx. A line cut short
// by the deadline would corrupt the stream, so then the process is killed
// (and restarted): it had stopped reading.
func (in *instance) send(ctx context.Context, line []byte) error {
	in.wmu.Lock()
	defer in.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	dl, _ := ctx.Deadline()
	in.stdin.SetWriteDeadline(dl) // zero: none
	_, err := in.stdin.Write(line)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		in.kill()
		return errDeaf
	}
	return err
}

var errDeaf = fmt.Errorf("the process stopped reading its input: %w", context.DeadlineExceeded)

// response delivers one line of the process's stdout: to the call it
// answers; a late answer to a call given up is dropped; a line that
// answers no call fails every pending call (see the protocol).
func (p *Process) response(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	id, res, err := DecodeResponse(line)
	p.mu.Lock()
	if ch := p.pending[id]; ch != nil {
		delete(p.pending, id)
		p.mu.Unlock()
		ch <- answer{res, err}
		return
	}
	if id > 0 && id <= p.nextID {
		p.mu.Unlock()
		p.log.Debug("manifest: a late answer to a call given up; dropped", "id", id)
		return
	}
	if err == nil {
		err = fmt.Errorf("response %d answers no call Podcode made", id)
	}
	err = fmt.Errorf("the process wrote a line that answers no call: %w", err)
	failed := len(p.pending)
	for id, ch := range p.pending {
		ch <- answer{err: err}
		delete(p.pending, id)
	}
	logIt, dropped := p.garbage.Allow(time.Now())
	p.mu.Unlock()
	if logIt {
		p.log.Warn("manifest: "+err.Error(), "failed_calls", failed, "warnings_dropped", dropped)
	}
}

// wait reaps the run (proc.Process.Wait: its group is killed and its
// output read when it exits), then fails its pending calls and schedules
// a restart.
func (p *Process) wait(in *instance, stdout *logging.Lines, stderr *logging.Stderr) {
	in.proc.Wait()
	stdout.Flush()
	stderr.Close()
	in.wmu.Lock()
	in.stdin.Close()
	in.wmu.Unlock()

	p.mu.Lock()
	defer close(in.exited)
	defer p.mu.Unlock()
	p.cur = nil
	state := in.cmd.ProcessState.String()
	for id, ch := range p.pending {
		ch <- answer{err: fmt.Errorf("%w: it exited (%s)", ErrProcessDown, state)}
		delete(p.pending, id)
	}
	if p.stopped {
		return
	}
	if time.Since(in.start) >= stableRun {
		p.backoff = 0
	}
	p.restarts++
	p.log.Warn("manifest: the process died; restarting", "process", p.path, "error", state, "restarts", p.restarts)
	p.scheduleRestartLocked()
}

// scheduleRestartLocked starts the process again after the backoff, and
// keeps trying, with a longer backoff each time, while starting fails.
func (p *Process) scheduleRestartLocked() {
	p.backoff = min(max(p.backoff*2, minBackoff), maxBackoff)
	time.AfterFunc(p.backoff, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.cur != nil || p.stopped {
			return
		}
		if err := p.startLocked(); err != nil {
			p.log.Error("manifest: restarting the process failed; trying again", "error", err.Error(), "after", p.backoff.String())
			p.scheduleRestartLocked()
		}
	})
}

// Handler is a lifecycle handler that asks the process. When activates is
// set (its event is one of the manifest's activation events), the first
// call starts the process; otherwise a call before the process was
// activated abstains. A process that does not answer in time, or stops
// reading its input, is abandoned at the dispatch deadline (L11); its late
// answer is dropped.
func (p *Process) Handler(activates bool) plugin.HookHandler {
	return func(ctx context.Context, pl *plugin.HookPayload) (*plugin.HookResult, error) {
		line, err := json.Marshal(rpcRequest{JSONRPC: "2.0", Method: "hook", Params: pl})
		if err != nil {
			return nil, err
		}
		p.mu.Lock()
		if !p.started {
			if !activates {
				p.mu.Unlock()
				return nil, nil // not activated yet
			}
			p.started = true
			if err := p.startLocked(); err != nil {
				p.scheduleRestartLocked()
				p.mu.Unlock()
				return nil, err
			}
		}
		in := p.cur
		if in == nil {
			p.mu.Unlock()
			return nil, ErrProcessDown
		}
		p.nextID++
		id := p.nextID
		ch := make(chan answer, 1)
		p.pending[id] = ch
		p.mu.Unlock()
		// The id goes in front of the marshalled request, which has none.
		line = append(fmt.Appendf(nil, `{"id":%d,`, id), line[1:]...)
		line = append(line, '\n')
		drop := func() {
			p.mu.Lock()
			delete(p.pending, id)
			p.mu.Unlock()
		}
		if err := in.send(ctx, line); err != nil {
			drop()
			if errors.Is(err, errDeaf) {
				p.log.Warn("manifest: the process stopped reading its input; killed, to be restarted", "process", p.path)
			}
			return nil, fmt.Errorf("writing to the process: %w", err)
		}
		select {
		case a := <-ch:
			return a.res, a.err
		case <-ctx.Done():
			drop()
			return nil, ctx.Err()
		}
	}
}

// Stop stops the process and does not restart it: it closes the process's
// input, and kills its process group if it has not exited two seconds
// later.
func (p *Process) Stop() {
	p.mu.Lock()
	p.stopped = true
	in := p.cur
	p.mu.Unlock()
	if in == nil {
		return
	}
	in.wmu.Lock()
	in.stdin.Close()
	in.wmu.Unlock()
	select {
	case <-in.exited:
	case <-time.After(2 * time.Second):
		in.kill()
		<-in.exited
	}
}

// PID is the process's id, or 0 when it is not running.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		return 0
	}
	return p.cur.proc.Pid()
}
