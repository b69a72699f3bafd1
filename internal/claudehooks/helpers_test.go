package claudehooks

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/plugin"
)

// project makes a throw-away project: .claude/settings.json holds settings,
// and .claude/hooks/ the scripts of testdata/hooks, as a Claude Code user
// would keep them.
func project(t *testing.T, settings string) string {
	t.Helper()
	dir := t.TempDir()
	hooks := filepath.Join(dir, ".claude", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join("testdata", "hooks", "*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts in testdata/hooks: %v", err)
	}
	for _, s := range scripts {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(hooks, filepath.Base(s)), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if settings != "" {
		writeFile(t, filepath.Join(dir, ".claude", "settings.json"), settings)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// quietLog drops log lines below Error, so expected hook failures do not
// clutter the test output.
func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// load loads dir's settings and registers them on a new dispatcher.
func load(t *testing.T, dir string) (*plugin.Dispatcher, *Settings) {
	t.Helper()
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := plugin.NewDispatcher(plugin.WithTimeout(10*time.Second), plugin.WithLogger(quietLog()))
	reg, err := Register(d, s, Options{ProjectDir: dir, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return d, s
}

// call is a tool call's PreToolUse payload.
func call(tool string, args map[string]any) *plugin.HookPayload {
	in, _ := json.Marshal(args)
	return &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: tool, ToolInput: string(in), SessionID: "ses_1"}
}

func bashCall(command string) *plugin.HookPayload {
	return call("bash", map[string]any{"command": command})
}

func dispatch(t *testing.T, d *plugin.Dispatcher, p *plugin.HookPayload) *plugin.Report {
	t.Helper()
	rep, err := d.DispatchReport(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// outcomes lists each handler's outcome, "outcome:decision" when it voted.
func outcomes(rep *plugin.Report) string {
	var out []string
	for _, h := range rep.Handlers {
		o := string(h.Outcome)
		if h.Decision != "" {
			o += ":" + string(h.Decision)
		}
		out = append(out, o)
	}
	return strings.Join(out, " ")
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
