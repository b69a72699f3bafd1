package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
)

// A step's assistant message and its model call's usage are one write:
// both are stored, or (a failed append) neither.
func TestAppendStepStoresTheMessageWithItsUsage(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		sess, _ := s.CreateSession(ctx, Session{})
		u := chat.Usage{Input: 120, Output: 7}
		m := &chat.Message{SessionID: sess.ID, Role: chat.RoleAssistant, Usage: &u,
			ToolCalls: []chat.ToolCall{{ID: "c1", Tool: "read", Args: []byte(`{}`)}}}
		if _, err := s.AppendStep(ctx, m, u); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Session(ctx, DefaultTenant, sess.ID)
		msgs, _ := s.Messages(ctx, sess.ID)
		if got.Usage != u || len(msgs) != 1 || msgs[0].ID != m.ID || msgs[0].Seq != 1 {
			t.Fatalf("usage %+v, messages %+v", got.Usage, msgs)
		}
		// The same ID again: the insert fails, and the usage is not added.
		again := *m
		if _, err := s.AppendStep(ctx, &again, u); err == nil {
			t.Fatal("a duplicate message was stored")
		}
		got, _ = s.Session(ctx, DefaultTenant, sess.ID)
		if msgs, _ := s.Messages(ctx, sess.ID); got.Usage != u || len(msgs) != 1 {
			t.Errorf("after a failed append: usage %+v, %d messages", got.Usage, len(msgs))
		}
	})
}

// walSize is the size of the database's write-ahead log: it grows with
// every transaction that writes a page (no checkpoint runs in a test this
// small).
func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A turn's end re-stores its last message; when nothing changed, nothing
// is written.
func TestUpdateMessageWritesOnlyAChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), File)
	s := open(t, path)
	sess, _ := s.CreateSession(ctx, Session{})
	m := &chat.Message{SessionID: sess.ID, Role: chat.RoleTool, Result: &chat.Result{CallID: "c1", Tool: "read", Output: "x"}}
	if err := s.AppendMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	before := walSize(t, path)
	if err := s.UpdateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	if after := walSize(t, path); after != before {
		t.Errorf("an unchanged message was written: the log grew from %d to %d bytes", before, after)
	}
	m.Hooks = append(m.Hooks, chat.HookRun{Kind: "lifecycle", Hook: "Stop", Source: "guard", Outcome: "voted", Decision: "allow"})
	if err := s.UpdateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	if after := walSize(t, path); after == before {
		t.Error("a changed message was not written")
	}
	got, err := s.Message(ctx, sess.ID, m.ID)
	if err != nil || len(got.Hooks) != 1 || got.Hooks[0].Hook != "Stop" {
		t.Errorf("%+v %v", got, err)
	}
}

// What hooks gave the model before the session's first user message comes
// before the latest summary, and what that summary covers does not.
func TestRecentKeepsTheOpeningContext(t *testing.T) {
	eachEngine(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		sess, _ := s.CreateSession(ctx, Session{})
		add := func(m chat.Message) int64 {
			m.SessionID = sess.ID
			if err := s.AppendMessage(ctx, &m); err != nil {
				t.Fatal(err)
			}
			return m.Seq
		}
		add(chat.Message{Role: chat.RoleContext, Text: "ctx"})
		add(chat.Message{Role: chat.RoleUser, Text: "1"})
		add(chat.Message{Role: chat.RoleContext, Text: "later ctx"})
		through := add(chat.Message{Role: chat.RoleAssistant, Text: "2"})
		add(chat.Message{Role: chat.RoleSummary, Text: "sum", Through: through})
		add(chat.Message{Role: chat.RoleUser, Text: "3"})
		if texts := recentTexts(t, s, sess.ID); texts != "[ctx sum 3]" {
			t.Errorf("recent %s", texts)
		}
	})
}

// crashChild is set, in the environment of a child test process, to the
// database that the child writes to until it is killed.
const crashChild = "PODCODE_STORE_CRASH_CHILD"

// TestMain runs the writer of TestAcknowledgedStepsSurviveKill when this
// binary is that child.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChild); path != "" {
		os.Exit(crashWriter(path))
	}
	os.Exit(m.Run())
}

// crashWriter writes steps to a running session and prints the ID of each
// message once its write returned, until it is killed.
func crashWriter(path string) int {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sess, err := s.CreateSession(ctx, Session{Status: SessionRunning})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "session", sess.ID)
	out.Flush()
	for i := 0; ; i++ {
		last, err := benchStep(ctx, s, sess.ID, i)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(out, "stored", last.Seq)
		out.Flush()
	}
}

// A process killed with SIGKILL in the middle of a turn loses none of the
// messages whose write had returned, and its session reads as
// interrupted.
func TestAcknowledgedStepsSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	path := filepath.Join(t.TempDir(), File)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChild+"="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var sessionID string
	var acked int64
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "session":
			sessionID = f[1]
		case "stored":
			fmt.Sscan(f[1], &acked)
		}
		if acked >= 300 {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if sessionID == "" || acked < 300 {
		t.Fatalf("the writer stopped early: session %q, %d messages", sessionID, acked)
	}

	ctx := context.Background()
	s := open(t, path)
	sess, err := s.Session(ctx, DefaultTenant, sessionID)
	if err != nil || sess.Status != SessionInterrupted {
		t.Fatalf("after the kill: %+v %v", sess, err)
	}
	msgs, err := s.Messages(ctx, sessionID)
	if err != nil || int64(len(msgs)) < acked {
		t.Fatalf("%d messages acknowledged, %d stored (%v)", acked, len(msgs), err)
	}
	for i, m := range msgs {
		if m.Seq != int64(i+1) {
			t.Fatalf("message %d has seq %d", i, m.Seq)
		}
	}
	if want := int64(len(msgs)+1) / 2 * 1200; sess.Usage.Input != want {
		t.Errorf("usage %d input tokens for %d messages, want %d", sess.Usage.Input, len(msgs), want)
	}
}

// The WAL is copied into the database file by the checkpointer, in the
// background, long before it is big enough for the writer to checkpoint it
// on a write's time (backstopPages).
func TestCheckpointsRunInTheBackground(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), File)
	s := open(t, path)
	sess, _ := s.CreateSession(ctx, Session{})
	for i := 0; i < checkpointEvery+20; i++ { // about 700 pages of WAL
		if err := s.AppendMessage(ctx, &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= 64<<10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d writes the database file is still %d bytes: no checkpoint ran", checkpointEvery+21, fi.Size())
		}
	}
}
