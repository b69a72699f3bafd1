const fs = require("node:fs");
const { pipeline, Readable } = require("node:stream");
const { Buffer } = require("node:buffer");
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));
const done = (s, ev) => new Promise((r) => s.on(ev || "close", r));

const pattern = Buffer.alloc(256);
for (let i = 0; i < 256; i++) pattern[i] = (i * 7) % 256;
const big = Buffer.alloc(200 * 1024 + 7, pattern);
fs.writeFileSync("big.bin", big);
fs.writeFileSync("small.txt", "héllo wörld\nsecond line\n");

// events and chunks of a read
{
  const log = [];
  const r = fs.createReadStream("big.bin");
  log.push("pending " + r.pending + " path " + r.path + " hwm " + r.readableHighWaterMark + " autoClose " + r.autoClose);
  r.on("open", (fd) => log.push("open " + typeof fd));
  r.on("ready", () => log.push("ready"));
  const sizes = [];
  r.on("data", (c) => sizes.push(c.length));
  r.on("end", () => log.push("end bytesRead " + r.bytesRead));
  r.on("close", () => log.push("close fd " + r.fd));
  await done(r);
  log.push("chunks " + sizes.join(","));
  console.log("read:", log.join(" | "));
}

// copy with pipe, and with pipeline
{
  const r = fs.createReadStream("big.bin");
  const w = fs.createWriteStream("copy.bin");
  const log = [];
  w.on("open", () => log.push("w open"));
  w.on("ready", () => log.push("w ready"));
  w.on("finish", () => log.push("w finish"));
  w.on("close", () => log.push("w close"));
  r.pipe(w);
  await done(w);
  console.log("pipe copy:", fs.readFileSync("copy.bin").equals(big), w.bytesWritten, log.join(" | "));
  await new Promise((res, rej) => pipeline(fs.createReadStream("small.txt"), fs.createWriteStream("copy.txt"), (e) => (e ? rej(e) : res())));
  console.log("pipeline copy:", fs.readFileSync("copy.txt", "utf8") === fs.readFileSync("small.txt", "utf8"));
}

// for await over a file, with an encoding
{
  const parts = [];
  for await (const chunk of fs.createReadStream("small.txt", { encoding: "utf8", highWaterMark: 5 })) parts.push(chunk);
  console.log("for await:", parts.length, JSON.stringify(parts.join("")));
  const r = fs.createReadStream("small.txt", "hex");
  let s = "";
  for await (const c of r) s += c;
  console.log("string options:", s.slice(0, 12), r.readableEncoding);
}

// start and end, inclusive
{
  const got = [];
  for (const o of [{ start: 1, end: 4 }, { start: 6 }, { end: 2 }, { start: 3, end: 3 }, { start: 100 }]) {
    let s = "";
    for await (const c of fs.createReadStream("small.txt", o)) s += c;
    got.push(JSON.stringify(s));
  }
  console.log("ranges:", got.join(" "));
  try { fs.createReadStream("small.txt", { start: 5, end: 2 }); } catch (e) { console.log("range error:", e.code, e.message); }
  try { fs.createReadStream("small.txt", { start: -1 }); } catch (e) { console.log("range error:", e.code, e.message); }
}

// errors: a missing file, a folder
{
  const log = [];
  const r = fs.createReadStream("missing.txt");
  r.on("open", () => log.push("open"));
  // (fs.open's message names the path resolved in Podcode: not compared)
  r.on("error", (e) => log.push("error " + e.code + " " + e.syscall + " " + e.path.endsWith("missing.txt")));
  r.on("close", () => log.push("close"));
  await done(r);
  fs.mkdirSync("adir");
  const d = fs.createReadStream("adir");
  d.on("error", (e) => log.push("dir error " + e.code));
  d.on("data", () => {});
  await done(d);
  console.log("read errors:", log.join(" | "));
  const w = fs.createWriteStream("nodir/x.txt");
  const wl = [];
  w.on("error", (e) => wl.push("error " + e.code + " " + e.syscall));
  w.on("close", () => wl.push("close"));
  w.write("lost", (e) => wl.push("write cb " + (e && e.code)));
  await done(w);
  console.log("write errors:", wl.join(" | "));
  try { fs.createReadStream(42); } catch (e) { console.log("bad path:", e.code); }
  try { fs.createReadStream("x", 42); } catch (e) { console.log("bad options:", e.code, e.message); }
}

