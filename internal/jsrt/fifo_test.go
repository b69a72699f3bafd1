package jsrt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFile writes only regular files and readdir reads only folders: a
// FIFO with nobody at its other end is refused at once, without waiting
// for a reader or a writer and so without holding one of the MaxFileOps
// slots for ever; the plugin's other file operations go on.
func TestFileOperationsDoNotWaitOnAFIFO(t *testing.T) {
	r, _ := newRT(t, `
		async function op(name, ...args) {
			try { const v = await fs[name](...args); return "ok " + JSON.stringify(v === undefined ? null : v); }
			catch (e) { return "error: " + e.message; }
		}`)
	withFS(t, r)
	dir := r.opts.Cwd
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang, not a speed
	defer cancel()
	call := func(args ...any) string {
		t.Helper()
		v, err := callGlobal(r, ctx, "op", args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v.(string)
	}
	for range 2 * MaxFileOps {
		// Node would wait for a reader; a plugin is told there is none
		if got, want := call("writeFile", fifo, "data"), "error: ENXIO: no such device or address, open '"+fifo+"'"; got != want {
			t.Fatalf("writeFile into a FIFO with no reader: %s, want %s", got, want)
		}
		if got, want := call("readdir", fifo), "error: ENOTDIR: not a directory, scandir '"+fifo+"'"; got != want {
			t.Fatalf("readdir of a FIFO: %s, want %s", got, want)
		}
	}
	// With a reader, the FIFO opens; it is still not a regular file.
	reader, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if got, want := call("writeFile", fifo, "data"), "error: open '"+fifo+"': "+fifo+" is a FIFO: Podcode plugins do not open FIFOs or sockets"; got != want {
		t.Errorf("writeFile into a FIFO with a reader: %s, want %s", got, want)
	}
	if got, want := call("readdir", filepath.Join(dir, "..", filepath.Base(dir), "missing")), "error: ENOENT: no such file or directory, scandir '"; !strings.HasPrefix(got, want) {
		t.Errorf("readdir of a missing folder: %s", got)
	}
	// The slots are free: regular files and folders work as before.
	if got := call("writeFile", "b.txt", "new"); got != "ok null" {
		t.Fatalf("writeFile: %s", got)
	}
	if got := call("writeFile", "b.txt", "ab"); got != "ok null" {
		t.Fatalf("writeFile over a longer file: %s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(data) != "ab" {
		t.Errorf("b.txt holds %q, want it truncated to %q", data, "ab")
	}
	if got := call("readdir", "."); got != `ok ["b.txt","fifo"]` {
		t.Errorf("readdir: %s", got)
	}
	if got, want := call("readdir", "b.txt"), "error: ENOTDIR: not a directory, scandir 'b.txt'"; got != want {
		t.Errorf("readdir of a file: %s, want %s", got, want)
	}
}
