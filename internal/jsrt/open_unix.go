//go:build unix

package jsrt

import "syscall"

// openNonBlock opens without waiting: a FIFO's open would wait for a writer.
const openNonBlock = syscall.O_NONBLOCK
