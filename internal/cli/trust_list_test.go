package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `podcode trust` tells a package as one line with its file count, lists
// nothing already trusted (but with --all), trusts one item by its path,
// and shows what changed in an item since it was trusted, file by file.
func TestTrustPackagesPathsAndChanges(t *testing.T) {
	dir := project(t, map[string]string{
		"podcode.json":          `{"plugin": ["./pkg"]}`,
		"pkg/package.json":      `{"name": "pkg", "main": "index.js"}`,
		"pkg/index.js":          `import a from "./lib/a.js"; import b from "./lib/b.js"; export default { id: "pkg", server: () => ({}) }`,
		"pkg/lib/a.js":          `export default 1`,
		"pkg/lib/b.js":          `export default 2`,
		".podcode/plugins/x.ts": `export default { id: "x", server: () => ({}) }`,
		".podcode/plugins/y.ts": `export default { id: "y", server: () => ({}) }`,
	})
	out, _ := run(t, "trust")
	if !strings.Contains(out, "plugin ./pkg (never trusted): 3 files") || strings.Contains(out, "lib/a.js") {
		t.Errorf("a package is not one line with its file count:\n%s", out)
	}
	if out, _ := run(t, "trust", "--files"); !strings.Contains(out, "pkg/lib/a.js") {
		t.Errorf("--files does not list a package's files:\n%s", out)
	}

	// One item by path: only it is listed and trusted.
	out, err := run(t, "trust", "--yes", ".podcode/plugins/x.ts")
	if err != nil || !strings.Contains(out, "Trusted 1") || strings.Contains(out, "y.ts") {
		t.Fatalf("trust by path: %v\n%s", err, out)
	}
	if _, err := run(t, "trust", "--yes", "nowhere.ts"); err == nil || !strings.Contains(err.Error(), "nowhere.ts is none of the code") {
		t.Errorf("an unknown path: %v", err)
	}
	out, _ = run(t, "trust")
	if strings.Contains(out, "x.ts") || !strings.Contains(out, "y.ts") || !strings.Contains(out, "1 item trusted already, not listed") {
		t.Errorf("what is trusted is listed again:\n%s", out)
	}
	if out, _ := run(t, "trust", "--all"); !strings.Contains(out, "plugin .podcode/plugins/x.ts (trusted)") {
		t.Errorf("--all does not list what is trusted:\n%s", out)
	}

	// Changed since trusted: files added, removed, changed.
	if _, err := run(t, "trust", "--yes"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "pkg/index.js"), []byte(`import a from "./lib/a.js"; import c from "./lib/c.js"; export default { id: "pkg", server: () => ({}) }`), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg/lib/a.js"), []byte(`export default 10`), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg/lib/c.js"), []byte(`export default 3`), 0o644)
	out, _ = run(t, "trust")
	for _, want := range []string{"plugin ./pkg (changed since it was trusted)", "+ pkg/lib/c.js", "- pkg/lib/b.js", "~ pkg/index.js", "~ pkg/lib/a.js"} {
		if !strings.Contains(out, want) {
			t.Errorf("the change does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "x.ts") {
		t.Errorf("an unchanged item is listed:\n%s", out)
	}
}

// An item trusted without `podcode trust` (plugin init) has no digests:
// its change is told as a whole, and says why.
func TestTrustChangeWithoutDigests(t *testing.T) {
	dir := project(t, nil)
	if out, err := run(t, "plugin", "init", "mine"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, ".podcode/plugins/mine.ts"), []byte(`export default { id: "mine", server: () => ({}) }`), 0o644)
	out, _ := run(t, "trust")
	if !strings.Contains(out, "which files changed is not known") {
		t.Errorf("a change without digests:\n%s", out)
	}
}
