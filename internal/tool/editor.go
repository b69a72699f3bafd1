package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Editor is a program that holds the project's files open, such as the
// editor driving Podcode over the Agent Client Protocol. A call whose
// context carries one (WithEditor) has read, write and edit go through it
// instead of the disk, so that what the agent reads and edits is what the
// editor shows, unsaved changes included.
//
// The path checks come first and are the same: the path must lie beneath
// the workspace and name a regular file (or nothing yet); only then is the
// editor asked, with the absolute path (beneath the project, spelled as
// the project's directory is, since that is the name the editor opened it
// by). glob, grep and bash still work on the disk.
//
// Read or Write may be nil (an editor that offers only one); the other
// goes to the disk. Changed, when set, hears each change write and edit
// made, after it was made, with the text before and after, on the tool's
// goroutine.
type Editor struct {
	Read    func(ctx context.Context, path string) (string, error)
	Write   func(ctx context.Context, path, content string) error
	Changed func(FileChange)
}

// FileChange is one file changed by write or edit.
type FileChange struct {
	CallID  string // the tool call that made it
	Path    string // absolute, as the editor names it
	Old     string // the text before ("" for a new file)
	New     string
	Created bool // there was no file before
}

type editorKey struct{}

// WithEditor returns ctx whose built-in file tools read and write through
// e; sub-agents inherit it with the context.
func WithEditor(ctx context.Context, e Editor) context.Context {
	return context.WithValue(ctx, editorKey{}, e)
}

// EditorFrom returns the editor ctx carries; its funcs are nil when it
// carries none.
func EditorFrom(ctx context.Context) Editor {
	e, _ := ctx.Value(editorKey{}).(Editor)
	return e
}

// named is how the editor names a resolved path: beneath the project, as
// the project's directory is spelled (which may run through a link); else
// the resolved path.
func (f *files) named(real string) string {
	root := evalOrSelf(f.ws.Root)
	if within(real, root) {
		if rel, err := filepath.Rel(root, real); err == nil {
			return filepath.Join(f.ws.Root, rel)
		}
	}
	return real
}

// regularOrMissing refuses a name that exists but is not a regular file:
// the disk's view, checked before an editor is asked about the name.
func (f *files) regularOrMissing(l located) (exists bool, err error) {
	switch st, err := l.dir.Stat(l.rel); {
	case err == nil && !st.Mode().IsRegular():
		return true, notRegular(f.show(l.real), st.Mode())
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("%s: %w", f.show(l.real), unwrapPath(err))
	}
}

// editorRead reads the file l names through ed, after the checks.
func (f *files) editorRead(ctx context.Context, ed Editor, l located) (string, error) {
	if _, err := f.regularOrMissing(l); err != nil {
		return "", err
	}
	text, err := ed.Read(ctx, f.named(l.real))
	if err != nil {
		return "", fmt.Errorf("%s: the editor could not read it: %w", f.show(l.real), err)
	}
	return text, nil
}

// loadText is load through ed when it reads: the whole text of the file at
// path, up to maxLoadBytes.
func (f *files) loadText(ctx context.Context, ed Editor, path string) ([]byte, located, error) {
	if ed.Read == nil {
		data, _, l, err := f.load(path)
		return data, l, err
	}
	l, err := f.locate(path)
	if err != nil {
		return nil, l, err
	}
	text, err := f.editorRead(ctx, ed, l)
	if err != nil {
		return nil, l, err
	}
	if len(text) > maxLoadBytes {
		return nil, l, fmt.Errorf("%s is %d bytes; a file is loaded whole only up to %d bytes (read it in parts with read's offset and limit)", f.show(l.real), len(text), maxLoadBytes)
	}
	return []byte(text), l, nil
}

// writeText is write through ed when it writes.
func (f *files) writeText(ctx context.Context, ed Editor, l located, data []byte) (created bool, err error) {
	if ed.Write == nil {
		return f.write(l, data)
	}
	exists, err := f.regularOrMissing(l)
	if err != nil {
		return false, err
	}
	if err := ed.Write(ctx, f.named(l.real), string(data)); err != nil {
		return false, fmt.Errorf("%s: the editor could not write it: %w", f.show(l.real), err)
	}
	return !exists, nil
}

// before is the text of the file l names before write replaces it, for
// Changed: ok is false when it cannot be known (unreadable, too large).
func (f *files) before(ctx context.Context, ed Editor, l located) (old string, ok bool) {
	exists, err := f.regularOrMissing(l)
	switch {
	case err != nil:
		return "", false
	case !exists && ed.Read == nil:
		return "", true
	}
	data, _, err := f.loadText(ctx, ed, l.real)
	if err != nil {
		return "", !exists // an editor may not know a file that is not there
	}
	return string(data), true
}
