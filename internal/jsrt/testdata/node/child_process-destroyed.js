// A plugin that destroys a process's output stream does not keep the
// process from ending.
const cp = require("node:child_process");
const child = cp.spawn("head", ["-c", String(8 << 20), "/dev/zero"]);
let chunks = 0;
child.stdout.on("data", () => { if (++chunks === 1) child.stdout.destroy(); });
let timer;
const exited = await Promise.race([
  new Promise((resolve) => child.on("exit", () => resolve(true))),
  new Promise((resolve) => { timer = setTimeout(() => resolve(false), 20000); }),
]);
clearTimeout(timer);
console.log("exited:", exited, "destroyed:", child.stdout.destroyed, "chunks:", chunks);
if (!exited) child.kill();
