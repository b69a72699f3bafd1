const { Readable, Stream } = require("node:stream");
const { Buffer } = require("node:buffer");
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));
const show = (c) => (Buffer.isBuffer(c) ? "buf:" + c.toString() : typeof c + ":" + JSON.stringify(c));

// events of a pushed-ahead stream in flowing mode
{
  const log = [];
  const r = new Readable({ read() {} });
  for (const ev of ["data", "end", "close", "pause", "resume", "readable", "error"]) {
    if (ev !== "readable") r.on(ev, (x) => log.push(ev + (x !== undefined ? " " + show(x) : "")));
  }
  r.push("a");
  r.push("bc");
  r.push(null);
  log.push("sync: flowing=" + r.readableFlowing + " length=" + r.readableLength + " ended=" + r.readableEnded);
  await wait();
  log.push("after: destroyed=" + r.destroyed + " ended=" + r.readableEnded + " closed=" + r.closed + " readable=" + r.readable);
  console.log("flowing:", log.join(" | "));
}

// paused mode: 'readable' and read()
{
  const log = [];
  const r = new Readable({ read() {} });
  r.push("hello ");
  r.push("world");
  r.on("readable", () => {
    let c;
    log.push("readable len=" + r.readableLength);
    while ((c = r.read()) !== null) log.push("read " + show(c));
  });
  r.on("end", () => log.push("end"));
  r.on("close", () => log.push("close"));
  await wait();
  r.push(null);
  await wait();
  console.log("paused:", log.join(" | "));
}

// read(n) slices the buffer; read(0) and past the end
{
  const log = [];
  const r = new Readable({ read() {} });
  r.push("abcdef");
  r.push("ghij");
  log.push(show(r.read(3)), show(r.read(5)), show(r.read(10)), "len=" + r.readableLength);
  r.push(null);
  log.push(show(r.read(10)), show(r.read(0)), show(r.read()));
  r.on("end", () => log.push("end"));
  await wait();
  console.log("read(n):", log.join(" | "));
}

// _read called as the consumer needs, with the highWaterMark
{
  const log = [];
  let n = 0;
  const r = new Readable({
    highWaterMark: 4,
    read(size) {
      log.push("_read " + size);
      n++;
      if (n > 3) this.push(null);
      else this.push("x".repeat(n * 2));
    },
  });
  r.on("data", (c) => log.push("data " + show(c)));
  r.on("end", () => log.push("end"));
  await wait(5);
  console.log("_read:", log.join(" | "));
}

// pause and resume
{
  const log = [];
  const r = new Readable({ read() {} });
  r.on("data", (c) => {
    log.push("data " + show(c));
    if (c.toString() === "2") {
      r.pause();
      log.push("paused=" + r.isPaused());
      setTimeout(() => { log.push("resume"); r.resume(); }, 2);
    }
  });
  const ended = new Promise((res) => r.on("end", () => { log.push("end"); res(); }));
  for (const x of ["1", "2", "3", "4"]) r.push(x);
  r.push(null);
  await ended;
  console.log("pause:", log.join(" | "));
}

// setEncoding splits multibyte characters correctly
{
  const r = new Readable({ read() {} });
  r.setEncoding("utf8");
  const bytes = Buffer.from("héllo wörld ✓");
  for (let i = 0; i < bytes.length; i += 3) r.push(bytes.subarray(i, i + 3));
  r.push(null);
  const parts = [];
  r.on("data", (c) => parts.push(c));
  await new Promise((res) => r.on("end", res));
  console.log("encoding:", typeof parts[0], parts.join(""), r.readableEncoding);
}

// encoding option and hex
{
  const r = new Readable({ encoding: "hex", read() {} });
  r.push(Buffer.from([1, 2, 255]));
  r.push(null);
  let s = "";
  r.on("data", (c) => { s += c; });
  await new Promise((res) => r.on("end", res));
  console.log("hex:", s);
}

// object mode
{
  const log = [];
  const r = new Readable({ objectMode: true, read() {} });
  r.push({ a: 1 });
  r.push(2);
  r.push("three");
  r.push(false);
  log.push("len=" + r.readableLength + " hwm=" + r.readableHighWaterMark + " om=" + r.readableObjectMode);
  r.push(null);
  r.on("data", (c) => log.push(JSON.stringify(c)));
  await new Promise((res) => r.on("end", res));
  console.log("objectMode:", log.join(" | "));
}

