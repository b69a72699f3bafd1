package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/tool"
)

func writePlugins(t *testing.T, plugins map[string]string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a.js", "b.js"} {
		src, ok := plugins[name]
		if !ok {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// A turn cancelled while tool.execute.before runs does not run the tool:
// the plugins after the cancel never saw (nor rewrote) its arguments.
//
// covers H3
func TestCancelDuringBeforeHooksRunsNoTool(t *testing.T) {
	paths := writePlugins(t, map[string]string{
		"a.js": `export default {id: "a-slow", server: () => ({"tool.execute.before": async (i) => { await new Promise(r => setTimeout(r, 400)); return {...i, args: {n: 2}} }})}`,
		"b.js": `export default {id: "b-guard", server: () => ({"tool.execute.before": (i) => ({...i, args: {n: 99}})})}`,
	})
	a, _ := apptest.Boot(t, apptest.Project{Plugins: paths})
	var ran atomic.Int32
	a.Tools.Add(&tool.Def{ID: "side_effect", Source: "test", Parameters: []byte(`{"type": "object", "properties": {"n": {"type": "number"}}}`),
		Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) {
			ran.Add(1)
			return tool.Result{Output: "done"}, nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, _, err := a.Runner.CallTool(ctx, tool.Call{CallID: "c"}, "side_effect", map[string]any{"n": 1.0})
	if !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Errorf("cancelled during the before hooks: %v, the tool ran %d times; want context.Canceled and no run", err, ran.Load())
	}
}

// A call cancelled while it runs still has its result go through the
// after hooks (a redactor's included): the result is stored, and the next
// turn's model reads it.
//
// covers H3
func TestCancelledCallGoesThroughAfterHooks(t *testing.T) {
	paths := writePlugins(t, map[string]string{
		"a.js": `export default {id: "redactor", server: () => ({"tool.execute.after": (i) => ({...i, result: {...i.result, output: i.result.output.replace("hunter2", "[filtered]")}})})}`,
	})
	a, _ := apptest.Boot(t, apptest.Project{Plugins: paths})
	a.Tools.Add(&tool.Def{ID: "slow", Source: "test", Parameters: []byte(`{"type": "object"}`),
		Execute: func(ctx context.Context, _ tool.Call, _ map[string]any) (tool.Result, error) {
			<-ctx.Done()
			return tool.Result{}, errors.New("password so far: hunter2")
		}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, _, err := a.Runner.CallTool(ctx, tool.Call{CallID: "c"}, "slow", map[string]any{})
	var te *pipeline.ToolError
	if !errors.As(err, &te) || strings.Contains(te.Message, "hunter2") || !strings.Contains(te.Message, "[filtered]") {
		t.Errorf("a call cancelled while it ran: %v; want its result through the after hook", err)
	}
}
