package jsrt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/logging"
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
	// MaxRequests is how many in-process requests (Runtime.Async: its
	// opencode client's) one runtime runs at once.
	MaxRequests = 8
	// MaxWaitingOps is how many operations of each of those kinds may wait
	// their turn; past it, the call rejects at once.
	MaxWaitingOps = 10_000
	// MaxHeldBytes bounds the bytes of request bodies and file contents
	// one runtime has handed to fetch and writeFile and that are not sent
	// or written yet: held in Go while they wait, the memory budget does
	// not see them (100 requests of 4 MB waiting on a server that does not
	// answer grew the heap by 386 MiB).
	MaxHeldBytes = 64 << 20

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

// hostLog writes one console line to the server's log, within the line
// budget and cut as allowLine and cutLine say.
func (r *Runtime) hostLog(level string, msg goja.Value) {
	lvl := slogLevel(level)
	if !r.allowLine(lvl) {
		return
	}
	s, ok := msg.(goja.String)
	if !ok {
		s = r.toString(msg)
	}
	r.Log().Log(context.Background(), lvl, cutLine(s), "source", "console")
}

// LogError logs, with msg and attrs, what the plugin's JavaScript threw
// where no host call awaits it (a timer callback, a bus listener): err is
// from a goja call. Like a console line, it counts against the line budget
// and its error is cut to ConsoleLineChars, since the script decides how
// often it throws and how long its messages are. Loop goroutine only.
func (r *Runtime) LogError(msg string, err error, attrs ...any) {
	if !r.allowLine(slog.LevelWarn) {
		return
	}
	var ex *goja.Exception
	text := ""
	if errors.As(err, &ex) {
		text = r.describeCut(ex.Value()) // not Error(err): it would render the whole value first
	} else {
		text = r.cutText(Error(err).Error())
	}
	r.Log().Warn(msg, append(attrs, "error", text)...)
}

// logThrown is LogError for a thrown value (an unhandled rejection's).
func (r *Runtime) logThrown(msg string, v goja.Value) {
	if !r.allowLine(slog.LevelWarn) {
		return
	}
	r.Log().Warn(msg, "error", r.describeCut(v))
}

// allowLine says whether the plugin may write one more line at lvl to the
// server's log now. Its console lines and the errors of its own code
// (LogError) share one budget: ConsoleBurst lines at once, then
// ConsoleLinesPerSecond on average; the lines past it are dropped and
// counted, and the drops reported, with the plugin's id, at most every
// consoleReportEvery. Loop goroutine only.
func (r *Runtime) allowLine(lvl slog.Level) bool {
	if !r.Log().Enabled(context.Background(), lvl) {
		return false
	}
	c := &r.host.console
	now := time.Now()
	if ok, _ := c.budget.Allow(now); !ok {
		c.dropped++
		c.total++
		if c.dropped == 1 && now.Sub(c.reported) >= consoleReportEvery {
			r.reportConsoleDrops(now)
		}
		return false
	}
	if c.dropped > 0 && now.Sub(c.reported) >= consoleReportEvery {
		r.reportConsoleDrops(now)
	}
	return true
}

// cutLine renders s for the log, cut to ConsoleLineChars with the number
// of characters cut.
func cutLine(s goja.String) string {
	n := s.Length()
	if n <= ConsoleLineChars {
		return s.String()
	}
	cut := ConsoleLineChars
	if c := s.CharAt(cut - 1); c >= 0xD800 && c <= 0xDBFF {
		cut-- // do not split a surrogate pair
	}
	return s.Substring(0, cut).String() + fmt.Sprintf("… (%d more characters not logged)", n-cut)
}

// cutText is cutLine for a Go string.
func (r *Runtime) cutText(s string) string {
	if len(s) <= ConsoleLineChars { // no more UTF-16 code units than bytes
		return s
	}
	return cutLine(r.vm.ToValue(s).(goja.String))
}

// describeCut is describe, cut as cutLine cuts, without rendering more of
// a long value than is logged.
func (r *Runtime) describeCut(v goja.Value) (s string) {
	defer func() {
		if recover() != nil {
			s = unshowable
		}
	}()
	return cutLine(r.toString(described(v)))
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

// readDir is os.ReadDir for a folder only, sorted by name: it opens with
// O_DIRECTORY, so what is not a folder (a FIFO included, which would wait
// for a writer) is ENOTDIR at once. Its errors are Node's (scandir),
// naming the folder as shown.
func readDir(path, shown string) ([]os.DirEntry, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, sysErr("scandir", shown, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, sysErr("scandir", shown, err)
}