// push's return value follows the highWaterMark
{
  const r = new Readable({ highWaterMark: 5, read() {} });
  const rets = [r.push("ab"), r.push("cd"), r.push("e"), r.push("fg")];
  console.log("push returns:", rets.join(","), r.readableLength, r.readableHighWaterMark);
  const o = new Readable({ objectMode: true, highWaterMark: 2, read() {} });
  console.log("object push returns:", [o.push(1), o.push(2), o.push(3)].join(","));
}

// destroy mid-stream, with and without an error
{
  const log = [];
  const r = new Readable({ read() {} });
  r.on("data", (c) => { log.push("data " + show(c)); r.destroy(); });
  r.on("end", () => log.push("end"));
  r.on("error", (e) => log.push("error " + e.message));
  r.on("close", () => log.push("close"));
  r.push("a");
  r.push("b");
  await wait();
  log.push("destroyed=" + r.destroyed + " aborted=" + r.readableAborted + " push=" + r.push("c"));
  console.log("destroy:", log.join(" | "));
}
{
  const log = [];
  const r = new Readable({ read() {} });
  r.on("error", (e) => log.push("error " + e.message));
  r.on("close", () => log.push("close"));
  r.on("end", () => log.push("end"));
  r.destroy(new Error("boom"));
  r.destroy(new Error("again"));
  log.push("sync errored=" + (r.errored && r.errored.message) + " destroyed=" + r.destroyed);
  await wait();
  console.log("destroy(err):", log.join(" | "));
}
{
  const log = [];
  const r = new Readable({
    read() {},
    destroy(err, cb) { log.push("_destroy " + (err && err.message)); setTimeout(() => cb(err), 1); },
  });
  r.on("error", (e) => log.push("error " + e.message));
  r.on("close", () => log.push("close"));
  r.destroy(new Error("slow"), (e) => log.push("cb " + (e && e.message)));
  await wait(10);
  console.log("custom _destroy:", log.join(" | "));
}

// autoDestroy false: end without close
{
  const log = [];
  const r = new Readable({ autoDestroy: false, read() {} });
  r.on("end", () => log.push("end"));
  r.on("close", () => log.push("close"));
  r.resume();
  r.push(null);
  await wait();
  log.push("destroyed=" + r.destroyed);
  console.log("autoDestroy false:", log.join(" | "));
}

// emitClose false
{
  const log = [];
  const r = new Readable({ emitClose: false, read() {} });
  r.on("end", () => log.push("end"));
  r.on("close", () => log.push("close"));
  r.resume();
  r.push(null);
  await wait();
  log.push("destroyed=" + r.destroyed);
  console.log("emitClose false:", log.join(" | "));
}

// errors: push after EOF, a bad chunk, _read not implemented, _read throws
for (const [name, make] of [
  ["push after EOF", () => { const r = new Readable({ read() {} }); r.push(null); r.push("x"); return r; }],
  ["bad chunk", () => { const r = new Readable({ read() {} }); r.push(42); return r; }],
  ["no _read", () => { const r = new Readable(); r.read(); return r; }],
  ["_read throws", () => { const r = new Readable({ read() { throw new Error("read failed"); } }); r.resume(); return r; }],
  ["unshift after end", () => { const r = new Readable({ read() {} }); r.push(null); r.resume(); r.on("end", () => r.unshift("x")); return r; }],
]) {
  const log = [];
  const r = make();
  r.on("error", (e) => log.push(e.name + " " + e.code + " " + e.message));
  r.on("close", () => log.push("close"));
  await wait();
  console.log(name + ":", log.join(" | "));
}

// unshift puts data back in front
{
  const r = new Readable({ read() {} });
  r.push("world");
  const first = r.read(2);
  r.unshift(first);
  r.unshift("hello ");
  r.push(null);
  let s = "";
  r.on("data", (c) => { s += c; });
  await new Promise((res) => r.on("end", res));
  console.log("unshift:", s);
}

