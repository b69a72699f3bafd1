package server

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
)

// Figures for the README:
//
//	go test -run '^$' -bench . -benchtime 2s ./internal/server/

// plugins writes n plugins, each with a tool.execute.before that observes
// and a tool.execute.after that appends to the output.
func plugins(n int) apptest.Project {
	p := apptest.Project{Files: map[string]string{"a.txt": "some text\n"}}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%d.js", i)
		p.Files[name] = fmt.Sprintf(`export default { id: "p%d", server: () => ({
			"tool.execute.before": (i) => { if (i.toolID === "never") return i; return undefined },
			"tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: i.result.output + "." } }),
		}) }`, i)
		p.Plugins = append(p.Plugins, "./"+name)
	}
	return p
}

// Turns per second through the HTTP API, with the offline model: each turn
// is a model call that asks for one tool call, the call, and a final answer.
func BenchmarkServerTurn(b *testing.B) {
	for _, n := range []int{0, 5} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			srv := newServer(b, "", plugins(n))
			var path string
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				if i%20 == 0 { // a conversation of twenty turns, then a new session
					code, sess := call(b, srv, "POST", "/sessions", "", `{}`)
					if code != 201 {
						b.Fatal(code)
					}
					path = "/sessions/" + sess["id"].(string) + "/messages"
				}
				// A different argument each turn keeps the loop guard quiet.
				body := fmt.Sprintf(`{"text": "/tool read {\"path\": \"a.txt\", \"offset\": %d}"}`, i%2)
				if code, out := call(b, srv, "POST", path, "", body); code != 200 {
					b.Fatalf("%d %v", code, out)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "turns/s")
		})
	}
}

// What the plugin system adds to one tool call: everything but execute
// (validation, the guard with PreToolUse and PostToolUse, both pipeline
// hooks), as p50 and p99 over the calls.
func BenchmarkToolCallOverhead(b *testing.B) {
	for _, n := range []int{0, 5} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			a, _ := apptest.Boot(b, plugins(n))
			var samples []time.Duration
			ctx := context.Background()
			for b.Loop() {
				start := time.Now()
				_, rep, err := a.Runner.CallTool(ctx, tool.Call{}, "read", map[string]any{"path": "a.txt"})
				if err != nil {
					b.Fatal(err)
				}
				samples = append(samples, time.Since(start)-rep.Execute)
			}
			slices.Sort(samples)
			b.ReportMetric(float64(samples[len(samples)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds()), "p99-µs")
		})
	}
}
