package jsrt

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/dop251/goja"
	"golang.org/x/sys/unix"
)

// SysError is a failed system call as Node reports it: `ENOENT: no such
// file or directory, open '/x'`, with errno, code, syscall, path and dest
// on the error a plugin catches.
type SysError struct {
	Errno   syscall.Errno
	Syscall string // Node's name of the call: open, scandir, rename…
	Path    string
	Dest    string
}

func (e *SysError) Code() string {
	if name := unix.ErrnoName(e.Errno); name != "" {
		return name
	}
	return fmt.Sprintf("Unknown system error %d", int(e.Errno))
}

func (e *SysError) Error() string {
	s := e.Code() + ": " + errnoMessage(e.Errno) + ", " + e.Syscall
	if e.Path != "" {
		s += " '" + e.Path + "'"
	}
	if e.Dest != "" {
		s += " -> '" + e.Dest + "'"
	}
	return s
}

func (e *SysError) Unwrap() error { return e.Errno }

// errnoMessage is libuv's description of errno, as Node's messages give
// it, or the C library's where the two agree.
func errnoMessage(e syscall.Errno) string {
	if m := uvMessages[unix.ErrnoName(e)]; m != "" {
		return m
	}
	return e.Error()
}

// uvMessages are libuv's descriptions of the errors, which Node's
// messages quote (where they differ from the C library's).
var uvMessages = map[string]string{
	"E2BIG": "argument list too long", "EACCES": "permission denied", "EAGAIN": "resource temporarily unavailable",
	"EBADF": "bad file descriptor", "EBUSY": "resource busy or locked", "ECANCELED": "operation canceled",
	"ECONNREFUSED": "connection refused", "ECONNRESET": "connection reset by peer", "EEXIST": "file already exists",
	"EFBIG": "file too large", "EINVAL": "invalid argument", "EIO": "i/o error", "EISDIR": "illegal operation on a directory",
	"ELOOP": "too many symbolic links encountered", "EMFILE": "too many open files", "ENAMETOOLONG": "name too long",
	"ENODEV": "no such device", "ENOENT": "no such file or directory", "ENOEXEC": "exec format error",
	"ENOSPC": "no space left on device", "ENOSYS": "function not implemented", "ENOTDIR": "not a directory",
	"ENOTEMPTY": "directory not empty", "ENOTSUP": "operation not supported on socket", "ENXIO": "no such device or address",
	"EPERM": "operation not permitted", "EPIPE": "broken pipe", "EROFS": "read-only file system", "ESPIPE": "invalid seek",
	"ESRCH": "no such process", "ETIMEDOUT": "connection timed out", "ETXTBSY": "text file is busy",
	"EXDEV": "cross-device link not permitted",
}

// sysErr makes err, from an operation on path (and dest), a *SysError
// named as Node names the call, when it carries an errno; other errors
// are returned as they are.
func sysErr(call, path string, err error) error { return sysErr2(call, path, "", err) }

func sysErr2(call, path, dest string, err error) error {
	if err == nil {
		return nil
	}
	var se *SysError
	if errors.As(err, &se) {
		return err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &SysError{Errno: errno, Syscall: call, Path: path, Dest: dest}
	}
	return err
}

// errorValue is the JavaScript error a host call rejects or throws with
// for err: a *SysError as Node's (Error with errno, code, syscall, path,
// dest), anything else as a plain Error with its message. Loop goroutine
// only.
func (r *Runtime) errorValue(err error) goja.Value {
	var se *SysError
	if !errors.As(err, &se) {
		return r.vm.NewGoError(err)
	}
	e, cerr := r.host.errorCtor(nil, r.vm.ToValue(err.Error()))
	if cerr != nil {
		return r.vm.NewGoError(err)
	}
	e.Set("errno", -int(se.Errno))
	e.Set("code", se.Code())
	e.Set("syscall", se.Syscall)
	if se.Path != "" {
		e.Set("path", se.Path)
	}
	if se.Dest != "" {
		e.Set("dest", se.Dest)
	}
	return e
}

// throw panics with err's JavaScript error, for a host function called
// from JavaScript to throw it.
func (r *Runtime) throw(err error) {
	panic(r.errorValue(err))
}
