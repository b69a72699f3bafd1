package provider

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/podcode/podcode/internal/chat"
)

type oaMessage struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

// referenceBody is the request body as encoding/json writes it: what
// body must equal once decoded.
func referenceBody(req Request) ([]byte, error) {
	var msgs []oaMessage
	if req.System != "" {
		msgs = append(msgs, oaMessage{Role: "system", Content: str(req.System)})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser, chat.RoleSummary, chat.RoleContext:
			msgs = append(msgs, oaMessage{Role: "user", Content: str(m.Text)})
		case chat.RoleAssistant:
			am := oaMessage{Role: "assistant"}
			if m.Text != "" {
				am.Content = str(m.Text)
			}
			for _, c := range m.ToolCalls {
				tc := oaToolCall{ID: c.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = c.Tool, string(c.Args)
				am.ToolCalls = append(am.ToolCalls, tc)
			}
			if am.Content == nil && len(am.ToolCalls) == 0 {
				am.Content = str("")
			}
			msgs = append(msgs, am)
		case chat.RoleTool:
			if m.Result != nil {
				msgs = append(msgs, oaMessage{Role: "tool", ToolCallID: m.Result.CallID, Content: str(m.Result.Output)})
			}
		}
	}
	body := map[string]any{}
	for k, v := range req.Params.Options {
		if name, ok := chatOption(k); ok {
			body[name] = v
		}
	}
	delete(body, "tools")
	body["model"] = req.Model.ModelID
	body["messages"] = msgs
	body["stream"] = true
	body["stream_options"] = map[string]any{"include_usage": true}
	if req.Params.Temperature != nil {
		body["temperature"] = *req.Params.Temperature
	}
	if req.Params.TopP != nil {
		body["top_p"] = *req.Params.TopP
	}
	if req.Params.TopK != nil {
		body["top_k"] = *req.Params.TopK
	}
	if req.Params.MaxOutputTokens > 0 {
		body["max_tokens"] = req.Params.MaxOutputTokens
	}
	if len(req.Tools) > 0 {
		var tools []any
		for _, t := range req.Tools {
			params := t.Parameters
			if len(params) == 0 {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": params}})
		}
		body["tools"] = tools
	}
	return json.Marshal(body)
}

// bodyRequest is a request with every kind of message, strings that need
// escaping, options (one of them a fixed key's name) and tools.
func bodyRequest(text string) Request {
	temp := 0.2
	return Request{
		Model:  Model{ModelID: "gpt-x"},
		Params: Params{Temperature: &temp, MaxOutputTokens: 100, Options: map[string]any{"reasoningEffort": "low", "messages": "not these", "store": false}},
		System: "be brief " + text,
		Messages: []chat.Message{
			{Role: chat.RoleContext, Text: "context " + text},
			{Role: chat.RoleUser, Text: text},
			{Role: chat.RoleAssistant, Text: "thinking " + text, ToolCalls: []chat.ToolCall{{ID: "call_1", Tool: "bash", Args: json.RawMessage(`{"command":"echo \"hi\" <b>"}`)}}},
			{Role: chat.RoleTool, Result: &chat.Result{CallID: "call_1", Output: "out " + text}},
			{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_2", Tool: "read"}, {Tool: "x", Args: json.RawMessage(`{}`)}}},
			{Role: chat.RoleTool, Result: &chat.Result{Output: text}},
			{Role: chat.RoleTool},
			{Role: chat.RoleAssistant},
			{Role: chat.RoleSummary, Text: "summary"},
		},
		Tools: []ToolSpec{{Name: "bash", Description: "runs " + text, Parameters: json.RawMessage(`{"type": "object", "properties": {"command": {"type": "string"}}}`)}, {Name: "noparams"}},
	}
}

func decodeBody(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// The body written without reflection is, decoded, the body encoding/json
// writes, whatever the messages hold.
func FuzzBodyMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" backslash \\", "ctl \x00\x1f\n\r\t", "<html>&", "bad \xff\xfe utf-8", "日本 🎉 \u2028"} {
		f.Add(s)
	}
	o := &OpenAI{}
	f.Fuzz(func(t *testing.T, text string) {
		req := bodyRequest(text)
		got, err := o.body(req)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(got) { // decoding would hide invalid UTF-8: it reads as U+FFFD
			t.Fatalf("the body is not UTF-8: %q", got)
		}
		want, err := referenceBody(req)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := decodeBody(t, got), decodeBody(t, want); !reflect.DeepEqual(g, w) {
			t.Errorf("body differs from encoding/json's:\n got %s\nwant %s", got, want)
		}
	})
}

// The tools are encoded once per distinct list: a changed description or
// schema is sent as it is now.
func TestBodyToolsFollowTheirChanges(t *testing.T) {
	o := &OpenAI{}
	req := bodyRequest("x")
	for _, change := range []func(*Request){
		func(*Request) {},
		func(r *Request) { r.Tools[0].Description = "changed" },
		func(r *Request) { r.Tools[0].Parameters = json.RawMessage(`{"type":"object"}`) },
		func(r *Request) { r.Tools = r.Tools[:1] },
		func(r *Request) { r.Tools = nil },
	} {
		change(&req)
		req.Tools = append([]ToolSpec(nil), req.Tools...) // a new slice each call, as the agent's
		got, err := o.body(req)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := referenceBody(req)
		if g, w := decodeBody(t, got), decodeBody(t, want); !reflect.DeepEqual(g, w) {
			t.Errorf("body differs from encoding/json's:\n got %s\nwant %s", got, want)
		}
	}
}

// A step's request at the end of a 50-call turn: 100 messages, 10 tools.
func BenchmarkOpenAIBody(b *testing.B) {
	var msgs []chat.Message
	for i := range 50 {
		id := fmt.Sprint("call_", i)
		msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Tool: "read", Args: json.RawMessage(`{"path":"notes.txt"}`)}}},
			chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: id, Output: "     1\tmeeting at noon\n     2\tand more text here to look like a file\n"}})
	}
	var tools []ToolSpec
	for i := range 10 {
		tools = append(tools, ToolSpec{Name: fmt.Sprint("tool", i), Description: "a tool that does things",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the path"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`)})
	}
	req := Request{Model: Model{ModelID: "m"}, Messages: msgs, Tools: tools}
	for _, c := range []struct {
		name string
		body func(Request) ([]byte, error)
	}{{"encoding-json", referenceBody}, {"written", (&OpenAI{}).body}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.body(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