// Readable.from
{
  const out = [];
  for (const src of [["a", "b", 3], "a string", Buffer.from("a buffer"), new Set([1, 2])]) {
    const r = Readable.from(src);
    const got = [];
    r.on("data", (c) => got.push(show(c)));
    await new Promise((res) => r.on("end", res));
    out.push(got.join(","));
  }
  function* gen() { yield 1; yield 2; }
  const g = [];
  const r = Readable.from(gen(), { objectMode: true });
  r.on("data", (c) => g.push(c));
  await new Promise((res) => r.on("close", res));
  out.push("gen " + g.join(","));
  const p = Readable.from([Promise.resolve("p1"), "p2"]);
  const pg = [];
  p.on("data", (c) => pg.push(c));
  await new Promise((res) => p.on("end", res));
  out.push("promises " + pg.join(","));
  const bad = Readable.from([1, null, 2]);
  bad.on("data", () => {});
  await new Promise((res) => bad.on("error", (e) => { out.push("null " + e.code); res(); }));
  try { Readable.from(42); } catch (e) { out.push(e.code + " " + e.message); }
  console.log("from:", out.join(" | "));
}

// an async iterable source
{
  const src = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return { next: () => Promise.resolve(i < 3 ? { value: "v" + i++, done: false } : { value: undefined, done: true }) };
    },
  };
  const got = [];
  const r = Readable.from(src);
  r.on("data", (c) => got.push(c));
  await new Promise((res) => r.on("end", res));
  console.log("from async:", got.join(","));
}

// instanceof, properties, legacy Stream
{
  const r = new Readable();
  console.log("props:", r instanceof Stream, r instanceof Readable, typeof r.pipe, r.readable, r.readableHighWaterMark,
    r.readableFlowing, r.readableLength, r.destroyed, r.closed, r.errored, r.readableAborted, r.readableDidRead, r.readableEnded);
  const plain = Readable({ read() {} });
  console.log("without new:", plain instanceof Readable);
  class My extends Readable {
    constructor() { super({ objectMode: true }); this.n = 0; }
    _read() { this.push(this.n < 2 ? this.n++ : null); }
  }
  const got = [];
  const m = new My();
  m.on("data", (c) => got.push(c));
  await new Promise((res) => m.on("end", res));
  console.log("subclass:", got.join(","), m.readableDidRead);
  try { new Readable({ highWaterMark: -1 }); } catch (e) { console.log("hwm:", e.code, e.message); }
  try { new Readable({ highWaterMark: 1.5 }); } catch (e) { console.log("hwm:", e.code, e.message); }
}

// construct runs before the first _read
{
  const log = [];
  const r = new Readable({
    construct(cb) { log.push("construct"); setTimeout(() => { log.push("constructed"); cb(); }, 2); },
    read() { log.push("_read"); this.push(null); },
  });
  const ended = new Promise((res) => r.on("end", () => { log.push("end"); res(); }));
  r.resume();
  await ended;
  console.log("construct:", log.join(" | "));
}

// a 'readable' listener switches to paused mode; removing it goes back
{
  const log = [];
  const r = new Readable({ read() {} });
  r.on("readable", function onR() { log.push("readable"); r.removeListener("readable", onR); });
  r.on("data", (c) => log.push("data " + show(c)));
  r.push("x");
  await wait();
  log.push("flowing=" + r.readableFlowing);
  r.push("y");
  r.push(null);
  await wait();
  log.push("flowing=" + r.readableFlowing);
  console.log("readable+data:", log.join(" | "));
}

// wrap: a Readable over an old-style stream that only emits 'data' and 'end'
{
  const EventEmitter = require("node:events");
  const old = new EventEmitter();
  const log = [];
  old.pause = () => log.push("old paused");
  old.resume = () => log.push("old resumed");
  const r = new Readable({ highWaterMark: 2 }).wrap(old);
  old.emit("data", Buffer.from("ab"));
  old.emit("data", Buffer.from("cd"));
  log.push("length " + r.readableLength);
  let s = "";
  r.on("data", (c) => { s += c; });
  const ended = new Promise((res) => r.on("end", res));
  await wait();
  old.emit("data", Buffer.from("ef"));
  old.emit("end");
  await ended;
  console.log("wrap:", s, log.join(" | "));
}
