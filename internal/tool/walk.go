package tool

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// walkBatch is how many entries of a directory walkTree reads at a time.
const walkBatch = 1024

// maxWalkDepth is how many levels below where it starts walkTree enters.
// Each directory is opened from r by its whole path, one component at a
// time, so an unbounded walk of a deep chain costs the square of its
// depth: 8000 levels, which a command makes in a moment, took 71 s and
// 343 MiB for one glob.
const maxWalkDepth = 256

// errTooDeep is what walkTree reports for a directory at maxWalkDepth,
// which it does not enter.
var errTooDeep = fmt.Errorf("more than %d levels below where the search started: not searched", maxWalkDepth)

// walkTree calls fn for the directory or file rel beneath r (path is its
// absolute name, as fn sees it) and for everything beneath it, as
// filepath.WalkDir(path, fn) does, with two differences:
//
//   - Each directory is opened through r, so a directory swapped for a
//     link to the outside while the walk runs is refused, not listed
//     (names of another workspace's files), and one swapped for a named
//     pipe does not block the walk.
//   - A directory is read walkBatch entries at a time, so what the walk
//     holds follows the depth of the tree, not the size of its largest
//     directory: a million empty files cost a tenant nothing but inodes,
//     and reading their directory whole took 170 MB per call. A directory
//     that fits in one batch is walked in lexical order, as
//     filepath.WalkDir does; a larger one in the order the file system
//     gives.
//
// It does not enter the directories maxWalkDepth levels below rel: after
// fn's call for such a directory comes a second call with errTooDeep, as
// for a directory that cannot be read.
func walkTree(r *os.Root, rel, path string, fn fs.WalkDirFunc) error {
	info, err := r.Lstat(rel)
	if err != nil {
		err = fn(path, nil, err)
	} else {
		err = walkEntry(r, rel, path, fs.FileInfoToDirEntry(info), 0, fn)
	}
	if err == filepath.SkipDir || err == filepath.SkipAll {
		return nil
	}
	return err
}

// walkEntry walks d, depth levels below where the walk started.
func walkEntry(r *os.Root, rel, path string, d fs.DirEntry, depth int, fn fs.WalkDirFunc) error {
	if err := fn(path, d, nil); err != nil || !d.IsDir() {
		if err == filepath.SkipDir && d.IsDir() {
			err = nil // the directory is skipped
		}
		return err
	}
	if depth >= maxWalkDepth {
		if err := fn(path, d, errTooDeep); err != filepath.SkipDir {
			return err
		}
		return nil
	}
	f, batch, err := readFirstBatch(r, rel)
	if err != nil {
		// A second call reports the error, as filepath.WalkDir does.
		if err = fn(path, d, err); err == filepath.SkipDir {
			err = nil
		}
		return err
	}
	if f != nil {
		defer f.Close()
	}
	for {
		for _, e := range batch {
			if err := walkEntry(r, filepath.Join(rel, e.Name()), filepath.Join(path, e.Name()), e, depth+1, fn); err != nil {
				if err == filepath.SkipDir {
					return nil // the rest of this directory is skipped
				}
				return err
			}
		}
		if f == nil {
			return nil
		}
		batch, err = f.ReadDir(walkBatch)
		if err != nil && !errors.Is(err, io.EOF) {
			if err = fn(path, d, err); err == filepath.SkipDir {
				err = nil
			}
			return err
		}
		if len(batch) == 0 {
			return nil
		}
	}
}

// readFirstBatch opens the directory rel beneath r and reads its first
// batch. When that is the whole directory, it is sorted and the directory
// closed (f is nil); otherwise f is open for the next batches.
func readFirstBatch(r *os.Root, rel string) (f *os.File, batch []fs.DirEntry, err error) {
	// O_DIRECTORY: an entry swapped for a named pipe meanwhile is refused,
	// rather than blocking the open.
	f, err = r.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, nil, err
	}
	batch, err = f.ReadDir(walkBatch)
	if err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, nil, err
	}
	if len(batch) == walkBatch {
		return f, batch, nil
	}
	f.Close()
	slices.SortFunc(batch, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return nil, batch, nil
}
