//go:build unix

package jsrt

import (
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
)

// memoryBackstop is the soft memory limit for the Go runtime: what it uses
// now and half of what the process may still map under its address-space
// limit (RLIMIT_AS counts every mapping, the runtime's reservations and the
// C library's arenas included, so only what is left now is room for the
// heap, and the heap's arenas stay mapped once grown), or three quarters of
// its cgroup's memory limit; the smaller; 0 when neither is set.
func memoryBackstop() int64 {
	var soft int64
	lower := func(n int64) {
		if n > 0 && (soft == 0 || n < soft) {
			soft = n
		}
	}
	var rl syscall.Rlimit
	// RLIM_INFINITY is all ones: above 1<<62.
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur < 1<<62 {
		if mapped := mappedBytes(); mapped > 0 && int64(rl.Cur) > mapped {
			s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
			metrics.Read(s)
			lower(int64(s[0].Value.Uint64()) + (int64(rl.Cur)-mapped)/2)
		}
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n < 1<<62 {
			lower(n / 4 * 3) // "max" (v2) does not parse; v1's "unlimited" is near 1<<63
		}
	}
	return soft
}

// mappedBytes is the process's address space in use (VmSize), or 0 where
// /proc cannot tell.
func mappedBytes() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	pages, err := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
