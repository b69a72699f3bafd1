package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A cloned project's podcode.json is read before anything is trusted: a
// link to /dev/zero, a FIFO, a huge file or arrays nested a million deep
// are an error naming the file (and the place), not a process that reads
// for ever, waits for ever, runs out of memory or overflows its stack.
func TestProjectFileThatCannotBeReadWhole(t *testing.T) {
	deep := `{"plugin_config": {"p": ` + strings.Repeat("[", 2_000_000) + strings.Repeat("]", 2_000_000) + `}}`
	for _, c := range []struct {
		name  string
		make  func(path string) error
		error string
	}{
		{"/dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "podcode.json: not a regular file but a device"},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "podcode.json: not a regular file but a FIFO"},
		{"a folder", func(p string) error { return os.Mkdir(p, 0o755) }, "podcode.json: not a regular file but a folder"},
		{"huge", func(p string) error {
			return os.WriteFile(p, []byte(`{"agent": {"system": "`+strings.Repeat("x", MaxFileSize)+`"}}`), 0o644)
		}, "podcode.json: larger than 4 MiB"},
		{"deep", func(p string) error { return os.WriteFile(p, []byte(deep), 0o644) }, "podcode.json:1:1023: objects and arrays nest deeper than 1000"},
	} {
		cwd := setup(t, `{}`, "")
		if err := c.make(filepath.Join(cwd, FileName)); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFrom(cwd, filepath.Join(filepath.Dir(cwd), "xdg", "podcode"))
		if err == nil || !strings.Contains(err.Error(), c.error) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.error)
		}
	}
}

// Nesting is counted outside strings and comments, and a file as deep as
// the bound loads.
func TestNestingBound(t *testing.T) {
	ok := `{
		// [[[[ { not nesting
		/* ]]]] */
		"agent": {"system": "[[[{{{\"\\"},
		"plugin_config": {"p": ` + strings.Repeat("[", MaxNesting-2) + strings.Repeat("]", MaxNesting-2) + `}
	}`
	if _, err := Parse(FileName, []byte(ok), true); err != nil {
		t.Errorf("%d deep: %v", MaxNesting, err)
	}
	over := `{"plugin_config": {"p": ` + strings.Repeat("[", MaxNesting-1) + strings.Repeat("]", MaxNesting-1) + `}}`
	if _, err := Parse(FileName, []byte(over), true); err == nil || !strings.Contains(err.Error(), "nest deeper than") {
		t.Errorf("%d deep: %v", MaxNesting+1, err)
	}
}
