package tool

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// files opens the files of one tool call, beneath the directories of a
// workspace. Every file a built-in file tool reads or writes is opened
// here, so each passes the same check:
//
//  1. The path is resolved as Workspace.Resolve does (symbolic links
//     followed as far as the path exists) and must lie beneath one of the
//     workspace's directories; that gives the directory and the name
//     relative to it.
//  2. The name is opened through an os.Root on that directory, which walks
//     it one component at a time (openat with O_NOFOLLOW) and refuses any
//     step that leaves the directory. A directory swapped for a link to the
//     outside between 1 and 2 is therefore refused, not followed.
//  3. Only regular files are opened: a named pipe, a device or a socket is
//     refused with an error that names it. The open itself does not block
//     (O_NONBLOCK), and the type is checked on the opened file (fstat), so
//     a file swapped for a pipe after a check cannot hang the call.
//
// What it does not stop: hard links (a hard link inside the project to a
// file outside is a file inside it), bind mounts, and the contents of /proc
// when a configuration lists it in tools.allowed_paths. A files is used by
// one call; Close releases the directories it opened.
type files struct {
	ws    Workspace
	roots map[string]*os.Root // by resolved directory, opened on first use
}

func (w Workspace) files() *files { return &files{ws: w, roots: map[string]*os.Root{}} }

// Close releases the directories f opened.
func (f *files) Close() {
	for _, r := range f.roots {
		r.Close()
	}
}

// root returns the opened directory dir (a resolved directory of the
// workspace).
func (f *files) root(dir string) (*os.Root, error) {
	if r := f.roots[dir]; r != nil {
		return r, nil
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	f.roots[dir] = r
	return r, nil
}

// located is a path checked by locate: the opened workspace directory it
// lies beneath, its name relative to that directory, and its resolved
// absolute form.
type located struct {
	dir  *os.Root
	rel  string
	real string
}

// locate checks path (step 1).
func (f *files) locate(path string) (located, error) {
	_, real, dir, err := f.ws.resolve(path)
	if err != nil {
		return located{}, err
	}
	r, err := f.root(dir)
	if err != nil {
		return located{}, err
	}
	rel, err := filepath.Rel(dir, real)
	if err != nil {
		return located{}, err
	}
	return located{dir: r, rel: rel, real: real}, nil
}

// show is how a message names a resolved path: relative to the project
// when it is inside it, else absolute.
func (f *files) show(real string) string {
	for _, root := range []string{f.ws.Root, evalOrSelf(f.ws.Root)} {
		if r, err := filepath.Rel(root, real); err == nil && within(real, root) {
			return r
		}
	}
	return real
}

func evalOrSelf(p string) string {
	if r, err := evalExisting(p); err == nil {
		return r
	}
	return p
}

// open opens the regular file at path for reading (steps 1 to 3) and
// returns it with what fstat said and the path's resolved form.
func (f *files) open(path string) (*os.File, fs.FileInfo, string, error) {
	l, err := f.locate(path)
	if err != nil {
		return nil, nil, "", err
	}
	file, st, err := openRegular(l.dir, l.rel, f.show(l.real))
	return file, st, l.real, err
}

// openRegular opens name beneath dir for reading, refusing anything but a
// regular file; shown names it in errors.
func openRegular(dir *os.Root, name, shown string) (*os.File, fs.FileInfo, error) {
	// A look first spares opening a device or a socket at all (an open can
	// have effects); the check that counts is the fstat below.
	if st, err := dir.Stat(name); err == nil && !st.Mode().IsRegular() {
		return nil, nil, notRegular(shown, st.Mode())
	}
	return openFstat(dir, name, shown)
}

// openFstat opens name beneath dir without blocking and keeps it only if
// the opened file is a regular one.
func openFstat(dir *os.Root, name, shown string) (*os.File, fs.FileInfo, error) {
	file, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if st, serr := dir.Stat(name); serr == nil && !st.Mode().IsRegular() {
			return nil, nil, notRegular(shown, st.Mode())
		}
		return nil, nil, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		file.Close()
		return nil, nil, notRegular(shown, st.Mode())
	}
	return file, st, nil
}

// unwrapPath drops the *fs.PathError around err, whose path is the name
// relative to a workspace directory: messages name the file as the model
// knows it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func notRegular(name string, m fs.FileMode) error {
	kind := "a special file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	}
	return fmt.Errorf("%s is %s, not a regular file; the file tools work on regular files only", name, kind)
}

