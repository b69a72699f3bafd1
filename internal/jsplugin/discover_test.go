package jsplugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/config"
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

// covers H2: the plugin folders in order, each alphabetically: Podcode's
// (the project's, the user's), then opencode's where opencode finds them
// (.opencode/plugin and .opencode/plugins from the directory up to the git
// worktree's root, the project's; then the user's opencode folder). A file
// the config names (relative, absolute or as a file: URL) is not loaded
// twice; an opencode folder that cannot be read is skipped with a warning.
func TestSourcesOrder(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "repo", "sub")
	user := filepath.Join(root, "config", "podcode")
	files := []string{
		"repo/.git/HEAD",
		"repo/sub/.podcode/plugins/b.ts", "repo/sub/.podcode/plugins/a.js",
		"config/podcode/plugins/u.js",
		"repo/sub/.opencode/plugin/z.js", "repo/sub/.opencode/plugin/named.js", "repo/sub/.opencode/plugins/y.ts",
		"repo/.opencode/plugin/top.js",
		".opencode/plugin/outside-the-worktree.js",
		"config/opencode/plugin/mine.js", "config/opencode/plugins/also.mjs",
		"repo/sub/.opencode/plugin/types.d.ts", "repo/sub/.opencode/plugin/notes.md",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	// a folder no one reads: a link to itself
	if err := os.Symlink("plugins", filepath.Join(root, "repo", ".opencode", "plugins")); err != nil {
		t.Fatal(err)
	}
	abs, url := filepath.Join(cwd, ".opencode", "plugin", "z.js"), "file://"+filepath.Join(cwd, ".opencode", "plugins", "y.ts")
	cfg := &config.Config{UserDir: user, Plugin: []config.PluginRef{
		{Spec: "./.opencode/plugin/named.js", Dir: cwd, File: filepath.Join(cwd, "podcode.json"), Line: 2, Project: true},
		{Spec: abs, Dir: cwd, File: filepath.Join(cwd, "podcode.json"), Line: 3, Project: true},
		{Spec: url, Dir: cwd, File: filepath.Join(cwd, "podcode.json"), Line: 4, Project: true},
	}}
	var logs bytes.Buffer
	srcs, err := sources(cwd, cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		rel, _ := filepath.Rel(root, s.spec)
		if s.from == FromConfig {
			rel = s.spec
		}
		got = append(got, fmt.Sprintf("%s %s %v", s.from, rel, s.project))
	}
	want := []string{
		"config ./.opencode/plugin/named.js true", "config " + abs + " true", "config " + url + " true",
		"discovered repo/sub/.podcode/plugins/a.js true", "discovered repo/sub/.podcode/plugins/b.ts true",
		"discovered config/podcode/plugins/u.js false",
		"discovered repo/.opencode/plugin/top.js true",
		"discovered config/opencode/plugin/mine.js false", "discovered config/opencode/plugins/also.mjs false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(logs.String(), "plugins: an opencode plugin folder cannot be read") || !strings.Contains(logs.String(), filepath.Join(root, "repo", ".opencode", "plugins")) {
		t.Errorf("no warning for the folder that cannot be read:\n%s", logs.String())
	}
}
