package store

import (
	"context"
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

// The calls a dead turn left without results are answered (interrupted)
// after the results that did come, in the calls' order, once; calls
// further back are not (results appended after later messages would answer
// nothing).
func TestCloseOpenCalls(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		calls := []chat.ToolCall{{ID: "c1", Tool: "read", Args: []byte(`{}`)}, {ID: "c2", Tool: "bash", Args: []byte(`{}`)}, {ID: "c3", Tool: "grep", Args: []byte(`{}`)}}
		sess, _ := s.CreateSession(ctx, Session{})
		append := func(msgs ...*chat.Message) {
			for _, m := range msgs {
				m.SessionID = sess.ID
				if err := s.AppendMessage(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
		}
		append(&chat.Message{Role: chat.RoleUser, Text: "go"}, &chat.Message{Role: chat.RoleAssistant, ToolCalls: calls},
			&chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: "c2", Tool: "bash", Output: "done"}})
		added, err := s.CloseOpenCalls(ctx, sess.ID, chat.WhyInterrupted)
		if err != nil || len(added) != 2 {
			t.Fatalf("%+v %v", added, err)
		}
		msgs, _ := s.Messages(ctx, sess.ID)
		if len(msgs) != 5 || msgs[3].Result.CallID != "c1" || msgs[4].Result.CallID != "c3" || msgs[4].Status != chat.StatusInterrupted ||
			!msgs[4].Result.IsError || msgs[4].Result.Output != chat.WhyInterrupted || msgs[4].Seq != 5 {
			t.Errorf("after closing: %+v", msgs)
		}
		if added, err := s.CloseOpenCalls(ctx, sess.ID, chat.WhyInterrupted); err != nil || len(added) != 0 {
			t.Errorf("closed twice: %v %v", added, err)
		}
		append(&chat.Message{Role: chat.RoleAssistant, ToolCalls: calls[:1]}, &chat.Message{Role: chat.RoleUser, Text: "hello?"})
		if added, err := s.CloseOpenCalls(ctx, sess.ID, chat.WhyInterrupted); err != nil || len(added) != 0 {
			t.Errorf("a call further back: %v %v", added, err)
		}
	})
}
