package jsrt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/trust"
)

// The Go half of node:fs. Each operation is one entry of fsOps; node/fs.js
// calls it in three forms, all through the same entry: sync (host.sync,
// run on the loop, as Node runs its sync calls), callback and promise
// (host.async: run on a goroutine in the runtime's file pools, the result
// settling a promise on the loop). An entry reads its arguments on the
// loop and returns the work to do, which must not touch the runtime, and
// how to turn its result into a JavaScript value.
//
// The bounds of hostio.go hold for every form: a file is read whole only
// if it is regular and at most half the memory budget (maxRead), one read
// by length at most that too; opens never wait on a FIFO; data handed to
// an asynchronous write counts against MaxHeldBytes; a runtime holds at
// most MaxOpenFiles descriptors, all closed when it stops.

// MaxOpenFiles is how many files one runtime may hold open (fs.open,
// streams) at once.
const MaxOpenFiles = 256

// fdBase is the first descriptor number fs.open hands out; 0, 1 and 2 are
// the process's standard streams (1 and 2 write to the log).
const fdBase = 3

// fsWork is what an operation does off the loop, and how its result
// becomes a value on it.
type fsWork struct {
	run     func() (any, error)
	convert func(any) goja.Value // nil: the result as goja converts it
	held    int                  // bytes of the plugin's data run holds
	read    bool                 // a whole-file read: the read pool
}

type fsOp func(r *Runtime, args []goja.Value) (fsWork, error)

var fsOps map[string]fsOp

func init() {
	fsOps = map[string]fsOp{
		"readFile": fsReadFile, "writeFile": fsWriteFile, "stat": fsStat, "fstat": fsFstat,
		"readdir": fsReaddir, "mkdir": fsMkdir, "rm": fsRm, "rmdir": fsRmdir, "unlink": fsUnlink,
		"rename": fsRename, "copyFile": fsCopyFile, "access": fsAccess, "exists": fsExists,
		"realpath": fsRealpath, "readlink": fsReadlink, "symlink": fsSymlink, "link": fsLink,
		"chmod": fsChmod, "utimes": fsUtimes, "truncate": fsTruncate, "ftruncate": fsFtruncate,
		"mkdtemp": fsMkdtemp, "open": fsOpen, "close": fsClose, "read": fsRead, "write": fsWrite,
		"fsync": fsFsync,
	}
	nodeHosts["fs"] = fsHost
}

func fsHost(r *Runtime) (*goja.Object, error) {
	h := r.vm.NewObject()
	h.Set("sync", func(call goja.FunctionCall) goja.Value {
		w := r.fsPrepare(call)
		v, err := w.run()
		if err != nil {
			r.throw(err)
		}
		if w.convert != nil {
			return w.convert(v)
		}
		return r.vm.ToValue(v)
	})
	h.Set("async", func(call goja.FunctionCall) goja.Value {
		w := r.fsPrepare(call)
		pool := r.host.filePool
		if w.read {
			pool = r.host.readPool
		}
		return r.vm.ToValue(r.async(pool, w.held, w.run, w.convert))
	})
	return h, nil
}

// fsPrepare reads the operation's name and arguments (on the loop).
func (r *Runtime) fsPrepare(call goja.FunctionCall) fsWork {
	name := call.Argument(0).String()
	op := fsOps[name]
	if op == nil {
		panic(r.vm.NewTypeError("fs: no operation " + name))
	}
	w, err := op(r, call.Arguments[1:])
	if err != nil {
		r.throw(err)
	}
	return w
}

func arg(args []goja.Value, i int) goja.Value {
	if i < len(args) {
		return args[i]
	}
	return goja.Undefined()
}

func argStr(args []goja.Value, i int) string { return arg(args, i).String() }

func argInt(args []goja.Value, i int) int64 {
	v := arg(args, i)
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	return v.ToInteger()
}

