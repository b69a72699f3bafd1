package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/podcode/podcode/internal/chat"
)

func TestOfflineModel(t *testing.T) {
	ctx := context.Background()
	var events []Event
	on := func(e Event) { events = append(events, e) }
	user := chat.Message{Role: chat.RoleUser, Text: "read two files\n/tool read {\"path\": \"a\"}\n  /tool glob {\"pattern\":\"*.go\"}\n/toolbox x\n/tool bad {nope"}
	res, err := OfflineModel{}.Stream(ctx, Request{Messages: []chat.Message{user}}, on)
	if err != nil || len(res.ToolCalls) != 2 || res.StopReason != "tool_calls" || res.Text != "" {
		t.Fatalf("%+v %v", res, err)
	}
	if res.ToolCalls[0].Tool != "read" || string(res.ToolCalls[0].Args) != `{"path": "a"}` || res.ToolCalls[1].Tool != "glob" || res.ToolCalls[0].ID == "" {
		t.Errorf("calls %+v", res.ToolCalls)
	}
	if len(events) != 2 || events[0].ToolCall == nil {
		t.Errorf("events %+v", events)
	}
	// After the tools answered, it quotes the last result.
	msgs := []chat.Message{user, {Role: chat.RoleAssistant, ToolCalls: res.ToolCalls},
		{Role: chat.RoleTool, Result: &chat.Result{Tool: "read", Output: "A"}}, {Role: chat.RoleTool, Result: &chat.Result{Tool: "glob", Output: "x.go", IsError: true}}}
	res, _ = OfflineModel{}.Stream(ctx, Request{Messages: msgs}, on)
	if res.Text != "Tool glob failed:\nx.go" || len(res.ToolCalls) != 0 || res.Usage.Input == 0 {
		t.Errorf("%+v", res)
	}
	// Without tool lines, it echoes the prompt, and says what it could not read.
	res, _ = OfflineModel{}.Stream(ctx, Request{Messages: []chat.Message{{Role: chat.RoleUser, Text: "hello\n/tool"}}}, on)
	if res.Text != "You said: hello\n/tool\n(line 2: /tool needs a tool id)" {
		t.Errorf("%q", res.Text)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (OfflineModel{}).Stream(cancelled, Request{}, on); err == nil {
		t.Error("a cancelled call succeeded")
	}
}

func FuzzParseToolLines(f *testing.F) {
	f.Add("/tool read {\"path\": \"x\"}\nhello\n/tool bash")
	f.Add("/tool  {}")
	f.Add("/tool x [1]")
	f.Add("/tool\tx\t{\"a\":1}")
	f.Fuzz(func(t *testing.T, text string) {
		calls, problems := ParseToolLines(text)
		for _, c := range calls {
			var obj map[string]any
			if c.Tool == "" || strings.IndexFunc(c.Tool, unicode.IsSpace) >= 0 || json.Unmarshal(c.Args, &obj) != nil || obj == nil {
				t.Fatalf("bad call %+v", c)
			}
		}
		if len(calls)+len(problems) > strings.Count(text, "/tool") {
			t.Fatalf("more results than /tool lines")
		}
	})
}
