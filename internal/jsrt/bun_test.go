package jsrt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bun's $ as opencode plugins use it, against what Bun 1.3.14 (the one in
// opencode 1.18.33) does: a string is one word whatever it holds, an
// array one word per element, {raw} is spliced as written; it is lazy;
// text, json and lines read stdout (lines ends with "" after a final
// newline); a non-zero exit rejects with ShellError "Failed with exit code
// N" unless nothrow; cwd and env apply to one command, or, on $, to every
// later one; $.escape quotes exactly Bun's special characters; output not
// read with .quiet() is written to the log (Bun writes it to the
// process's stdout).
func TestBunShell(t *testing.T) {
	src := `
const { $ } = require("bun");
const fs = require("node:fs");
const words = await $` + "`printf '[%s]' ${\"a b\"} ${\"\"} ${[\"x y\", \"z\"]} ${{ raw: \"r1 r2\" }} ${42} ${\"$HOME\"} ${\"*\"} ${\"it's\"} ${\"a;b\"}`" + `.text();
console.log(words);
const lazy = $` + "`touch lazy.txt`" + `;
console.log("before await", fs.existsSync("lazy.txt"));
await lazy;
console.log("after await", fs.existsSync("lazy.txt"));
console.log(JSON.stringify(await $` + "`printf '{\"a\": [1, 2]}'`" + `.json()));
const lines = [];
for await (const l of $` + "`printf 'one\\ntwo\\n'`" + `.lines()) lines.push(l);
console.log(JSON.stringify(lines));
try {
  await $` + "`echo out; echo err >&2; exit 7`" + `.quiet();
} catch (e) {
  console.log(e.name, e.message, String(e), e instanceof $.ShellError, e.exitCode, JSON.stringify(e.stdout.toString()), JSON.stringify(e.stderr.toString()), JSON.stringify(e.text()), Object.keys(e).join(","));
}
const r = await $` + "`exit 3`" + `.nothrow().quiet();
console.log(r.exitCode, r.stdout.length, JSON.stringify(r.text()));
console.log((await $` + "`pwd`" + `.cwd("/tmp").text()).trim());
console.log(JSON.stringify((await $` + "`echo \"[$FOO][$HOME]\"`" + `.env({ FOO: "bar", PATH: process.env.PATH }).text())));
const sh = new $.Shell();
sh.cwd("/").nothrow();
console.log((await sh` + "`pwd`" + `.text()).trim(), (await sh` + "`exit 2`" + `.quiet()).exitCode);
console.log((await $` + "`pwd`" + `.text()).trim() === process.cwd());
console.log([$.escape("abc"), $.escape("a b"), $.escape("v1"), $.escape("say \"hi\""), $.escape("$HOME"), $.escape("a\tb"), $.escape("a?b"), $.escape("über")].join(" | "));
console.log(JSON.stringify($.braces("a{b,c{d,e}}f")), JSON.stringify($.braces("{a,b}-{1,2}")), JSON.stringify($.braces("nobraces")));
try { $("not a template"); } catch (e) { console.log(e.message); }
try { $` + "`echo ${{}}`" + `; } catch (e) { console.log(e.message); }
try { $` + "`sleep 1 &`" + `; } catch (e) { console.log(e.message); }
try { $` + "`echo ${\"a\\u0000b\"}`" + `; } catch (e) { console.log(e.code); }
await $` + "`echo shown`" + `;
const f = Bun.file("written.txt");
console.log(await Bun.write(f, "héllo"), await f.exists(), await f.text(), f.size, f.type, await Bun.file("nope").exists());
`
	var cwd string
	out := runPodcodeScript(t, src, func(o *Options) { o.Env["HOME"] = "/home/someone"; cwd = o.Cwd })
	want := []string{
		"[a b][][x y][z][r1][r2][42][$HOME][*][it's][a;b]",
		"before await false",
		"after await true",
		`{"a":[1,2]}`,
		`["one","two",""]`,
		`ShellError Failed with exit code 7 ShellError: Failed with exit code 7 true 7 "out\n" "err\n" "out\n" name,exitCode,stdout,stderr`,
		`3 0 ""`,
		"/tmp",
		`"[bar][]\n"`,
		"/ 2",
		"true",
		`abc | "a b" | "v1" | "say \"hi\"" | "\$HOME" | a	b | a?b | über`,
		`["abf","acdf","acef"] ["a-1","a-2","b-1","b-2"] ["nobraces"]`,
		"Please use '$' as a tagged template function: $`cmd arg1 arg2`",
		"Invalid JS object used in shell: [object Object], you might need to call `.toString()` on it",
		`Background commands "&" are not supported yet.`,
		"ERR_INVALID_ARG_VALUE",
		"shown",
		"6 true héllo 6 text/plain;charset=utf-8 false",
	}
	if strings.Join(out, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(cwd, "lazy.txt")); err != nil {
		t.Error(err)
	}
}

// Bun.which finds an executable file as Bun's does: in the folders of
// PATH (the option's, else the environment's), relative ones and names
// with a slash from cwd; a file that is not executable, a folder, or
// nothing at all is null.
func TestBunWhich(t *testing.T) {
	src := `
const fs = require("node:fs");
fs.mkdirSync("bin/dir", { recursive: true });
fs.writeFileSync("bin/tool", "#!/bin/sh\n", { mode: 0o755 });
fs.writeFileSync("bin/data", "", { mode: 0o644 });
const rel = (p) => p === null ? null : require("node:path").relative(process.cwd(), p);
console.log(rel(Bun.which("tool", { PATH: "bin" })), Bun.which("data", { PATH: "bin" }), Bun.which("dir", { PATH: "bin" }));
console.log(rel(Bun.which("./bin/tool")), Bun.which("./bin/data"), Bun.which("/bin/sh"), Bun.which("no-such-program-xyz"));
console.log(Bun.which("tool"), rel(Bun.which("tool", { PATH: "/nowhere:bin" })), rel(Bun.which("tool", { PATH: ".", cwd: "bin" })));
`
	out := runPodcodeScript(t, src)
	want := []string{"bin/tool null null", "bin/tool null /bin/sh null", "null bin/tool bin/tool"}
	if strings.Join(out, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
	}
}
