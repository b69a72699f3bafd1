package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/provider/wiretest"
)

// onProvider is a project whose model is the user's model on provider pid,
// whose options the user's file gives (a project's file cannot set an
// endpoint or a key).
func onProvider(model, pid string, options map[string]any, files map[string]string) apptest.Project {
	return apptest.Project{Files: files, User: map[string]any{"model": model, "agent": map[string]any{"max_steps": 60},
		"provider": map[string]any{pid: map[string]any{"options": options}}}}
}

// A turn of 50 tool calls on Anthropic's API: every request after the
// first reads from the prompt cache everything the request before it sent
// (the breakpoints move with the history: the server keeps a cache as
// Anthropic's does), writes what it adds, and sends nothing uncached; the
// signed thinking of each step goes back with it. Each assistant message
// stores its call's usage (cache reads and writes) and cost, and the
// session sums them.
func TestAnthropicCacheMovesWithTheHistory(t *testing.T) {
	const calls = 50
	srv := wiretest.NewAnthropic(t, wiretest.Func(func(n int, _ map[string]any) wiretest.Answer {
		if n < calls {
			return wiretest.Answer{Thinking: fmt.Sprintf("Step %d: list the next files.", n),
				Calls: []wiretest.Call{{Name: "glob", Args: fmt.Sprintf(`{"pattern": "f%d*"}`, n)}}}
		}
		return wiretest.Answer{Text: "Nothing matches."}
	}))
	e := newEnv(t, onProvider("anthropic/claude-sonnet-4-5", "anthropic", map[string]any{"baseURL": srv.URL, "apiKey": srv.Key, "maxRetries": 0}, nil))
	res, err := e.turn(t, "look for the f files")
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != calls+1 || res.Text != "Nothing matches." {
		t.Fatalf("%d requests, text %q", len(reqs), res.Text)
	}
	for i, r := range reqs {
		if r.Status != 200 {
			t.Fatalf("request %d refused: %s", i, r.Error)
		}
		if len(r.Breakpoints) > 4 || r.Breakpoints[len(r.Breakpoints)-1] != r.Blocks-1 {
			t.Errorf("request %d: breakpoints %v of %d blocks: the last block must be one", i, r.Breakpoints, r.Blocks)
		}
		if i == 0 {
			if r.Usage.CacheRead != 0 || r.Usage.CacheWrite == 0 {
				t.Errorf("the first request writes the cache: %+v", r.Usage)
			}
			continue
		}
		prev := reqs[i-1].Usage
		if r.Usage.CacheRead != prev.CacheRead+prev.CacheWrite || r.Usage.CacheWrite == 0 || r.Usage.Input != 0 {
			t.Errorf("request %d reads %d from the cache, writes %d, %d uncached; the one before sent %d: all of it should be read",
				i, r.Usage.CacheRead, r.Usage.CacheWrite, r.Usage.Input, prev.CacheRead+prev.CacheWrite)
		}
		if th := r.Thinking(len(r.Body["messages"].([]any)) - 2); len(th) != 1 {
			t.Errorf("request %d: the last answer's thinking was not sent back: %v", i, th)
		}
	}
	var sum chat.Usage
	n := 0
	for _, m := range res.Messages {
		if m.Role != chat.RoleAssistant {
			continue
		}
		u := reqs[n].Usage
		if m.Usage == nil || m.Usage.CacheRead != u.CacheRead || m.Usage.CacheWrite != u.CacheWrite || m.Usage.Input != u.Input+u.CacheRead+u.CacheWrite ||
			m.Usage.Cost <= 0 || m.Model != "anthropic/claude-sonnet-4-5" {
			t.Fatalf("message %d: usage %+v model %q; the server's %+v", n, m.Usage, m.Model, u)
		}
		if n < calls && (len(m.Reasoning) != 1 || m.Reasoning[0].Signature == "") {
			t.Errorf("message %d: reasoning %+v", n, m.Reasoning)
		}
		sum = sum.Add(*m.Usage)
		n++
	}
	s := res.Session.Usage
	if s.CacheRead != sum.CacheRead || s.CacheWrite != sum.CacheWrite || s.Input != sum.Input || fmt.Sprintf("%.9f", s.Cost) != fmt.Sprintf("%.9f", sum.Cost) ||
		res.Usage != sum {
		t.Errorf("session %+v, turn %+v, messages %+v", s, res.Usage, sum)
	}
	// With the catalog's prices (3, 15, 0.3 and 3.75 dollars a million):
	// reading what was written costs a tenth of sending it afresh.
	want := (float64(sum.Input-sum.CacheRead-sum.CacheWrite)*3 + float64(sum.Output)*15 + float64(sum.CacheRead)*0.3 + float64(sum.CacheWrite)*3.75) / 1e6
	if fmt.Sprintf("%.9f", sum.Cost) != fmt.Sprintf("%.9f", want) {
		t.Errorf("cost %v, want %v", sum.Cost, want)
	}
	// The next turn reads the history from the store: the thinking kept
	// there is still valid.
	srv2 := srv.Requests()
	if _, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: res.Session.ID, Prompt: "thanks"}); err != nil {
		t.Fatalf("the next turn: %v (%d requests before)", err, len(srv2))
	}
}

