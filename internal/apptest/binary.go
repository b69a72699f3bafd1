package apptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Commands of this module that tests run as a user would.
const (
	// Podcode is the podcode command.
	Podcode = "github.com/podcode/podcode/cmd/podcode"
	// Embedded is the podcode command with a Go PreToolUse guard compiled
	// in (examples/embed): an embedder's build.
	Embedded = "github.com/podcode/podcode/examples/embed"
)

var binaries struct {
	mu    sync.Mutex
	dir   string
	built map[string]func() (string, error)
}

// BuildBinary builds the main package importPath of this module (Podcode,
// Embedded) once per test process, from any package's directory, and
// returns the command's path; RemoveBinaries, from TestMain, deletes what
// was built. For TestMain, where no testing.TB exists; tests call Binary.
func BuildBinary(importPath string) (string, error) {
	binaries.mu.Lock()
	if binaries.built == nil {
		binaries.built = map[string]func() (string, error){}
	}
	build := binaries.built[importPath]
	if build == nil {
		build = sync.OnceValues(func() (string, error) {
			binaries.mu.Lock()
			if binaries.dir == "" {
				dir, err := os.MkdirTemp("", "podcode-test-bin")
				if err != nil {
					binaries.mu.Unlock()
					return "", err
				}
				binaries.dir = dir
			}
			dir, err := os.MkdirTemp(binaries.dir, "cmd")
			binaries.mu.Unlock()
			if err != nil {
				return "", err
			}
			// Each named podcode, as a user's would be, in a folder of its own.
			bin := filepath.Join(dir, "podcode")
			if out, err := exec.Command("go", "build", "-o", bin, importPath).CombinedOutput(); err != nil {
				return "", fmt.Errorf("go build %s: %v\n%s", importPath, err, out)
			}
			return bin, nil
		})
		binaries.built[importPath] = build
	}
	binaries.mu.Unlock()
	return build()
}

// Binary is BuildBinary for a test: a build that fails fails tb.
func Binary(tb testing.TB, importPath string) string {
	tb.Helper()
	bin, err := BuildBinary(importPath)
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// RemoveBinaries deletes the commands BuildBinary built; TestMain calls it
// once the tests ran.
func RemoveBinaries() {
	binaries.mu.Lock()
	defer binaries.mu.Unlock()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
}
