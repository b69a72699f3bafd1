package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// tree writes files under a new directory (its real path) and returns it.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// commandItem fingerprints command run in dir, in the project root.
func commandItem(t *testing.T, command, dir, root string) (Item, []string) {
	t.Helper()
	var h Hasher
	reads := h.Command(command, dir, root, map[string]string{"PROJECT": root})
	it, err := h.Item(KindClaude, "x")
	if err != nil {
		t.Fatal(err)
	}
	return it, reads
}

// edits checks that an edit of each file changes the fingerprint of
// command, and that the item lists the file.
func edits(t *testing.T, root, command string, files ...string) {
	t.Helper()
	before, reads := commandItem(t, command, root, root)
	if len(reads) != 0 {
		t.Errorf("%s: the files it reads should be known: %v\n%s", command, reads, strings.Join(before.Runs, "\n"))
	}
	for _, f := range files {
		if !slices.Contains(before.Runs, f) {
			t.Errorf("%s: the item does not list %s: %v", command, f, before.Runs)
		}
		p := filepath.Join(root, f)
		old, _ := os.ReadFile(p)
		os.WriteFile(p, append(old, "\n# an edit\n"...), 0o644)
		if after, _ := commandItem(t, command, root, root); after.Fingerprint == before.Fingerprint {
			t.Errorf("%s: an edit of %s kept the fingerprint", command, f)
		}
		os.WriteFile(p, old, 0o644)
	}
	if again, _ := commandItem(t, command, root, root); again.Fingerprint != before.Fingerprint {
		t.Errorf("%s: the same files gave another fingerprint", command)
	}
}

// A script's sourced files are covered, however the script names them,
// and followed in turn (direnv#249 left them out).
func TestCommandFollowsSourcedFiles(t *testing.T) {
	root := tree(t, map[string]string{
		"hooks/check.sh": `#!/bin/sh
DIR=$(cd "$(dirname "$0")" && pwd)
. ./lib/common.sh
source "$DIR/helpers.sh"
. "${BASH_SOURCE%/*}/more.sh"
if [ -n "$X" ]; then RUNNER=./lib/a.sh; else RUNNER=./lib/b.sh; fi
sh "$RUNNER"
"$DIR"/direct.sh
`,
		"lib/common.sh":    "log() { echo \"$@\" >&2; }\n",
		"hooks/helpers.sh": ". ./lib/deep.sh\n",
		"hooks/more.sh":    "true\n",
		"hooks/direct.sh":  "#!/usr/bin/env bash\necho hi\n",
		"lib/deep.sh":      "true\n",
		"lib/a.sh":         "true\n",
		"lib/b.sh":         "true\n",
	})
	edits(t, root, "sh hooks/check.sh", "hooks/check.sh", "lib/common.sh", "hooks/helpers.sh", "hooks/more.sh", "lib/deep.sh",
		"lib/a.sh", "lib/b.sh", "hooks/direct.sh")
	edits(t, root, `bash "$PROJECT"/hooks/check.sh`, "hooks/check.sh", "lib/deep.sh")
	edits(t, root, "cd hooks && ./check.sh", "hooks/check.sh", "lib/common.sh")
	edits(t, root, "sh -c 'sh hooks/check.sh'", "hooks/check.sh", "lib/common.sh")
	edits(t, root, "bash < hooks/check.sh", "hooks/check.sh", "lib/common.sh")
	edits(t, root, "(cd hooks && ./check.sh) || true", "hooks/check.sh", "lib/common.sh")
	edits(t, root, "trap 'sh hooks/check.sh' EXIT; cat >/dev/null", "hooks/check.sh", "lib/common.sh")
	edits(t, root, "bash <<'EOF'\n. ./lib/common.sh\nEOF", "lib/common.sh")

	// A file sourced later counts before it exists.
	var h Hasher
	h.Command(". ./lib/later.sh", root, root, nil)
	before, _ := h.Item(KindClaude, "x")
	os.WriteFile(filepath.Join(root, "lib/later.sh"), []byte("rm -rf ~\n"), 0o644)
	var h2 Hasher
	h2.Command(". ./lib/later.sh", root, root, nil)
	if after, _ := h2.Item(KindClaude, "x"); after.Fingerprint == before.Fingerprint {
		t.Error("a sourced file created later kept the fingerprint")
	}
}

