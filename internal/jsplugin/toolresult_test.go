package jsplugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/tool"
)

// A plugin's tool reports its progress with ctx.progress: the runner
// publishes it as tool.call.progress; a report that is not
// {progress, total?, message?} is a TypeError naming the tool.
func TestPluginToolReportsProgress(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{
		Plugins: []string{"./p.js"},
		Files: map[string]string{"p.js": `export default {id: "steps", server: () => ({tool: () => [{
  id: "three_steps", description: "Works in three steps.", parameters: {type: "object", properties: {bad: {type: "boolean"}}},
  execute: async (args, ctx) => {
    if (args.bad) { ctx.progress({progress: "half"}) }
    for (const n of [0, 50, 100]) {
      ctx.progress({progress: n, total: 100, message: "step " + n})
      await new Promise((r) => setTimeout(r, 300))
    }
    return {title: "three_steps", output: "done"}
  },
}]})}`},
	})
	var mu sync.Mutex
	var got []map[string]any
	stop := a.Bus.Subscribe(bus.ToolCallProgress, "test", func(e bus.Event) {
		mu.Lock()
		got = append(got, e.Properties)
		mu.Unlock()
	})
	defer stop()
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{CallID: "c1"}, "three_steps", map[string]any{})
	if err != nil || res.Output != "done" {
		t.Fatalf("three_steps: %+v %v", res, err)
	}
	mu.Lock()
	var steps []string
	for _, p := range got {
		if p["callID"] != "c1" || p["tool"] != "three_steps" || p["total"] != 100.0 {
			t.Errorf("progress event %v", p)
		}
		steps = append(steps, p["message"].(string))
	}
	mu.Unlock()
	if strings.Join(steps, ",") != "step 0,step 50,step 100" {
		t.Errorf("progress messages %q", steps)
	}
	_, _, err = a.Runner.CallTool(context.Background(), tool.Call{CallID: "c2"}, "three_steps", map[string]any{"bad": true})
	if err == nil || !strings.Contains(err.Error(), "ctx.progress: progress is a string, not a number") || !strings.Contains(err.Error(), "three_steps") {
		t.Errorf("a bad report: %v", err)
	}
}

// A plugin's tool may return attachments (images, audio, resources) beside
// its output; a malformed one fails the call, saying which and why.
func TestPluginToolAttachments(t *testing.T) {
	ok, err := jsplugin.ResultFromData("shot", map[string]any{"output": "a screenshot", "attachments": []any{
		map[string]any{"type": "image", "mimeType": "image/png", "data": "iVBORw=="},
		map[string]any{"type": "resource", "uri": "file:///a.json", "mimeType": "application/json", "text": "{}"},
	}})
	if err != nil || len(ok.Attachments) != 2 || ok.Attachments[0].Kind() != "image" || len(ok.Attachments[0].Data) != 4 ||
		ok.Attachments[1].Kind() != "resource" || ok.Attachments[1].Text != "{}" {
		t.Fatalf("attachments: %+v %v", ok.Attachments, err)
	}
	for _, c := range []struct {
		att  any
		want string
	}{
		{"x", "want an array"},
		{[]any{5}, "[0] is"},
		{[]any{map[string]any{"type": "image", "mimeType": "text/plain", "data": "AA=="}}, `an image needs mimeType "image/..."`},
		{[]any{map[string]any{"type": "audio", "mimeType": "audio/wav", "data": "%%%"}}, "[0].data is not base64"},
		{[]any{map[string]any{"type": "resource", "text": "x"}}, "a resource needs a uri"},
		{[]any{map[string]any{"type": "video"}}, `[0].type is "video"`},
	} {
		_, err := jsplugin.ResultFromData("shot", map[string]any{"output": "x", "attachments": c.att})
		if err == nil || !strings.Contains(err.Error(), "tool shot: attachments: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("attachments %v: %v, want %q", c.att, err, c.want)
		}
	}
}

// What a plugin's tool (or a tool.execute.after hook) returns is read
// without a panic, whatever it is; attachments it accepts are well formed.
func FuzzResultFromData(f *testing.F) {
	f.Add(`{"output": "x", "attachments": [{"type": "image", "mimeType": "image/png", "data": "iVBORw=="}]}`)
	f.Add(`{"output": 1, "attachments": [{"type": "resource", "uri": "u", "text": "t"}, {"type": "audio"}]}`)
	f.Add(`{"title": "t", "output": "o", "metadata": {"a": 1}, "attachments": null}`)
	f.Fuzz(func(t *testing.T, data string) {
		var v any
		if json.Unmarshal([]byte(data), &v) != nil {
			return
		}
		res, err := jsplugin.ResultFromData("fuzz", v)
		if err != nil {
			return
		}
		for _, a := range res.Attachments {
			switch a.Kind() {
			case "image", "audio":
				if a.Data == nil || a.URI != "" {
					t.Fatalf("accepted %+v", a)
				}
			case "resource":
				if a.URI == "" {
					t.Fatalf("accepted a resource without a uri: %+v", a)
				}
			}
		}
	})
}

// ctx.log passes a plugin tool's lines to whoever ran the call; a level
// that is not MCP's is a TypeError naming the tool.
func TestPluginToolLogs(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{
		Plugins: []string{"./p.js"},
		Files: map[string]string{"p.js": `export default {id: "talker", server: () => ({tool: () => [{
  id: "talk", description: "Talks.", parameters: {type: "object", properties: {level: {type: "string"}}},
  execute: (args, ctx) => { ctx.log(args.level, "working on it"); return {title: "talk", output: "done"} },
}]})}`},
	})
	var lines []tool.LogLine
	ctx := tool.WithLog(context.Background(), func(l tool.LogLine) { lines = append(lines, l) })
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{CallID: "c1"}, "talk", map[string]any{"level": "warning"}); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != (tool.LogLine{Level: "warning", Message: "working on it"}) {
		t.Errorf("lines %+v", lines)
	}
	_, _, err := a.Runner.CallTool(ctx, tool.Call{CallID: "c2"}, "talk", map[string]any{"level": "loud"})
	if err == nil || !strings.Contains(err.Error(), `tool talk: ctx.log: level "loud" is not one of debug, info`) {
		t.Errorf("a bad level: %v", err)
	}
}
