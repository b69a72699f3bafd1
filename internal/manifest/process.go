package manifest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// A null result abstains; an error is the handler's error. Anything the
// process writes to stderr goes to the log with the plugin's id.
//
// rpcRequest is a request without its id, which Handler puts in front.
type rpcRequest struct {
	JSONRPC string              `json:"jsonrpc"`
	Method  string              `json:"method"`
	Params  *plugin.HookPayload `json:"params"`
}

type rpcResponse struct {
	JSONRPC string             `json:"jsonrpc"`
	ID      *int64             `json:"id"`
	Result  *plugin.HookResult `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// DecodeResponse reads one response line of the process protocol.
func DecodeResponse(line []byte) (id int64, res *plugin.HookResult, err error) {
	var r rpcResponse
	if err := json.Unmarshal(line, &r); err != nil {
		return 0, nil, fmt.Errorf("not a JSON-RPC response: %v", err)
	}
	if r.ID == nil {
		return 0, nil, errors.New("a JSON-RPC response without an id")
	}
	if r.Error != nil {
		return *r.ID, nil, fmt.Errorf("the process answered an error: %s", r.Error.Message)
	}
	return *r.ID, r.Result, nil
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
// that activates it (onHook:<Event>); when it exits, for whatever reason,
// its pending calls fail and it is started again after the backoff; Stop
// closes its input, kills its process group if it has not exited two
// seconds later, and it is not started again.
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
	nextID   int64
	stopped  bool
	started  bool // activated at least once
	backoff  time.Duration
	restarts int
}

// instance is one run of the process.
type instance struct {
	cmd   *exec.Cmd
	start time.Time
	// stdin is the write end of the process's input pipe. Writes carry the
	// caller's deadline, so a process that stops reading blocks nobody
	// past it; wmu keeps each request line whole.
	wmu    sync.Mutex
	stdin  *os.File
	exited chan struct{} // closed once the process is reaped and its calls failed
}

func newProcess(name, path string, args []string, dir string, env []string, log *slog.Logger, recheck func() error) *Process {
	return &Process{name: name, path: path, args: args, dir: dir, env: env, log: log.With("plugin", name),
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

// pipes makes the three pipes of a run: the child's ends, then ours.
func pipes() (child, ours [3]*os.File, err error) {
	for i := range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(child[:i])
			closeAll(ours[:i])
			return child, ours, err
		}
		if i == 0 { // stdin: the child reads
			child[i], ours[i] = r, w
		} else {
			child[i], ours[i] = w, r
		}
	}
	return child, ours, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
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
	child, ours, err := pipes()
	if err != nil {
		return fmt.Errorf("starting %s: %w", p.path, err)
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = child[0], child[1], child[2]
	// Its own process group: stopping or killing it takes its children
	// too, so none of them holds its output open.
	proc.OwnGroup(cmd)
	err = cmd.Start()
	closeAll(child[:]) // the child has its copies
	if err != nil {
		closeAll(ours[:])
		return fmt.Errorf("starting %s: %w", p.path, err)
	}
	in := &instance{cmd: cmd, start: time.Now(), stdin: ours[0], exited: make(chan struct{})}
	p.cur = in
	stderrDone := make(chan struct{})
	go func() { p.logStderr(ours[2]); close(stderrDone) }()
	readDone := make(chan struct{})
	go func() { p.read(in, ours[1]); close(readDone) }()
	go p.wait(in, ours[1], ours[2], readDone, stderrDone)
	p.log.Info("manifest: process started", "process", p.path, "pid", cmd.Process.Pid)
	return nil
}

// killGroup kills the run's whole process group.
func (in *instance) killGroup() { proc.KillGroupOf(in.cmd.Process.Pid) }

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
		in.killGroup()
		return errDeaf
	}
	return err
}

var errDeaf = fmt.Errorf("the process stopped reading its input: %w", context.DeadlineExceeded)

// logStderr logs the process's stderr line by line; a line too long for a
// log line is cut, and the rest of it dropped, so the process never blocks
// on a full stderr pipe.
func (p *Process) logStderr(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			p.log.Info(strings.TrimRight(string(line), "\r\n"), "source", "stderr")
		}
		for errors.Is(err, bufio.ErrBufferFull) { // the rest of an overlong line
			_, err = br.ReadSlice('\n')
		}
		if err != nil {
			return
		}
	}
}

// read delivers responses until the process's stdout ends. A line longer
// than maxLine breaks the protocol: the process is killed.
func (p *Process) read(in *instance, stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		id, res, err := DecodeResponse(line)
		if err != nil && id == 0 {
			p.log.Warn("manifest: the process wrote something that is not a response", "error", err.Error())
			continue
		}
		p.mu.Lock()
		ch := p.pending[id]
		delete(p.pending, id)
		p.mu.Unlock()
		if ch != nil {
			ch <- answer{res, err}
		}
	}
	if err := sc.Err(); err != nil {
		p.log.Warn("manifest: the process's output broke the protocol; killing it", "process", p.path, "error", err.Error())
		in.killGroup()
	}
}

// wait reaps the run: once the process has exited, its group is killed (a
// child left behind must not hold the output open), our ends of its pipes
// are closed, and when its output has been read to the end its pending
// calls fail and a restart is scheduled.
func (p *Process) wait(in *instance, stdout, stderr *os.File, readDone, stderrDone chan struct{}) {
	waitErr := in.cmd.Wait()
	// A child left behind in the group keeps the output open: kill the
	// group then. (Only then: with the group empty, its id could already
	// belong to another group.)
	select {
	case <-readDone:
	case <-time.After(100 * time.Millisecond):
		in.killGroup()
	}
	// What is still in the pipes is read first; if a child that left the
	// group holds them open, closing our ends ends the reading.
	for _, d := range []struct {
		f    *os.File
		done chan struct{}
	}{{stdout, readDone}, {stderr, stderrDone}} {
		select {
		case <-d.done:
		case <-time.After(time.Second):
			d.f.Close()
			<-d.done
		}
		d.f.Close()
	}
	in.wmu.Lock()
	in.stdin.Close()
	in.wmu.Unlock()

	p.mu.Lock()
	defer close(in.exited)
	defer p.mu.Unlock()
	p.cur = nil
	for id, ch := range p.pending {
		ch <- answer{err: fmt.Errorf("%w: it exited (%v)", ErrProcessDown, waitErr)}
		delete(p.pending, id)
	}
	if p.stopped {
		return
	}
	if time.Since(in.start) >= stableRun {
		p.backoff = 0
	}
	p.restarts++
	p.log.Warn("manifest: the process died; restarting", "process", p.path, "error", fmt.Sprint(waitErr), "restarts", p.restarts)
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
		in.killGroup()
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
	return p.cur.cmd.Process.Pid
}