// `make` runs the Makefile, what it includes and what its recipes run.
func TestCommandFollowsMake(t *testing.T) {
	root := tree(t, map[string]string{
		"Makefile":         "CHECK := scripts/check.sh\ninclude mk/rules.mk\n-include mk/local.mk\n",
		"mk/rules.mk":      "check:\n\t@sh $(CHECK) --quiet\nlint: ; @sh scripts/lint.sh\n",
		"scripts/check.sh": ". ./scripts/lib.sh\n",
		"scripts/lib.sh":   "true\n",
		"scripts/lint.sh":  "true\n",
		"sub/GNUmakefile":  "all:\n\t@true\n",
		"other.mk":         "x:\n\t@true\n",
	})
	edits(t, root, "make -s check", "Makefile", "mk/rules.mk", "scripts/check.sh", "scripts/lib.sh", "scripts/lint.sh")
	edits(t, root, "make -C sub all", "sub/GNUmakefile")
	edits(t, root, "make -f other.mk x", "other.mk")

	// An include that does not exist yet counts.
	before, _ := commandItem(t, "make -s check", root, root)
	os.WriteFile(filepath.Join(root, "mk/local.mk"), []byte("check:\n\t@rm -rf ~\n"), 0o644)
	if after, _ := commandItem(t, "make -s check", root, root); after.Fingerprint == before.Fingerprint {
		t.Error("an optional include created later kept the fingerprint")
	}
}

// Where the files a command reads cannot be known, the item says so and
// the command's folder is returned, to be fingerprinted whole.
func TestCommandReadsUnknownFiles(t *testing.T) {
	root := tree(t, map[string]string{
		"package.json":        `{"scripts": {"test": "node test.js"}}`,
		"tools/guard.py":      "import helpers\n",
		"tools/helpers.py":    "",
		"Makefile":            "check:\n\t$(CC) -o check check.c && ./check\n",
		"shell.mk":            "X := $(shell ./gen.sh)\nall:\n\t@true\n",
		"path.mk":             "export PATH := ./bin:$(PATH)\nall:\n\t@jq . x.json\n",
		"hooks/run.sh":        "exec \"$@\"\n",
		"hooks/eval.sh":       "eval \"$(cat cmd.txt)\"\n",
		"hooks/from-stdin.sh": "read f; . \"$f\"\n",
	})
	tools := filepath.Join(root, "tools")
	for command, dir := range map[string]string{
		"npm test":                    root,
		"python3 -m tool":             root,
		"python3 -c 'import tool'":    root,
		"node -e 'require(\"./x\")'":  root,
		"python3 tools/guard.py":      tools,
		"make check":                  root,
		"make -f path.mk":             root,
		"make -f shell.mk":            root,
		"sh hooks/run.sh":             root,
		"sh hooks/eval.sh":            root,
		"sh hooks/from-stdin.sh":      root,
		`sh "$UNSET"/x.sh`:            root,
		"PATH=./bin:$PATH jq .":       root,
		"env NODE_OPTIONS=-r./x jq .": root,
		". <(cat lib.sh)":             root,
		"some-tool --fix":             root,
	} {
		it, reads := commandItem(t, command, root, root)
		if !slices.Equal(reads, []string{dir}) {
			t.Errorf("%s: reads %v, want %s", command, reads, dir)
		}
		want := "files this command reads cannot be known; the whole directory " + Shown(dir, root) + " is fingerprinted"
		if !strings.Contains(strings.Join(it.Runs, "\n"), want) {
			t.Errorf("%s: the item does not say %q:\n%s", command, want, strings.Join(it.Runs, "\n"))
		}
	}
	for _, command := range []string{"cat >/dev/null", "jq -r .tool_input.command", "echo no >&2; exit 2", `[ -f x ] && grep -q rm "$PROJECT/package.json"`,
		"command -v jq >/dev/null || exit 0", "timeout 5 sh hooks/run-nothing.sh"} {
		if _, reads := commandItem(t, command, root, root); len(reads) != 0 {
			t.Errorf("%s: reads %v; it names all it reads", command, reads)
		}
	}

	// The directory, as an item of its own: every file, .git left out.
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref"), 0o644)
	it, err := ReadsItem(KindClaude, ".claude/settings.json", root, root)
	if err != nil || it.Name != ".claude/settings.json: directory ." || !slices.Contains(it.Runs, "tools/helpers.py") ||
		!strings.Contains(strings.Join(it.Runs, "\n"), "left out: .git/") {
		t.Errorf("reads item %+v %v", it, err)
	}
	os.WriteFile(filepath.Join(root, "tools/helpers.py"), []byte("import os; os.system('rm -rf ~')"), 0o644)
	if again, _ := ReadsItem(KindClaude, ".claude/settings.json", root, root); again.Fingerprint == it.Fingerprint {
		t.Error("an edit in the directory kept its fingerprint")
	}
}

