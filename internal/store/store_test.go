package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSessionsAndMessagesSurviveReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".podcode", "podcode.db")
	s := open(t, path)
	sess, err := s.CreateSession(ctx, Session{Title: "t", Model: "offline/echo", Channel: "cli"})
	if err != nil || sess.Tenant != DefaultTenant || sess.Status != SessionIdle {
		t.Fatalf("%+v %v", sess, err)
	}
	msgs := []*chat.Message{
		{SessionID: sess.ID, Role: chat.RoleUser, Text: "hi"},
		{SessionID: sess.ID, Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Tool: "read", Args: []byte(`{"path":"x"}`)}},
			Hooks: []chat.HookRun{{Kind: "lifecycle", Hook: "PreToolUse", Source: "guard", Outcome: "voted", Decision: "allow"}}},
		{SessionID: sess.ID, Role: chat.RoleTool, Result: &chat.Result{CallID: "call_1", Tool: "read", Output: "content"}},
	}
	for _, m := range msgs {
		if err := s.AppendMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	s.SetStatus(ctx, sess.ID, SessionRunning)
	s.AddUsage(ctx, sess.ID, chat.Usage{Input: 10, Output: 3})
	s.Close()

	s = open(t, path) // a restart after a crash mid-turn
	got, err := s.Session(ctx, DefaultTenant, sess.ID)
	if err != nil || got.Status != SessionInterrupted || got.Usage != (chat.Usage{Input: 10, Output: 3}) {
		t.Fatalf("after reopen: %+v %v", got, err)
	}
	all, err := s.Messages(ctx, sess.ID)
	if err != nil || len(all) != 3 {
		t.Fatalf("%d messages, %v", len(all), err)
	}
	for i, m := range all {
		if m.Seq != int64(i+1) || m.ID != msgs[i].ID || m.Status != chat.StatusComplete {
			t.Errorf("message %d: %+v", i, m)
		}
	}
	if all[1].Hooks[0].Decision != "allow" || string(all[1].ToolCalls[0].Args) != `{"path":"x"}` || all[2].Result.Output != "content" {
		t.Errorf("round trip lost data: %+v", all)
	}
	one, err := s.Message(ctx, sess.ID, msgs[2].ID)
	if err != nil || one.Result.CallID != "call_1" {
		t.Errorf("Message: %+v %v", one, err)
	}
}

func TestTenantsAreIsolated(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	a, _ := s.CreateSession(ctx, Session{Tenant: "a"})
	s.CreateSession(ctx, Session{Tenant: "b"})
	if _, err := s.Session(ctx, "b", a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("tenant b saw a's session: %v", err)
	}
	if err := s.DeleteSession(ctx, "b", a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("tenant b deleted a's session: %v", err)
	}
	if list, _ := s.Sessions(ctx, "a"); len(list) != 1 || list[0].ID != a.ID {
		t.Errorf("a's list %v", list)
	}
	if err := s.DeleteSession(ctx, "a", a.ID); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.Messages(ctx, a.ID); len(msgs) != 0 {
		t.Error("messages outlived their session")
	}
}

func TestConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		sess, _ := s.CreateSession(ctx, Session{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				if err := s.AppendMessage(ctx, &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: fmt.Sprint(i)}); err != nil {
					t.Error(err)
					return
				}
			}
			msgs, _ := s.Messages(ctx, sess.ID)
			for i, m := range msgs {
				if m.Text != fmt.Sprint(i) || m.Seq != int64(i+1) {
					t.Errorf("message %d: %+v", i, m)
				}
			}
		}()
	}
	wg.Wait()
}

func TestRecentStartsAtTheLatestSummary(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	sess, _ := s.CreateSession(ctx, Session{})
	add := func(m chat.Message) int64 {
		m.SessionID = sess.ID
		s.AppendMessage(ctx, &m)
		return m.Seq
	}
	add(chat.Message{Role: chat.RoleUser, Text: "1"})
	through := add(chat.Message{Role: chat.RoleAssistant, Text: "2"})
	add(chat.Message{Role: chat.RoleUser, Text: "3"})
	add(chat.Message{Role: chat.RoleSummary, Text: "sum", Through: through})
	add(chat.Message{Role: chat.RoleAssistant, Text: "4"})
	if texts := recentTexts(t, s, sess.ID); texts != "[sum 3 4]" {
		t.Errorf("recent %s", texts)
	}
}

// recentTexts is the text of each message Recent gives, as "[a b c]".
func recentTexts(t *testing.T, s *Store, sessionID string) string {
	t.Helper()
	recent, err := s.Recent(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range recent {
		texts = append(texts, m.Text)
	}
	return fmt.Sprint(texts)
}
