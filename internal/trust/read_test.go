package trust

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// A project's script, sourced file, makefile or program may be a link to
// /dev/zero or a FIFO: fingerprinting reads none of them (it would never
// end, or never return), and where the shell would read one, what the
// command reads cannot be known.
func TestCommandDoesNotReadSpecialFiles(t *testing.T) {
	root := tree(t, map[string]string{"ok.sh": "echo ok\n"})
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, name := range []string{"zero.sh", "lib.sh", "Makefile", "prog", "big.sh"} {
		target := "/dev/zero"
		if name == "lib.sh" || name == "prog" {
			target = filepath.Join(root, "fifo")
		}
		if name != "big.sh" {
			if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	big := append([]byte("echo big\n"), make([]byte, maxScript)...)
	os.WriteFile(filepath.Join(root, "big.sh"), big, 0o644)
	for _, c := range []struct{ command, says string }{
		{"sh ./zero.sh", "zero.sh is not a regular file"},
		{". ./lib.sh && sh ./ok.sh", "lib.sh is not a regular file"},
		{"make -s check", "Makefile is not a regular file"},
		{"./prog", "prog is not a regular file"},
		{"sh ./big.sh", "big.sh is too large to read"},
	} {
		it, reads := commandItem(t, c.command, root, root)
		if !slices.Contains(reads, root) || !strings.Contains(strings.Join(it.Runs, "\n"), c.says) {
			t.Errorf("%s: reads %v, runs:\n%s\nwant the folder read whole because %q", c.command, reads, strings.Join(it.Runs, "\n"), c.says)
		}
	}
}

func TestReadFile(t *testing.T) {
	root := tree(t, map[string]string{"a": "12345"})
	if data, err := ReadFile(filepath.Join(root, "a"), 5); err != nil || string(data) != "12345" {
		t.Errorf("%q %v", data, err)
	}
	if _, err := ReadFile(filepath.Join(root, "a"), 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file past the cap: %v", err)
	}
	for _, p := range []string{"/dev/zero", root} {
		if _, err := ReadFile(p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := ReadFile(filepath.Join(root, "missing"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	// A file that says it is empty (as /proc's do) is read whole all the
	// same, and still no more than the cap.
	if data, err := ReadFile("/proc/self/status", 1<<20); err == nil {
		if !strings.Contains(string(data), "Name:") {
			t.Errorf("/proc/self/status read as %q", data)
		}
		if _, err := ReadFile("/proc/self/status", 8); !errors.Is(err, ErrTooLarge) {
			t.Errorf("/proc/self/status past a cap of 8 bytes: %v", err)
		}
	}
}
