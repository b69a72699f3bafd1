const { Duplex, Transform, PassThrough, Readable, Writable, Stream } = require("node:stream");
const { Buffer } = require("node:buffer");
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));
const show = (c) => (Buffer.isBuffer(c) ? "buf:" + c.toString() : typeof c + ":" + JSON.stringify(c));
const watch = (s, log, evs) => { for (const ev of evs) s.on(ev, (x) => log.push(ev + (x instanceof Error ? " " + x.message : ""))); };

// an upper-casing Transform: events in order
{
  const log = [];
  const t = new Transform({
    transform(chunk, enc, cb) { log.push("_transform " + show(chunk) + " " + enc); cb(null, chunk.toString().toUpperCase()); },
    flush(cb) { log.push("_flush"); this.push("!"); cb(); },
  });
  watch(t, log, ["end", "finish", "close", "prefinish", "error"]);
  t.on("data", (c) => log.push("data " + show(c)));
  t.write("ab");
  t.end("cd");
  await wait();
  log.push("states: " + [t.readableEnded, t.writableFinished, t.destroyed].join(","));
  console.log("transform:", log.join(" | "));
}

// push from _transform, several per chunk, and callback with nothing
{
  const t = new Transform({
    objectMode: true,
    transform(n, enc, cb) {
      if (n % 2) { this.push(n); this.push(n * 10); }
      cb();
    },
  });
  const got = [];
  t.on("data", (c) => got.push(c));
  for (const n of [1, 2, 3]) t.write(n);
  t.end();
  await new Promise((r) => t.on("end", r));
  console.log("object transform:", got.join(","));
}

// an error in _transform
{
  const log = [];
  const t = new Transform({
    transform(chunk, enc, cb) {
      if (chunk.toString() === "bad") cb(new Error("bad chunk"));
      else cb(null, chunk);
    },
  });
  watch(t, log, ["end", "finish", "close", "error"]);
  t.on("data", (c) => log.push("data " + show(c)));
  t.write("good", (e) => log.push("cb good " + (e && e.message)));
  t.write("bad", (e) => log.push("cb bad " + (e && e.message)));
  t.write("after", (e) => log.push("cb after " + (e && e.code)));
  await wait();
  log.push("destroyed=" + t.destroyed + " errored=" + (t.errored && t.errored.message));
  console.log("transform error:", log.join(" | "));
}
{
  const log = [];
  const t = new Transform({ transform() { throw new Error("thrown"); } });
  watch(t, log, ["close", "error"]);
  try { t.write("x"); } catch (e) { log.push("threw " + e.message); }
  await wait();
  console.log("transform throws:", log.join(" | "));
}
{
  const log = [];
  const t = new Transform({ transform(c, e, cb) { cb(null, c); }, flush(cb) { cb(new Error("flush failed")); } });
  watch(t, log, ["end", "finish", "close", "error"]);
  t.resume();
  t.end("x");
  await wait();
  console.log("flush error:", log.join(" | "));
}
{
  const log = [];
  const t = new Transform();
  watch(t, log, ["close", "error"]);
  try { t.write("x"); } catch (e) { log.push("threw " + e.code + " " + e.message); }
  await wait();
  console.log("no _transform:", log.join(" | "));
}

// backpressure through a transform with small marks
{
  const log = [];
  let n = 0;
  const t = new Transform({
    highWaterMark: 2,
    transform(chunk, enc, cb) { n++; cb(null, chunk); },
  });
  const rets = [];
  for (let i = 0; i < 6; i++) rets.push(t.write("x"));
  log.push("rets " + rets.join(","), "transformed " + n, "readableLength " + t.readableLength, "writableLength " + t.writableLength);
  t.on("drain", () => log.push("drain"));
  let got = 0;
  t.on("data", (c) => { got += c.length; });
  await wait(5);
  log.push("after reading: transformed " + n + " got " + got);
  t.end();
  await new Promise((r) => t.on("end", r));
  console.log("transform backpressure:", log.join(" | "));
}

// PassThrough
{
  const p = new PassThrough();
  const log = [];
  watch(p, log, ["end", "finish", "close"]);
  p.on("data", (c) => log.push("data " + show(c)));
  p.write("x");
  p.end("y");
  await wait();
  console.log("passthrough:", log.join(" | "), p instanceof Transform, p instanceof Duplex, p instanceof Readable, p instanceof Writable, p instanceof Stream);
}

