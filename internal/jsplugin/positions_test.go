package jsplugin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
)

// hookThrows throws from its hook on line 5 (TypeScript: the bundle's lines
// differ).
const hookThrows = `// A plugin whose hook throws.
type Input = { toolID: string; args?: Record<string, unknown> }

function fail(input: Input): never {
  throw new Error("boom in " + input.toolID)
}

export default { id: "ID", server: () => ({ "tool.execute.before": (input: Input) => fail(input) }) }
`

// importThrows throws while it is imported, on line 4.
const importThrows = `interface Options { strict: boolean }
const options: Options = { strict: true }
if (options.strict) {
  throw new TypeError("refusing to start")
}
export default { id: "ID", server: () => ({}) }
`

// syntaxError has a syntax error on line 3, column 11.
const syntaxError = `type T = number

const x = ;
export default { id: "ID", server: () => ({}) }
`

// regexError has a regular expression goja cannot compile (esbuild passes
// it) on line 3, column 15.
const regexError = `type T = string

const re: T = /(?i:a)b/
export default { id: "ID", re, server: () => ({}) }
`

// Stack traces and load errors name the plugin's own file, by its absolute
// path, with the line and column in it, whichever way the plugin is named:
// discovered in .podcode/plugins, relative to the config, or absolute
// (outside the project).
func TestPositionsNameTheAuthorsFile(t *testing.T) {
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	add := func(dir, name, id, src string) {
		files[filepath.Join(dir, name)] = strings.Replace(src, `"ID"`, `"`+id+`"`, 1)
	}
	for _, f := range []struct{ name, id, src string }{{"hook.ts", "hook", hookThrows}, {"top.ts", "top", importThrows}, {"syntax.ts", "syntax", syntaxError}, {"regex.ts", "regex", regexError}} {
		add(".podcode/plugins", f.name, "found-"+f.id, f.src)
		add("sub", f.name, "relative-"+f.id, f.src)
		if err := os.WriteFile(filepath.Join(outside, f.name), []byte(strings.Replace(f.src, `"ID"`, `"absolute-`+f.id+`"`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := apptest.Dir(t, apptest.Project{Files: files, Plugins: []string{
		"./sub/hook.ts", "./sub/top.ts", "./sub/syntax.ts", "./sub/regex.ts",
		filepath.Join(outside, "hook.ts"), filepath.Join(outside, "top.ts"), filepath.Join(outside, "syntax.ts"), filepath.Join(outside, "regex.ts"),
	}})
	a, logs := apptest.BootDir(t, dir, apptest.Project{})
	if got := ids(a.Plugins.Plugins); got != "relative-hook,absolute-hook,found-hook" {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	_, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, map[string]any{"toolID": "read"})
	if len(steps) != 3 {
		t.Fatalf("steps %+v", steps)
	}
	for i, where := range []string{filepath.Join(dir, "sub"), outside, filepath.Join(dir, ".podcode", "plugins")} {
		want := filepath.Join(where, "hook.ts") + ":5:9"
		if !strings.Contains(steps[i].Error, "boom in read") || !strings.Contains(steps[i].Error, want) {
			t.Errorf("%s threw %q, want the stack to name %s", steps[i].Plugin, steps[i].Error, want)
		}
		logs.Require(t, "WARN plugin: import failed", filepath.Join(where, "top.ts")+":4:9", "refusing to start")
		logs.Require(t, "WARN plugin: cannot load", filepath.Join(where, "syntax.ts")+":3:11", "Unexpected")
		logs.Require(t, "WARN plugin: cannot load", filepath.Join(where, "regex.ts")+":3:15", "SyntaxError: Invalid group")
	}
	for _, l := range logs.Lines() {
		if strings.Contains(l, "plugins/.podcode") || strings.Contains(l, "sub/sub") {
			t.Errorf("a doubled folder: %s", l)
		}
	}
}
