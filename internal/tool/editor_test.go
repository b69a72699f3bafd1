package tool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeEditor is an editor's buffers, in memory.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	asked   []string
	changes []FileChange
}

func (f *fakeEditor) editor(read, write bool) Editor {
	e := Editor{Changed: func(c FileChange) {
		f.mu.Lock()
		f.changes = append(f.changes, c)
		f.mu.Unlock()
	}}
	if read {
		e.Read = func(_ context.Context, path string) (string, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.asked = append(f.asked, "read "+path)
			text, ok := f.buffers[path]
			if !ok {
				return "", errors.New("no such buffer")
			}
			return text, nil
		}
	}
	if write {
		e.Write = func(_ context.Context, path, content string) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.asked = append(f.asked, "write "+path)
			f.buffers[path] = content
			return nil
		}
	}
	return e
}

// runWith is run with ctx and a call id.
func runWith(t *testing.T, ctx context.Context, d *Def, argsJSON string) (Result, error) {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		t.Fatal(err)
	}
	args, err := d.Check(ctx, args)
	if err != nil {
		return Result{}, err
	}
	return d.Execute(ctx, Call{CallID: "call_1"}, args)
}

// With an editor in the context, read, edit and write go through its
// buffers (not the disk), and each change is reported with the text before
// and after.
func TestFileToolsGoThroughTheEditor(t *testing.T) {
	ws, defs := newWorkspace(t)
	path := filepath.Join(ws.Root, "a.txt")
	os.WriteFile(path, []byte("disk\n"), 0o644)
	fe := &fakeEditor{buffers: map[string]string{path: "buffer one\nbuffer two\n"}}
	ctx := WithEditor(context.Background(), fe.editor(true, true))
	res, err := runWith(t, ctx, defs["read"], `{"path": "a.txt", "offset": 1}`)
	if err != nil || res.Output != "     2\tbuffer two\n" {
		t.Fatalf("read: %v %q", err, res.Output)
	}
	if _, err := runWith(t, ctx, defs["edit"], `{"path": "a.txt", "old_string": "one", "new_string": "1"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := runWith(t, ctx, defs["write"], `{"path": "sub/new.txt", "content": "fresh"}`); err != nil {
		t.Fatal(err)
	}
	newPath := filepath.Join(ws.Root, "sub", "new.txt")
	if fe.buffers[path] != "buffer 1\nbuffer two\n" || fe.buffers[newPath] != "fresh" {
		t.Errorf("buffers: %q", fe.buffers)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "disk\n" {
		t.Errorf("the disk changed: %q", disk)
	}
	if _, err := os.Stat(newPath); err == nil {
		t.Error("write created the file on disk")
	}
	want := []FileChange{
		{CallID: "call_1", Path: path, Old: "buffer one\nbuffer two\n", New: "buffer 1\nbuffer two\n"},
		{CallID: "call_1", Path: newPath, New: "fresh", Created: true},
	}
	if len(fe.changes) != 2 || fe.changes[0] != want[0] || fe.changes[1] != want[1] {
		t.Errorf("changes: %+v", fe.changes)
	}
}

// The path checks come before the editor is asked: outside the workspace,
// a directory or a named pipe is refused and the editor never hears of it.
func TestEditorIsAskedOnlyAfterThePathChecks(t *testing.T) {
	ws, defs := newWorkspace(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.Mkdir(filepath.Join(ws.Root, "dir"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(ws.Root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Dir(outside), filepath.Join(ws.Root, "link"))
	fe := &fakeEditor{buffers: map[string]string{outside: "secret"}}
	ctx := WithEditor(context.Background(), fe.editor(true, true))
	for _, c := range []struct{ tool, args, want string }{
		{"read", `{"path": "` + outside + `"}`, "outside the project"},
		{"read", `{"path": "link/secret.txt"}`, "outside the project"},
		{"write", `{"path": "../escape.txt", "content": "x"}`, "outside the project"},
		{"edit", `{"path": "` + outside + `", "old_string": "s", "new_string": "t"}`, "outside the project"},
		{"read", `{"path": "dir"}`, "is a directory"},
		{"write", `{"path": "fifo", "content": "x"}`, "is a named pipe"},
	} {
		if _, err := runWith(t, ctx, defs[c.tool], c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
	if len(fe.asked) != 0 {
		t.Errorf("the editor was asked: %v", fe.asked)
	}
}

// An editor that offers only Changed leaves reading and writing to the
// disk, and still hears what write changed.
func TestEditorWithoutFilesStillHearsChanges(t *testing.T) {
	ws, defs := newWorkspace(t)
	path := filepath.Join(ws.Root, "a.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	fe := &fakeEditor{buffers: map[string]string{}}
	ctx := WithEditor(context.Background(), fe.editor(false, false))
	if _, err := runWith(t, ctx, defs["write"], `{"path": "a.txt", "content": "new"}`); err != nil {
		t.Fatal(err)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "new" {
		t.Errorf("disk: %q", disk)
	}
	if len(fe.changes) != 1 || fe.changes[0].Old != "old" || fe.changes[0].New != "new" || fe.changes[0].Created {
		t.Errorf("changes: %+v", fe.changes)
	}
}
