package pipeline_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/tool"
)

// A tool whose execute panics fails its call with an error that says so;
// the process and later calls carry on. With a context that can end and
// with one that cannot, as `podcode tool run` has.
func TestToolPanicIsTheCallsError(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{})
	if err := a.Tools.Add(&tool.Def{ID: "boom", Source: "gotool", Parameters: []byte(`{"type":"object"}`),
		Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) { panic("index out of range") }}); err != nil {
		t.Fatal(err)
	}
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []context.Context{context.Background(), cancellable} {
		_, _, err := a.Runner.CallTool(ctx, tool.Call{}, "boom", map[string]any{})
		var te *pipeline.ToolError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "boom: the tool failed (panic: index out of range)") {
			t.Errorf("err = %v", err)
		}
	}
	if n := logs.Count("tool: execute panicked", "tool=boom", "plugin=gotool", "index out of range"); n != 2 {
		t.Errorf("%d log lines of the panic, want 2:\n%s", n, strings.Join(logs.Lines(), "\n"))
	}
	// The runner still works.
	if _, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "glob", map[string]any{"pattern": "*.json"}); err != nil {
		t.Errorf("a call after the panics: %v", err)
	}
}
