package trust

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Reading files a project brings: any of them may be a link to a device
// (/dev/zero never ends), a FIFO (never answers) or a huge file. Before
// the user trusts anything, reading one must neither hang nor exhaust
// memory.

// ErrNotRegular is the error of a path that is not a regular file (a FIFO,
// a device, a socket, a folder), wherever its links lead.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is the error of a file larger than its reader allows.
var ErrTooLarge = errors.New("too large to read")

// OpenRegular opens path for reading, following links, without blocking
// on a FIFO, and returns it only if what it opened is a regular file.
func OpenRegular(path string) (*os.File, error) { return OpenFile(path, os.O_RDONLY, 0) }

// OpenFile is os.OpenFile (flag and perm as there) for a regular file
// only: it opens without blocking on a FIFO and refuses what it opened
// when that is not a regular file.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w but %s", path, ErrNotRegular, FileType(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file path (OpenRegular), at most max bytes:
// a larger file is ErrTooLarge, and no more than max+1 bytes of it are
// read.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized as the file says, when it says (a file in /proc says 0), so
	// that reading does not copy as it grows; never more than max+1 read.
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		size = min(fi.Size(), max) + 1
	}
	data := make([]byte, 0, size)
	for int64(len(data)) <= max {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):min(int64(cap(data)), max+1)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, max)
	}
	return data, nil
}

// FileType names what a path that is not a regular file is: "a FIFO",
// "a device"…, for messages.
func FileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
