package jsplugin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/tool"
)

const holeyTools = `export default {
  id: "holey-tools",
  server: () => ({
    tool: () => {
      const a = [{ id: "holey_ok", description: "the one real tool", parameters: { type: "object", properties: {} },
        execute: () => ({ title: "ok", output: "ok" }) }]
      a.length = 2 ** 32 - 1
      return a
    },
  }),
}`

// The tool hook's array is read up to MaxToolDefs entries, whatever length
// the script gave it, and its invalid entries are reported in one line with
// their count: a hole-y array of 2³²-1 entries neither keeps the plugin's
// loop busy nor floods the log, and the plugin loads with its valid tools.
func TestToolHookReadsAtMostMaxToolDefs(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{"holey.js": holeyTools}, Plugins: []string{"./holey.js"}})
	if got := ids(a.Plugins.Plugins); got != "holey-tools" {
		t.Fatalf("loaded %q", got)
	}
	if got := callOutput(t, a.Tools, "holey_ok"); got != "ok" {
		t.Errorf("holey_ok: %s", got)
	}
	logs.Require(t, "WARN plugin: tool hook returned too many ToolDefs; the rest are ignored", "plugin=holey-tools",
		fmt.Sprintf("returned=%d ", int64(1)<<32-1), fmt.Sprintf("max=%d", jsplugin.MaxToolDefs))
	if n := logs.Count("invalid ToolDef"); n != 1 {
		t.Errorf("%d lines about invalid ToolDefs, want 1:\n%s", n, strings.Join(logs.Lines()[:min(5, len(logs.Lines()))], "\n"))
	}
	logs.Require(t, "WARN plugin: invalid ToolDef; skipped", "plugin=holey-tools", fmt.Sprintf("skipped=%d ", jsplugin.MaxToolDefs-1), "first_index=1 ")
}

const loudListener = `export default {
  id: "loud-listener",
  server: ({ bus }) => {
    bus.subscribe("test.ping", () => { throw new Error("x".repeat(1e6)) })
    return {}
  },
}`

// A bus listener's throw is logged as a console line is: cut at
// jsrt.ConsoleLineChars.
func TestBusListenerThrowIsCutLikeAConsoleLine(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{"loud.js": loudListener}, Plugins: []string{"./loud.js"}})
	a.Bus.Publish("test.ping", nil)
	line := logs.Await(t, "WARN plugin: bus listener threw", "plugin=loud-listener", "event=test.ping", "more characters not logged)")
	if len(line) > 2*jsrt.ConsoleLineChars {
		t.Errorf("a listener's error of a million characters logged as %d bytes", len(line))
	}
}

const manyRefs = `export default {
  id: "many-refs",
  server: () => ({
    tool: () => [{ id: "many_refs", description: "one long string, referenced forty times", parameters: { type: "object", properties: {} },
      execute: () => ({ title: "refs", output: new Array(40).fill("é".repeat(4e6)) }) }],
  }),
}`

// A tool result is exported within jsrt.MaxExportBytes of strings, each
// reference to a string counted: past it, the call fails with the reason.
func TestToolResultPastTheExportBytesFails(t *testing.T) {
	// building the strings is one job: a loaded machine must not make it a spin
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{"refs.js": manyRefs}, Plugins: []string{"./refs.js"}, JobLimit: 2 * time.Minute})
	def, ok := a.Tools.Get("many_refs")
	if !ok {
		t.Fatal("no tool many_refs")
	}
	_, err := def.Execute(context.Background(), tool.Call{}, map[string]any{})
	if want := fmt.Sprintf("value has more than %d MiB of strings", jsrt.MaxExportBytes>>20); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error with %q", err, want)
	}
}
