package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

func TestSessionsAndMessagesSurviveReopen(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		if s.Engine() != db.engine {
			t.Errorf("Engine() = %q, want %q", s.Engine(), db.engine)
		}
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
			var usage chat.Usage
			if m.Role == chat.RoleAssistant {
				usage = chat.Usage{Input: 10, Output: 3} // the model call's, stored with its message
			}
			if _, err := s.AppendStep(ctx, m, usage); err != nil {
				t.Fatal(err)
			}
		}
		s.SetStatus(ctx, sess.ID, SessionRunning)
		s.Close()

		s = db.open(t) // a restart after a crash mid-turn
		got, err := s.Session(ctx, DefaultTenant, sess.ID)
		// SQLite has one server: what it left running was interrupted.
		// PostgreSQL: the session may be another live node's turn, and
		// stays running until its lease expires (ReapTurns).
		want := SessionInterrupted
		if db.engine == EnginePostgres {
			want = SessionRunning
		}
		if err != nil || got.Status != want || got.Usage != (chat.Usage{Input: 10, Output: 3}) {
			t.Fatalf("after reopen: %+v %v, want status %s", got, err, want)
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
		if _, err := s.Message(ctx, sess.ID, "msg_nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a missing message: %v", err)
		}
	})
}

func TestTenantsAreIsolated(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		a, _ := s.CreateSession(ctx, Session{Tenant: "a"})
		s.CreateSession(ctx, Session{Tenant: "b"})
		s.AppendMessage(ctx, &chat.Message{SessionID: a.ID, Role: chat.RoleUser, Text: "x"})
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
	})
}

func TestConcurrentAppends(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
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
	})
}

// Two nodes (two Stores on one database) appending to the same session at
// once number its messages 1, 2, 3... with no gap and no duplicate, and
// both appends' usage is counted.
func TestConcurrentAppendsFromTwoNodesKeepSeqGapFree(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		nodes := []*Store{db.open(t), db.open(t)}
		sess, err := nodes[0].CreateSession(ctx, Session{})
		if err != nil {
			t.Fatal(err)
		}
		const writers, each = 3, 20 // per node
		var wg sync.WaitGroup
		for n, s := range nodes {
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						m := &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: fmt.Sprintf("%d/%d/%d", n, w, i)}
						if _, err := s.AppendStep(ctx, m, chat.Usage{Input: 1}); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
		}
		wg.Wait()
		msgs, err := nodes[1].Messages(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		total := len(nodes) * writers * each
		if len(msgs) != total {
			t.Fatalf("%d messages stored, want %d", len(msgs), total)
		}
		for i, m := range msgs {
			if m.Seq != int64(i+1) {
				t.Fatalf("message %d has seq %d", i, m.Seq)
			}
		}
		// Each writer's messages are in its order.
		texts := make([]string, len(msgs))
		for i, m := range msgs {
			texts[i] = m.Text
		}
		for n := range nodes {
			for w := range writers {
				last := -1
				for i, text := range texts {
					var a, b, c int
					fmt.Sscanf(text, "%d/%d/%d", &a, &b, &c)
					if a == n && b == w {
						if c != last+1 {
							t.Fatalf("writer %d/%d: message %d at %d after %d", n, w, c, i, last)
						}
						last = c
					}
				}
			}
		}
		got, _ := nodes[0].Session(ctx, DefaultTenant, sess.ID)
		if got.Usage.Input != int64(total) {
			t.Errorf("usage %d input tokens, want %d", got.Usage.Input, total)
		}
	})
}

func TestRecentStartsAtTheLatestSummary(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
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
	})
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

// A turn's start looks messages up by role through the partial index of
// the rare roles, and the reaper finds expired turns through that of the
// running ones, on SQLite (which uses a partial index only when the query
// repeats its condition) and on PostgreSQL; an append writes no index
// entry by role for its assistant or tool message.
func TestLookupsUseThePartialIndexes(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		ctx := context.Background()
		conn, err := s.w.Conn(ctx) // one connection: the SET below is per session
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		explain := `EXPLAIN QUERY PLAN `
		if db.engine == EnginePostgres {
			explain = `EXPLAIN `
			// A small table is scanned whatever its indexes: ask for them.
			if _, err := conn.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range []struct {
			name, sql, index string
			args             []any
		}{
			{"last summary", queryLastSummary, "messages_rare_roles", []any{"ses_1", chat.RoleSummary}},
			{"opening", queryOpening, "messages_rare_roles", []any{"ses_1", chat.RoleContext, 10, chat.RoleUser}},
			{"reap", queryReap, "sessions_running", []any{SessionInterrupted, 0, 0}},
		} {
			name := q.name
			rows, err := conn.QueryContext(ctx, explain+s.rebind(q.sql), q.args...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var plan strings.Builder
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintln(&plan, vals...)
			}
			rows.Close()
			if !strings.Contains(plan.String(), q.index) {
				t.Errorf("%s does not use %s:\n%s", name, q.index, plan.String())
			}
		}
	})
}