// a Duplex with independent sides
{
  const log = [];
  const written = [];
  const d = new Duplex({
    read() {},
    write(chunk, enc, cb) { written.push(chunk.toString()); cb(); },
    final(cb) { log.push("final"); cb(); },
  });
  watch(d, log, ["end", "finish", "close", "error"]);
  d.on("data", (c) => log.push("data " + show(c)));
  d.write("in1");
  d.push("out1");
  d.end("in2");
  await wait();
  log.push("written " + written.join(","), "destroyed " + d.destroyed);
  d.push(null);
  await wait();
  log.push("destroyed " + d.destroyed);
  console.log("duplex:", log.join(" | "));
}

// allowHalfOpen false ends the writable side when the readable side ends
{
  const log = [];
  const d = new Duplex({
    allowHalfOpen: false,
    read() { this.push(null); },
    write(chunk, enc, cb) { cb(); },
  });
  watch(d, log, ["end", "finish", "close"]);
  d.resume();
  await wait();
  log.push("writableEnded " + d.writableEnded);
  console.log("half open:", log.join(" | "));
}

// readable: false / writable: false
{
  const d = new Duplex({ readable: false, write(c, e, cb) { cb(); } });
  const e = new Duplex({ writable: false, read() {} });
  console.log("one-sided:", d.readable, d.writable, d.readableEnded, e.readable, e.writable, e.writableFinished);
  const log = [];
  watch(d, log, ["finish", "close", "end"]);
  d.end();
  await wait();
  console.log("one-sided events:", log.join(" | "));
}

// object modes per side
{
  const d = new Duplex({ readableObjectMode: true, read() {}, write(c, e, cb) { cb(); } });
  console.log("modes:", d.readableObjectMode, d.writableObjectMode, d.readableHighWaterMark, d.writableHighWaterMark);
  const t = new Transform({ writableObjectMode: true, transform(o, e, cb) { cb(null, JSON.stringify(o)); } });
  t.end({ a: 1 });
  let s = "";
  t.on("data", (c) => { s += show(c); });
  await new Promise((r) => t.on("end", r));
  console.log("object in, bytes out:", s);
}

// destroy a Duplex
{
  const log = [];
  const d = new Duplex({ read() {}, write(c, e, cb) { cb(); } });
  watch(d, log, ["end", "finish", "close", "error"]);
  d.destroy(new Error("gone"));
  await wait();
  log.push([d.destroyed, d.readableAborted, d.writableAborted, d.closed].join(","));
  console.log("duplex destroy:", log.join(" | "));
}

// subclasses
{
  class Upper extends Transform {
    _transform(chunk, enc, cb) { cb(null, chunk.toString().toUpperCase()); }
  }
  const u = new Upper();
  let s = "";
  u.on("data", (c) => { s += c; });
  u.end("shout");
  await new Promise((r) => u.on("end", r));
  console.log("subclass:", s);
}

// old-style subclasses, as npm packages write them (util.inherits)
{
  function Counter(n) {
    Readable.call(this, { objectMode: true });
    this.n = n;
  }
  Object.setPrototypeOf(Counter.prototype, Readable.prototype);
  Object.setPrototypeOf(Counter, Readable);
  Counter.prototype._read = function () { this.push(this.n > 0 ? this.n-- : null); };
  function Doubler() {
    if (!(this instanceof Doubler)) return new Doubler();
    Transform.call(this, { objectMode: true });
  }
  Object.setPrototypeOf(Doubler.prototype, Transform.prototype);
  Doubler.prototype._transform = function (n, enc, cb) { cb(null, n * 2); };
  function Collect(out) {
    Writable.call(this, { objectMode: true });
    this.out = out;
  }
  Object.setPrototypeOf(Collect.prototype, Writable.prototype);
  Collect.prototype._write = function (v, enc, cb) { this.out.push(v); cb(); };
  const out = [];
  const c = new Collect(out);
  new Counter(3).pipe(Doubler()).pipe(c);
  await new Promise((r) => c.on("finish", r));
  console.log("old-style:", out.join(","), c instanceof Writable, Doubler() instanceof Duplex, new Counter(1) instanceof Readable);
}
