package plugins_test

// Type-checks of the plugin API's declarations with the TypeScript compiler
// that `npm ci` installs here (a devDependency): the example plugins, and a
// plugin made by `podcode plugin init` together with testdata/typecheck,
// which uses every API Podcode provides (usage.ts) and misuses what it does
// not (misuse.ts).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
)

// tsc runs the TypeScript compiler on the project in dir and returns its
// output and whether it reported no error.
func tsc(t *testing.T, dir string) (string, bool) {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("node_modules", "typescript", "bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the TypeScript compiler is not installed (%v): run `npm ci` in examples/plugins, as scripts/test does", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("type-checking needs Node.js 20 or later on PATH: %v", err)
	}
	cmd := exec.Command(node, bin, "--noEmit", "--pretty", "false", "-p", dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running tsc: %v\n%s", err, out)
		}
		return string(out), false
	}
	return string(out), true
}

func TestExamplesTypeCheck(t *testing.T) {
	t.Parallel() // tsc uses one core
	if out, ok := tsc(t, "."); !ok {
		t.Errorf("tsc --noEmit -p examples/plugins reported errors:\n%s", out)
	}
}

// The declarations themselves are free of errors, which skipLibCheck (in
// the tsconfig.json plugins use) would hide.
func TestDeclarationsTypeCheck(t *testing.T) {
	t.Parallel()
	base, err := filepath.Abs("tsconfig.json")
	if err != nil {
		t.Fatal(err)
	}
	dts, err := filepath.Abs(filepath.Join("..", "..", "internal", "jsplugin", "podcode-plugin.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	config, _ := json.Marshal(map[string]any{
		"extends": base, "compilerOptions": map[string]any{"skipLibCheck": false}, "files": []string{dts}, "include": []string{},
	})
	project := filepath.Join(t.TempDir(), "tsconfig.json")
	if err := os.WriteFile(project, config, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, ok := tsc(t, project); !ok {
		t.Errorf("tsc reported errors in podcode-plugin.d.ts:\n%s", out)
	}
}

// The examples' tsconfig.json is the one `plugin init` writes, apart from
// which files it includes; `plugin types` prints what init writes.
func TestExamplesTSConfigIsInits(t *testing.T) {
	t.Parallel()
	compilerOptions := func(text []byte) string {
		var c struct{ CompilerOptions json.RawMessage }
		if err := json.Unmarshal(text, &c); err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(c.CompilerOptions, &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	examples, err := os.ReadFile("tsconfig.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := initPlugin(t, "demo")
	inits, err := os.ReadFile(filepath.Join(dir, ".podcode", "tsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := compilerOptions(examples), compilerOptions(inits); a != b {
		t.Errorf("examples/plugins/tsconfig.json has compilerOptions\n%s\n`plugin init` writes\n%s", a, b)
	}
	printed, err := exec.Command(apptest.Binary(t, apptest.Podcode), "plugin", "types", "--tsconfig").Output()
	if err != nil || !bytes.Equal(printed, inits) {
		t.Errorf("plugin types --tsconfig printed (%v)\n%s\nwant what plugin init wrote\n%s", err, printed, inits)
	}
	printed, err = exec.Command(apptest.Binary(t, apptest.Podcode), "plugin", "types").Output()
	declarations, _ := os.ReadFile(filepath.Join(dir, ".podcode", "podcode-plugin.d.ts"))
	if err != nil || len(printed) == 0 || !bytes.Equal(printed, declarations) {
		t.Errorf("plugin types printed %d bytes (%v), not the %d of the declarations plugin init wrote", len(printed), err, len(declarations))
	}
}

// podcodeBin is the podcode command, built once per test binary.
func TestMain(m *testing.M) {
	code := m.Run()
	apptest.RemoveBinaries()
	os.Exit(code)
}

// initPlugin runs `podcode plugin init name` in a new project directory,
// with the user's folders at temp folders, and returns the directory.
func initPlugin(t *testing.T, name string) string {
	t.Helper()
	bin := apptest.Binary(t, apptest.Podcode)
	dir := t.TempDir()
	home := t.TempDir()
	cmd := exec.Command(bin, "plugin", "init", name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("podcode plugin init %s: %v\n%s", name, err, out)
	}
	return dir
}

// tscError is one error line of tsc --pretty false: file(line,col): error TSnnnn: message.
var tscError = regexp.MustCompile(`(?m)^(.+?)\((\d+),\d+\): error (TS\d+): `)

// A plugin made by `plugin init` type-checks with the tsconfig.json and
// declarations init writes, and so does one that uses every web and Node API
// Podcode provides and tools whose args are inferred from zod 3 and 4
// schemas; the same check reports, on exactly the lines marked "want TSnnnn",
// what does not exist in Podcode (Buffer, require, node:fs, DOM, Request),
// even with @types/node installed, and misused inferred args.
func TestInitPluginTypeChecks(t *testing.T) {
	t.Parallel()
	dir := initPlugin(t, "demo")
	for _, f := range []string{"tsconfig.json", "podcode-plugin.d.ts", "plugins/demo.ts"} {
		if _, err := os.Stat(filepath.Join(dir, ".podcode", f)); err != nil {
			t.Fatalf("plugin init did not write .podcode/%s: %v", f, err)
		}
	}
	// One tsc run checks the starter, usage.ts and misuse.ts: any error
	// outside the lines misuse.ts marks fails the test.
	project := filepath.Join(dir, ".podcode")

	// The fixtures import zod (3 and 4) from the packages installed here.
	modules, err := filepath.Abs("node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	// An @types/node in reach, as many projects have, declares Buffer,
	// require and node:fs: the tsconfig.json's empty types keeps it out.
	typesNode := filepath.Join(project, "node_modules", "@types", "node")
	if err := os.MkdirAll(typesNode, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"package.json": `{"name": "@types/node", "version": "20.0.0", "types": "index.d.ts"}`,
		"index.d.ts": "declare var Buffer: { from(s: string): Uint8Array }\ndeclare function require(id: string): any\n" +
			"declare function setImmediate(fn: () => void): number\n" +
			`declare module "node:fs" { export function readFileSync(path: string): string }` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(typesNode, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var want []string
	for _, f := range []string{"usage.ts", "misuse.ts"} {
		text, err := os.ReadFile(filepath.Join("testdata", "typecheck", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, "plugins", f), text, 0o644); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if _, code, ok := strings.Cut(line, "// want "); ok {
				want = append(want, fmt.Sprintf("plugins/%s:%d %s", f, i+1, strings.TrimSpace(code)))
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("misuse.ts marks no line with the error it wants")
	}
	out, ok := tsc(t, project)
	if ok {
		t.Fatalf("tsc reported no error on misuse.ts, want %q", want)
	}
	var got []string
	for _, m := range tscError.FindAllStringSubmatch(out, -1) {
		file := filepath.ToSlash(m[1])
		if i := strings.LastIndex(file, "plugins/"); i >= 0 {
			file = file[i:]
		}
		got = append(got, fmt.Sprintf("%s:%s %s", file, m[2], m[3]))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("tsc reported\n  %s\nwant exactly\n  %s\ntsc's output:\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), out)
	}

	// A tsconfig.json already there is the user's: a second init keeps it.
	mine := []byte(`{"compilerOptions": {"strict": false}}` + "\n")
	if err := os.WriteFile(filepath.Join(project, "tsconfig.json"), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(apptest.Binary(t, apptest.Podcode), "plugin", "init", "second")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("podcode plugin init second: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(project, "tsconfig.json")); !bytes.Equal(b, mine) {
		t.Errorf("a second plugin init replaced the user's tsconfig.json with\n%s", b)
	}
}
