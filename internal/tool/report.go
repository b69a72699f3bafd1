package tool

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podcode/podcode/internal/chat"
)

// Progress is how far a running call got, as its tool tells it (bash's
// bytes of output so far, an MCP server's notifications/progress): Progress
// grows as work is done, out of Total when that is known (0: not known).
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// String is p as a person reads it: its message, with how far of how
// much when the total is known ("12 of 40"), or how far alone when there
// is no message.
func (p Progress) String() string {
	n := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		n += " of " + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	switch {
	case p.Message == "":
		return n
	case p.Total > 0:
		return p.Message + " (" + n + ")"
	}
	return p.Message
}

type progressKey struct{}

// WithProgress returns ctx whose tool call reports its progress to f.
// Whoever runs a call may listen: the runner publishes tool.call.progress
// on the bus; the MCP server sends notifications/progress to its client.
// A context that had a listener keeps it (both hear, the newer first), so
// layers do not hide each other's. f is called on the tool's goroutines,
// may be called after the call ended, and must not block.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	return withListener(ctx, progressKey{}, f)
}

// withListener adds f to the listeners of key in ctx (see WithProgress).
func withListener[T any](ctx context.Context, key any, f func(T)) context.Context {
	if prev, ok := ctx.Value(key).(func(T)); ok {
		next := f
		f = func(v T) { next(v); prev(v) }
	}
	return context.WithValue(ctx, key, f)
}

// LogLine is a line a running call writes for whoever ran it (a plugin's
// tool's ctx.log): Level is one of MCP's (debug, info, notice, warning,
// error, critical, alert, emergency).
type LogLine struct {
	Level   string
	Message string
}

type logKey struct{}

// WithLog returns ctx whose tool call's log lines (ReportLog) go to f, as
// WithProgress does with progress: the runner logs them with the tool and
// its plugin; the MCP server sends them to its client as
// notifications/message.
func WithLog(ctx context.Context, f func(LogLine)) context.Context {
	return withListener(ctx, logKey{}, f)
}

// MaxLogLines bounds the lines of one call that ReportLog passes on, under
// the runner (NewCallReports); the rest are dropped.
const MaxLogLines = 200

// ReportLog passes l to the listeners of ctx's call, if any.
func ReportLog(ctx context.Context, l LogLine) {
	f, ok := ctx.Value(logKey{}).(func(LogLine))
	if !ok {
		return
	}
	if t, ok := ctx.Value(throttleKey{}).(*throttle); ok && t.lines.Add(1) > MaxLogLines {
		return
	}
	f(l)
}

// ReportProgress tells the listeners of ctx's call, if any, how far it got
// (its message on one line, cut at MaxProgressMessage bytes).
// A tool may call it as often as it likes: under the runner, reports
// closer together than ProgressEvery are dropped, except one that reaches
// its Total, and so is one whose progress went back
// (NewCallReports), so a chatty tool cannot flood a client.
func ReportProgress(ctx context.Context, p Progress) {
	f, ok := ctx.Value(progressKey{}).(func(Progress))
	if !ok {
		return
	}
	if t, ok := ctx.Value(throttleKey{}).(*throttle); ok && !t.pass(p) {
		return
	}
	p.Message = chat.Shorten(p.Message, MaxProgressMessage)
	f(p)
}

// ProgressEvery is the least time between two progress reports of a call
// that pass ReportProgress (NewCallReports).
const ProgressEvery = 250 * time.Millisecond

type throttleKey struct{}

type throttle struct {
	mu    sync.Mutex
	last  time.Time
	max   float64
	lines atomic.Int64 // log lines reported
}

func (t *throttle) pass(p Progress) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.Progress < t.max {
		return false // progress only grows
	}
	done := p.Total > 0 && p.Progress >= p.Total
	if now := time.Now(); done || now.Sub(t.last) >= ProgressEvery {
		t.last, t.max = now, p.Progress
		return true
	}
	return false
}

// NewCallReports returns ctx for one call's reports: its progress reports are
// thinned to one per ProgressEvery (one that reaches its total always
// passes) and must grow, and its log lines are cut at MaxLogLines. The
// runner sets it around each call's Execute. A call made within another's
// Execute (a sub-agent's) starts with no listeners: its progress and lines
// are its own, not the enclosing call's (whose client counts another
// progress).
func NewCallReports(ctx context.Context) context.Context {
	if _, nested := ctx.Value(throttleKey{}).(*throttle); nested {
		ctx = context.WithValue(ctx, progressKey{}, nil)
		ctx = context.WithValue(ctx, logKey{}, nil)
	}
	return context.WithValue(ctx, throttleKey{}, &throttle{max: -1})
}

// MaxProgressMessage bounds a progress report's message, in bytes, from
// whichever tool it comes.
const MaxProgressMessage = 200

// FormAnswer is the answer to a form a running call asked (AskForm):
// Action is "accept" (Content holds every field, defaults filled in and
// checked against the form), "decline" or "cancel".
type FormAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

type formKey struct{}

// WithFormAsker returns ctx whose call's forms (AskForm) go to f: the
// runner sets it to the guard's question flow, so the form goes to whoever
// answers the call's session's permission questions.
func WithFormAsker(ctx context.Context, f func(ctx context.Context, message string, schema any) (FormAnswer, error)) context.Context {
	return context.WithValue(ctx, formKey{}, f)
}

// ErrNoForms is AskForm's error where nobody can be asked a form.
var ErrNoForms = errors.New("nobody can answer a form here")

// AskForm asks the user of ctx's call to fill in a form: message and an
// MCP elicitation schema (flat primitive fields). It waits for the answer.
func AskForm(ctx context.Context, message string, schema any) (FormAnswer, error) {
	f, ok := ctx.Value(formKey{}).(func(context.Context, string, any) (FormAnswer, error))
	if !ok {
		return FormAnswer{}, ErrNoForms
	}
	return f(ctx, message, schema)
}
