const { pipeline, Readable } = require("node:stream");
console.log(typeof process.stdout.write, process.stdout.writable, process.stdout.isTTY === true, process.stdout.fd, process.stderr.fd);
await new Promise((resolve) => process.stdout.write("", resolve));
await new Promise((resolve, reject) => {
  const r = Readable.from([]);
  const w = new (require("node:stream").PassThrough)();
  pipeline(r, w, (err) => (err ? reject(err) : resolve()));
  w.resume();
});
console.log("piped");
