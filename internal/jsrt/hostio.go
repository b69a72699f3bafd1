package jsrt

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
	"unsafe"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/trust"
)

// What a runtime may hold outside JavaScript, where neither the watchdog nor
// the measurement of what it retains can see it: the requests and file
// operations running for it on goroutines of their own, their results on
// their way to the loop, and the lines it writes to the server's log.
const (
	// MaxFetches is how many fetch requests one runtime runs at once; the
	// others wait their turn. Each holds a connection, and a body of up to
	// FetchOptions.MaxBytes once read.
	MaxFetches = 8
	// MaxFileReads is how many readFile calls one runtime runs at once: a
	// file read whole is held outside JavaScript until the loop takes it.
	MaxFileReads = 1
	// MaxFileOps is how many other file operations (writeFile, readdir,
	// stat) one runtime runs at once.
	MaxFileOps = 8
	// MaxWaitingOps is how many operations of each of those kinds may wait
	// their turn; past it, the call rejects at once.
	MaxWaitingOps = 10_000

	// ConsoleLineChars is the longest console line written to the log,
	// in UTF-16 code units; the rest is cut and counted.
	ConsoleLineChars = 16 << 10
	// ConsoleLinesPerSecond and ConsoleBurst bound how many console lines
	// one runtime writes to the log: ConsoleBurst at once, then
	// ConsoleLinesPerSecond; the lines past that are dropped and counted.
	ConsoleLinesPerSecond = 100
	ConsoleBurst          = 1000
	// consoleReportEvery is how often, at most, dropped lines are reported.
	consoleReportEvery = 10 * time.Second

	// maxReadNoBudget is the largest file a runtime without a memory
	// limit reads whole.
	maxReadNoBudget = 1 << 30
)

// hostPool runs at most limit operations of one kind at a time for a
// runtime; the others wait, in the order they were asked for, at most
// MaxWaitingOps of them, with nothing but their closure: no goroutine.
// Loop goroutine only.
type hostPool struct {
	what    string // for the error of a call refused
	limit   int
	running int
	waiting []func()
}

// admit starts run now or queues it; false when too many already wait.
func (p *hostPool) admit(run func()) bool {
	if p.running < p.limit {
		p.running++
		run()
		return true
	}
	if len(p.waiting) >= MaxWaitingOps {
		return false
	}
	p.waiting = append(p.waiting, run)
	return true
}

// finished frees the place of an operation whose result reached the loop,
// and starts the next one waiting, unless the runtime is closing.
func (p *hostPool) finished(closing bool) {
	p.running--
	if !closing && len(p.waiting) > 0 && p.running < p.limit {
		next := p.waiting[0]
		p.waiting[0] = nil
		p.waiting = p.waiting[1:]
		p.running++
		next()
	}
}

func (p *hostPool) refused() error {
	return fmt.Errorf("%s: this plugin already runs %d and has %d more waiting, the most one plugin may have; wait for some to finish", p.what, p.limit, MaxWaitingOps)
}

// maxRead is the largest file readFile reads whole: half the memory limit
// (as a string, each byte may take two), so that one read cannot pass the
// budget on its own; MaxFileReads at once keep what waits outside
// JavaScript within it too.
func (r *Runtime) maxRead() int64 {
	if r.opts.MemoryLimit > 0 {
		return r.opts.MemoryLimit / 2
	}
	return maxReadNoBudget
}

// readRegular reads the regular file at path whole, if it has at most max
// bytes. It opens as trust.OpenRegular does: without blocking (a FIFO
// would wait for a writer for ever), and only a regular file (a device
// such as /dev/zero never ends); it reads at most max+1 bytes whatever the
// size said (a file may grow, and /proc's files say 0).
func readRegular(path string, max int64) ([]byte, error) {
	f, err := trust.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("readFile: %w", err)
	}
	defer f.Close()
	tooBig := func() error {
		return fmt.Errorf("readFile: %s is larger than %s, the most one plugin reads at once (half its memory budget)", path, mib(max))
	}
	if st, err := f.Stat(); err == nil && st.Size() > max {
		return nil, tooBig()
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooBig()
	}
	return data, nil
}

// bytesString is b as a string without a copy; b must not change after.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// consoleState bounds a runtime's console output (loop goroutine only).
type consoleState struct {
	budget   logging.LineBudget
	dropped  int64 // lines dropped since the last report
	total    int64
	reported time.Time
}

// hostLog writes one console line to the server's log: cut to
// ConsoleLineChars, and dropped past ConsoleBurst lines at once or
// ConsoleLinesPerSecond on average; the drops are reported, with the
// plugin's id, at most every consoleReportEvery.
func (r *Runtime) hostLog(level string, msg goja.Value) {
	log := r.Log()
	lvl := slogLevel(level)
	if !log.Enabled(context.Background(), lvl) {
		return
	}
	c := &r.host.console
	now := time.Now()
	if ok, _ := c.budget.Allow(now); !ok {
		c.dropped++
		c.total++
		if c.dropped == 1 && now.Sub(c.reported) >= consoleReportEvery {
			r.reportConsoleDrops(now)
		}
		return
	}
	if c.dropped > 0 && now.Sub(c.reported) >= consoleReportEvery {
		r.reportConsoleDrops(now)
	}
	s, ok := msg.(goja.String)
	if !ok {
		s = r.toString(msg)
	}
	text := ""
	if n := s.Length(); n > ConsoleLineChars {
		cut := ConsoleLineChars
		if c := s.CharAt(cut - 1); c >= 0xD800 && c <= 0xDBFF {
			cut-- // do not split a surrogate pair
		}
		text = s.Substring(0, cut).String() + fmt.Sprintf("… (%d more characters not logged)", n-cut)
	} else {
		text = s.String()
	}
	log.Log(context.Background(), lvl, text, "source", "console")
}

func slogLevel(level string) slog.Level {
	switch level {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

func (r *Runtime) reportConsoleDrops(now time.Time) {
	c := &r.host.console
	r.Log().Warn("plugin: console output dropped: more lines than the log takes from one plugin", "dropped", c.dropped, "dropped_total", c.total,
		"lines_per_second", ConsoleLinesPerSecond, "burst", ConsoleBurst)
	c.dropped, c.reported = 0, now
}

// writeString is os.WriteFile for a string, without copying it to bytes.
func writeString(path, data string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(data)
	if err1 := f.Close(); err == nil {
		err = err1
	}
	return err
}