func argBool(args []goja.Value, i int) bool { return arg(args, i).ToBoolean() }

// argBytes is a string argument as its UTF-8 bytes, or a typed array's
// bytes, copied (an asynchronous write must not see later changes).
func (r *Runtime) argBytes(v goja.Value) []byte {
	if s, ok := v.Export().(string); ok {
		return []byte(s)
	}
	var b []byte
	if err := r.vm.ExportTo(v, &b); err != nil {
		panic(r.vm.NewTypeError("fs: data must be a string or a Uint8Array"))
	}
	return append([]byte(nil), b...)
}

func (r *Runtime) bufferValue(v any) goja.Value {
	return r.vm.ToValue(r.vm.NewArrayBuffer(v.([]byte)))
}

// openFlags maps Node's flags ('r', 'w+', 'ax'…) to open(2)'s.
func openFlags(flag string) (int, error) {
	switch flag {
	case "r", "rs", "sr":
		return os.O_RDONLY, nil
	case "r+", "rs+", "sr+":
		return os.O_RDWR, nil
	case "w":
		return os.O_WRONLY | os.O_CREATE | os.O_TRUNC, nil
	case "wx", "xw":
		return os.O_WRONLY | os.O_CREATE | os.O_TRUNC | os.O_EXCL, nil
	case "w+":
		return os.O_RDWR | os.O_CREATE | os.O_TRUNC, nil
	case "wx+", "xw+":
		return os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_EXCL, nil
	case "a", "as", "sa":
		return os.O_WRONLY | os.O_CREATE | os.O_APPEND, nil
	case "ax", "xa":
		return os.O_WRONLY | os.O_CREATE | os.O_APPEND | os.O_EXCL, nil
	case "a+", "as+", "sa+":
		return os.O_RDWR | os.O_CREATE | os.O_APPEND, nil
	case "ax+", "xa+":
		return os.O_RDWR | os.O_CREATE | os.O_APPEND | os.O_EXCL, nil
	}
	return 0, fmt.Errorf("ERR_INVALID_ARG_VALUE: the flag %q is not one of Node's open flags", flag)
}

// openNode opens path as Node's fs.open does, but never waits on a FIFO
// and refuses one, and a socket: a plugin gets regular files, folders
// (read-only) and character devices such as /dev/null.
func openNode(path, shown string, flags int, mode os.FileMode) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, flags|syscall.O_NONBLOCK|syscall.O_CLOEXEC, mode)
	if err != nil {
		return nil, nil, sysErr("open", shown, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, sysErr("fstat", shown, err)
	}
	m := st.Mode()
	if m&(fs.ModeNamedPipe|fs.ModeSocket) != 0 {
		f.Close()
		return nil, nil, fmt.Errorf("open '%s': %s is %s: Podcode plugins do not open FIFOs or sockets", shown, shown, trust.FileType(m))
	}
	if m.IsRegular() {
		// back to blocking reads and writes, as Node's are
		if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return f, st, nil
}

func fsReadFile(r *Runtime, args []goja.Value) (fsWork, error) {
	target, asText, flag := arg(args, 0), argBool(args, 1), argStr(args, 2)
	max := r.maxRead()
	conv := r.bufferValue
	if asText {
		conv = func(v any) goja.Value { return r.vm.ToValue(bytesString(v.([]byte))) }
	}
	if fd, ok := target.Export().(int64); ok {
		f, err := r.fdFile(fd)
		if err != nil {
			err.(*SysError).Syscall = "read"
			return fsWork{}, err
		}
		return fsWork{read: true, convert: conv, run: func() (any, error) {
			data, err := io.ReadAll(io.LimitReader(f, max+1))
			if err != nil {
				return nil, sysErr("read", "", err)
			}
			if int64(len(data)) > max {
				return nil, readTooLarge(f.Name(), max)
			}
			return data, nil
		}}, nil
	}
	shown := target.String()
	path := r.abs(shown)
	if flag != "" && flag != "r" {
		flags, err := openFlags(flag)
		if err != nil {
			return fsWork{}, err
		}
		if flags&(os.O_WRONLY|os.O_RDWR) != 0 {
			// 'a+' or 'w+' create (or empty) the file first, as Node does
			return fsWork{read: true, convert: conv, run: func() (any, error) {
				f, _, err := openNode(path, shown, flags, 0o666)
				if err != nil {
					return nil, err
				}
				f.Close()
				return readWhole(path, shown, max)
			}}, nil
		}
	}
	return fsWork{read: true, convert: conv, run: func() (any, error) { return readWhole(path, shown, max) }}, nil
}

// pathArg is a path argument made absolute against the runtime's
// directory, and as the plugin gave it: Node's errors quote that.
func (r *Runtime) pathArg(args []goja.Value, i int) (abs, shown string) {
	shown = argStr(args, i)
	return r.abs(shown), shown
}

func readTooLarge(path string, max int64) error {
	return fmt.Errorf("readFile: %s is larger than %s, the most one plugin reads at once (half its memory budget)", path, mib(max))
}

// readWhole is readRegular with Node's errors (naming the path as shown):
// a folder is EISDIR, a missing file ENOENT with the call Node names.
func readWhole(path, shown string, max int64) ([]byte, error) {
	data, err := trust.ReadFile(path, max)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, trust.ErrTooLarge):
		return nil, readTooLarge(shown, max)
	case errors.Is(err, trust.ErrNotRegular):
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			return nil, &SysError{Errno: syscall.EISDIR, Syscall: "read"}
		}
		return nil, fmt.Errorf("readFile: %w", err)
	}
	return nil, sysErr("open", shown, err)
}

