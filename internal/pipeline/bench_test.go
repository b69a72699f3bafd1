package pipeline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
)

// Figures for the README:
//
//	go test -run '^$' -bench . -benchmem ./internal/pipeline/

var benchInput = map[string]any{"toolID": "bash", "args": map[string]any{"command": "ls -la"},
	"ctx": map[string]any{"sessionID": "ses_1", "messageID": "msg_1", "callID": "call_1", "agent": "build", "cwd": "/project"}}

func benchPlugins(b *testing.B, n int, hook string) *apptest.Logs {
	files := map[string]string{}
	var specs []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%d.js", i)
		files[name] = fmt.Sprintf(`export default { id: "p%d", server: () => ({ "tool.execute.before": %s }) }`, i, hook)
		specs = append(specs, "./"+name)
	}
	a, logs := apptest.Boot(b, apptest.Project{Plugins: specs, Files: files})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, steps := a.Runner.Run(ctx, jsplugin.HookToolBefore, benchInput); len(steps) != n || steps[n-1].Outcome == "threw" {
			b.Fatalf("steps %+v", steps)
		}
	}
	return logs
}

const (
	observe = `(input) => { if (input.toolID !== "bash") return input; return undefined }`
	rewrite = `(input) => input.toolID !== "bash" ? undefined : { ...input, args: { ...input.args, timeout: 5000 } }`
)

// One JS hook round trip: Go to the plugin's loop, the hook, and back.
func BenchmarkHookRoundTrip(b *testing.B) { benchPlugins(b, 1, observe) }

// The same with the hook returning a rewritten payload.
func BenchmarkHookRoundTripRewrite(b *testing.B) { benchPlugins(b, 1, rewrite) }

// tool.execute.before through five plugins, each rewriting the arguments.
func BenchmarkBeforePipeline5(b *testing.B) { benchPlugins(b, 5, rewrite) }

// The same when the five plugins only observe.
func BenchmarkBeforePipeline5Observe(b *testing.B) { benchPlugins(b, 5, observe) }
