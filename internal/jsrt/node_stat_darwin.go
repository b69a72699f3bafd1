package jsrt

import "syscall"

func statTimes(s *syscall.Stat_t) (atime, mtime, ctime syscall.Timespec) {
	return s.Atimespec, s.Mtimespec, s.Ctimespec
}