func fsWriteFile(r *Runtime, args []goja.Value) (fsWork, error) {
	target, data, flag, mode := arg(args, 0), r.argBytes(arg(args, 1)), argStr(args, 2), os.FileMode(argInt(args, 3))
	if fd, ok := target.Export().(int64); ok {
		f, err := r.fdFile(fd)
		if err != nil {
			return fsWork{}, err
		}
		return fsWork{held: len(data), run: func() (any, error) {
			_, err := f.Write(data)
			return goja.Undefined(), sysErr("write", "", err)
		}}, nil
	}
	shown := target.String()
	path := r.abs(shown)
	flags, err := openFlags(flag)
	if err != nil {
		return fsWork{}, err
	}
	if mode == 0 {
		mode = 0o666
	}
	return fsWork{held: len(data), run: func() (any, error) {
		// Truncate only once the file is known to be one: a FIFO is refused
		// without waiting, and a folder or a device left as it was.
		f, st, err := openNode(path, shown, flags&^os.O_TRUNC, mode)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if !st.Mode().IsRegular() && !st.IsDir() && st.Mode()&fs.ModeCharDevice == 0 {
			return nil, fmt.Errorf("writeFile: %s is %s, not a file", shown, trust.FileType(st.Mode()))
		}
		if flags&os.O_TRUNC != 0 && st.Mode().IsRegular() {
			if err := f.Truncate(0); err != nil {
				return nil, sysErr("open", shown, err)
			}
		}
		if _, err := f.Write(data); err != nil {
			return nil, sysErr("write", "", err)
		}
		return goja.Undefined(), nil
	}}, nil
}

