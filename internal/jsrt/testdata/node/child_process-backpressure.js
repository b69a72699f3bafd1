// A process writes only as fast as the plugin reads: paused, its output
// waits in the pipe and the process waits with it; resumed, every byte comes.
const cp = require("node:child_process");
const size = 8 << 20;
const child = cp.spawn("head", ["-c", String(size), "/dev/zero"]);
let exited = false;
child.on("exit", () => { exited = true; });
child.stdout.pause();
await new Promise((resolve) => setTimeout(resolve, 500));
console.log("exited while paused:", exited, "buffered within bounds:", child.stdout.readableLength <= 4 << 20);
let got = 0;
child.stdout.on("data", (b) => { got += b.length; });
child.stdout.resume();
const code = await new Promise((resolve) => child.on("close", resolve));
console.log("read", got === size, "code", code);
