const path = require("node:path");
const cases = ["", ".", "..", "/", "//", "///a", "a/b/", "/a/b/../c/./d", "a/../../b", "../a/..", "a//b", "/a/b/", "foo.txt",
  ".bashrc", "a/.bashrc", "a/b.c.d", "a/b.", "..", "/..", "a/...", "file.tar.gz", "/a/b/c/", "a/b/c//"];
for (const p of cases) {
  console.log(JSON.stringify([p, path.normalize(p), path.dirname(p), path.basename(p), path.extname(p), path.isAbsolute(p), path.parse(p)]));
  console.log(JSON.stringify(path.format(path.parse(p))));
}
console.log(path.basename("/a/b.txt", ".txt"), path.basename("/a/b.txt", "b.txt"), path.basename("a.txt/", ".txt"), path.basename("x", ""));
console.log(path.join(), path.join(""), path.join("a", "", "b"), path.join("a/", "b/"), path.join("/a", "../../b"), path.join("a", "/b"));
console.log(path.resolve("/a", "b", "../c"), path.resolve("/a/", "/b/"), path.resolve("a") === path.join(process.cwd(), "a"), path.resolve("") === process.cwd());
console.log(path.relative("/a/b/c", "/a/d"), path.relative("/a", "/a"), path.relative("/a/b", "/a/b/c/d"), path.relative("/", "/x"), path.relative("/x/y", "/"));
console.log(JSON.stringify(path.format({ dir: "/a", name: "b", ext: "txt" })), JSON.stringify(path.format({ root: "/", base: "x" })), JSON.stringify(path.format({ name: "n", ext: ".e" })));
console.log(path.sep, path.delimiter, path.posix === path, path.posix.join("a", "b"));
for (const bad of [1, null, undefined, {}]) {
  try { path.join("a", bad); } catch (e) { console.log(e.name, e.code, e.message); }
}
try { path.basename("a", 3); } catch (e) { console.log(e.code, e.message); }
try { path.format(null); } catch (e) { console.log(e.code, e.message); }
