package logging

import (
	"bytes"
	"log/slog"
	"strings"
	"time"
)

// Lines splits what a process writes into lines. It is written by one
// goroutine (proc's reader of that output) and flushed by the same owner
// once the process's output ended (proc.Process.Wait).
type Lines struct {
	Max  int          // the longest line; a longer one goes to Over
	Line func([]byte) // each complete line, without its newline; valid during the call
	// Over gets the first max bytes of a line that is too long; the rest
	// of that line is dropped.
	Over func([]byte)

	buf      []byte
	skipping bool // dropping the rest of an overlong line
}

func (w *Lines) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		switch {
		case w.skipping:
		case len(w.buf)+len(part) > w.Max:
			w.skipping = true
			w.Over(append(w.buf, part...)[:w.Max])
			w.buf = w.buf[:0]
		case i >= 0 && len(w.buf) == 0:
			w.Line(part) // the common case: a whole line, not copied
		default:
			w.buf = append(w.buf, part...)
			if i >= 0 {
				w.Line(w.buf)
				w.buf = w.buf[:0]
			}
		}
		if i < 0 {
			break
		}
		w.skipping = false
		b = b[i+1:]
	}
	return n, nil
}

// Flush delivers a last line that had no newline.
func (w *Lines) Flush() {
	if len(w.buf) > 0 && !w.skipping {
		w.Line(w.buf)
	}
	w.buf, w.skipping = w.buf[:0], false
}

// What of a process's stderr reaches the log (Stderr): each line cut
// after StderrLineMax bytes, at most StderrBurst lines at once and
// StderrRate lines a second after that; the lines held back are counted,
// and the count is logged when lines flow again and when the process
// exits.
const (
	StderrLineMax = 4096
	StderrBurst   = 100
	StderrRate    = 10 // lines a second
)

// ProcessBudget is the budget of one process's log lines: StderrBurst at
// once, StderrRate a second.
func ProcessBudget() LineBudget {
	return LineBudget{Burst: StderrBurst, PerSecond: StderrRate}
}

// Stderr logs a process's stderr, line by line, within the bounds above.
// Its logger carries who the process is (the plugin id, the MCP server).
type Stderr struct {
	Lines
	log    *slog.Logger
	what   string // "manifest", "mcp": the prefix of the warning about held lines
	budget LineBudget
}

// NewStderr returns the Stderr of one process; what prefixes the warning
// about lines held back ("manifest: the process wrote too much…").
func NewStderr(log *slog.Logger, what string) *Stderr {
	s := &Stderr{log: log, what: what, budget: ProcessBudget()}
	s.Lines = Lines{Max: StderrLineMax,
		Line: func(l []byte) { s.emit(l, false) },
		Over: func(l []byte) { s.emit(l, true) }}
	return s
}

func (s *Stderr) emit(line []byte, cut bool) {
	ok, dropped := s.budget.Allow(time.Now())
	if !ok {
		return
	}
	s.reportDropped(dropped)
	msg := strings.ToValidUTF8(strings.TrimRight(string(line), "\r"), "?")
	if cut {
		s.log.Info(msg, "source", "stderr", "cut_at_bytes", StderrLineMax)
		return
	}
	s.log.Info(msg, "source", "stderr")
}

func (s *Stderr) reportDropped(n int) {
	if n > 0 {
		s.log.Warn(s.what+": the process wrote too much on stderr; stderr lines not logged", "dropped", n)
	}
}

// Close flushes the last line and reports what was held back. Call it
// once the process's output ended.
func (s *Stderr) Close() {
	s.Flush()
	s.reportDropped(s.budget.TakeHeld())
}
