package plugin

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// logRecorder is a slog.Handler that keeps every record, for assertions on
// what the Dispatcher logs.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// lines renders each record as "LEVEL msg k=v k=v".
func (l *logRecorder) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.records))
	for _, r := range l.records {
		var b strings.Builder
		b.WriteString(r.Level.String() + " " + r.Message)
		r.Attrs(func(a slog.Attr) bool {
			b.WriteString(" " + a.Key + "=" + a.Value.String())
			return true
		})
		out = append(out, b.String())
	}
	return out
}

// find returns the first line containing every one of parts.
func (l *logRecorder) find(parts ...string) (string, bool) {
next:
	for _, line := range l.lines() {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue next
			}
		}
		return line, true
	}
	return "", false
}

func newTestDispatcher(t testing.TB, opts ...DispatcherOption) (*Dispatcher, *logRecorder) {
	t.Helper()
	rec := &logRecorder{}
	return NewDispatcher(append([]DispatcherOption{WithLogger(slog.New(rec))}, opts...)...), rec
}

func mustRegister(t testing.TB, d *Dispatcher, ev HookEvent, h HookHandler, opts ...RegisterOption) {
	t.Helper()
	if err := d.Register(ev, h, opts...); err != nil {
		t.Fatalf("Register(%s): %v", ev, err)
	}
}

// vote returns a handler that votes dec with msg; an empty dec abstains.
func vote(dec HookDecision, msg string) HookHandler {
	return func(context.Context, *HookPayload) (*HookResult, error) {
		if dec == "" {
			return nil, nil
		}
		return &HookResult{Decision: dec, Message: msg}, nil
	}
}
