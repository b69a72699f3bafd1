const stream = require("node:stream");
const { Readable, Writable, Transform, PassThrough, pipeline, finished } = stream;
const { Buffer } = require("node:buffer");
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));
const watch = (s, name, log, evs) => {
  for (const ev of evs) s.on(ev, (x) => log.push(name + ":" + ev + (x instanceof Error ? " " + x.message : "")));
};
const counter = (n, size, hwm) => {
  let i = 0;
  return new Readable({ highWaterMark: hwm, read() { this.push(i < n ? String(i++ % 10).repeat(size) : null); } });
};
const sink = (log, opts) => {
  const chunks = [];
  const w = new Writable(Object.assign({ write(c, e, cb) { chunks.push(c.toString()); setTimeout(cb, 0); } }, opts));
  w.chunks = chunks;
  return w;
};

// pipe: everything arrives, with 'pipe', 'unpipe', 'finish' and 'close' in order
{
  const log = [];
  const src = counter(5, 3);
  const dst = sink(log);
  watch(src, "src", log, ["end", "close", "pause", "resume"]);
  watch(dst, "dst", log, ["pipe", "unpipe", "finish", "close", "drain"]);
  const ret = src.pipe(dst);
  log.push("returns dst " + (ret === dst));
  await new Promise((r) => dst.on("close", r));
  console.log("pipe:", dst.chunks.join(""), "|", log.join(" | "));
}

// backpressure: a slow writer with a small highWaterMark pauses the source
{
  const log = [];
  let reads = 0;
  let i = 0;
  const src = new Readable({ highWaterMark: 4, read() { reads++; this.push(i < 20 ? "ab" : null); i++; } });
  let maxBuffered = 0;
  const dst = new Writable({
    highWaterMark: 4,
    write(c, e, cb) { maxBuffered = Math.max(maxBuffered, this.writableLength); setTimeout(cb, 1); },
  });
  let drains = 0, pauses = 0;
  dst.on("drain", () => drains++);
  src.on("pause", () => pauses++);
  src.pipe(dst);
  await new Promise((r) => dst.on("finish", r));
  console.log("backpressure:", "reads", reads, "drains>0", drains > 0, "pauses>0", pauses > 0, "maxBuffered<=4", maxBuffered <= 4, "src buffered<=4", src.readableLength <= 4);
}

// unpipe stops the flow; end: false leaves the destination open
{
  const log = [];
  const src = new Readable({ read() {} });
  const dst = sink(log);
  watch(dst, "dst", log, ["unpipe", "finish"]);
  src.pipe(dst, { end: false });
  src.push("a");
  await wait(2);
  src.unpipe(dst);
  log.push("flowing " + src.readableFlowing);
  src.push("b");
  src.push(null);
  await wait(2);
  log.push("got " + dst.chunks.join("") + " ended " + dst.writableEnded);
  src.unpipe(dst);
  console.log("unpipe:", log.join(" | "));
}

// one source into two destinations, the slower one holds it back
{
  const src = counter(6, 2, 2);
  const fast = new Writable({ highWaterMark: 2, write(c, e, cb) { cb(); } });
  const slow = sink([], { highWaterMark: 2 });
  let fastGot = 0;
  fast.on("pipe", () => {});
  fast._write = (c, e, cb) => { fastGot += c.length; cb(); };
  src.pipe(fast);
  src.pipe(slow);
  await Promise.all([new Promise((r) => fast.on("finish", r)), new Promise((r) => slow.on("finish", r))]);
  console.log("two destinations:", fastGot, slow.chunks.join("").length);
}

// an error on the destination unpipes; the source stays paused
{
  const log = [];
  const src = new Readable({ read() {} });
  const dst = new Writable({ write(c, e, cb) { cb(new Error("write failed")); } });
  watch(dst, "dst", log, ["unpipe", "error", "close"]);
  watch(src, "src", log, ["close", "error"]);
  src.pipe(dst);
  src.push("x");
  await wait(2);
  log.push("src destroyed " + src.destroyed + " flowing " + src.readableFlowing);
  console.log("pipe error:", log.join(" | "));
}

// pipeline: callback once, after all are done
{
  const log = [];
  const src = counter(3, 2);
  const up = new Transform({ transform(c, e, cb) { cb(null, c.toString() + "."); } });
  const dst = sink(log);
  watch(src, "src", log, ["end", "close"]);
  watch(dst, "dst", log, ["finish", "close"]);
  let ret;
  await new Promise((res) => { ret = pipeline(src, up, dst, (err) => { log.push("callback " + err); res(); }); log.push("returns last " + (ret === dst)); });
  await wait();
  console.log("pipeline:", dst.chunks.join(""), "|", log.join(" | "));
}

// pipeline with an array, and with a generator source and a function sink
{
  const log = [];
  const dst = sink(log);
  await new Promise((res) => pipeline([Readable.from(["a", "b"]), dst], (err) => { log.push("array cb " + err + " " + dst.chunks.join("")); res(); }));
  await new Promise((res) => pipeline(function* () { yield "x"; yield "y"; }, new PassThrough(), async function (source) {
    let s = "";
    for await (const c of source) s += c;
    return s.toUpperCase();
  }, (err, val) => { log.push("function cb " + err + " " + val); res(); }));
  console.log("pipeline forms:", log.join(" | "));
}

