const cp = require("node:child_process");
const util = require("node:util");
const events = [];
const child = cp.spawn("sh", ["-c", "read line; echo got:$line; echo err >&2; exit 3"]);
child.stdout.setEncoding("utf8");
let out = "", err = "";
child.stdout.on("data", (d) => { out += d; });
child.stderr.on("data", (d) => { err += d; });
child.on("spawn", () => events.push("spawn"));
child.on("exit", (code, sig) => events.push("exit " + code + " " + sig));
child.stdin.write("hello\n");
child.stdin.end();
const [code, sig] = await new Promise((resolve) => child.on("close", (c, s) => resolve([c, s])));
console.log(JSON.stringify([out, err, code, sig, events, child.exitCode, child.signalCode, typeof child.pid, child.killed]));

const missing = cp.spawn("no-such-program-xyz", ["a"]);
const e = await new Promise((resolve) => missing.on("error", resolve));
console.log(e.code, e.errno, e.syscall, e.path, JSON.stringify(e.spawnargs), e.message, missing.pid);
await new Promise((resolve) => missing.on("close", (c) => { console.log("close after error", c); resolve(); }));

const long = cp.spawn("sleep", ["10"]);
await new Promise((resolve) => long.on("spawn", resolve));
console.log("kill", long.kill(), long.killed);
const [c2, s2] = await new Promise((resolve) => long.on("close", (c, s) => resolve([c, s])));
console.log(c2, s2, long.kill());

await new Promise((resolve) => cp.exec("echo $GREETING; echo e >&2", (err, stdout, stderr) => { console.log(err, JSON.stringify(stdout), JSON.stringify(stderr)); resolve(); }));
await new Promise((resolve) => cp.exec("exit 4", (err, stdout, stderr) => { console.log(err.message.trim(), err.code, err.killed, err.signal, err.cmd, JSON.stringify(stdout)); resolve(); }));
await new Promise((resolve) => cp.execFile("printf", ["%s,", "a b", "c"], (err, stdout) => { console.log(err, stdout); resolve(); }));
await new Promise((resolve) => cp.execFile("printf", ["x"], { encoding: "buffer" }, (err, stdout) => { console.log(Buffer.isBuffer(stdout), stdout.toString()); resolve(); }));
await new Promise((resolve) => cp.exec("head -c 3000 /dev/zero", { maxBuffer: 100 }, (err, stdout) => { console.log(err.code, err.message, stdout.length); resolve(); }));
await new Promise((resolve) => cp.exec("sleep 5", { timeout: 100 }, (err) => { console.log(err.killed, err.signal, err.code); resolve(); }));
const { stdout } = await util.promisify(cp.exec)("echo promised");
console.log(stdout.trim());
try { await util.promisify(cp.execFile)("sh", ["-c", "echo out; exit 2"]); } catch (err) { console.log(err.code, JSON.stringify(err.stdout)); }
const ac = new AbortController();
const aborted = cp.spawn("sleep", ["10"], { signal: ac.signal });
aborted.on("error", (e) => console.log("abort error", e.name));
await new Promise((resolve) => aborted.on("spawn", resolve));
ac.abort();
const [c3, s3] = await new Promise((resolve) => aborted.on("close", (c, s) => resolve([c, s])));
console.log(c3, s3);
const piped = cp.spawn("cat");
const chunks = [];
piped.stdout.on("data", (d) => chunks.push(d.toString()));
for (let i = 0; i < 5; i++) piped.stdin.write("line " + i + "\n");
piped.stdin.end("end\n");
await new Promise((resolve) => piped.on("close", resolve));
console.log(JSON.stringify(chunks.join("")));
const ignored = cp.spawn("sh", ["-c", "echo x"], { stdio: "ignore" });
console.log(ignored.stdout, ignored.stdin);
await new Promise((resolve) => ignored.on("close", (c) => { console.log("ignored", c); resolve(); }));
if (process.versions.podcode) { try { cp.spawn("sh", { stdio: ["ipc"] }); } catch (err) { console.log("podcode-differs:", err.code); } }
