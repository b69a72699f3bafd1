package proctest

import (
	"os/exec"
	"testing"
)

// RequirePrograms fails the test, naming the program and what runs it,
// when a program it needs is not installed: a test that silently skips
// proves nothing. scripts/test names the programs CI installs.
func RequirePrograms(t testing.TB, user string, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed: %s runs it (install it to run these tests)", p, user)
		}
	}
}
