package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/sandbox"
	"github.com/podcode/podcode/internal/store"
)

// runLogged is run with the log kept in logs.
func runLogged(t *testing.T, logs *logtest.Logs, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	bootOptions = app.Options{Logger: logs.Logger()}
	root := newRoot()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// The database lives outside the project (nothing working in the project
// can read it): a project's database from an older Podcode is moved out on
// the first start, with its sessions, and the log says so once.
func TestDatabaseOutsideTheProject(t *testing.T) {
	dir := project(t, nil)
	ctx := context.Background()
	legacy := filepath.Join(dir, ".podcode", "podcode.db")
	st, err := store.Open(ctx, legacy)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.CreateSession(ctx, store.Session{Title: "from before", Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AppendMessage(ctx, &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: "said before"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	logs := &logtest.Logs{}
	if out, err := runLogged(t, logs, "run", "--session", sess.ID, "said after"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := store.DataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(data, os.Getenv("XDG_DATA_HOME")+string(filepath.Separator)) {
		t.Errorf("the data directory %s is not in the user's data folder", data)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(legacy + suffix); err == nil {
			t.Errorf("%s is still in the project", legacy+suffix)
		}
	}
	logs.Require(t, "moved the database out of the project", legacy, filepath.Join(data, store.File))

	st = openTest(t, filepath.Join(data, store.File))
	msgs, err := st.Messages(ctx, sess.ID)
	if err != nil || len(msgs) < 3 || msgs[0].Text != "said before" || msgs[1].Text != "said after" {
		t.Fatalf("the session after the move: %+v %v", msgs, err)
	}
	st.Close()

	logs = &logtest.Logs{}
	if out, err := runLogged(t, logs, "run", "--session", sess.ID, "again"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if logs.Count("moved the database") != 0 {
		t.Errorf("the move was logged again: %q", logs.Lines())
	}
	if _, err := os.Stat(legacy); err == nil {
		t.Error("a database was made in the project again")
	}
}

// --data puts the database where it says; serve --help says where it is.
func TestDataFlag(t *testing.T) {
	dir := project(t, nil)
	data := filepath.Join(t.TempDir(), "data")
	if out, err := run(t, "run", "--data", data, "hello"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(data, store.File)); err != nil {
		t.Errorf("no database in --data: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".podcode", "podcode.db")); err == nil {
		t.Error("a database was made in the project")
	}
	help, _ := run(t, "serve", "--help")
	for _, want := range []string{"--data", "~/.local/share", "$XDG_DATA_HOME/podcode/projects/", "outside the project", "tenants/<id>"} {
		if !strings.Contains(help, want) {
			t.Errorf("serve --help does not say %q:\n%s", want, help)
		}
	}
}

func openTest(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The line serve logs about its sandbox names the gravest gap: where
// signals are not kept in (Landlock below ABI 6, no PID namespace, as on a
// kernel that refuses user namespaces) that a command can kill the server,
// ahead of what the network lacks.
func TestSandboxLineNamesTheGravestGap(t *testing.T) {
	for _, c := range []struct {
		s    sandbox.Support
		warn bool
		says string
	}{
		{sandbox.Support{ABI: 4}, true, "can signal (kill) the server and other tenants' commands, reach abstract unix sockets"},
		{sandbox.Support{ABI: 4, NetNS: true}, true, "can signal (kill) the server"},
		{sandbox.Support{ABI: 6}, true, "UDP and other non-TCP traffic of sandboxed commands is not stopped"},
		{sandbox.Support{ABI: 6, NetNS: true}, true, "without a PID namespace"},
		{sandbox.Support{ABI: 6, NetNS: true, PIDNS: true}, false, "signals kept in by Landlock"},
	} {
		msg, warn := sandboxLine(c.s)
		if warn != c.warn || !strings.Contains(msg, c.says) {
			t.Errorf("%+v: %q (warning %v), want %q in it (warning %v)", c.s, msg, warn, c.says, c.warn)
		}
	}
	if msg, _ := sandboxLine(sandbox.Support{ABI: 4, NetNS: true}); strings.Contains(msg, "abstract") {
		t.Errorf("with a network namespace, abstract sockets are the namespace's own: %q", msg)
	}
}
