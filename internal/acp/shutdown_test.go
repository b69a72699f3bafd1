package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
)

// records keeps the messages logged and their "sessions" attribute.
type records struct {
	mu   sync.Mutex
	msgs []string
	sess [][]string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	var sessions []string
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "sessions" {
			sessions, _ = a.Value.Any().([]string)
		}
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	r.sess = append(r.sess, sessions)
	return nil
}

// An editor that stops reading the agent's output, and keeps it open,
// leaves a turn blocked writing an update: cancelling Serve's context (as
// SIGTERM does) still makes Serve return, after the grace period, and the
// turn left behind is logged.
func TestServeEndsWhenTheEditorStopsReading(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{})
	st := openStore(t)
	srv := New(a, agent.New(a, st), st)
	srv.grace = 100 * time.Millisecond
	logs := &records{}
	srv.log = slog.New(logs)

	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, toAgentR, toClientW) }()
	t.Cleanup(func() {
		// The editor goes away: the blocked write fails and the turn ends,
		// before the store closes.
		toClientR.Close()
		toAgentW.Close()
		ended := make(chan struct{})
		go func() { srv.turns.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(30 * time.Second):
			t.Error("the turn left behind did not end once the editor closed")
		}
	})

	// The editor reads messages one at a time, and stops for good once the
	// tool call runs: no read of its input is under way after that.
	msgs := make(chan map[string]any, 64)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		br := bufio.NewReader(toClientR)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if p, _ := m["params"].(map[string]any); p != nil {
				if u, _ := p["update"].(map[string]any); u != nil && u["sessionUpdate"] == "tool_call_update" && u["status"] == "in_progress" {
					return
				}
			}
			select {
			case msgs <- m:
			default: // updates nobody waits for
			}
		}
	}()
	send := func(id int, method string, params any) {
		t.Helper()
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := toAgentW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id int) map[string]any {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case m := <-msgs:
				if m["id"] == float64(id) {
					if m["error"] != nil {
						t.Fatalf("request %d: %v", id, m["error"])
					}
					r, _ := m["result"].(map[string]any)
					return r
				}
			case <-deadline:
				t.Fatalf("no answer to request %d", id)
			}
		}
	}

	send(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	answer(1)
	send(2, "session/new", map[string]any{"cwd": a.Cwd, "mcpServers": []any{}})
	id, _ := answer(2)["sessionId"].(string)
	if id == "" {
		t.Fatal("session/new answered no sessionId")
	}
	send(3, "session/prompt", map[string]any{"sessionId": id, "prompt": []any{
		map[string]any{"type": "text", "text": `/tool bash {"command": "sleep 30"}`},
	}})
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool call was never reported in_progress")
	}

	cancel() // SIGTERM
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after its context ended, with the editor not reading")
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	i := slices.Index(logs.msgs, "acp: turns still running after the grace period (the editor may have stopped reading); ending without them")
	if i < 0 {
		t.Fatalf("no line about the turn left behind; logged: %q", logs.msgs)
	}
	if !slices.Equal(logs.sess[i], []string{id}) {
		t.Errorf("the turns left behind are named %q, want [%s]", logs.sess[i], id)
	}
}
