package proc

import (
	"errors"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const pPID = 1 // waitid's P_PID

// dieWithServer has the kernel kill the process when Podcode dies, by any
// means (SIGKILL, a crash): a process Podcode started has no reason to
// outlive it. Only that process gets the signal, not what it started in
// turn: a sandboxed command's is the first process of its PID namespace,
// so the whole namespace ends with it; an unsandboxed shell's own children
// are left behind (catching them takes a supervisor process per call; see
// docs/architecture.md). The signal is tied to the thread that started the
// process, which the Go runtime ends only for a goroutine that locked it
// and exits locked, which Podcode never does where it starts processes.
func dieWithServer(a *syscall.SysProcAttr) {
	if a.Pdeathsig == 0 { // a caller's own is kept
		a.Pdeathsig = syscall.SIGKILL
	}
}

// waitExit returns once the process has exited, without reaping it: it
// stays a zombie, so its id, which is its group's, cannot be reused while
// Wait kills the group.
//
// It waits without holding a thread: a pidfd of the process, which becomes
// readable when it exits, waits in the runtime's poller, and waitid only
// looks (WNOHANG). A blocking waitid would take a thread per process, and
// the Go runtime ends the whole server at 10,000 threads. Where pidfds
// cannot be polled (Linux before 5.10), it falls back to the blocking wait.
func (p *Process) waitExit() error {
	fd, err := unix.PidfdOpen(p.pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return p.waitid(0)
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return p.waitid(0)
	}
	var werr error
	err = rc.Read(func(uintptr) bool {
		werr = p.waitid(syscall.WNOHANG)
		return !errors.Is(werr, errNotYet)
	})
	if err != nil {
		// Not pollable after all: wait the blocking way.
		return p.waitid(0)
	}
	return werr
}

// errNotYet is waitid with WNOHANG finding the process still running.
var errNotYet = errors.New("the process has not exited yet")

// waitid waits (with flags, WNOHANG or 0) for the process's exit without
// reaping it.
func (p *Process) waitid(flags int) error {
	var info unix.Siginfo // si_signo stays 0 unless the process has exited
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(p.pid), uintptr(unsafe.Pointer(&info)),
			uintptr(syscall.WEXITED|syscall.WNOWAIT|flags), 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return e
		case flags&syscall.WNOHANG != 0 && info.Signo == 0:
			return errNotYet
		}
		return nil
	}
}
