const fs = require("node:fs");
for (const bad of [1, null, {}, undefined]) {
  try { fs.readFileSync(bad); } catch (e) { console.log(e.code, e.message); }
}
try { fs.readFileSync("missing.txt"); } catch (e) { console.log(e.code, e.errno, e.syscall, e.path, e.message); }
try { fs.readFileSync("."); } catch (e) { console.log(e.code, e.errno, e.syscall, e.message); }
try { fs.readdirSync("missing"); } catch (e) { console.log(e.code, e.syscall, e.path, e.message); }
fs.writeFileSync("f.txt", "x");
try { fs.readdirSync("f.txt"); } catch (e) { console.log(e.code, e.message); }
try { fs.mkdirSync("f.txt/sub", { recursive: true }); } catch (e) { console.log(e.code, e.syscall, e.message); }
try { fs.mkdirSync("f.txt"); } catch (e) { console.log(e.code, e.message); }
try { fs.renameSync("nope", "other"); } catch (e) { console.log(e.code, e.path, e.dest, e.message); }
try { fs.copyFileSync("nope", "other"); } catch (e) { console.log(e.code, e.message); }
try { fs.copyFileSync("f.txt", "f.txt", fs.constants.COPYFILE_EXCL); } catch (e) { console.log(e.code, e.message); }
try { fs.rmSync("nope"); } catch (e) { console.log(e.code, e.syscall, e.message); }
fs.rmSync("nope", { force: true });
fs.mkdirSync("d/e", { recursive: true });
try { fs.rmSync("d"); } catch (e) { console.log(e.code, e.message); }
try { fs.rmdirSync("d"); } catch (e) { console.log(e.code, e.syscall, e.message); }
try { fs.unlinkSync("d"); } catch (e) { console.log(e.code, e.message); }
try { fs.statSync("missing"); } catch (e) { console.log(e.code, e.syscall, e.message); }
console.log(fs.statSync("missing", { throwIfNoEntry: false }));
try { fs.accessSync("missing"); } catch (e) { console.log(e.code, e.syscall, e.message); }
try { fs.readlinkSync("f.txt"); } catch (e) { console.log(e.code, e.message); }
try { fs.openSync("missing"); } catch (e) { console.log(e.code, e.message); }
try { fs.closeSync(999); } catch (e) { console.log(e.code, e.syscall, e.message); }
try { fs.writeFileSync("f.txt", 5); } catch (e) { console.log(e.code, e.message); }
try { fs.readFileSync("f.txt", "nope"); } catch (e) { console.log(e.code, e.message); }
await new Promise((resolve) => fs.readFile("missing.txt", (e) => { console.log("callback", e.code, e.message); resolve(); }));
try { await fs.promises.readFile("missing.txt"); } catch (e) { console.log("promise", e.code, e.message); }
try { fs.readFileSync("a\u0000b"); } catch (e) { console.log(e.code, e.message); }