// A turn cancelled while a tool ran leaves a history each provider takes:
// the next turn's request passes the server's checks (Anthropic's tool_use
// and tool_result pairs, the Responses API's function calls and outputs,
// Gemini's function calls and responses).
func TestCancelMidToolCallThenAValidRequest(t *testing.T) {
	slow := []wiretest.Call{{ID: "c1", Name: "bash", Args: `{"command": "sleep 30"}`}, {ID: "c2", Name: "read", Args: `{"path": "a.txt"}`}}
	files := map[string]string{"a.txt": "a"}
	type server interface{ Refusals() []string }
	for _, c := range []struct {
		name    string
		project func(wiretest.Script) (apptest.Project, server)
	}{
		{"anthropic", func(s wiretest.Script) (apptest.Project, server) {
			srv := wiretest.NewAnthropic(t, s)
			return onProvider("anthropic/claude-haiku-4-5", "anthropic", map[string]any{"baseURL": srv.URL, "apiKey": srv.Key, "maxRetries": 0}, files), srv
		}},
		{"openai responses", func(s wiretest.Script) (apptest.Project, server) {
			srv := wiretest.NewResponses(t, s)
			return onProvider("openai/gpt-5.4-mini", "openai", map[string]any{"api": "openai-responses", "baseURL": srv.URL, "apiKey": srv.Key, "maxRetries": 0}, files), srv
		}},
		{"gemini", func(s wiretest.Script) (apptest.Project, server) {
			srv := wiretest.NewGemini(t, s)
			return onProvider("gemini/gemini-3-flash-preview", "gemini", map[string]any{"baseURL": srv.URL, "apiKey": srv.Key, "maxRetries": 0}, files), srv
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, srv := c.project(wiretest.Answers{{Thinking: "Run it.", Calls: slow}, {Text: "still here"}})
			e := newEnv(t, p)
			sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
			if err != nil {
				t.Fatal(err)
			}
			done := e.runUntilATool(sess.ID, "run the slow command")
			e.ag.Cancel(sess.ID)
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled turn: %v", err)
			}
			res, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: "are you there?"})
			if err != nil || res.Text != "still here" || len(srv.Refusals()) > 0 {
				t.Fatalf("the next turn: %v %q; the server refused: %q", err, res.Text, srv.Refusals())
			}
		})
	}
}

// A history the provider refuses as longer than the model's context is
// compacted, whatever Podcode's estimate of its size, and sent again; when
// it is still refused, the turn fails saying what to do.
func TestContextOverflowCompactsThenFails(t *testing.T) {
	overflow := wiretest.Answer{Fault: &wiretest.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 250000 tokens > 200000 maximum"}}
	var script []wiretest.Answer
	for i := range 4 {
		script = append(script, wiretest.Answer{Calls: []wiretest.Call{{Name: "glob", Args: fmt.Sprintf(`{"pattern": "x%d*"}`, i)}}})
	}
	script = append(script, wiretest.Answer{Text: "first turn done"}, overflow, wiretest.Answer{Text: "after compaction"}, overflow, overflow)
	srv := wiretest.NewAnthropic(t, wiretest.Answers(script))
	e := newEnv(t, onProvider("anthropic/claude-haiku-4-5", "anthropic", map[string]any{"baseURL": srv.URL, "apiKey": srv.Key, "maxRetries": 0}, nil))
	res, err := e.turn(t, "look around")
	if err != nil || res.Text != "first turn done" {
		t.Fatal(err, res.Text)
	}
	res, err = e.ag.Run(context.Background(), agent.TurnRequest{SessionID: res.Session.ID, Prompt: "go on"})
	if err != nil || res.Text != "after compaction" {
		t.Fatalf("after an overflow: %v %q", err, res.Text)
	}
	reqs := srv.Requests()
	before, after := reqs[5].Body["messages"].([]any), reqs[6].Body["messages"].([]any)
	if len(after) >= len(before) || !strings.Contains(fmt.Sprint(after[0]), "Summary of") {
		t.Errorf("the request after the overflow has %d messages (before: %d), first %v", len(after), len(before), after[0])
	}
	for _, m := range res.Messages {
		if m.Role == chat.RoleAssistant && m.Status != chat.StatusComplete {
			t.Errorf("the refused call was stored: %+v", m)
		}
	}
	// Refused again after compacting: a clear error.
	_, err = e.ag.Run(context.Background(), agent.TurnRequest{SessionID: res.Session.ID, Prompt: "and again"})
	if err == nil || !strings.Contains(err.Error(), "start a new session, or pick a model with a larger context") {
		t.Errorf("still too long: %v", err)
	}
}

// A model call cut short (an overload mid-stream, after text) still
// counts: its message keeps the text shown and the tokens the provider
// reported, and the session and the turn add them (they were paid for).
func TestCutShortCallStillCounts(t *testing.T) {
	srv := wiretest.NewAnthropic(t, wiretest.Answers{{Text: "I was about to say", Fault: &wiretest.Fault{MidStream: true, Type: "overloaded_error", Message: "Overloaded"}}})
	e := newEnv(t, onProvider("anthropic/claude-haiku-4-5", "anthropic", map[string]any{"baseURL": srv.URL, "apiKey": srv.Key, "maxRetries": 0}, nil))
	res, err := e.turn(t, "hello")
	if err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("err %v", err)
	}
	last := res.Messages[len(res.Messages)-1]
	u := srv.Requests()[0].Usage
	if last.Status != chat.StatusError || last.Text != "I was about to say" || last.Usage == nil || last.Usage.Input != u.Input+u.CacheRead+u.CacheWrite ||
		last.Usage.Cost <= 0 || res.Session.Usage != *last.Usage || res.Usage != *last.Usage {
		t.Errorf("message %+v usage %+v; session %+v turn %+v", last, last.Usage, res.Session.Usage, res.Usage)
	}
}
