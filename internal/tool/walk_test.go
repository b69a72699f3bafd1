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
