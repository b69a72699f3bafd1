package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Bounds of one fingerprint. Past the content bounds a file still counts,
// by its size and times (a change still shows, a same-size edit within
// the clock's resolution might not); past maxEntries a walk stops. The
// item says what was left out either way.
const (
	maxContentFiles = 5000     // files read whole
	maxContentBytes = 64 << 20 // bytes read whole
	maxEntries      = 50000    // directory entries one fingerprint walks
	maxShownFiles   = 100      // file names an item lists per directory; all are fingerprinted
)

// Hasher builds a fingerprint. Parts are length-prefixed, so two different
// sequences never hash alike; a file is a part of its name and the SHA-256
// of its content, and a file is added once however often it is named.
//
// The zero value is ready to use. A Hasher is not safe for concurrent use.
type Hasher struct {
	sum   hash.Hash
	runs  []string
	err   error
	added map[string]bool // absolute paths of files added

	contentFiles int   // files read whole so far
	contentBytes int64 // and their bytes
	entries      int   // directory entries walked
	metaOnly     int   // files counted by size and times only
	truncated    bool  // a walk stopped at maxEntries

	followed map[string]bool // scripts and makefiles read by Command
}

func (h *Hasher) add(kind, name string, data []byte) {
	if h.sum == nil {
		h.sum = sha256.New()
	}
	fmt.Fprintf(h.sum, "%s %d %s %d\n", kind, len(name), name, len(data))
	h.sum.Write(data)
}

// note adds a line for a person to read, which is not fingerprinted.
func (h *Hasher) note(line string) { h.runs = append(h.runs, line) }

// File adds a file's path (as shown) and content. A missing file counts
// (as missing, and is not listed), so that creating it later changes the
// fingerprint; a path that is not a regular file counts by its type and is
// not read.
func (h *Hasher) File(shown, path string) { h.file(shown, path, true) }

func (h *Hasher) file(shown, path string, listed bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if h.added[abs] {
		return
	}
	if h.added == nil {
		h.added = map[string]bool{}
	}
	h.added[abs] = true
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		h.add("nofile", shown, nil) // counted, not listed
		return
	}
	if listed {
		h.runs = append(h.runs, shown)
	}
	if err != nil {
		h.err = errors.Join(h.err, fmt.Errorf("trust: reading %s: %w", path, err))
		h.add("nofile", shown, nil)
		return
	}
	if !fi.Mode().IsRegular() {
		h.add("special", shown, []byte(fi.Mode().Type().String()))
		return
	}
	if h.contentFiles >= maxContentFiles || h.contentBytes+fi.Size() > maxContentBytes {
		h.metaOnly++
		h.add("meta", shown, []byte(metaKey(fi)))
		return
	}
	h.contentFiles++
	h.contentBytes += fi.Size()
	sum, err := contentSum(abs, fi)
	if err != nil {
		h.err = errors.Join(h.err, fmt.Errorf("trust: reading %s: %w", path, err))
		h.add("nofile", shown, nil)
		return
	}
	h.add("file", shown, sum[:])
}

// Text adds a piece of configuration shown as shown (a cron job, a
// webhook), with data its exact content.
func (h *Hasher) Text(shown string, data []byte) {
	h.add("text", shown, data)
	h.runs = append(h.runs, shown)
}

// Hash adds a file known by its content hash (a bundle's input).
func (h *Hasher) Hash(shown, hash string) {
	h.add("hash", shown, []byte(hash))
	h.runs = append(h.runs, shown)
}

// Dir adds every file under path, shown relative to root: in name order,
// through symbolic links (to files and to folders, in the project or out
// of it: what is reached is what runs; each real folder once, so a link
// loop ends), leaving out .git and node_modules folders, special files and
// /proc, /sys and /dev. The item lists at most maxShownFiles names of a
// folder and says what was left out. A missing directory adds nothing.
func (h *Hasher) Dir(path, root string) {
	w := walk{h: h, root: root, visited: map[string]bool{}}
	w.dir(path)
	if w.shown > maxShownFiles {
		h.note(fmt.Sprintf("... and %d more files of %s", w.shown-maxShownFiles, Shown(path, root)))
	}
	if len(w.leftOut) > 0 {
		h.note("left out: " + strings.Join(w.leftOut, ", "))
	}
}

type walk struct {
	h       *Hasher
	root    string
	visited map[string]bool // real paths of folders walked
	shown   int             // files found
	leftOut []string
}

