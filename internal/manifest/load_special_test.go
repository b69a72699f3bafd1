package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podcode/podcode/internal/trust"
)

// A project's manifest is read before anything is trusted: one that is a
// link to /dev/zero, a FIFO (swapped in after the folder was found) or a
// huge file is refused unread, naming it.
func TestLoadRefusesSpecialAndHugeManifests(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, c := range []struct {
		target string
		want   error
	}{{"/dev/zero", trust.ErrNotRegular}, {fifo, trust.ErrNotRegular}, {"", trust.ErrTooLarge}} {
		dir := t.TempDir()
		p := filepath.Join(dir, FileName)
		if c.target != "" {
			os.Symlink(c.target, p)
		} else {
			os.WriteFile(p, append([]byte(`{"id": "x", "version": "`), make([]byte, MaxManifestSize)...), 0o644)
		}
		_, err := Load(Found{Dir: dir, Project: true})
		if err == nil || !strings.Contains(err.Error(), c.want.Error()) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: %v, want %v naming %s", c.target, err, c.want, p)
		}
	}
}
