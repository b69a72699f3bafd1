package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/podcode/podcode/internal/app"
)

// warnCollector is a slog.Handler that keeps every warning and error as
// one line, "msg k=v k=v" (the form jsplugin and manifest keep their
// warnings in, so the same problem compares equal), for a command that
// lists them instead of logging them; records below warn go to next, if
// any. Its handlers from WithAttrs and WithGroup share the one list.
type warnCollector struct {
	mu    *sync.Mutex
	lines *[]string
	attrs []slog.Attr
	group string
	next  slog.Handler
}

func newWarnCollector(next slog.Handler) *warnCollector {
	return &warnCollector{mu: &sync.Mutex{}, lines: new([]string), next: next}
}

func (h *warnCollector) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn || (h.next != nil && h.next.Enabled(ctx, l))
}

func (h *warnCollector) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		if h.next != nil {
			return h.next.Handle(ctx, r)
		}
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) {
		if a.Equal(slog.Attr{}) {
			return
		}
		key := a.Key
		if h.group != "" {
			key = h.group + "." + key
		}
		fmt.Fprintf(&b, " %s=%s", key, a.Value.Resolve().String())
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool { add(a); return true })
	h.mu.Lock()
	*h.lines = append(*h.lines, b.String())
	h.mu.Unlock()
	return nil
}

func (h *warnCollector) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	if h.next != nil {
		c.next = h.next.WithAttrs(as)
	}
	return &c
}

func (h *warnCollector) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	if h.next != nil {
		c.next = h.next.WithGroup(name)
	}
	return &c
}

// Lines are the warnings kept so far, in order.
func (h *warnCollector) Lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), *h.lines...)
}

// uniq is ss without repeats, in first-seen order.
func uniq(ss ...[]string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range ss {
		for _, w := range s {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// refusedToolLog is what the tool registry logs when it refuses a plugin's
// tool; the registry's error, which the plugin set keeps, says the same.
const refusedToolLog = "plugin: refused to override a protected tool"

// listedWarnings are the warnings `plugin list` shows, each once: the
// plugin set's and the manifests' and what the boot logged (collected),
// without the registry's log line of a refused tool, kept as its error.
func listedWarnings(a *app.App, logged []string) []string {
	out := []string{}
	for _, w := range uniq(a.Plugins.Warnings, a.Manifests.Warnings, logged) {
		if !strings.HasPrefix(w, refusedToolLog+" ") {
			out = append(out, w)
		}
	}
	return out
}

// saidBySkipped reports whether warning w is a JS plugin's trust refusal
// that the text list's section of skipped code says already.
func saidBySkipped(a *app.App, w string) bool {
	head, _, _ := strings.Cut(w, ": ")
	for _, s := range a.Trust.Skipped() {
		if head == "plugin "+s.Name+" not trusted" {
			return true
		}
	}
	return false
}