// load reads the whole regular file at path, up to maxLoadBytes: above
// that it refuses, saying the size and the cap.
func (f *files) load(path string) (data []byte, st fs.FileInfo, l located, err error) {
	if l, err = f.locate(path); err != nil {
		return nil, nil, l, err
	}
	shown := f.show(l.real)
	file, st, err := openRegular(l.dir, l.rel, shown)
	if err != nil {
		return nil, nil, l, err
	}
	defer file.Close()
	tooBig := func(size int64) error {
		return fmt.Errorf("%s is %d bytes; a file is loaded whole only up to %d bytes (read it in parts with read's offset and limit)", shown, size, maxLoadBytes)
	}
	if st.Size() > maxLoadBytes {
		return nil, nil, l, tooBig(st.Size())
	}
	// Bounded again while reading: the file may grow after the fstat.
	data, err = io.ReadAll(io.LimitReader(file, maxLoadBytes+1))
	if err != nil {
		return nil, nil, l, fmt.Errorf("%s: %w", shown, err)
	}
	if len(data) > maxLoadBytes {
		return nil, nil, l, tooBig(int64(len(data)))
	}
	return data, st, l, nil
}

// write replaces the content of the file l names in one rename, keeping
// its mode (0644 for a new file), creating its directories, so a crash
// never leaves a half-written file. Every step goes through l.dir. A
// name that is not a regular file is refused.
func (f *files) write(l located, data []byte) (created bool, err error) {
	shown := f.show(l.real)
	mode := fs.FileMode(0o644)
	switch st, err := l.dir.Stat(l.rel); {
	case err == nil && !st.Mode().IsRegular():
		return false, notRegular(shown, st.Mode())
	case err == nil:
		mode = st.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	if parent := filepath.Dir(l.rel); parent != "." {
		if err := l.dir.MkdirAll(parent, 0o755); err != nil {
			return false, fmt.Errorf("%s: %w", shown, unwrapPath(err))
		}
	}
	tmp := filepath.Join(filepath.Dir(l.rel), ".podcode-"+rand.Text()[:16])
	t, err := l.dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	defer l.dir.Remove(tmp) // after a successful rename there is nothing to remove
	_, err = t.Write(data)
	if err == nil {
		err = t.Chmod(mode) // on the open file: the umask does not apply, no link is followed
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = l.dir.Rename(tmp, l.rel)
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	return created, nil
}

// ctxReader reads r until ctx ends. The file tools read through it, so a
// cancelled call stops inside a line too: a sparse file holds terabytes
// of zeros without a newline, and costs nothing to make.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// maxScanLine bounds how far the file tools read through one line: a
// longer one is not text, and reading it through could take hours (a
// sparse file of terabytes costs nothing to make).
const maxScanLine = 64 << 20

// errLineTooLong is a line longer than a lineReader's max.
var errLineTooLong = fmt.Errorf("a line is longer than %d MiB", maxScanLine>>20)

// lineReader reads lines of any length up to max (maxScanLine from
// newLineReader; 0 for no limit), keeping at most keep bytes of each: a
// line longer than any buffer is read through, not loaded.
type lineReader struct {
	br   *bufio.Reader
	keep int
	max  int
	line []byte
}

// lineBufs keeps the readers' 64 KiB buffers: a read or a grep would
// otherwise leave one to the collector each time.
var lineBufs = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// newLineReader reads r; release gives its buffer back.
func newLineReader(r io.Reader, keep int) *lineReader {
	br := lineBufs.Get().(*bufio.Reader)
	br.Reset(r)
	return &lineReader{br: br, keep: keep, max: maxScanLine}
}

// release gives the reader's buffer back; l is not used after.
func (l *lineReader) release() {
	l.br.Reset(nil) // no reference to the file kept in the pool
	lineBufs.Put(l.br)
	l.br = nil
}

// next returns the next line without its "\n", cut to keep bytes, with
// whether it was cut; io.EOF after the last line, errLineTooLong for a
// line longer than max. The line is valid until the next call.
func (l *lineReader) next() (line []byte, cut bool, err error) {
	l.line = l.line[:0]
	n, any := 0, false
	for {
		chunk, err := l.br.ReadSlice('\n')
		ended := err == nil
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		any = any || len(chunk) > 0 || ended
		if room := l.keep - len(l.line); room > 0 {
			l.line = append(l.line, chunk[:min(room, len(chunk))]...)
		}
		n += len(chunk)
		if l.max > 0 && n > l.max {
			return nil, false, errLineTooLong
		}
		switch {
		case ended:
			return l.line, n > l.keep, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && any:
			return l.line, n > l.keep, nil
		default:
			return nil, false, err
		}
	}
}
