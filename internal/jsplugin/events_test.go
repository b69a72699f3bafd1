package jsplugin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/tool"
)

const slowListener = `let heard = 0
export default {
  id: "slow-listener",
  server: ({ bus }) => {
    bus.subscribe("test.ping", () => { heard++ })
    return {
      tool: () => [{ id: "slow_heard", description: "events heard", parameters: { type: "object", properties: {} },
        execute: () => ({ title: "heard", output: String(heard) }) }],
    }
  },
}`

// callOutput runs a tool and returns its output.
func callOutput(t *testing.T, tools *tool.Registry, id string) string {
	t.Helper()
	def, ok := tools.Get(id)
	if !ok {
		t.Fatalf("no tool %s", id)
	}
	res, err := def.Execute(context.Background(), tool.Call{}, map[string]any{})
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return res.Output
}

// A plugin whose loop is behind does not make the server queue its bus
// events without end: at most MaxPendingEvents wait for it, the rest are
// dropped and counted, in a warning with the plugin's id, at once and again
// when its loop has caught up; the events that waited are delivered, and
// later ones again once it has caught up. The publisher never waits.
func TestBusEventsForASlowPluginAreBounded(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{"slow.js": slowListener}, Plugins: []string{"./slow.js"}})
	p := a.Plugins.Plugins[0]
	release := p.BlockLoop()
	t.Cleanup(release) // before the runtime's Close, should the test fail first
	const published = 5 * jsplugin.MaxPendingEvents
	for i := range published {
		a.Bus.Publish("test.ping", map[string]any{"n": i, "pad": strings.Repeat("x", 1000)})
	}
	// The first drop is reported at once, while the loop is still behind.
	if _, ok := logs.Find("WARN plugin: its loop is behind; bus events for its listeners are dropped", "plugin=slow-listener",
		"dropped=1 ", "first_dropped=test.ping", fmt.Sprintf("max_pending=%d", jsplugin.MaxPendingEvents)); !ok {
		t.Errorf("no warning while events were dropped:\n%s", strings.Join(logs.Lines(), "\n"))
	}
	release()
	// The tool call is queued behind every event that waited.
	if got, want := callOutput(t, a.Tools, "slow_heard"), fmt.Sprint(jsplugin.MaxPendingEvents); got != want {
		t.Errorf("the listener heard %s events, want the %s that could wait", got, want)
	}
	logs.Await(t, "WARN plugin: its loop caught up; bus events dropped while it was behind", "plugin=slow-listener",
		fmt.Sprintf("dropped=%d ", published-jsplugin.MaxPendingEvents-1), fmt.Sprintf("dropped_total=%d ", published-jsplugin.MaxPendingEvents))
	a.Bus.Publish("test.ping", nil)
	if got, want := callOutput(t, a.Tools, "slow_heard"), fmt.Sprint(jsplugin.MaxPendingEvents+1); got != want {
		t.Errorf("after catching up the listener heard %s events, want %s", got, want)
	}
}

const subscriber = `const stops = []
export default {
  id: "subscriber",
  server: ({ bus }) => ({
    tool: () => [{ id: "subscribe", description: "subscribe n times, or stop every subscription", parameters: { type: "object", properties: { n: { type: "number" } } },
      execute: ({ n }) => {
        if (n === 0) { stops.splice(0).forEach((stop) => stop()); return { title: "stopped", output: "stopped" } }
        try { for (let i = 0; i < n; i++) stops.push(bus.subscribe("test.ping", () => {})) } catch (e) { return { title: "threw", output: e.name + ": " + e.message } }
        return { title: "subscribed", output: String(stops.length) }
      } }],
  }),
}`

// A plugin holds at most MaxSubscriptions bus subscriptions at once; the
// ones it stopped do not count.
func TestBusSubscriptionsAreBounded(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{"subscriber.js": subscriber}, Plugins: []string{"./subscriber.js"}})
	def, _ := a.Tools.Get("subscribe")
	call := func(n int) string {
		res, err := def.Execute(context.Background(), tool.Call{}, map[string]any{"n": n})
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	for range 3 { // subscriptions stopped leave room for new ones
		if got := call(jsplugin.MaxSubscriptions); got != fmt.Sprint(jsplugin.MaxSubscriptions) {
			t.Fatalf("%d subscriptions: %s", jsplugin.MaxSubscriptions, got)
		}
		if got := call(1); !strings.HasPrefix(got, fmt.Sprintf("RangeError: bus.subscribe: this plugin already holds %d subscriptions", jsplugin.MaxSubscriptions)) {
			t.Fatalf("one more: %s", got)
		}
		call(0)
	}
}