// writing: flags, start, encoding, bytesWritten, close(cb)
{
  const w = fs.createWriteStream("out.txt");
  const log = [];
  log.push("ret " + w.write("one\n") + " pending " + w.pending);
  w.write(Buffer.from("two\n"));
  w.end("three\n", () => log.push("end cb"));
  w.on("finish", () => log.push("finish " + w.bytesWritten));
  await done(w);
  log.push(JSON.stringify(fs.readFileSync("out.txt", "utf8")));
  const a = fs.createWriteStream("out.txt", { flags: "a" });
  a.end("four\n");
  await done(a);
  log.push(JSON.stringify(fs.readFileSync("out.txt", "utf8")));
  const p = fs.createWriteStream("out.txt", { flags: "r+", start: 4 });
  p.end("TWO");
  await done(p);
  log.push(JSON.stringify(fs.readFileSync("out.txt", "utf8")));
  const h = fs.createWriteStream("hex.txt", { encoding: "hex" });
  h.end("68656c6c6f");
  await done(h);
  log.push(fs.readFileSync("hex.txt", "utf8"));
  const c = fs.createWriteStream("closed.txt");
  c.write("x");
  await new Promise((res) => c.close((e) => { log.push("close cb " + e + " " + fs.readFileSync("closed.txt", "utf8")); res(); }));
  await new Promise((res) => c.close(() => { log.push("close again"); res(); }));
  console.log("write:", log.join(" | "));
}

// backpressure against a small highWaterMark
{
  const w = fs.createWriteStream("bp.txt", { highWaterMark: 8 });
  const rets = [];
  for (let i = 0; i < 4; i++) rets.push(w.write("12345"));
  let drained = false;
  w.on("drain", () => { drained = true; });
  w.end();
  await done(w);
  console.log("write backpressure:", rets.join(","), drained, fs.readFileSync("bp.txt", "utf8").length);
}

// descriptors: fd, autoClose false, destroy mid-read
{
  const fd = fs.openSync("small.txt", "r");
  const r = fs.createReadStream(null, { fd, autoClose: false, start: 0 });
  let s = "";
  r.on("data", (c) => { s += c; });
  await done(r, "end");
  await wait();
  const stillOpen = fs.fstatSync(fd).size > 0;
  fs.closeSync(fd);
  console.log("fd:", JSON.stringify(s.slice(0, 5)), r.destroyed, stillOpen);
  const r2 = fs.createReadStream("big.bin", { highWaterMark: 1024 });
  const log = [];
  r2.on("data", () => { log.push("data"); r2.destroy(); });
  r2.on("close", () => log.push("close"));
  r2.on("end", () => log.push("end"));
  await done(r2);
  console.log("destroy mid-read:", log.join(" | "), r2.bytesRead < big.length);
  const r3 = fs.createReadStream("small.txt");
  await new Promise((res) => r3.close((e) => { console.log("ReadStream close cb:", e === undefined ? "undefined" : e && e.code); res(); }));
}

// classes
{
  const made = [fs.createReadStream("small.txt"), fs.createWriteStream("w.txt"), new fs.ReadStream("small.txt")];
  console.log("classes:", made[0] instanceof fs.ReadStream, made[1] instanceof fs.WriteStream,
    fs.ReadStream.prototype instanceof Readable, typeof fs.ReadStream, made[2].path);
  await Promise.all(made.map((s) => new Promise((res) => { s.on("close", res); s.destroy(); })));
}