// pipeline: an error in the middle destroys every stream, callback gets it
{
  const log = [];
  let n = 0;
  const src = new Readable({ read() { this.push(n < 100 ? "x" : null); n++; } });
  const bad = new Transform({ transform(c, e, cb) { cb(n > 3 ? new Error("transform failed") : null, c); } });
  const dst = sink(log);
  watch(src, "src", log, ["close", "error"]);
  watch(bad, "bad", log, ["close", "error"]);
  watch(dst, "dst", log, ["close", "error", "finish"]);
  await new Promise((res) => pipeline(src, bad, dst, (err) => { log.push("callback " + (err && err.message)); res(); }));
  await wait();
  log.push("destroyed " + [src.destroyed, bad.destroyed, dst.destroyed].join(","));
  console.log("pipeline error:", log.join(" | ").replace(/src:close \| /g, ""));
  console.log("pipeline error, src closed:", log.includes("src:close"));
}

// pipeline: the source fails
{
  const log = [];
  const src = new Readable({ read() { this.destroy(new Error("source failed")); } });
  const dst = sink(log);
  await new Promise((res) => pipeline(src, dst, (err) => { log.push("callback " + (err && err.message) + " dst destroyed " + dst.destroyed); res(); }));
  console.log("pipeline source error:", log.join(" | "));
}

// pipeline: a destination that closes early is a premature close
{
  const log = [];
  const src = new Readable({ read() {} });
  const dst = new Writable({ write(c, e, cb) { cb(); this.destroy(); } });
  pipeline(src, dst, (err) => log.push("callback " + (err && err.code)));
  src.push("x");
  await wait(10);
  log.push("src destroyed " + src.destroyed);
  console.log("pipeline premature:", log.join(" | "));
}

// pipeline argument errors
{
  const out = [];
  try { pipeline(new PassThrough()); } catch (e) { out.push(e.code + " " + e.message); }
  try { pipeline(new PassThrough(), (e) => {}); } catch (e) { out.push(e.code + " " + e.message); }
  console.log("pipeline args:", out.join(" | "));
}

// stream.promises.pipeline and finished
{
  const { pipeline: pp, finished: pf } = require("node:stream/promises");
  const dst = sink([]);
  const v = await pp(Readable.from(["p", "q"]), dst);
  console.log("promises.pipeline:", v, dst.chunks.join(""));
  try {
    await pp(Readable.from(["p"]), new Transform({ transform(c, e, cb) { cb(new Error("nope")); } }), sink([]));
  } catch (e) {
    console.log("promises.pipeline rejects:", e.message);
  }
  const ac = new AbortController();
  const p = pp(new Readable({ read() {} }), sink([]), { signal: ac.signal });
  ac.abort();
  try { await p; } catch (e) { console.log("promises.pipeline abort:", e.name, e.code); }
  const r = Readable.from(["z"]);
  r.resume();
  await pf(r);
  console.log("promises.finished:", r.readableEnded);
  const w = new Writable({ write(c, e, cb) { cb(); } });
  w.destroy();
  try { await pf(w); } catch (e) { console.log("promises.finished premature:", e.code, e.message); }
  console.log("same module:", require("node:stream").promises === require("node:stream/promises"));
}

// finished with each kind of end
{
  const log = [];
  const r = new Readable({ read() {} });
  finished(r, (err) => log.push("readable " + err));
  r.resume();
  r.push(null);
  const w = new Writable({ write(c, e, cb) { cb(); } });
  finished(w, (err) => log.push("writable " + err));
  w.end();
  const e = new Readable({ read() {} });
  finished(e, (err) => log.push("error " + (err && err.message)));
  e.destroy(new Error("broke"));
  const d = new Readable({ read() {} });
  finished(d, (err) => log.push("destroyed " + (err && err.code)));
  d.destroy();
  const rw = new PassThrough();
  finished(rw, { readable: false }, (err) => log.push("writable side only " + err));
  rw.end("x");
  const done = new Readable({ read() {} });
  done.resume();
  done.push(null);
  await wait();
  finished(done, (err) => log.push("already done " + err));
  const ac = new AbortController();
  const pending = new Readable({ read() {} });
  finished(pending, { signal: ac.signal }, (err) => log.push("signal " + (err && err.name)));
  ac.abort();
  const cleanup = finished(new PassThrough(), () => log.push("never"));
  log.push("cleanup is " + typeof cleanup);
  cleanup();
  await wait(5);
  console.log("finished:", log.join(" | "));
  try { finished({}, () => {}); } catch (e) { console.log("finished bad:", e.code, e.message); }
}

// addAbortSignal
{
  const log = [];
  const ac = new AbortController();
  const r = stream.addAbortSignal(ac.signal, new Readable({ read() {} }));
  r.on("error", (e) => log.push("error " + e.name + " " + e.message));
  r.on("close", () => log.push("close"));
  ac.abort();
  await wait();
  const already = stream.addAbortSignal(AbortSignal.abort(), new PassThrough());
  already.on("error", (e) => log.push("already " + e.name));
  await wait();
  console.log("addAbortSignal:", log.join(" | "));
}

// helpers
{
  const r = new Readable({ read() {} });
  console.log("helpers:", stream.isReadable(r), stream.isErrored(r), stream.isDisturbed(r), stream.getDefaultHighWaterMark(false), stream.getDefaultHighWaterMark(true));
  r.destroy(new Error("x"));
  r.on("error", () => {});
  await wait();
  console.log("helpers after:", stream.isReadable(r), stream.isErrored(r), stream.isDisturbed(r));
  console.log("exports:", typeof stream, stream.Stream === stream, typeof stream.Readable.from, typeof stream.finished, typeof stream.destroy);
}

// legacy Stream.pipe
{
  const { Stream } = stream;
  const src = new Stream();
  const dst = sink([]);
  src.pipe(dst);
  src.emit("data", "legacy");
  src.emit("end");
  await new Promise((r) => dst.on("finish", r));
  console.log("legacy pipe:", dst.chunks.join(""));
}
