package pipeline_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
)

// A hook that times out jsplugin.SuspendAfter times in a row is suspended:
// later runs no longer wait for it, it is logged once, and the plugin's
// status says so. A call that settles in time resets the count; the
// plugin's other hooks go on.
//
// covers H8
func TestHookSuspendedAfterRepeatedTimeouts(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{
		Plugins:     []string{fixture(t, "chain-a.js"), fixture(t, "hangs-on-flag.js")},
		HookTimeout: 100 * time.Millisecond,
	})
	p := a.Plugins.Plugins[1]
	run := func(hang bool) string {
		t.Helper()
		_, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "read", "hang": hang})
		return outcomes(steps)
	}
	// Two timeouts, then a call in time: the count starts again.
	for _, hang := range []bool{true, true, false, true, true} {
		run(hang)
	}
	if p.Status() != "running" || slices.Contains(a.Plugins.With(jsplugin.HookToolBefore), p) == false {
		t.Fatalf("suspended before %d timeouts in a row: %s", jsplugin.SuspendAfter, p.Status())
	}
	_, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "read", "hang": true})
	if len(steps) != 2 || steps[1].Outcome != "timed_out" || !strings.Contains(steps[1].Error, "suspended") {
		t.Fatalf("third timeout in a row: %+v", steps)
	}
	// Suspended: not called any more, even when it would answer in time.
	for range 3 {
		if got := run(false); got != "chain-a:changed" {
			t.Errorf("after the suspension the run is %q, want only chain-a", got)
		}
	}
	if s := p.Status(); !strings.Contains(s, "suspended") || !strings.Contains(s, jsplugin.HookToolBefore) {
		t.Errorf("status %q does not say the hook is suspended", s)
	}
	if got := p.Suspended(); len(got) != 1 || got[0] != jsplugin.HookToolBefore {
		t.Errorf("suspended hooks %q", got)
	}
	if !slices.Contains(a.Plugins.With(jsplugin.HookToolAfter), p) {
		t.Error("the plugin's other hook was suspended too")
	}
	if n := logs.Count("ERROR plugin: hook suspended", "plugin=hangs-on-flag", "hook=tool.execute.before"); n != 1 {
		t.Errorf("%d suspension lines, want 1; logs:\n%s", n, strings.Join(logs.Lines(), "\n"))
	}
}
