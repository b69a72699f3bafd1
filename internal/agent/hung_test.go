package agent_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
)

// A tool that ignores its context cannot keep a cancelled turn running:
// the turn ends as interrupted while execute is still blocked, the session
// takes a new turn, and the tool's late result is dropped.
func TestCancelEndsATurnWhoseToolIgnoresItsContext(t *testing.T) {
	e := newEnv(t, apptest.Project{})
	entered, release := make(chan struct{}, 1), make(chan struct{})
	returned := make(chan struct{})
	t.Cleanup(func() { close(release); <-returned })
	hang := &tool.Def{ID: "hang", Source: "gotool", Description: "blocks until released, whatever its context says",
		Parameters: []byte(`{"type":"object"}`),
		Execute: func(context.Context, tool.Call, map[string]any) (tool.Result, error) {
			defer close(returned)
			entered <- struct{}{}
			<-release
			return tool.Result{Output: "late"}, nil
		}}
	if err := e.ag.App.Tools.Add(hang); err != nil {
		t.Fatal(err)
	}
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: "/tool hang {}"})
		done <- err
	}()
	<-entered
	if !e.ag.Cancel(sess.ID) {
		t.Fatal("no turn to cancel")
	}
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the turn ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled turn is still waiting for its tool")
	}
	got, _ := e.st.Session(context.Background(), store.DefaultTenant, sess.ID)
	if got.Status != store.SessionInterrupted {
		t.Errorf("status %q, want %q", got.Status, store.SessionInterrupted)
	}
	// The session is free for the next turn, although the tool still runs.
	res, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: "hello"})
	if err != nil || res.Text != "You said: hello" {
		t.Errorf("next turn: %v %v", res, err)
	}
}