// statFields is a Stats object's numbers, in the order node/fs.js reads
// them.
func statFields(st os.FileInfo) []any {
	sys, _ := st.Sys().(*syscall.Stat_t)
	if sys == nil {
		return []any{0, int64(st.Mode().Perm()), 1, 0, 0, 0, 4096, 0, st.Size(), 0, msOf(st.ModTime()), msOf(st.ModTime()), msOf(st.ModTime()), msOf(st.ModTime())}
	}
	ts := func(t syscall.Timespec) float64 { return float64(t.Sec)*1e3 + float64(t.Nsec)/1e6 }
	atime, mtime, ctime := statTimes(sys)
	birth := ctime
	if mtime.Sec < ctime.Sec || mtime.Sec == ctime.Sec && mtime.Nsec < ctime.Nsec {
		birth = mtime // Linux's stat(2) has no birth time; Node's statx often does, never after either
	}
	return []any{int64(sys.Dev), int64(sys.Mode), int64(sys.Nlink), int64(sys.Uid), int64(sys.Gid), int64(sys.Rdev),
		int64(sys.Blksize), int64(sys.Ino), sys.Size, int64(sys.Blocks), ts(atime), ts(mtime), ts(ctime), ts(birth)}
}

func msOf(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

func fsStat(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	follow, throwIfMissing := argBool(args, 1), len(args) < 3 || argBool(args, 2)
	return fsWork{run: func() (any, error) {
		var st os.FileInfo
		var err error
		call := "stat"
		if follow {
			st, err = os.Stat(path)
		} else {
			call = "lstat"
			st, err = os.Lstat(path)
		}
		if err != nil {
			if !throwIfMissing && errors.Is(err, fs.ErrNotExist) {
				return goja.Undefined(), nil
			}
			return nil, sysErr(call, shown, err)
		}
		return statFields(st), nil
	}}, nil
}

func fsFstat(r *Runtime, args []goja.Value) (fsWork, error) {
	f, err := r.fdFile(argInt(args, 0))
	if err != nil {
		return fsWork{}, err
	}
	return fsWork{run: func() (any, error) {
		st, err := f.Stat()
		if err != nil {
			return nil, sysErr("fstat", "", err)
		}
		return statFields(st), nil
	}}, nil
}

// Node's dirent types (UV_DIRENT_*).
func direntType(m fs.FileMode) int {
	switch {
	case m.IsRegular():
		return 1
	case m.IsDir():
		return 2
	case m&fs.ModeSymlink != 0:
		return 3
	case m&fs.ModeNamedPipe != 0:
		return 4
	case m&fs.ModeSocket != 0:
		return 5
	case m&fs.ModeCharDevice != 0:
		return 6
	case m&fs.ModeDevice != 0:
		return 7
	}
	return 0
}

func fsReaddir(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	withTypes := argBool(args, 1)
	return fsWork{run: func() (any, error) {
		entries, err := readDir(path, shown)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, len(entries)*2)
		for _, e := range entries {
			out = append(out, e.Name())
			if withTypes {
				out = append(out, direntType(e.Type()))
			}
		}
		return out, nil
	}, convert: func(v any) goja.Value { return r.vm.NewArray(v.([]any)...) }}, nil
}

func fsMkdir(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	recursive, mode := argBool(args, 1), os.FileMode(argInt(args, 2))
	if mode == 0 {
		mode = 0o777
	}
	return fsWork{run: func() (any, error) {
		if !recursive {
			return goja.Undefined(), sysErr("mkdir", shown, os.Mkdir(path, mode))
		}
		// The first folder made, as Node returns it, or undefined.
		first := ""
		for d := path; ; d = filepath.Dir(d) {
			st, err := os.Stat(d)
			if err == nil {
				if !st.IsDir() {
					return nil, &SysError{Errno: syscall.ENOTDIR, Syscall: "mkdir", Path: shown}
				}
				break
			}
			first = d
			if filepath.Dir(d) == d {
				break
			}
		}
		if err := os.MkdirAll(path, mode); err != nil {
			if errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTDIR) {
				return nil, &SysError{Errno: syscall.ENOTDIR, Syscall: "mkdir", Path: shown}
			}
			return nil, sysErr("mkdir", shown, err)
		}
		if first == "" {
			return goja.Undefined(), nil
		}
		return first, nil
	}}, nil
}