// specialRoots are file systems whose "files" are not code and may block.
var specialRoots = []string{"/proc", "/sys", "/dev"}

func (w *walk) dir(path string) {
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		w.h.err = errors.Join(w.h.err, fmt.Errorf("trust: reading %s: %w", path, err))
		return
	}
	for _, s := range specialRoots {
		if real == s || strings.HasPrefix(real, s+"/") {
			w.leftOut = append(w.leftOut, Shown(path, w.root)+" ("+s+")")
			return
		}
	}
	if w.visited[real] {
		w.h.add("loop", Shown(path, w.root), nil)
		return
	}
	w.visited[real] = true
	entries, err := os.ReadDir(path)
	if err != nil {
		w.h.err = errors.Join(w.h.err, fmt.Errorf("trust: reading %s: %w", path, err))
		return
	}
	for _, e := range entries {
		if w.h.entries >= maxEntries {
			if !w.h.truncated {
				w.h.truncated = true
				w.leftOut = append(w.leftOut, fmt.Sprintf("everything after the first %d entries", maxEntries))
			}
			return
		}
		w.h.entries++
		p := filepath.Join(path, e.Name())
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			fi, err := os.Stat(p)
			if err != nil {
				// A dangling link counts by where it points: pointed
				// somewhere real later, it changes the fingerprint.
				target, _ := os.Readlink(p)
				w.h.add("link", Shown(p, w.root), []byte(target))
				continue
			}
			mode = fi.Mode().Type()
		}
		switch {
		case mode.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules"):
			w.leftOut = append(w.leftOut, Shown(p, w.root)+"/")
		case mode.IsDir():
			w.dir(p)
		case mode.IsRegular():
			w.shown++
			w.h.file(Shown(p, w.root), p, w.shown <= maxShownFiles)
		default:
			w.leftOut = append(w.leftOut, Shown(p, w.root)+" (not a regular file)")
		}
	}
}

// Shown is how an item shows path p: relative to root, slash-separated,
// when p lies inside root; as it is otherwise.
func Shown(p, root string) string {
	if rel, ok := within(root, p); ok {
		return filepath.ToSlash(rel)
	}
	return p
}

// within returns p relative to root when p lies inside root (or is root).
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Item finishes the item. The error, if any, names the files that could
// not be read; the item is then still made, without them.
func (h *Hasher) Item(kind, name string) (Item, error) {
	if h.sum == nil {
		h.sum = sha256.New()
	}
	runs := slices.Clone(h.runs)
	if h.metaOnly > 0 {
		runs = append(runs, fmt.Sprintf("%d files past the first %d files or %d MiB are fingerprinted by their size and times only",
			h.metaOnly, maxContentFiles, maxContentBytes>>20))
	}
	return Item{Kind: kind, Name: name, Runs: runs, Fingerprint: "sha256:" + hex.EncodeToString(h.sum.Sum(nil))}, h.err
}

// The content sums of files already read, by path: a file whose size,
// times, inode and device are unchanged is not read again. Checks run
// before every hook call and may walk a whole project; this keeps them
// to a stat per file. Kept for the process only, never written.
var sums = struct {
	sync.Mutex
	m map[string]cachedSum
}{m: map[string]cachedSum{}}

type cachedSum struct {
	key string
	sum [sha256.Size]byte
}

// maxCachedSums bounds the cache; past it, it starts again empty.
const maxCachedSums = 200000

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// contentSum is the SHA-256 of the regular file abs, whose stat is fi:
// from the cache when the file is as it was when last read.
func contentSum(abs string, fi os.FileInfo) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	key := metaKey(fi)
	sums.Lock()
	c, ok := sums.m[abs]
	sums.Unlock()
	if ok && c.key == key {
		return c.sum, nil
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0) // swapped for a FIFO meanwhile, it must not block
	if err != nil {
		return sum, err
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !ofi.Mode().IsRegular() {
		return sum, fmt.Errorf("not a regular file any more")
	} else {
		key = metaKey(ofi)
	}
	d := sha256.New()
	buf := copyBufs.Get().(*[]byte)
	_, err = io.CopyBuffer(d, struct{ io.Reader }{f}, *buf) // not os.File.WriteTo, which brings its own buffer
	copyBufs.Put(buf)
	if err != nil {
		return sum, err
	}
	d.Sum(sum[:0])
	sums.Lock()
	if len(sums.m) >= maxCachedSums {
		clear(sums.m)
	}
	sums.m[abs] = cachedSum{key, sum}
	sums.Unlock()
	return sum, nil
}
