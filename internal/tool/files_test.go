package tool

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// writeLines writes n numbered lines of about width bytes each to path.
func writeLines(t *testing.T, path string, n, width int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", max(width-10, 0))
	for i := range n {
		fmt.Fprintf(w, "%08d %s\n", i, pad)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// returns runs f and fails the test when it has not returned after a
// generous while: f is expected to return at once, and a hang must fail the
// test rather than stall it. unstick, when given, is called before failing
// so that f can return.
func returns(t *testing.T, what string, f func(), unstick func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		if unstick != nil {
			unstick()
		}
		<-done
		t.Fatalf("%s hung", what)
	}
}

// read loads only the lines it is asked for: reading the first lines of a
// large file allocates about as much as reading a small one, not the size
// of the file.
func TestReadLoadsOnlyTheLinesAsked(t *testing.T) {
	ws, defs := newWorkspace(t)
	writeLines(t, filepath.Join(ws.Root, "big.txt"), 600_000, 100) // 60 MB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := run(t, defs["read"], `{"path": "big.txt", "limit": 100}`)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "     1\t00000000 x") || !strings.Contains(res.Output, "   100\t00000099 x") || strings.Contains(res.Output, "00000100") {
		t.Fatalf("output %.300q", res.Output)
	}
	if !strings.HasSuffix(res.Output, "(more lines follow; read on with offset 100)\n") {
		t.Errorf("the end of a long file: %q", res.Output[len(res.Output)-80:])
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("reading 100 lines of a 60 MB file allocated %d bytes", got)
	}
}

