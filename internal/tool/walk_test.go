package tool

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
)

// liveHeap is the heap reachable now, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Walking a directory of many entries holds one batch of them, not the
// whole directory: empty files cost a tenant nothing but inodes, and glob
// and grep over a million of them held 170 MB each.
func TestWalkHoldsABatchNotTheDirectory(t *testing.T) {
	const n = 100_000
	root := t.TempDir()
	dir := filepath.Join(root, "many")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("file-%07d-with-a-longer-name", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := liveHeap()
	var seen int
	var during uint64
	err = walkTree(r, ".", root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if seen++; seen == n/2 {
			during = liveHeap()
		}
		return nil
	})
	if err != nil || seen != n+2 {
		t.Fatalf("walked %d entries, want %d: %v", seen, n+2, err)
	}
	if grew := int64(during) - int64(before); grew > 2<<20 {
		t.Errorf("the walk held %d KiB in the middle of a directory of %d entries", grew>>10, n)
	}
}

// A directory swapped, while the walk runs, for a link to the outside is
// not listed, and one swapped for a named pipe does not block the walk.
func TestWalkRefusesASwappedDirectory(t *testing.T) {
	for _, swap := range []string{"link", "fifo"} {
		base := t.TempDir()
		root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
		for _, d := range []string{filepath.Join(root, "d"), outside} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(outside, "secret-name"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := os.OpenRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		returns(t, "a walk with "+swap, func() {
			err = walkTree(r, ".", root, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil // skipped, as glob and grep do
				}
				listed = append(listed, strings.TrimPrefix(p, root))
				if p == filepath.Join(root, "d") && d.IsDir() {
					// Between the listing that found d and its opening.
					os.Rename(p, p+".old")
					if swap == "link" {
						return os.Symlink(outside, p)
					}
					return syscall.Mkfifo(p, 0o644)
				}
				return nil
			})
		}, nil)
		r.Close()
		if err != nil || strings.Contains(strings.Join(listed, " "), "secret-name") {
			t.Errorf("%s: listed %q, %v", swap, listed, err)
		}
	}
}

// A walk enters directories down to maxWalkDepth levels below where it
// starts and no deeper: each open goes through the whole path, so a chain
// 8000 levels deep took 71 s and 343 MiB for one glob. glob and grep say
// that they did not search all of the tree.
func TestSearchStopsAtTheDepthBound(t *testing.T) {
	ws, defs := newWorkspace(t)
	deep := ws.Root
	for i := 1; i <= maxWalkDepth+40; i++ {
		deep = filepath.Join(deep, "d")
		if err := os.Mkdir(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(deep, fmt.Sprintf("f%d.txt", i)), []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// f<i>.txt is in the directory i levels below the root: the deepest
	// directory entered is one above the bound, whose entries are at it.
	want := maxWalkDepth - 1
	last := fmt.Sprintf("f%d.txt", want)
	res, err := run(t, defs["glob"], `{"pattern": "**/*.txt"}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Metadata["count"]; n != want || !strings.Contains(res.Output, "/"+last+"\n") {
		t.Errorf("glob listed %v files; want %d, down to %s", n, want, last)
	}
	if res.Metadata["too_deep"] != true || !strings.Contains(res.Output, fmt.Sprintf("more than %d levels", maxWalkDepth)) {
		t.Errorf("glob did not say the tree was cut: %v", res.Metadata)
	}
	res, err = run(t, defs["grep"], `{"pattern": "needle"}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Metadata["matches"]; n != want || !strings.Contains(res.Output, "/"+last+":1: needle") {
		t.Errorf("grep found %v matches; want %d, down to %s", n, want, last)
	}
	if res.Metadata["too_deep"] != true || !strings.Contains(res.Output, fmt.Sprintf("more than %d levels", maxWalkDepth)) {
		t.Errorf("grep did not say the tree was cut: %v", res.Metadata)
	}
	// A tree within the bound is not said to be cut.
	res, err = run(t, defs["glob"], `{"pattern": "**/*.txt", "path": "`+filepath.Join(strings.Repeat("d/", 50))+`"}`)
	if err != nil || res.Metadata["too_deep"] != false || strings.Contains(res.Output, "levels") {
		t.Errorf("a search within the bound: %v %v", res.Metadata, err)
	}
}
