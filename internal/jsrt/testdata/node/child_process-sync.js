const cp = require("node:child_process");
const fs = require("node:fs");
fs.writeFileSync("in.txt", "a\nb\n");
console.log(JSON.stringify(cp.execSync("echo hello; echo err >&2", { encoding: "utf8", stdio: "pipe" })));
console.log(cp.execSync("cat in.txt").toString());
console.log(cp.execSync("wc -l", { input: "x\ny\nz\n", encoding: "utf8", stdio: "pipe" }).trim());
console.log(JSON.stringify(cp.execFileSync("printf", ["%s|", "a b", "c"], { encoding: "utf8" })));
console.log(cp.execSync("pwd", { cwd: "/tmp", encoding: "utf8" }).trim(), cp.execSync("echo $GREETING $EXTRA", { env: { EXTRA: "x", PATH: process.env.PATH }, encoding: "utf8" }).trim());
try { cp.execSync("exit 3", { stdio: "pipe" }); } catch (e) { console.log(e.message.split("\n")[0], e.status, e.signal, JSON.stringify(e.stdout.toString()), Object.keys(e).sort().join(",")); }
try { cp.execSync("echo out; echo bad >&2; exit 2", { stdio: "pipe", encoding: "utf8" }); } catch (e) { console.log(JSON.stringify(e.message), e.status, JSON.stringify(e.stdout), JSON.stringify(e.stderr)); }
try { cp.execFileSync("no-such-program-xyz", ["a"]); } catch (e) { console.log(e.code, e.errno, e.syscall, e.path, JSON.stringify(e.spawnargs), e.message, e.status); }
const r = cp.spawnSync("sh", ["-c", "echo one; echo two >&2; exit 4"]);
console.log(r.status, r.signal, r.stdout.toString(), r.stderr.toString(), r.output.length, r.output[0], typeof r.pid);
const r2 = cp.spawnSync("sh", ["-c", "echo x"], { encoding: "utf8" });
console.log(JSON.stringify([r2.stdout, r2.stderr, r2.status]));
const r3 = cp.spawnSync("no-such-program-xyz");
console.log(r3.error.code, r3.error.message, r3.error.syscall, r3.status, r3.stdout);
const r4 = cp.spawnSync("sleep", ["2"], { timeout: 100 });
console.log(r4.status, r4.signal, r4.error && r4.error.code);
const r5 = cp.spawnSync("sh", ["-c", "kill -TERM $$"]);
console.log(r5.status, r5.signal);
const r6 = cp.spawnSync("sh", ["-c", "head -c 5000 /dev/zero"], { maxBuffer: 100 });
console.log(r6.error && r6.error.code, r6.stdout && r6.stdout.length >= 100);
const r7 = cp.spawnSync("echo", ["a b", "c"], { shell: true, encoding: "utf8" });
console.log(JSON.stringify(r7.stdout));
try { cp.spawnSync(""); } catch (e) { console.log(e.code, e.message); }
try { cp.spawnSync(5); } catch (e) { console.log(e.code, e.message); }
try { cp.spawnSync("x", { stdio: "bogus" }); } catch (e) { console.log(e.code, e.message); }
