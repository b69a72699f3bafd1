package provider

import (
	"encoding/json"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/jsonw"
)

// body builds the request body. A turn sends its whole history with every
// model call, so the messages are written without reflection (a step's
// request grows with the turn; encoding/json took about 0.9 µs a message),
// and the tools, the same from one call to the next, are encoded once and
// kept (toolCache) until they change. The small fields go through
// encoding/json as before: the options the config passes, then the fixed
// keys over them.
func (o *OpenAI) body(req Request) ([]byte, error) {
	head := map[string]any{}
	for k, v := range req.Params.Options {
		if name, ok := chatOption(k); ok {
			head[name] = v
		}
	}
	delete(head, "messages")
	delete(head, "tools")
	head["model"] = req.Model.ModelID
	head["stream"] = true
	head["stream_options"] = map[string]any{"include_usage": true}
	if req.Params.Temperature != nil {
		head["temperature"] = *req.Params.Temperature
	}
	if req.Params.TopP != nil {
		head["top_p"] = *req.Params.TopP
	}
	if req.Params.TopK != nil {
		head["top_k"] = *req.Params.TopK
	}
	if req.Params.MaxOutputTokens > 0 {
		head["max_tokens"] = req.Params.MaxOutputTokens
	}
	var tools []byte
	if len(req.Tools) > 0 {
		var err error
		if tools, err = o.tools.get(req.Tools, chatTools); err != nil {
			return nil, err
		}
	}
	h, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(h)+len(tools)+256*len(req.Messages)+64)
	b = append(b, h[:len(h)-1]...) // without its }
	b = append(b, `,"messages":`...)
	b = appendMessages(b, req)
	if tools != nil {
		b = append(b, `,"tools":`...)
		b = append(b, tools...)
	}
	return append(b, '}'), nil
}

// appendMessages writes the system prompt and the history as the API's
// messages.
func appendMessages(b []byte, req Request) []byte {
	b = append(b, '[')
	first := true
	open := func(role string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"role":"`...)
		b = append(b, role...)
		b = append(b, '"')
	}
	content := func(s string) {
		b = append(b, `,"content":`...)
		b = jsonw.AppendString(b, s)
	}
	if req.System != "" {
		open("system")
		content(req.System)
		b = append(b, '}')
	}
	for _, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser, chat.RoleSummary, chat.RoleContext:
			open("user")
			content(m.Text)
			b = append(b, '}')
		case chat.RoleAssistant:
			open("assistant")
			switch {
			case m.Text != "" || len(m.ToolCalls) == 0:
				content(m.Text)
			default:
				b = append(b, `,"content":null`...) // tool calls alone
			}
			if len(m.ToolCalls) > 0 {
				b = append(b, `,"tool_calls":[`...)
				for i, c := range m.ToolCalls {
					if i > 0 {
						b = append(b, ',')
					}
					b = append(b, '{')
					if c.ID != "" {
						b = append(b, `"id":`...)
						b = jsonw.AppendString(b, c.ID)
						b = append(b, ',')
					}
					b = append(b, `"type":"function","function":{`...)
					sep := false
					if c.Tool != "" {
						b = append(b, `"name":`...)
						b = jsonw.AppendString(b, c.Tool)
						sep = true
					}
					if len(c.Args) > 0 {
						if sep {
							b = append(b, ',')
						}
						b = append(b, `"arguments":`...)
						b = jsonw.AppendBytes(b, c.Args)
					}
					b = append(b, `}}`...)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		case chat.RoleTool:
			if m.Result != nil {
				open("tool")
				if m.Result.CallID != "" {
					b = append(b, `,"tool_call_id":`...)
					b = jsonw.AppendString(b, m.Result.CallID)
				}
				content(m.Result.Output)
				b = append(b, '}')
			}
		}
	}
	return append(b, ']')
}

// chatTools is the API's tools array for specs.
func chatTools(specs []ToolSpec) ([]byte, error) {
	var tools []any
	for _, t := range specs {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": params}})
	}
	return json.Marshal(tools)
}
