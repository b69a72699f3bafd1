console.log(process.env.GREETING, process.cwd() === require("path").resolve("."), process.platform, process.arch);
console.log(typeof process.pid, typeof process.version, process.version.startsWith("v"), typeof process.versions.node, process.release.name);
const [s, ns] = process.hrtime();
console.log(typeof s, typeof ns, ns < 1e9, typeof process.hrtime.bigint(), process.hrtime([s, ns])[0] >= 0);
console.log(typeof process.uptime(), process.uptime() >= 0, typeof process.memoryUsage().heapUsed, typeof process.memoryUsage.rss());
console.log(process.getuid() >= 0, typeof process.umask(), process.argv.length >= 1, Array.isArray(process.execArgv));
console.log(typeof process.on, process.once("exit", () => {}) === process, process.listenerCount("exit") >= 1);
await new Promise((resolve) => process.nextTick((a, b) => { console.log("tick", a, b); resolve(); }, 1, 2));
try { process.nextTick(5); } catch (e) { console.log(e.code, e.message); }
process.env.NEW_VAR = "x";
console.log(process.env.NEW_VAR, "NEW_VAR" in process.env, Object.keys(process.env).includes("GREETING"));
delete process.env.NEW_VAR;
console.log(process.env.NEW_VAR);
console.log(typeof process.stdout.write, process.stdout.isTTY === true, typeof process.stderr.write);
console.log(typeof process.exit, typeof process.kill, typeof process.emitWarning);
if (process.versions.podcode) {
  try { process.exit(1); } catch (e) { console.log("podcode-differs:", e.code, e.message); }
  try { process.chdir("/"); } catch (e) { console.log("podcode-differs:", e.code); }
}
