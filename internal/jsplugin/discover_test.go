package jsplugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPackageEntry(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"dist/index.mjs", "dist/index.cjs", "dist/sub.js", "lib/main.js", "index.js"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	cases := []struct{ pkg, sub, want string }{
		{`{"exports": "./dist/index.mjs"}`, "", "dist/index.mjs"},
		{`{"exports": {".": {"require": "./dist/index.cjs", "import": "./dist/index.mjs"}, "./sub": "./dist/sub.js"}}`, "", "dist/index.mjs"},
		{`{"exports": {".": {"require": "./dist/index.cjs", "import": "./dist/index.mjs"}, "./sub": "./dist/sub.js"}}`, "./sub", "dist/sub.js"},
		{`{"exports": {"import": {"types": "./x.d.ts", "default": "./dist/index.mjs"}}}`, "", "dist/index.mjs"},
		{`{"module": "lib/main.js", "main": "index.js"}`, "", "lib/main.js"},
		{`{"main": "index.js"}`, "", "index.js"},
		{`{}`, "", "index.js"},
	}
	for _, c := range cases {
		got, err := packageEntry(dir, []byte(c.pkg), c.sub)
		if err != nil || got != filepath.Join(dir, c.want) {
			t.Errorf("%s %q: %s %v, want %s", c.pkg, c.sub, got, err, c.want)
		}
	}
	if _, err := packageEntry(dir, []byte(`{"exports": {".": "./dist/index.mjs"}}`), "./private"); err == nil {
		t.Error("a subpath the package does not export was resolved")
	}
	if _, err := packageEntry(dir, []byte(`{"main": "../../etc/passwd"}`), ""); err == nil {
		t.Error("an entry outside the package was resolved")
	}
	if name, sub := splitPackage("@scope/pkg/deep/file"); name != "@scope/pkg" || sub != "./deep/file" {
		t.Errorf("split %q %q", name, sub)
	}
}

// package.json files come from anyone's npm package: reading them must
// never panic.
func FuzzPackageEntry(f *testing.F) {
	f.Add([]byte(`{"exports": {".": {"import": "./a.js"}}}`), "")
	f.Add([]byte(`{"exports": "./a.js", "main": 3}`), "./x")
	f.Add([]byte(`{"exports": [1, {"import": null}]}`), "")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, pkg []byte, sub string) {
		if p, err := packageEntry(dir, pkg, sub); err == nil && !strings.HasPrefix(p, dir) {
			t.Fatalf("resolved %s, outside the package", p)
		}
		var raw json.RawMessage
		if json.Unmarshal(pkg, &raw) == nil {
			exportTarget(raw, ".")
		}
	})
}
