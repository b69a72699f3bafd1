package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/provider/openaitest"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
)

// onOpenAI is a project whose model is the OpenAI-compatible endpoint srv
// (the user's provider: a project's file cannot set an endpoint).
func onOpenAI(srv *openaitest.Server, files map[string]string) apptest.Project {
	return apptest.Project{Files: files, User: map[string]any{"model": "local/m", "provider": map[string]any{"local": map[string]any{
		"options": map[string]any{"baseURL": srv.URL, "maxRetries": 0}, "models": map[string]any{"m": map[string]any{}}}}}}
}

// requireValid fails unless every request srv received was accepted.
func requireValid(t *testing.T, srv *openaitest.Server) {
	t.Helper()
	for i, r := range srv.Requests() {
		if r.Status != 200 {
			t.Errorf("request %d answered %d: %s", i+1, r.Status, r.Error)
		}
	}
}

// results lists the tool results of msgs as "tool: output".
func results(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == chat.RoleTool && m.Result != nil {
			out = append(out, m.Result.Tool+": "+m.Result.Output)
		}
	}
	return out
}

// runUntilATool runs a turn of the session in the background and returns
// once its first tool call has started, with the channel its end comes on.
func (e *env) runUntilATool(sessionID, prompt string) <-chan error {
	started := make(chan struct{})
	var once sync.Once
	unsubscribe := e.ag.App.Bus.Subscribe(bus.ToolCallStarted, "test", func(bus.Event) { once.Do(func() { close(started) }) })
	defer unsubscribe()
	done := make(chan error, 1)
	go func() {
		_, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sessionID, Prompt: prompt})
		done <- err
	}()
	<-started
	return done
}

// A turn cancelled during a tool call stores a result for that call and
// for each call of the same answer that never started, so the session's
// next turn is a history the provider accepts. The endpoint answers 400,
// as OpenAI does, to a tool call without a tool reply.
func TestCancelledToolCallKeepsTheSessionValid(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Answer{Calls: []openaitest.Call{{Name: "bash", Args: `{"command": "sleep 30"}`}, {Name: "read", Args: `{"path": "a.txt"}`}}},
		openaitest.Answer{Text: "still here"})
	e := newEnv(t, onOpenAI(srv, map[string]string{"a.txt": "a"}))
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	done := e.runUntilATool(sess.ID, "wait, then read a.txt")
	if !e.ag.Cancel(sess.ID) {
		t.Fatal("no turn to cancel")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled turn ended with %v", err)
	}
	stored, err := e.st.Messages(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bash: " + chat.WhyCancelled, "read: " + chat.WhyNotRun}
	if got := results(stored); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored results:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	res, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: "are you there?"})
	if err != nil || res.Text != "still here" {
		t.Fatalf("the turn after the cancel: %v %+v", err, res)
	}
	requireValid(t, srv)
}

// crashed writes, through the store, what a turn that died during a tool
// call leaves: the prompt, the model's answer with its call, no result.
func crashed(t *testing.T, st *store.Store, sessionID, callID string) {
	t.Helper()
	ctx := context.Background()
	for _, m := range []*chat.Message{
		{SessionID: sessionID, Role: chat.RoleUser, Text: "list the files"},
		{SessionID: sessionID, Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: callID, Tool: "bash", Args: json.RawMessage(`{"command":"ls"}`)}}},
	} {
		if err := st.AppendMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetStatus(ctx, sessionID, store.SessionRunning); err != nil {
		t.Fatal(err)
	}
}

