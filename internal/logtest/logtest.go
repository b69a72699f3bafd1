// Package logtest keeps what code under test logs, for assertions: Logs
// keeps slog records as lines, Buffer is a text handler's output shared by
// goroutines. It imports nothing of Podcode's, so that any package's tests,
// the plugin SDK's included, can use it.
package logtest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// Logs keeps log records.
type Logs struct {
	mu    sync.Mutex
	lines []string
}

// Lines renders each record as "LEVEL msg k=v ...".
func (l *Logs) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Find returns the first line containing every part.
func (l *Logs) Find(parts ...string) (string, bool) {
	for _, line := range l.Lines() {
		if containsAll(line, parts) {
			return line, true
		}
	}
	return "", false
}

// Count counts the lines containing every part.
func (l *Logs) Count(parts ...string) int {
	n := 0
	for _, line := range l.Lines() {
		if containsAll(line, parts) {
			n++
		}
	}
	return n
}

// HasLine reports whether a line of text (a text handler's output, a
// process's) contains every part.
func HasLine(text string, parts ...string) bool {
	for _, line := range strings.Split(text, "\n") {
		if containsAll(line, parts) {
			return true
		}
	}
	return false
}

func containsAll(line string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(line, p) {
			return false
		}
	}
	return true
}

// Require fails t unless a line contains every part.
func (l *Logs) Require(t testing.TB, parts ...string) string {
	t.Helper()
	line, ok := l.Find(parts...)
	if !ok {
		t.Fatalf("no log line contains %q; logs:\n%s", parts, strings.Join(l.Lines(), "\n"))
	}
	return line
}

// Await is Require for a line written after the call that causes it
// returns (by a plugin's loop, after its job): it waits up to 10 s for it.
func (l *Logs) Await(t testing.TB, parts ...string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if line, ok := l.Find(parts...); ok {
			return line
		}
	}
	return l.Require(t, parts...)
}

type handler struct {
	l     *Logs
	attrs []slog.Attr
}

func (h *handler) Enabled(context.Context, slog.Level) bool { return true }
func (h *handler) WithAttrs(a []slog.Attr) slog.Handler {
	return &handler{l: h.l, attrs: append(append([]slog.Attr(nil), h.attrs...), a...)}
}
func (h *handler) WithGroup(string) slog.Handler { return h }
func (h *handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s=%s", a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%s", a.Key, a.Value)
		return true
	})
	h.l.mu.Lock()
	h.l.lines = append(h.l.lines, b.String())
	h.l.mu.Unlock()
	return nil
}

// Logger returns a logger that keeps its lines in l.
func (l *Logs) Logger() *slog.Logger { return slog.New(&handler{l: l}) }

// Buffer is a bytes.Buffer that goroutines may write to at once (a
// slog.TextHandler's output).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Await waits up to 10 s for a line of the buffer holding every one of
// parts, and fails t without one: a process's output reaches the buffer
// through a pipe, after the request that made it write has been answered.
func (s *Buffer) Await(t testing.TB, parts ...string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		text := s.String()
		for _, line := range strings.Split(text, "\n") {
			if containsAll(line, parts) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line with %q in:\n%s", parts, text)
			return ""
		}
	}
}
