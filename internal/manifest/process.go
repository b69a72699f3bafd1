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
	"sync"
	"time"

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
type rpcRequest struct {
	JSONRPC string              `json:"jsonrpc"`
	ID      int64               `json:"id,omitempty"`
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

// Restart backoff of a process that died.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// ErrProcessDown is the error of a call while the process is not running
// (dead and waiting to restart, or stopped).
var ErrProcessDown = errors.New("the plugin's process is not running")

type answer struct {
	res *plugin.HookResult
	err error
}

// Process is one long-lived handler process shared by the entries that
// name it.
type Process struct {
	name string // the plugin id, in logs
	path string
	args []string
	dir  string
	env  []string
	log  *slog.Logger

	mu       sync.Mutex
	cur      *instance // nil when not running
	pending  map[int64]chan answer
	nextID   int64
	stopped  bool
	backoff  time.Duration
	restarts int
}

// instance is one run of the process.
type instance struct {
	cmd *exec.Cmd
	// stdin is the write end of the process's input pipe. Writes carry the
	// caller's deadline, so a process that stops reading blocks nobody
	// past it; wmu keeps each request line whole.
	wmu    sync.Mutex
	stdin  *os.File
	exited chan struct{} // closed once the process is reaped and its calls failed
}

func newProcess(name, path string, args []string, dir string, env []string, log *slog.Logger) *Process {
	return &Process{name: name, path: path, args: args, dir: dir, env: env, log: log.With("plugin", name), pending: map[int64]chan answer{}}
}

// Start starts the process if it is not running. It is what activation does.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.startLocked()
}

func (p *Process) startLocked() error {
	if p.cur != nil || p.stopped {
		return nil
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	err = cmd.Start()
	stdinR.Close() // the child has its copy
	if err != nil {
		stdin.Close()
		return fmt.Errorf("starting %s: %w", p.path, err)
	}
	in := &instance{cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	p.cur = in
	go p.logStderr(stderr)
	go p.read(in, stdout)
	p.log.Info("manifest: process started", "process", p.path, "pid", cmd.Process.Pid)
	return nil
}

var errDeaf = fmt.Errorf("the process stopped reading its input: %w", context.DeadlineExceeded)

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
		in.cmd.Process.Kill()
		return errDeaf
	}
	return err
}

func (p *Process) logStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.log.Info(sc.Text(), "source", "stderr")
	}
}

// read delivers responses until the process's stdout closes, then reaps
// the process, fails what was pending and schedules a restart.
func (p *Process) read(in *instance, stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
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
	waitErr := in.cmd.Wait()
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
	p.backoff = min(max(p.backoff*2, minBackoff), maxBackoff)
	p.restarts++
	p.log.Warn("manifest: the process died; restarting", "process", p.path, "error", fmt.Sprint(waitErr), "after", p.backoff.String(), "restarts", p.restarts)
	time.AfterFunc(p.backoff, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if err := p.startLocked(); err != nil {
			p.log.Error("manifest: restarting the process failed", "error", err.Error())
		}
	})
}

// Handler is a lifecycle handler that asks the process. It starts the
// process on first use (onHook: activation). A process that does not
// answer in time, or stops reading its input, is abandoned at the dispatch
// deadline (L11); its late answer is dropped.
func (p *Process) Handler() plugin.HookHandler {
	return func(ctx context.Context, pl *plugin.HookPayload) (*plugin.HookResult, error) {
		line, err := json.Marshal(rpcRequest{JSONRPC: "2.0", Method: "hook", Params: pl})
		if err != nil {
			return nil, err
		}
		p.mu.Lock()
		if p.cur == nil && !p.stopped && p.restarts == 0 {
			if err := p.startLocked(); err != nil {
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
// input, and kills it if it has not exited two seconds later.
func (p *Process) Stop() {
	p.mu.Lock()
	p.stopped = true
	in := p.cur
	p.mu.Unlock()
	if in == nil {
		return
	}
	in.stdin.Close()
	select {
	case <-in.exited:
	case <-time.After(2 * time.Second):
		in.cmd.Process.Kill()
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