func fsRm(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	recursive, force := argBool(args, 1), argBool(args, 2)
	return fsWork{run: func() (any, error) {
		st, err := os.Lstat(path)
		if err != nil {
			if force && errors.Is(err, fs.ErrNotExist) {
				return goja.Undefined(), nil
			}
			return nil, sysErr("lstat", shown, err)
		}
		if st.IsDir() {
			if !recursive {
				return nil, &rmDirError{path: shown}
			}
			return goja.Undefined(), sysErr("rm", shown, os.RemoveAll(path))
		}
		return goja.Undefined(), sysErr("unlink", shown, os.Remove(path))
	}}, nil
}

// rmDirError is Node's ERR_FS_EISDIR of fs.rm on a folder without
// recursive.
type rmDirError struct{ path string }

func (e *rmDirError) Error() string {
	return "Path is a directory: rm returned EISDIR (is a directory) " + e.path
}

func fsRmdir(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	recursive := argBool(args, 1)
	return fsWork{run: func() (any, error) {
		if recursive {
			return goja.Undefined(), sysErr("rmdir", shown, os.RemoveAll(path))
		}
		return goja.Undefined(), sysErr("rmdir", shown, syscall.Rmdir(path))
	}}, nil
}

func fsUnlink(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	return fsWork{run: func() (any, error) { return goja.Undefined(), sysErr("unlink", shown, syscall.Unlink(path)) }}, nil
}

func fsRename(r *Runtime, args []goja.Value) (fsWork, error) {
	from, fromShown := r.pathArg(args, 0)
	to, toShown := r.pathArg(args, 1)
	return fsWork{run: func() (any, error) {
		return goja.Undefined(), sysErr2("rename", fromShown, toShown, syscall.Rename(from, to))
	}}, nil
}

// copyFileExcl is fs.constants.COPYFILE_EXCL.
const copyFileExcl = 1

func fsCopyFile(r *Runtime, args []goja.Value) (fsWork, error) {
	src, srcShown := r.pathArg(args, 0)
	dst, dstShown := r.pathArg(args, 1)
	mode := argInt(args, 2)
	return fsWork{run: func() (any, error) {
		in, st, err := openNode(src, srcShown, os.O_RDONLY, 0)
		if err != nil {
			return nil, sysErr2("copyfile", srcShown, dstShown, errors.Unwrap(err))
		}
		defer in.Close()
		if st.IsDir() {
			return nil, &SysError{Errno: syscall.EISDIR, Syscall: "copyfile", Path: srcShown, Dest: dstShown}
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if mode&copyFileExcl != 0 {
			flags |= os.O_EXCL
		}
		out, _, err := openNode(dst, dstShown, flags, st.Mode().Perm())
		if err != nil {
			var se *SysError
			if errors.As(err, &se) {
				return nil, &SysError{Errno: se.Errno, Syscall: "copyfile", Path: srcShown, Dest: dstShown}
			}
			return nil, err
		}
		_, err = io.Copy(out, in)
		if err1 := out.Close(); err == nil {
			err = err1
		}
		return goja.Undefined(), sysErr2("copyfile", srcShown, dstShown, err)
	}}, nil
}

func fsAccess(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	mode := uint32(argInt(args, 1))
	return fsWork{run: func() (any, error) {
		return goja.Undefined(), sysErr("access", shown, syscall.Access(path, mode))
	}}, nil
}

func fsExists(r *Runtime, args []goja.Value) (fsWork, error) {
	path, _ := r.pathArg(args, 0)
	return fsWork{run: func() (any, error) {
		_, err := os.Stat(path)
		return err == nil, nil
	}}, nil
}

func fsRealpath(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	return fsWork{run: func() (any, error) {
		p, err := filepath.EvalSymlinks(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, sysErr("lstat", pe.Path, pe.Err)
			}
			return nil, sysErr("realpath", shown, err)
		}
		return p, nil
	}}, nil
}

