package apptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The scenario of each results' folder is its name without the time the
// suite adds, whatever the time's digits (a seconds field of 20 too), and
// a name with a slash is one scenario.
func TestReadConformanceChecks(t *testing.T) {
	dir := t.TempDir()
	for _, folder := range []string{"server-ping-2026-12-06T09-53-20-104Z", "auth/scope-from-www-authenticate-2026-12-06T09-53-20-104Z"} {
		path := filepath.Join(dir, folder, "checks.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(`[{"id":"x","status":"WARNING"}]`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadConformanceChecks(dir, "server-")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, checks := range got {
		if len(checks) != 1 || !checks[0].Failed() {
			t.Errorf("%s: %+v", name, checks)
		}
		names = append(names, name)
	}
	if len(got) != 2 || got["ping"] == nil || got["auth/scope-from-www-authenticate"] == nil {
		t.Errorf("scenarios %q", strings.Join(names, ", "))
	}
}