// Lines are cut at a limit without being loaded whole; the rest of a short
// file is counted, a long rest is announced.
func TestReadCutsLongLinesAndCountsTheRest(t *testing.T) {
	ws, defs := newWorkspace(t)
	long := strings.Repeat("é", 3<<20) // 6 MiB on one line
	os.WriteFile(filepath.Join(ws.Root, "long.txt"), []byte("first\n"+long+"\nthird\nfourth"), 0o644)
	res, err := run(t, defs["read"], `{"path": "long.txt", "offset": 1, "limit": 1}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "     2\t" + strings.Repeat("é", maxLineBytes/2) + "…\n(2 more lines; read on with offset 2)\n"
	if res.Output != want {
		t.Errorf("output %.120q…", res.Output)
	}
	if res.Metadata["lines"] != 4 {
		t.Errorf("metadata %v", res.Metadata)
	}
	res, err = run(t, defs["read"], `{"path": "long.txt", "offset": 2}`)
	if err != nil || res.Output != "     3\tthird\n     4\tfourth\n" {
		t.Errorf("the last lines: %q %v", res.Output, err)
	}
	res, err = run(t, defs["read"], `{"path": "long.txt", "offset": 9}`)
	if err != nil || !strings.Contains(res.Output, "has 4 lines") {
		t.Errorf("past the end: %q %v", res.Output, err)
	}
	os.WriteFile(filepath.Join(ws.Root, "late.bin"), []byte("text\ntext\nbin\x00ary\n"), 0o644)
	if _, err := run(t, defs["read"], `{"path": "late.bin", "offset": 2}`); err == nil || !strings.Contains(err.Error(), "not a text file") {
		t.Errorf("a NUL byte in a line read: %v", err)
	}
}

// edit needs the whole file in memory: above a cap it refuses, saying the
// size and the cap, and the file is left as it was.
func TestEditRefusesFilesAboveTheCap(t *testing.T) {
	ws, defs := newWorkspace(t)
	path := filepath.Join(ws.Root, "huge.txt")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, maxLoadBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	_, err := run(t, defs["edit"], `{"path": "huge.txt", "old_string": "hello", "new_string": "bye"}`)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(maxLoadBytes+1)) || !strings.Contains(err.Error(), fmt.Sprint(maxLoadBytes)) ||
		!strings.Contains(err.Error(), "huge.txt") {
		t.Fatalf("edit of a file above the cap: %v", err)
	}
	head := make([]byte, 5)
	f, _ := os.Open(path)
	f.Read(head)
	f.Close()
	if string(head) != "hello" {
		t.Errorf("the file changed: %q", head)
	}
	// At the cap, edit works.
	os.Truncate(path, maxLoadBytes)
	if _, err := run(t, defs["edit"], `{"path": "huge.txt", "old_string": "hello", "new_string": "bye"}`); err != nil {
		t.Errorf("edit at the cap: %v", err)
	}
}

// Only regular files are opened: a FIFO, a device, a socket is refused at
// once with an error that says what it is, instead of hanging the call or
// reading for ever.
func TestSpecialFilesAreRefused(t *testing.T) {
	ws, _ := newWorkspace(t)
	fifo := filepath.Join(ws.Root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws.Root, "a.txt"), []byte("needle\n"), 0o644)
	sock, err := net.Listen("unix", filepath.Join(ws.Root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	ws.Allowed = []string{"/dev"}
	defs := map[string]*Def{}
	for _, d := range Builtins(Options{Workspace: ws}) {
		defs[d.ID] = d
	}
	// A call blocked on the FIFO on its own would never return: a writer
	// that opens and closes it lets it go.
	unstick := func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
	for _, c := range []struct{ tool, args, want string }{
		{"read", `{"path": "fifo"}`, "fifo is a named pipe, not a regular file"},
		{"edit", `{"path": "fifo", "old_string": "a", "new_string": "b"}`, "fifo is a named pipe, not a regular file"},
		{"write", `{"path": "fifo", "content": "x"}`, "fifo is a named pipe, not a regular file"},
		{"read", `{"path": "sock"}`, "sock is a socket, not a regular file"},
		{"read", `{"path": "/dev/zero"}`, "/dev/zero is a device, not a regular file"},
		{"read", `{"path": "/dev/null"}`, "/dev/null is a device, not a regular file"},
		{"edit", `{"path": "/dev/zero", "old_string": "a", "new_string": "b"}`, "/dev/zero is a device, not a regular file"},
		{"read", `{"path": "/dev/stdin"}`, ""},
		{"read", `{"path": "."}`, "is a directory, not a regular file"},
	} {
		returns(t, c.tool+" "+c.args, func() {
			_, err := run(t, defs[c.tool], c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s: %v, want %q", c.tool, c.args, err, c.want)
			}
		}, unstick)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st, err)
	}
	// grep and glob pass over them.
	returns(t, "grep over a FIFO", func() {
		res, err := run(t, defs["grep"], `{"pattern": "needle"}`)
		if err != nil || res.Output != "a.txt:1: needle\n" {
			t.Errorf("grep: %q %v", res.Output, err)
		}
	}, unstick)
}

// No file tool follows a symbolic link out of the project: grep skips a
// link to a file outside (it printed /etc/passwd through notes.txt), glob
// does not list it, and a link to a directory outside is not entered; links
// that stay inside work as before.
func TestSymlinksOutOfTheProjectAreNotFollowed(t *testing.T) {
	ws, defs := newWorkspace(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "passwd"), []byte("root:secret-outside\n"), 0o644)
	os.MkdirAll(filepath.Join(outside, "dir"), 0o755)
	os.WriteFile(filepath.Join(outside, "dir", "x.txt"), []byte("secret-outside\n"), 0o644)
	os.WriteFile(filepath.Join(ws.Root, "real.txt"), []byte("secret-inside\n"), 0o644)
	for link, target := range map[string]string{
		"notes.txt":  filepath.Join(outside, "passwd"),
		"absdir":     filepath.Join(outside, "dir"),
		"reldir":     "../" + filepath.Base(outside),
		"inside.txt": "real.txt",
		"absin.txt":  filepath.Join(ws.Root, "real.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(ws.Root, link)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := run(t, defs["grep"], `{"pattern": "secret"}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "outside") {
		t.Errorf("grep followed a link out of the project:\n%s", res.Output)
	}
	for _, want := range []string{"real.txt:1: secret-inside", "inside.txt:1: secret-inside", "absin.txt:1: secret-inside"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("grep lost %q:\n%s", want, res.Output)
		}
	}
	res, err = run(t, defs["grep"], `{"pattern": "secret", "include": "notes.txt"}`)
	if err != nil || strings.Contains(res.Output, "outside") {
		t.Errorf("grep of the link by name: %q %v", res.Output, err)
	}
	res, err = run(t, defs["glob"], `{"pattern": "**/*"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(res.Output); strings.Join(got, " ") != "absin.txt inside.txt real.txt" {
		t.Errorf("glob: %q", res.Output)
	}
	for _, c := range []struct{ tool, args string }{
		{"read", `{"path": "notes.txt"}`},
		{"edit", `{"path": "notes.txt", "old_string": "root", "new_string": "x"}`},
		{"write", `{"path": "notes.txt", "content": "x"}`},
		{"write", `{"path": "absdir/new.txt", "content": "x"}`},
		{"glob", `{"pattern": "*", "path": "absdir"}`},
		{"grep", `{"pattern": "secret", "path": "notes.txt"}`},
	} {
		if _, err := run(t, defs[c.tool], c.args); err == nil || !strings.Contains(err.Error(), "outside the project") {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "passwd")); string(data) != "root:secret-outside\n" {
		t.Errorf("the file outside changed: %q", data)
	}
	// Through an in-project link, read and edit reach the target and keep
	// the link.
	if _, err := run(t, defs["edit"], `{"path": "inside.txt", "old_string": "inside", "new_string": "edited"}`); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws.Root, "real.txt")); string(data) != "secret-edited\n" {
		t.Errorf("real.txt = %q", data)
	}
	if st, _ := os.Lstat(filepath.Join(ws.Root, "inside.txt")); st.Mode()&os.ModeSymlink == 0 {
		t.Error("edit replaced the link with a file")
	}
}

// A directory swapped for a link to the outside while the tools run never
// leads them out: whatever the timing, what they open is beneath the
// project.
func TestSymlinkSwapCannotLeadOut(t *testing.T) {
	ws, defs := newWorkspace(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("secret-outside\n"), 0o644)
	dir := filepath.Join(ws.Root, "d")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("inside\n"), 0o644)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		spare := filepath.Join(ws.Root, ".spare")
		for !stop.Load() {
			// d becomes a link to the outside, then the directory again.
			os.Rename(dir, spare)
			os.Symlink(outside, dir)
			runtime.Gosched()
			os.Remove(dir)
			if os.Rename(spare, dir) != nil { // a write made d again meanwhile
				os.RemoveAll(dir)
				os.Rename(spare, dir)
			}
		}
	}()
	leaks := 0
	for range 1000 {
		var outs []string
		if res, err := run(t, defs["read"], `{"path": "d/f.txt"}`); err == nil {
			outs = append(outs, res.Output)
		}
		if res, err := run(t, defs["grep"], `{"pattern": "secret", "path": "d"}`); err == nil {
			outs = append(outs, res.Output)
		}
		if res, err := run(t, defs["grep"], `{"pattern": "secret"}`); err == nil {
			outs = append(outs, res.Output)
		}
		run(t, defs["write"], `{"path": "d/w.txt", "content": "x"}`)
		for _, o := range outs {
			if strings.Contains(o, "secret-outside") {
				leaks++
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	if _, err := os.Stat(filepath.Join(outside, "w.txt")); err == nil {
		t.Error("write created a file outside the project")
	}
	if leaks > 0 {
		t.Errorf("%d reads returned a file outside the project", leaks)
	}
}

// One line longer than any buffer neither stops grep nor hides the lines
// after it; memory stays bounded.
func TestGrepSurvivesAHugeLine(t *testing.T) {
	ws, defs := newWorkspace(t)
	f, _ := os.Create(filepath.Join(ws.Root, "one-line.txt"))
	w := bufio.NewWriter(f)
	for range 8 << 10 {
		w.WriteString(strings.Repeat("y", 1024))
	}
	w.WriteString("\nneedle after the long line\n")
	w.Flush()
	f.Close()
	res, err := run(t, defs["grep"], `{"pattern": "needle"}`)
	if err != nil || res.Output != "one-line.txt:2: needle after the long line\n" {
		t.Errorf("grep: %q %v", res.Output, err)
	}
	res, err = run(t, defs["grep"], `{"pattern": "^y+$"}`)
	if err != nil || !strings.HasPrefix(res.Output, "one-line.txt:1: yyyy") || len(res.Output) > 3*maxLineBytes {
		t.Errorf("the long line: %.100q (%d bytes) %v", res.Output, len(res.Output), err)
	}
}

// A cancelled call stops reading: skipping to a far offset of a long file
// ends when the call's context does.
func TestReadStopsWhenTheCallIsCancelled(t *testing.T) {
	ws, defs := newWorkspace(t)
	writeLines(t, filepath.Join(ws.Root, "big.txt"), 200_000, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	args, _ := defs["read"].Check(ctx, map[string]any{"path": "big.txt", "offset": 199_000, "limit": 10})
	if _, err := defs["read"].Execute(ctx, Call{}, args); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
	_, err := run(t, defs["read"], `{"path": "missing.txt"}`)
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("missing file: %v", err)
	}
}

// The line reader gives the lines of any input, each cut to keep bytes
// with the cut reported, whatever the buffer size; trimPartialRune leaves
// valid text of a cut line.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("one\ntwo\n\nthree"), 3)
	f.Add([]byte(strings.Repeat("x", 100)+"\n"), 16)
	f.Add([]byte("é\nüü\n"), 1)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, data []byte, keep int) {
		keep = min(max(keep, 0), 64)
		want := strings.Split(string(data), "\n")
		if len(want) > 0 && want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		lr := &lineReader{br: bufio.NewReaderSize(strings.NewReader(string(data)), 16), keep: keep}
		for i := 0; ; i++ {
			line, cut, err := lr.next()
			if err != nil {
				if i != len(want) {
					t.Fatalf("%d lines, want %d (%v)", i, len(want), err)
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("more lines than %d", len(want))
			}
			full := want[i]
			if string(line) != full[:min(keep, len(full))] || cut != (len(full) > keep) {
				t.Fatalf("line %d: %q cut=%v, want %q of %q", i, line, cut, full[:min(keep, len(full))], full)
			}
			if s := strings.ToValidUTF8(full, ""); len(s) > 0 {
				k := min(keep, len(s))
				if tr := trimPartialRune([]byte(s[:k])); !utf8.Valid(tr) || len(tr) < k-3 {
					t.Fatalf("trimPartialRune(%q) = %q", s[:k], tr)
				}
			}
		}
	})
}

// A cancelled call stops reading inside a line too, not only between
// lines: the file tools read through ctxReader.
func TestLineReaderStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	reads := 0
	endless := readerFunc(func(p []byte) (int, error) { // zeros, no newline, for ever
		if reads++; reads == 100 {
			cancel()
		}
		clear(p)
		return len(p), nil
	})
	lr := newLineReader(ctxReader{ctx, endless}, maxLineBytes)
	lr.max = 0 // no limit on the line's length: only the cancel ends it
	if _, _, err := lr.next(); !errors.Is(err, context.Canceled) {
		t.Errorf("next: %v, want the cancel", err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// A file of terabytes that costs nothing to make (a sparse one: text at
// its start, then zeros without a newline) does not keep a call busy for
// hours when nobody cancels it: a line is read through up to maxScanLine
// bytes; past that, read says the file is not text and grep passes over
// the rest of the file, keeping the matches before.
func TestHugeSparseFileIsNotReadThrough(t *testing.T) {
	ws, defs := newWorkspace(t)
	path := filepath.Join(ws.Root, "sparse.txt")
	if err := os.WriteFile(path, []byte("a needle\n"+strings.Repeat("some text\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<40); err != nil {
		t.Skipf("this file system cannot hold a sparse file of 1 TiB: %v", err)
	}
	for _, c := range []struct{ tool, args, want string }{
		{"grep", `{"pattern": "needle"}`, "sparse.txt:1: a needle\n"},
		{"read", `{"path": "sparse.txt", "offset": 5000}`, "sparse.txt: line 1002 is longer than 64 MiB: not a text file"},
	} {
		var raw map[string]any
		if err := json.Unmarshal([]byte(c.args), &raw); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		args, err := defs[c.tool].Check(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		var res Result
		returns(t, c.tool+" on a 1 TiB file", func() { res, err = defs[c.tool].Execute(ctx, Call{}, args) }, cancel)
		cancel()
		got := res.Output
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.tool, got, c.want)
		}
	}
}
