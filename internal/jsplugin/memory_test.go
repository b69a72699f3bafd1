package jsplugin_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/tool"
)

const hoarder = `const kept = []
let heard = 0
export default {
  id: "hoarder",
  server: ({ bus }) => {
    bus.subscribe("test.ping", () => { heard++ })
    return {
      tool: () => [{ id: "hoarder_heard", description: "events heard", parameters: { type: "object", properties: {} },
        execute: async () => ({ title: "heard", output: String(heard) }) }],
      "tool.execute.before": (input) => {
        if (input.toolID !== "hoard") return undefined
        while (true) kept.push(new Array(1e5).fill(0.5))
      },
    }
  },
}`

const bystander = `export default { id: "bystander", server: () => ({
  "tool.execute.before": (input) => ({ ...input, seen: true }),
}) }`

func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// A plugin that keeps more than its memory budget (plugin_limits.memory_mb)
// is stopped: it leaves the pipeline while the others run on, its tools
// fail with an error that names it and the budget, its bus subscriptions
// end, its status says why, and the memory it held is given back.
func TestPluginOverItsMemoryBudgetIsStopped(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{
		Files:   map[string]string{"hoarder.js": hoarder, "bystander.js": bystander},
		Plugins: []string{"./hoarder.js", "./bystander.js"},
		User:    map[string]any{"plugin_limits": map[string]any{"memory_mb": 32}},
		// The budget, not the watchdog or the hook timeout, stops the
		// hoarder, even under the race detector on a loaded machine.
		JobLimit: 2 * time.Minute, HookTimeout: 2 * time.Minute,
	})
	before := liveHeap()
	hoarder := a.Plugins.Plugins[0]
	if hoarder.ID != "hoarder" || hoarder.Status() != "running" {
		t.Fatalf("%s: %s", hoarder.ID, hoarder.Status())
	}
	ctx := context.Background()
	out, steps := a.Runner.Run(ctx, jsplugin.HookToolBefore, map[string]any{"toolID": "hoard"})
	if len(steps) != 2 || steps[0].Outcome != "threw" || !strings.Contains(steps[0].Error, "more than the plugin's memory budget of 32 MiB") {
		t.Fatalf("steps %+v", steps)
	}
	if out["seen"] != true {
		t.Errorf("the bystander did not run after the hoarder: %v", out)
	}
	logs.Await(t, "ERROR plugin: stopped; it no longer runs until the server restarts", "plugin=hoarder", "memory budget of 32 MiB")
	if s := hoarder.Status(); s != "stopped: the plugin was stopped: it held more than its memory budget of 32 MiB" {
		t.Errorf("status %q", s)
	}
	if got := ids(a.Plugins.With(jsplugin.HookToolBefore)); got != "bystander" {
		t.Errorf("tool.execute.before runs %q, want the bystander alone", got)
	}
	if _, steps := a.Runner.Run(ctx, jsplugin.HookToolBefore, map[string]any{"toolID": "hoard"}); len(steps) != 1 || steps[0].Plugin != "bystander" {
		t.Errorf("steps after the stop: %+v", steps)
	}
	def, _ := a.Tools.Get("hoarder_heard")
	if _, err := def.Execute(ctx, tool.Call{}, map[string]any{}); err == nil ||
		!strings.Contains(err.Error(), "tool hoarder_heard (plugin hoarder): the plugin was stopped: it held more than its memory budget of 32 MiB") {
		t.Errorf("its tool: %v", err)
	}
	if n := len(a.Plugins.Plugins); n != 2 {
		t.Errorf("%d plugins listed, want both (with their status)", n)
	}
	// What the hoarder kept (at least 32 MiB) is garbage now: nothing (the
	// tool registry, the bus, the set) holds its runtime's objects.
	if after := liveHeap(); after > before+16<<20 {
		t.Errorf("the live heap went from %d MiB to %d MiB: the stopped plugin's memory is still held", before>>20, after>>20)
	}
}