func fsReadlink(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	return fsWork{run: func() (any, error) {
		p, err := os.Readlink(path)
		if err != nil {
			return nil, sysErr("readlink", shown, err)
		}
		return p, nil
	}}, nil
}

func fsSymlink(r *Runtime, args []goja.Value) (fsWork, error) {
	target := argStr(args, 0)
	path, shown := r.pathArg(args, 1)
	return fsWork{run: func() (any, error) {
		return goja.Undefined(), sysErr2("symlink", target, shown, syscall.Symlink(target, path))
	}}, nil
}

func fsLink(r *Runtime, args []goja.Value) (fsWork, error) {
	existing, existingShown := r.pathArg(args, 0)
	path, shown := r.pathArg(args, 1)
	return fsWork{run: func() (any, error) {
		return goja.Undefined(), sysErr2("link", existingShown, shown, syscall.Link(existing, path))
	}}, nil
}

func fsChmod(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	mode := uint32(argInt(args, 1))
	return fsWork{run: func() (any, error) {
		return goja.Undefined(), sysErr("chmod", shown, syscall.Chmod(path, mode))
	}}, nil
}

func fsUtimes(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	at, mt := arg(args, 1).ToFloat(), arg(args, 2).ToFloat() // seconds
	return fsWork{run: func() (any, error) {
		toTime := func(s float64) time.Time {
			sec, frac := math.Modf(s)
			return time.Unix(int64(sec), int64(frac*1e9))
		}
		err := os.Chtimes(path, toTime(at), toTime(mt))
		return goja.Undefined(), sysErr("utime", shown, err)
	}}, nil
}

