package pipeline_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/pipeline"
)

// Figures for the README:
//
//	go test -run '^$' -bench . -benchmem ./internal/pipeline/

var benchInput = map[string]any{"toolID": "bash", "args": map[string]any{"command": "ls -la"},
	"ctx": map[string]any{"sessionID": "ses_1", "messageID": "msg_1", "callID": "call_1", "agent": "build", "cwd": "/project"}}

// bootBeforePlugins boots n plugins, p0…, each with hook as its
// tool.execute.before.
func bootBeforePlugins(b *testing.B, n int, hook string) (*app.App, *apptest.Logs) {
	files := map[string]string{}
	var specs []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%d.js", i)
		files[name] = fmt.Sprintf(`export default { id: "p%d", server: () => ({ "tool.execute.before": %s }) }`, i, hook)
		specs = append(specs, "./"+name)
	}
	return apptest.Boot(b, apptest.Project{Plugins: specs, Files: files})
}

func benchPlugins(b *testing.B, n int, hook string) *apptest.Logs {
	a, logs := bootBeforePlugins(b, n, hook)
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if _, steps := a.Runner.Run(ctx, jsplugin.HookToolBefore, benchInput); len(steps) != n || steps[n-1].Outcome == "threw" {
			b.Fatalf("steps %+v", steps)
		}
	}
	reportCPU(b, cpu)
	return logs
}

// reportCPU reports the CPU time per operation since start: on a machine
// that other work keeps busy, a steadier figure than the wall time.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 && start > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
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

// tool.execute.before through five rewriting plugins from 20 sessions at
// once, as a server with 20 turns running does: each plugin's loop serves
// every session. Reports the latency of one plugin's hook and of the whole
// pipeline, p50 and p99 (what a session waits, queueing included).
func BenchmarkBeforePipeline5Sessions20(b *testing.B) { benchSessions(b, rewrite, false) }

// The same while one of the 20 sessions meets a hook that computes for
// 2 ms at each plugin: the p99 of the other sessions' hooks shows how
// long they wait behind it.
func BenchmarkBeforePipeline5Sessions20OneSlow(b *testing.B) {
	benchSessions(b, `(input) => { if (input.ctx.sessionID === "slow") { const end = Date.now() + 2; while (Date.now() < end) {} }
		return input.toolID !== "bash" ? undefined : { ...input, args: { ...input.args, timeout: 5000 } } }`, true)
}

func benchSessions(b *testing.B, hook string, slow bool) {
	const sessions, n = 20, 5
	a, _ := bootBeforePlugins(b, n, hook)
	ctx := context.Background()
	var mu sync.Mutex
	var hooks, runs []time.Duration
	var next atomic.Int32
	b.SetParallelism((sessions + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	cpu := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		id := fmt.Sprintf("ses_%d", next.Add(1))
		isSlow := slow && id == "ses_1"
		if isSlow {
			id = "slow"
		}
		in := map[string]any{"toolID": "bash", "args": map[string]any{"command": "ls -la"},
			"ctx": map[string]any{"sessionID": id, "messageID": "msg_1", "callID": "call_1", "agent": "build", "cwd": "/project"}}
		var myHooks, myRuns []time.Duration
		for pb.Next() {
			start := time.Now()
			_, steps := a.Runner.Run(ctx, jsplugin.HookToolBefore, in)
			if len(steps) != n || steps[n-1].Outcome != pipeline.Changed {
				b.Errorf("steps %+v", steps)
				return
			}
			if isSlow {
				continue
			}
			myRuns = append(myRuns, time.Since(start))
			for _, s := range steps {
				myHooks = append(myHooks, s.Duration)
			}
		}
		mu.Lock()
		hooks, runs = append(hooks, myHooks...), append(runs, myRuns...)
		mu.Unlock()
	})
	b.StopTimer()
	reportCPU(b, cpu)
	report := func(d []time.Duration, name string) {
		if len(d) == 0 {
			return
		}
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), name+"-p99-µs")
	}
	report(hooks, "hook")
	report(runs, "run")
}
