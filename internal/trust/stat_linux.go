package trust

import (
	"fmt"
	"os"
	"syscall"
)

// metaKey is what identifies a file's content without reading it: its
// size, modification time, and inode, device and change time (which no
// program can set back).
func metaKey(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d %d %d:%d %d.%d", fi.Size(), fi.ModTime().UnixNano(), st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
}
