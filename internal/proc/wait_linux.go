package proc

import (
	"syscall"
	"unsafe"
)

const pPID = 1 // waitid's P_PID

// waitExit returns once the process has exited, without reaping it: it
// stays a zombie, so its id, which is its group's, cannot be reused while
// Wait kills the group.
func (p *Process) waitExit() error {
	var info [128]byte // a siginfo_t, unread
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(p.pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e != syscall.EINTR {
			if e != 0 {
				return e
			}
			return nil
		}
	}
}
