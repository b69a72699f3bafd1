package claudehooks

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/podcode/podcode/internal/trust"
)

// A cloned project's settings file may be a link to /dev/zero or to a
// FIFO, or huge: Load refuses it, naming it, instead of reading for ever
// (or waiting for ever) before anything was trusted.
func TestLoadRefusesSpecialAndHugeSettings(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, c := range []struct {
		name, target string
		want         error
	}{
		{SettingsFile, "/dev/zero", trust.ErrNotRegular},
		{LocalSettingsFile, fifo, trust.ErrNotRegular},
		{SettingsFile, "", trust.ErrTooLarge},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, filepath.FromSlash(c.name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if c.target != "" {
			os.Symlink(c.target, p)
		} else {
			os.WriteFile(p, append([]byte(`{"hooks": {}, "x": "`), make([]byte, MaxSettingsSize)...), 0o644)
		}
		if _, err := Load(dir); !errors.Is(err, c.want) {
			t.Errorf("%s -> %q: %v, want %v", c.name, c.target, err, c.want)
		}
	}
}