// A crash during a tool call leaves the call without a result; the call
// is answered (interrupted) when the session's next turn starts, after a
// restart or in a session an older Podcode marked interrupted; a call
// left open further back is answered in what the provider is sent.
// Each time the next turn succeeds against an endpoint that enforces the
// rule.
func TestCrashDuringAToolCallKeepsTheSessionValid(t *testing.T) {
	ctx := context.Background()
	t.Run("restart", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.Answer{Text: "back"})
		e := newEnv(t, onOpenAI(srv, nil))
		sess, _ := e.ag.NewSession(ctx, agent.SessionRequest{})
		crashed(t, e.st, sess.ID, "call_crash")
		// The restart: the database opened again by a new process.
		path := filepath.Join(e.ag.App.Cwd, ".podcode", "podcode.db")
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ag := agent.New(e.ag.App, st)
		res, err := ag.Run(ctx, agent.TurnRequest{SessionID: sess.ID, Prompt: "again"})
		if err != nil || res.Text != "back" {
			t.Fatalf("the turn after the restart: %v %+v", err, res)
		}
		requireValid(t, srv)
		msgs, _ := st.Messages(ctx, sess.ID)
		if got := results(msgs); len(got) != 1 || got[0] != "bash: "+chat.WhyInterrupted {
			t.Errorf("after the restart: %q", got)
		}
	})
	t.Run("next turn", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.Answer{Text: "back"})
		e := newEnv(t, onOpenAI(srv, nil))
		sess, _ := e.ag.NewSession(ctx, agent.SessionRequest{})
		crashed(t, e.st, sess.ID, "call_crash")
		// An older Podcode marked the session interrupted and left the call.
		e.st.SetStatus(ctx, sess.ID, store.SessionInterrupted)
		res, err := e.ag.Run(ctx, agent.TurnRequest{SessionID: sess.ID, Prompt: "again"})
		if err != nil || res.Text != "back" {
			t.Fatalf("the next turn: %v %+v", err, res)
		}
		if len(res.Messages) == 0 || res.Messages[0].Role != chat.RoleTool || res.Messages[0].Result.CallID != "call_crash" ||
			res.Messages[0].Status != chat.StatusInterrupted || !res.Messages[0].Result.IsError {
			t.Errorf("the turn's first message: %+v", res.Messages)
		}
		requireValid(t, srv)
	})
	t.Run("further back", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.Answer{Text: "back"})
		e := newEnv(t, onOpenAI(srv, nil))
		sess, _ := e.ag.NewSession(ctx, agent.SessionRequest{})
		crashed(t, e.st, sess.ID, "call_old")
		// Later turns of an older Podcode failed without answering it.
		e.st.AppendMessage(ctx, &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: "hello?"})
		e.st.AppendMessage(ctx, &chat.Message{SessionID: sess.ID, Role: chat.RoleAssistant, Status: chat.StatusError, Error: "the provider answered 400"})
		e.st.SetStatus(ctx, sess.ID, store.SessionIdle)
		res, err := e.ag.Run(ctx, agent.TurnRequest{SessionID: sess.ID, Prompt: "again"})
		if err != nil || res.Text != "back" {
			t.Fatalf("the next turn: %v %+v", err, res)
		}
		requireValid(t, srv)
		sent := srv.Requests()[0].Messages
		var roles []string
		for _, m := range sent {
			roles = append(roles, m.Role+":"+m.ToolCallID)
		}
		if strings.Join(roles, " ") != "user: assistant: tool:call_old user: assistant: user:" {
			t.Errorf("sent %s", strings.Join(roles, " "))
		}
	})
}

// Each call a tool gets names the assistant message that made it (the
// second call of a reply too, though the first's result was stored in
// between), and the folder of the turn's workspace: a tenant's, not the
// project's.
func TestToolCallNamesItsMessageAndWorkspace(t *testing.T) {
	srv := openaitest.New(t, openaitest.Answer{Calls: []openaitest.Call{
		{ID: "call_1", Name: "probe", Args: `{}`}, {ID: "call_2", Name: "probe", Args: `{}`}}}, openaitest.Answer{Text: "done"})
	e := newEnv(t, onOpenAI(srv, nil))
	var mu sync.Mutex
	var seen []tool.Call
	e.ag.App.Tools.Add(&tool.Def{ID: "probe", Source: "test", Parameters: json.RawMessage(`{"type": "object"}`),
		Execute: func(_ context.Context, c tool.Call, _ map[string]any) (tool.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, c)
			return tool.Result{Output: "ok"}, nil
		}})
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	workspace := t.TempDir()
	ctx := tool.WithWorkspace(context.Background(), tool.Workspace{Root: workspace})
	res, err := e.ag.Run(ctx, agent.TurnRequest{SessionID: sess.ID, Prompt: "probe twice", Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	assistant := ""
	for _, m := range res.Messages {
		if len(m.ToolCalls) == 2 {
			assistant = m.ID
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || assistant == "" {
		t.Fatalf("%d calls, assistant message %q", len(seen), assistant)
	}
	for _, c := range seen {
		if c.MessageID != assistant || c.Cwd != workspace {
			t.Errorf("call %s: message %s in %s; want %s in %s", c.CallID, c.MessageID, c.Cwd, assistant, workspace)
		}
	}
}

// A turn cancelled while the model streams keeps, in the message it
// stores, the text the user already saw, marked interrupted.
func TestCancelMidStreamKeepsTheTextSeen(t *testing.T) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "the first half of an answer"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer model.Close()
	e := newEnv(t, apptest.Project{User: map[string]any{"model": "local/m", "provider": map[string]any{"local": map[string]any{
		"options": map[string]any{"baseURL": model.URL, "maxRetries": 0}, "models": map[string]any{"m": map[string]any{}}}}}})
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = e.ag.Run(ctx, agent.TurnRequest{SessionID: sess.ID, Prompt: "answer", Channel: "cli",
		OnEvent: func(ev agent.Event) {
			if ev.Type == "text" {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the turn ended with %v", err)
	}
	msgs, err := e.st.Messages(context.Background(), sess.ID)
	if err != nil || len(msgs) == 0 {
		t.Fatal(msgs, err)
	}
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleAssistant || last.Text != "the first half of an answer" || last.Status != chat.StatusInterrupted {
		t.Errorf("the last message stored: %+v", last)
	}
}
