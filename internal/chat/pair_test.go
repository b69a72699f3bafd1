package chat

import (
	"strings"
	"testing"
)

func call(id string) ToolCall { return ToolCall{ID: id, Tool: "bash", Args: []byte(`{}`)} }

func answer(id string) Message {
	return Message{Role: RoleTool, Result: &Result{CallID: id, Tool: "bash", Output: "ok"}}
}

// shape writes msgs as "role[:call ids or answered id]".
func shape(msgs []Message) string {
	var out []string
	for _, m := range msgs {
		s := m.Role
		for _, c := range m.ToolCalls {
			s += ":" + c.ID
		}
		if m.Result != nil {
			s += ":" + m.Result.CallID
			if m.Status == StatusInterrupted {
				s += "!"
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// Every call is answered before the next message; a tool message that
// answers nothing is dropped; a valid history is returned as it is.
func TestPaired(t *testing.T) {
	user := Message{Role: RoleUser, Text: "go"}
	asks := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, call(id))
		}
		return m
	}
	cases := []struct {
		in   []Message
		want string
	}{
		{[]Message{user, asks("a", "b"), answer("a"), answer("b"), user}, "user assistant:a:b tool:a tool:b user"},
		{[]Message{user, asks("a", "b"), answer("b")}, "user assistant:a:b tool:b tool:a!"},
		{[]Message{user, asks("a"), user, asks(), user}, "user assistant:a tool:a! user assistant user"},
		{[]Message{user, answer("x"), asks("a"), answer("a"), answer("a")}, "user assistant:a tool:a"},
		{[]Message{user, asks("a"), {Role: RoleTool}, answer("a")}, "user assistant:a tool:a"},
	}
	for i, c := range cases {
		before := shape(c.in)
		got := Paired(c.in)
		if shape(got) != c.want {
			t.Errorf("case %d: %s\nwant %s", i, shape(got), c.want)
		}
		if shape(c.in) != before {
			t.Errorf("case %d: the input was modified", i)
		}
	}
	valid := cases[0].in
	if got := Paired(valid); &got[0] != &valid[0] {
		t.Error("a valid history was copied")
	}
	if got := OpenCalls([]Message{user, asks("a", "b"), answer("a")}); len(got) != 1 || got[0].ID != "b" {
		t.Errorf("open calls %+v", got)
	}
	if got := OpenCalls([]Message{user, asks("a"), user}); len(got) != 0 {
		t.Errorf("calls further back are not open: %+v", got)
	}
}

// Paired runs before every model call, over the whole history.
func BenchmarkPaired1000(b *testing.B) {
	var msgs []Message
	for i := range 250 {
		id := string(rune('a'+i%26)) + string(rune('0'+i%10))
		msgs = append(msgs, Message{Role: RoleUser, Text: "go"}, Message{Role: RoleAssistant, ToolCalls: []ToolCall{call(id), call(id + "x")}},
			answer(id), answer(id+"x"))
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := Paired(msgs); len(got) != len(msgs) {
			b.Fatal(len(got))
		}
	}
}