// git obeys the config of the repository it runs in: a bare repository
// committed as ordinary files (ci/repo) may set core.fsmonitor or
// core.hooksPath to a program. Pointed at one (-C, --git-dir, GIT_DIR...)
// or run inside one, the folder is fingerprinted whole; in a clone's own
// folder (its .git/config written by the clone) git reads nothing more,
// and the options of git's commands (log -C, grep -C 3) are not git's.
func TestGitElsewhereIsFingerprinted(t *testing.T) {
	root := tree(t, map[string]string{
		"ci/repo/HEAD":              "ref: refs/heads/main\n",
		"ci/repo/config":            "[core]\n\tfsmonitor = true\n",
		"ci/repo/objects/info/keep": "",
		"ci/notes.txt":              "",
	})
	repo := filepath.Join(root, "ci", "repo")
	// A repository whose HEAD is a link (git does not follow it), and a
	// link into a repository (git walks up the real path).
	os.MkdirAll(filepath.Join(root, "linked", "refs", "heads"), 0o755)
	if err := os.Symlink("refs/heads/main", filepath.Join(root, "linked", "HEAD")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("ci", "repo", "objects", "info"), filepath.Join(root, "into-objects")); err != nil {
		t.Fatal(err)
	}
	for command, dir := range map[string]string{
		"git -C ci/repo status":                root,
		"git --git-dir=ci/repo log":            root,
		"git --git-dir ci/repo log":            root,
		"git --work-tree=ci status":            root,
		"git --exec-path=./bin status":         root,
		"git --config-env=core.pager=X log":    root,
		"GIT_DIR=ci/repo git log":              root,
		"env GIT_DIR=ci/repo git log":          root,
		"cd ci/repo && git status":             repo,
		"cd ci/repo/objects && git status":     repo,
		"git -c core.pager=x log":              root,
		"git --namespace ns -C ci/repo log":    root,
		"cd linked && git fetch":               filepath.Join(root, "linked"),
		"cd into-objects && git fetch":         repo,
		"for PATH in bin; do git status; done": root,
		"read GIT_DIR <<< ci/repo; git fetch":  root,
		"HOME=ci git status":                   root,
	} {
		if _, reads := commandItem(t, command, root, root); !slices.Equal(reads, []string{dir}) {
			t.Errorf("%s: reads %v, want %s", command, reads, dir)
		}
	}
	for _, command := range []string{"git status --porcelain", "git diff --exec-path", "cd ci && git log",
		"git log -C", "git diff -C -M", "git grep -C 3 foo", "git log -c", "git blame -C x"} {
		if _, reads := commandItem(t, command, root, root); len(reads) != 0 {
			t.Errorf("%s: reads %v; git runs in no repository of the project's", command, reads)
		}
	}
}

// Dir reads through symbolic links, to files and folders, in the project
// or out of it; a loop ends; a FIFO is not opened.
func TestDirFollowsLinks(t *testing.T) {
	outside := tree(t, map[string]string{"guard/podcode-plugin.json": `{"id": "g"}`, "guard/run.sh": "true", "lib/words.txt": "rm"})
	root := tree(t, map[string]string{"podcode.json": "{}"})
	plugin := filepath.Join(root, ".podcode/plugins/g")
	os.MkdirAll(filepath.Dir(plugin), 0o755)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "guard"), plugin))
	must(os.Symlink(filepath.Join(outside, "lib"), filepath.Join(outside, "guard/lib")))
	must(os.Symlink(filepath.Join(outside, "guard"), filepath.Join(outside, "guard/lib/loop")))
	must(os.Symlink(filepath.Join(outside, "lib/words.txt"), filepath.Join(outside, "guard/words")))
	must(syscall.Mkfifo(filepath.Join(outside, "guard/fifo"), 0o644))
	item := func() Item {
		var h Hasher
		h.Dir(plugin, root)
		it, err := h.Item(KindManifest, ".podcode/plugins/g")
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	a := item()
	for _, f := range []string{".podcode/plugins/g/podcode-plugin.json", ".podcode/plugins/g/lib/words.txt", ".podcode/plugins/g/words"} {
		if !slices.Contains(a.Runs, f) {
			t.Errorf("not covered: %s in %v", f, a.Runs)
		}
	}
	if !strings.Contains(strings.Join(a.Runs, "\n"), "fifo (not a regular file)") {
		t.Errorf("the FIFO is not said to be left out: %v", a.Runs)
	}
	os.WriteFile(filepath.Join(outside, "lib/words.txt"), []byte("rm mv"), 0o644)
	if b := item(); b.Fingerprint == a.Fingerprint {
		t.Error("an edit behind a linked folder kept the fingerprint")
	}
}
