package manifest

import (
	"bytes"
	"github.com/podcode/podcode/internal/logging"
	"log/slog"
	"strings"
	"time"
)

// lineWriter splits what a process writes into lines. It is written by one
// goroutine (proc's reader of that output) and flushed by the same owner
// after proc.Process.Wait.
type lineWriter struct {
	max  int          // the longest line; a longer one goes to over
	line func([]byte) // each complete line, without its newline; valid during the call
	// over gets the first max bytes of a line that is too long; the rest
	// of that line is dropped.
	over func([]byte)

	buf      []byte
	skipping bool // dropping the rest of an overlong line
}

func (w *lineWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		switch {
		case w.skipping:
		case len(w.buf)+len(part) > w.max:
			w.skipping = true
			w.over(append(w.buf, part...)[:w.max])
			w.buf = w.buf[:0]
		case i >= 0 && len(w.buf) == 0:
			w.line(part) // the common case: a whole line, not copied
		default:
			w.buf = append(w.buf, part...)
			if i >= 0 {
				w.line(w.buf)
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

// flush delivers a last line that had no newline.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 && !w.skipping {
		w.line(w.buf)
	}
	w.buf, w.skipping = w.buf[:0], false
}

// What of a process's stderr reaches the log: each line cut after
// stderrLineMax bytes, at most logBurst lines at once and logRate lines a
// second after that; the lines held back are counted, and the count is
// logged when lines flow again and when the process exits.
const (
	stderrLineMax = 4096
	logBurst      = 100
	logRate       = 10 // lines a second
)

// newLogBudget is the budget of one process's log lines: logBurst at
// once, logRate a second.
func newLogBudget() logging.LineBudget {
	return logging.LineBudget{Burst: logBurst, PerSecond: logRate}
}

// stderrLog logs a process's stderr, line by line, within the bounds
// above; log carries the plugin's id.
type stderrLog struct {
	lineWriter
	log    *slog.Logger
	budget logging.LineBudget
}

func newStderrLog(log *slog.Logger) *stderrLog {
	s := &stderrLog{log: log, budget: newLogBudget()}
	s.lineWriter = lineWriter{max: stderrLineMax,
		line: func(l []byte) { s.emit(l, false) },
		over: func(l []byte) { s.emit(l, true) }}
	return s
}

func (s *stderrLog) emit(line []byte, cut bool) {
	ok, dropped := s.budget.Allow(time.Now())
	if !ok {
		return
	}
	s.reportDropped(dropped)
	msg := strings.ToValidUTF8(strings.TrimRight(string(line), "\r"), "?")
	if cut {
		s.log.Info(msg, "source", "stderr", "cut_at_bytes", stderrLineMax)
		return
	}
	s.log.Info(msg, "source", "stderr")
}

func (s *stderrLog) reportDropped(n int) {
	if n > 0 {
		s.log.Warn("manifest: the process wrote too much on stderr; stderr lines not logged", "dropped", n)
	}
}

// close flushes the last line and reports what was held back.
func (s *stderrLog) close() {
	s.flush()
	s.reportDropped(s.budget.TakeHeld())
}
