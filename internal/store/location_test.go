package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

// The data directory is outside the project, one per project (by its
// real path), named after it, under XDG_DATA_HOME or ~/.local/share.
func TestDataDir(t *testing.T) {
	data, home := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("HOME", home)
	root := t.TempDir()
	a, b := filepath.Join(root, "my project"), filepath.Join(root, "other")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	da, err := DataDir(a)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(da) != filepath.Join(data, "podcode", "projects") || !strings.HasPrefix(filepath.Base(da), "my_project-") {
		t.Errorf("data directory %s", da)
	}
	if db, _ := DataDir(b); db == da {
		t.Errorf("two projects share %s", da)
	}
	if dl, _ := DataDir(link); dl != da {
		t.Errorf("the project through a link: %s, want %s", dl, da)
	}
	t.Setenv("XDG_DATA_HOME", "relative/dir")
	if d, _ := DataDir(a); !strings.HasPrefix(d, filepath.Join(home, ".local", "share", "podcode", "projects")+string(filepath.Separator)) {
		t.Errorf("a relative XDG_DATA_HOME is not ignored: %s", d)
	}
}

// legacyProject makes a project whose .podcode folder holds a database
// with a session whose messages are still in the -wal file, as a server
// that died left it, and returns the project and the session id.
func legacyProject(t *testing.T) (string, string) {
	t.Helper()
	ctx := context.Background()
	live := t.TempDir()
	s, err := Open(ctx, filepath.Join(live, File))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.CreateSession(ctx, Session{Title: "before the move", Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(ctx, &chat.Message{SessionID: sess.ID, Role: chat.RoleUser, Text: "remember me"}); err != nil {
		t.Fatal(err)
	}
	// Copy the files while the database is open: the last transactions
	// are in the -wal file only.
	project := t.TempDir()
	dir := filepath.Join(project, ".podcode")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		data, err := os.ReadFile(filepath.Join(live, File+suffix))
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(data) == 0 {
			t.Fatal("the -wal file is empty: the test would not show that it is moved")
		}
		if err := os.WriteFile(filepath.Join(dir, File+suffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project, sess.ID
}

// checkSession opens the database at path and checks the session and its
// message are there.
func checkSession(t *testing.T, path, id string) {
	t.Helper()
	s := open(t, path)
	sess, err := s.Session(context.Background(), DefaultTenant, id)
	if err != nil || sess.Title != "before the move" {
		t.Fatalf("the session after the move: %+v %v", sess, err)
	}
	msgs, err := s.Messages(context.Background(), id)
	if err != nil || len(msgs) != 1 || msgs[0].Text != "remember me" {
		t.Fatalf("its messages after the move: %+v %v", msgs, err)
	}
}

// A project's database from before is moved, with its -wal, into the data
// directory, and its sessions are there; a second Adopt has nothing to do.
func TestAdoptMovesTheDatabase(t *testing.T) {
	project, id := legacyProject(t)
	data := filepath.Join(t.TempDir(), "data")
	a, err := Adopt(project, data)
	if err != nil || !a.Moved || a.From != filepath.Join(project, ".podcode", File) || a.To != filepath.Join(data, File) {
		t.Fatalf("%+v %v", a, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(a.From + suffix); err == nil {
			t.Errorf("%s is still in the project", a.From+suffix)
		}
	}
	if st, err := os.Stat(data); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the data directory: %v %v", st, err)
	}
	checkSession(t, a.To, id)
	if again, err := Adopt(project, data); err != nil || again.From != "" || again.Moved {
		t.Errorf("again: %+v %v", again, err)
	}
}

// A move interrupted after the -wal file went is completed by the next
// start, losing nothing.
func TestAdoptCompletesAnInterruptedMove(t *testing.T) {
	project, id := legacyProject(t)
	data := t.TempDir()
	old := filepath.Join(project, ".podcode", File)
	if err := os.Rename(old+"-wal", filepath.Join(data, File+"-wal")); err != nil {
		t.Fatal(err)
	}
	if a, err := Adopt(project, data); err != nil || !a.Moved {
		t.Fatalf("%+v %v", a, err)
	}
	checkSession(t, filepath.Join(data, File), id)
}

// When the data directory already has a database, the project's is left
// alone (and reported), never overwritten.
func TestAdoptKeepsBoth(t *testing.T) {
	project, _ := legacyProject(t)
	data := t.TempDir()
	open(t, filepath.Join(data, File)).Close()
	old := filepath.Join(project, ".podcode", File)
	before, _ := os.ReadFile(old)
	a, err := Adopt(project, data)
	if err != nil || a.Moved || a.From != old {
		t.Fatalf("%+v %v", a, err)
	}
	if after, _ := os.ReadFile(old); !bytes.Equal(before, after) {
		t.Error("the project's database was changed")
	}
}

// A file that cannot be moved is a clear error and nothing is lost.
func TestAdoptError(t *testing.T) {
	project, _ := legacyProject(t)
	data := t.TempDir()
	// The -wal's place is taken by a directory: the rename fails.
	if err := os.MkdirAll(filepath.Join(data, File+"-wal", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Adopt(project, data)
	if err == nil || !strings.Contains(err.Error(), "moving the database out of the project") || !strings.Contains(err.Error(), "--data") {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(filepath.Join(project, ".podcode", File)); err != nil {
		t.Errorf("the database is gone from the project: %v", err)
	}
}

// Across file systems a file is copied, synced and renamed into place,
// then removed.
func TestMoveAcrossFileSystems(t *testing.T) {
	src := filepath.Join(t.TempDir(), "f")
	dst, err := os.MkdirTemp("/dev/shm", "podcode-move-")
	if err != nil {
		t.Skipf("no /dev/shm to move to: %v", err)
	}
	defer os.RemoveAll(dst)
	var a, b syscall.Stat_t
	if syscall.Stat(filepath.Dir(src), &a) != nil || syscall.Stat(dst, &b) != nil || a.Dev == b.Dev {
		t.Skip("the temporary directory and /dev/shm are on one file system here")
	}
	if err := os.WriteFile(src, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dst, "f")
	if err := move(src, to); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(to); err != nil || string(data) != "data" {
		t.Errorf("%q %v", data, err)
	}
	if _, err := os.Stat(src); err == nil {
		t.Error("the source is still there")
	}
	if entries, _ := os.ReadDir(dst); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// A database in the project that is a symbolic link (a cloned project can
// hold one, pointing anywhere: into the project, or a world-readable
// place) is not adopted: the user's sessions would be written where the
// link leads. The link is left alone, and the data directory gets a
// database of its own.
func TestAdoptLeavesALinkedDatabase(t *testing.T) {
	for _, linked := range []string{"", "-wal"} {
		project, data := t.TempDir(), t.TempDir()
		dir := filepath.Join(project, ".podcode")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"", "-wal"} {
			p := filepath.Join(dir, File+suffix)
			var err error
			if suffix == linked {
				err = os.Symlink(filepath.Join(project, "leak"+suffix), p)
			} else {
				err = os.WriteFile(p, []byte("x"), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		a, err := Adopt(project, data)
		if err != nil || a.Moved || a.From == "" {
			t.Errorf("link at %q: %+v %v", File+linked, a, err)
		}
		entries, _ := os.ReadDir(data)
		if len(entries) != 0 {
			t.Errorf("link at %q: the data directory holds %v", File+linked, entries)
		}
		if st, err := os.Lstat(filepath.Join(dir, File+linked)); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("link at %q: the link was not left alone: %v %v", File+linked, st, err)
		}
	}
}
