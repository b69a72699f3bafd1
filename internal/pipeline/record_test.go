package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// decode reads a step's recorded JSON.
func decode(t *testing.T, what, s string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s is not JSON (%v): %q", what, err, s)
	}
	return v
}

func field(v map[string]any, path ...string) any {
	var x any = v
	for _, k := range path {
		m, _ := x.(map[string]any)
		x = m[k]
	}
	return x
}

// Each step records the value it received (the one the step before it
// returned) and the one it returned; a step that returned nothing records
// no output. Steps start one after another, counted from the call's start.
func TestStepsRecordWhatEachReceivedAndReturned(t *testing.T) {
	observer := `export default { id: "watch", server: () => ({ "tool.execute.before": () => undefined }) }`
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "tool-probe.js"), "./watch.js"}, Files: map[string]string{"watch.js": observer}})
	_, rep, err := a.Runner.CallTool(context.Background(), tool.Call{CallID: "call_7"}, "echo_args", map[string]any{"n": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rep.Steps); got != "tool-probe:changed watch:unchanged tool-probe:changed" {
		t.Fatalf("steps %s", got)
	}
	probe, watch, after := rep.Steps[0], rep.Steps[1], rep.Steps[2]
	if in := decode(t, "the before step's input", probe.Input); field(in, "args", "n") != 1.0 || in["ctx"] != nil || in["toolID"] != "echo_args" {
		t.Errorf("tool-probe received %s", probe.Input)
	}
	if out := decode(t, "the before step's output", probe.Output); field(out, "args", "n") != 2.0 || field(out, "args", "seenCtx") != "call_7" {
		t.Errorf("tool-probe returned %s", probe.Output)
	}
	if watch.Input != probe.Output || watch.Output != "" {
		t.Errorf("watch received %q (tool-probe returned %q) and returned %q", watch.Input, probe.Output, watch.Output)
	}
	if in := decode(t, "the after step's input", after.Input); field(in, "result", "output") != `{"n":2,"seenCtx":"call_7"}` {
		t.Errorf("tool.execute.after received %s", after.Input)
	}
	if out := decode(t, "the after step's output", after.Output); !strings.Contains(field(out, "result", "output").(string), "(after saw") {
		t.Errorf("tool.execute.after returned %s", after.Output)
	}
	if rep.Start.IsZero() || probe.Start < 0 || watch.Start < probe.Start+probe.Duration || after.Start < watch.Start+watch.Duration+rep.Execute {
		t.Errorf("steps do not start one after another from the call's start: %v+%v, %v+%v, execute %v, %v",
			probe.Start, probe.Duration, watch.Start, watch.Duration, rep.Execute, after.Start)
	}
}

// A chat.params step records the params object it received and returned.
func TestChatParamsStepRecordsTheParams(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js")}})
	_, steps := a.Runner.ChatParams(context.Background(), pipeline.ChatInput{SessionID: "ses_4", Model: offline(t, a), Specified: map[string]any{"temperature": 0.5}})
	if len(steps) != 1 {
		t.Fatalf("steps %s", outcomes(steps))
	}
	in := decode(t, "the chat.params input", steps[0].Input)
	if in["sessionID"] != "ses_4" || in["temperature"] != 0.5 || field(in, "model", "providerID") == nil {
		t.Errorf("chat.params received %s", steps[0].Input)
	}
	if steps[0].Output == "" || steps[0].Start != 0 {
		t.Errorf("chat.params returned %q, started at %v (the model call starts with it)", steps[0].Output, steps[0].Start)
	}
}

// A secret in what a step receives or returns is replaced before it is
// recorded, whatever characters it holds.
func TestStepRecordsAreRedacted(t *testing.T) {
	const secret, htmlish = "sk-acme-0123456789", "pw<&>0123456789"
	t.Setenv("ACME_API_KEY", secret)
	t.Setenv("ACME_PASSWORD", htmlish)
	leak := `export default { id: "leak", server: () => ({ "tool.execute.before": (i) => ({ ...i, copied: i.args.command }) }) }`
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{"./leak.js"}, Files: map[string]string{"leak.js": leak}})
	in := map[string]any{"toolID": "bash", "args": map[string]any{"command": "curl -H " + secret + " -u " + htmlish}, "ctx": map[string]any{}}
	_, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, in)
	if len(steps) != 1 || steps[0].Outcome != pipeline.Changed {
		t.Fatalf("steps %s", outcomes(steps))
	}
	for what, s := range map[string]string{"input": steps[0].Input, "output": steps[0].Output} {
		if strings.Contains(s, secret) || strings.Contains(s, "0123456789") {
			t.Errorf("the step's %s keeps a secret: %s", what, s)
		}
		if strings.Count(s, "[redacted]") < 2 {
			t.Errorf("the step's %s does not say what was redacted: %s", what, s)
		}
	}
}

// A large value is recorded cut to chat.MaxRunData bytes, at a character
// boundary, with a note giving its full length.
func TestStepRecordsAreBounded(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js")}})
	big := strings.Repeat("é", 10_000)
	_, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "write", "args": map[string]any{"content": big}, "ctx": map[string]any{}})
	if len(steps) != 1 {
		t.Fatalf("steps %s", outcomes(steps))
	}
	for what, s := range map[string]string{"input": steps[0].Input, "output": steps[0].Output} {
		if len(s) > chat.MaxRunData || !utf8.ValidString(s) || !strings.Contains(s, "[cut: ") || !strings.HasSuffix(s, " bytes in all]") {
			t.Errorf("the step's %s is %d bytes, ends %q", what, len(s), s[max(len(s)-60, 0):])
		}
	}
}

// Rebase counts a dispatch's handler runs from the tool call's start.
func TestRebasePlacesHandlersAfterTheCallsStart(t *testing.T) {
	call := time.Now()
	rep := pipeline.ToolReport{Start: call}
	pre := &plugin.Report{Start: call.Add(3 * time.Millisecond)}
	runs := rep.Rebase([]chat.HookRun{{StartUs: 0}, {StartUs: 40}}, pre)
	if runs[0].StartUs != 3000 || runs[1].StartUs != 3040 {
		t.Errorf("rebased to %d, %d", runs[0].StartUs, runs[1].StartUs)
	}
	if runs := rep.Rebase([]chat.HookRun{{StartUs: 7}}, &plugin.Report{}); runs[0].StartUs != 7 {
		t.Errorf("a dispatch without handlers moved its runs to %d", runs[0].StartUs)
	}
}

// A secret that JSON escapes (a quote, a backslash) is redacted in the
// records too, which are JSON: the page decodes them and would show it.
func TestStepRecordsRedactSecretsJSONEscapes(t *testing.T) {
	const secret = `pa"ss\word-0123456789`
	t.Setenv("ACME_PASSWORD", secret)
	leak := `export default { id: "leak", server: () => ({ "tool.execute.before": (i) => ({ ...i, copied: i.args.command }) }) }`
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{"./leak.js"}, Files: map[string]string{"leak.js": leak}})
	in := map[string]any{"toolID": "bash", "args": map[string]any{"command": "curl -u " + secret}, "ctx": map[string]any{}}
	_, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, in)
	if len(steps) != 1 || steps[0].Outcome != pipeline.Changed {
		t.Fatalf("steps %s", outcomes(steps))
	}
	for what, s := range map[string]string{"input": steps[0].Input, "output": steps[0].Output} {
		if strings.Contains(s, "0123456789") || !strings.Contains(s, "[redacted]") {
			t.Errorf("the step's %s keeps a secret: %s", what, s)
		}
	}
}
