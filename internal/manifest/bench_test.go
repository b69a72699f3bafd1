package manifest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"github.com/podcode/podcode/plugin"
)

// BenchmarkProcessHandler is one dispatch answered by a long-lived process
// (the test binary speaking the process protocol): the cost of a JSON-RPC
// round trip over pipes, on top of the dispatcher's own.
func BenchmarkProcessHandler(b *testing.B) {
	b.Run("decoding", func(b *testing.B) { benchProcess(b, "") })
	// A process that answers without decoding: the protocol's own cost.
	b.Run("raw", func(b *testing.B) { benchProcess(b, "fast") })
}

func benchProcess(b *testing.B, mode string) {
	b.Setenv("PODCODE_FAKE_PROCESS", "1")
	b.Setenv("PODCODE_FAKE_MODE", mode)
	dir := b.TempDir()
	f := write(b, dir, fmt.Sprintf(`{"id": "proc", "contributes": {"hooks": [{"event": "PreToolUse", "handler": {"process": %q}}]}}`, os.Args[0]))
	d := plugin.NewDispatcher()
	s := Register(d, []Found{f}, Options{Cwd: dir, Log: slog.New(slog.DiscardHandler)})
	defer s.Close()
	ctx, p := context.Background(), bash("ls -la")
	if res, err := d.Dispatch(ctx, p); err != nil || res.Decision != plugin.DecisionAllow { // starts the process
		b.Fatal(res, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.Dispatch(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommandHandler is one dispatch answered by a command: a new
// sh process per call.
func BenchmarkCommandHandler(b *testing.B) {
	dir := b.TempDir()
	f := write(b, dir, `{"id": "cmd", "contributes": {"hooks": [{"event": "PreToolUse", "handler": {"command": "cat >/dev/null; echo '{\"decision\":\"allow\"}'"}}]}}`)
	d := plugin.NewDispatcher()
	s := Register(d, []Found{f}, Options{Cwd: dir, Log: slog.New(slog.DiscardHandler)})
	defer s.Close()
	ctx, p := context.Background(), bash("ls -la")
	b.ReportAllocs()
	for b.Loop() {
		if res, err := d.Dispatch(ctx, p); err != nil || res.Decision != plugin.DecisionAllow {
			b.Fatal(res, err)
		}
	}
}