func fsTruncate(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	n := argInt(args, 1)
	return fsWork{run: func() (any, error) {
		f, _, err := openNode(path, shown, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return goja.Undefined(), sysErr("ftruncate", "", f.Truncate(n))
	}}, nil
}

func fsFtruncate(r *Runtime, args []goja.Value) (fsWork, error) {
	f, err := r.fdFile(argInt(args, 0))
	if err != nil {
		return fsWork{}, err
	}
	n := argInt(args, 1)
	return fsWork{run: func() (any, error) { return goja.Undefined(), sysErr("ftruncate", "", f.Truncate(n)) }}, nil
}

func fsMkdtemp(r *Runtime, args []goja.Value) (fsWork, error) {
	prefix := argStr(args, 0)
	full := r.abs(prefix)
	return fsWork{run: func() (any, error) {
		dir, base := filepath.Dir(full), filepath.Base(full)
		if strings.HasSuffix(prefix, "/") {
			dir, base = full, ""
		}
		p, err := os.MkdirTemp(dir, base+"*")
		if err != nil {
			return nil, sysErr("mkdtemp", prefix+"XXXXXX", err)
		}
		if !filepath.IsAbs(prefix) {
			// Node returns the path as the prefix was written
			rel, _ := filepath.Rel(r.opts.Cwd, p)
			return rel, nil
		}
		return p, nil
	}}, nil
}

// Descriptors. The table is the loop's; the files are safe to use from
// the goroutines of asynchronous operations.

func (r *Runtime) fdFile(fd int64) (*os.File, error) {
	if f := r.host.fds[fd]; f != nil {
		return f, nil
	}
	return nil, &SysError{Errno: syscall.EBADF, Syscall: "fstat"}
}

func fsOpen(r *Runtime, args []goja.Value) (fsWork, error) {
	path, shown := r.pathArg(args, 0)
	flag, mode := argStr(args, 1), os.FileMode(argInt(args, 2))
	flags, err := openFlags(flag)
	if err != nil {
		return fsWork{}, err
	}
	if mode == 0 {
		mode = 0o666
	}
	if len(r.host.fds) >= MaxOpenFiles {
		return fsWork{}, fmt.Errorf("EMFILE: this plugin holds %d open files, the most one plugin may; close some (fs.close, stream.destroy)", MaxOpenFiles)
	}
	return fsWork{run: func() (any, error) {
		f, _, err := openNode(path, shown, flags, mode)
		return f, err
	}, convert: func(v any) goja.Value {
		f := v.(*os.File)
		if r.host.fds == nil {
			r.host.fds = map[int64]*os.File{}
		}
		if len(r.host.fds) >= MaxOpenFiles {
			f.Close()
			panic(r.vm.NewGoError(fmt.Errorf("EMFILE: this plugin holds %d open files, the most one plugin may", MaxOpenFiles)))
		}
		fd := r.host.nextFd
		if fd < fdBase {
			fd = fdBase
		}
		for r.host.fds[fd] != nil {
			fd++
		}
		r.host.nextFd = fd + 1
		r.host.fds[fd] = f
		return r.vm.ToValue(fd)
	}}, nil
}

func fsClose(r *Runtime, args []goja.Value) (fsWork, error) {
	fd := argInt(args, 0)
	f, err := r.fdFile(fd)
	if err != nil {
		err.(*SysError).Syscall = "close"
		return fsWork{}, err
	}
	delete(r.host.fds, fd) // at once: the number is free for the next open
	return fsWork{run: func() (any, error) { return goja.Undefined(), sysErr("close", "", f.Close()) }}, nil
}

// fsRead reads at most length bytes at position (-1: the file's own
// offset), as an ArrayBuffer the script copies where it wants them.
func fsRead(r *Runtime, args []goja.Value) (fsWork, error) {
	f, err := r.fdFile(argInt(args, 0))
	if err != nil {
		err.(*SysError).Syscall = "read"
		return fsWork{}, err
	}
	length, pos := argInt(args, 1), argInt(args, 2)
	if max := r.maxRead(); length > max {
		return fsWork{}, fmt.Errorf("fs.read: %d bytes at once is more than this plugin reads at once (%s, half its memory budget)", length, mib(max))
	}
	if length < 0 {
		length = 0
	}
	return fsWork{run: func() (any, error) {
		buf := make([]byte, length)
		var n int
		var err error
		if pos >= 0 {
			n, err = f.ReadAt(buf, pos)
		} else {
			n, err = f.Read(buf)
		}
		if err != nil && err != io.EOF {
			return nil, sysErr("read", "", err)
		}
		return buf[:n], nil
	}, convert: r.bufferValue, read: true}, nil
}

func fsWrite(r *Runtime, args []goja.Value) (fsWork, error) {
	fd := argInt(args, 0)
	data, pos := r.argBytes(arg(args, 1)), argInt(args, 2)
	if fd == 1 || fd == 2 {
		// the process's stdout and stderr are the server's log
		r.hostLog(map[int64]string{1: "info", 2: "warn"}[fd], r.vm.ToValue(strings.TrimSuffix(string(data), "\n")))
		return fsWork{run: func() (any, error) { return len(data), nil }}, nil
	}
	f, err := r.fdFile(fd)
	if err != nil {
		err.(*SysError).Syscall = "write"
		return fsWork{}, err
	}
	return fsWork{held: len(data), run: func() (any, error) {
		var n int
		var err error
		if pos >= 0 {
			n, err = f.WriteAt(data, pos)
		} else {
			n, err = f.Write(data)
		}
		return n, sysErr("write", "", err)
	}}, nil
}

func fsFsync(r *Runtime, args []goja.Value) (fsWork, error) {
	f, err := r.fdFile(argInt(args, 0))
	if err != nil {
		return fsWork{}, err
	}
	return fsWork{run: func() (any, error) { return goja.Undefined(), sysErr("fsync", "", f.Sync()) }}, nil
}

// closeFiles closes the descriptors a runtime still holds, as it stops.
func (r *Runtime) closeFiles() {
	for fd, f := range r.host.fds {
		f.Close()
		delete(r.host.fds, fd)
	}
}
