const { Writable, Stream } = require("node:stream");
const { Buffer } = require("node:buffer");
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));
const show = (c) => (Buffer.isBuffer(c) ? "buf:" + c.toString() : typeof c + ":" + JSON.stringify(c));

// event order of a synchronous writer: callbacks, 'finish', 'close'
{
  const log = [];
  const w = new Writable({
    write(chunk, enc, cb) { log.push("_write " + show(chunk) + " " + enc); cb(); },
  });
  for (const ev of ["finish", "close", "drain", "prefinish", "error", "pipe"]) w.on(ev, () => log.push(ev));
  log.push("ret " + w.write("a", () => log.push("cb a")));
  log.push("ret " + w.write(Buffer.from("b"), () => log.push("cb b")));
  w.end("c", () => log.push("end cb"));
  log.push("sync: ended=" + w.writableEnded + " finished=" + w.writableFinished + " writable=" + w.writable);
  await wait();
  log.push("after: finished=" + w.writableFinished + " destroyed=" + w.destroyed + " closed=" + w.closed);
  console.log("sync writer:", log.join(" | "));
}

// an asynchronous writer with a small highWaterMark: backpressure and drain
{
  const log = [];
  const w = new Writable({
    highWaterMark: 3,
    write(chunk, enc, cb) { log.push("_write " + chunk); setTimeout(cb, 1); },
  });
  w.on("drain", () => log.push("drain len=" + w.writableLength));
  w.on("finish", () => log.push("finish"));
  w.on("close", () => log.push("close"));
  log.push("ret " + w.write("ab"));
  log.push("ret " + w.write("c") + " needDrain=" + w.writableNeedDrain + " len=" + w.writableLength);
  log.push("ret " + w.write("d"));
  await new Promise((res) => w.once("drain", res));
  log.push("ret " + w.write("e"));
  w.end();
  await new Promise((res) => w.on("close", res));
  console.log("backpressure:", log.join(" | "));
}

// decodeStrings false keeps strings; defaultEncoding; objectMode
{
  const log = [];
  const w = new Writable({
    decodeStrings: false,
    write(chunk, enc, cb) { log.push(show(chunk) + " " + enc); cb(); },
  });
  w.write("plain");
  w.write("aGk=", "base64");
  w.write(Buffer.from("b"));
  w.write(new Uint8Array([104, 105]));
  w.write(new Uint16Array([1]));
  w.end();
  await wait();
  const d = new Writable({ write(chunk, enc, cb) { log.push("decoded " + show(chunk) + " " + enc); cb(); } });
  d.setDefaultEncoding("hex");
  d.write("6869");
  d.write("aGk=", "base64");
  d.end();
  await wait();
  const o = new Writable({ objectMode: true, write(chunk, enc, cb) { log.push("obj " + JSON.stringify(chunk) + " " + enc); cb(); } });
  o.write({ a: 1 });
  o.write(7, () => {});
  o.write(8, "weird");
  o.end("last");
  await wait();
  log.push("hwm " + o.writableHighWaterMark + " " + o.writableObjectMode);
  console.log("encodings:", log.join(" | "));
}

// cork and uncork batch writes into _writev
{
  const log = [];
  const w = new Writable({
    write(chunk, enc, cb) { log.push("_write " + chunk); cb(); },
    writev(chunks, cb) { log.push("_writev " + chunks.map((c) => c.chunk.toString()).join("+")); cb(); },
  });
  w.write("first");
  w.cork();
  w.write("a");
  w.write("b");
  log.push("corked=" + w.writableCorked + " buffered=" + w.writableBuffer.length);
  w.uncork();
  w.cork();
  w.write("c");
  w.end("d");
  await wait();
  log.push("finished=" + w.writableFinished);
  console.log("cork:", log.join(" | "));
}

// writev on a slow writer gets what queued meanwhile
{
  const log = [];
  const w = new Writable({
    writev(chunks, cb) { log.push("_writev " + chunks.map((c) => c.chunk.toString()).join("+")); setTimeout(cb, 1); },
  });
  w.write("1");
  w.write("2");
  w.write("3");
  w.end();
  await new Promise((res) => w.on("finish", res));
  console.log("writev:", log.join(" | "));
}

// final runs before 'finish'
{
  const log = [];
  const w = new Writable({
    write(chunk, enc, cb) { cb(); },
    final(cb) { log.push("final"); setTimeout(() => { log.push("final done"); cb(); }, 1); },
  });
  w.on("prefinish", () => log.push("prefinish"));
  w.on("finish", () => log.push("finish"));
  w.on("close", () => log.push("close"));
  w.end("x", () => log.push("end cb"));
  await wait(10);
  console.log("final:", log.join(" | "));
}
{
  const log = [];
  const w = new Writable({
    write(chunk, enc, cb) { cb(); },
    final(cb) { cb(new Error("final failed")); },
  });
  w.on("finish", () => log.push("finish"));
  w.on("error", (e) => log.push("error " + e.message));
  w.on("close", () => log.push("close"));
  w.end(() => {}); // end's callback gets the error too
  await wait();
  log.push("errored=" + (w.errored && w.errored.message) + " finished=" + w.writableFinished);
  console.log("final error:", log.join(" | "));
}

// errors: write after end, a failed write, null, bad chunk, multiple callbacks
{
  const log = [];
  const w = new Writable({ write(c, e, cb) { cb(); } });
  w.on("error", (e) => log.push("error " + e.code + " " + e.message));
  w.on("close", () => log.push("close"));
  w.end();
  log.push("ret " + w.write("late", (e) => log.push("cb " + (e && e.code))));
  await wait();
  console.log("write after end:", log.join(" | "));
}
{
  const log = [];
  const w = new Writable({ write(c, e, cb) { setTimeout(() => cb(new Error("disk full")), 1); } });
  w.on("error", (e) => log.push("error " + e.message));
  w.on("close", () => log.push("close"));
  w.on("finish", () => log.push("finish"));
  w.write("a", (e) => log.push("cb a " + (e && e.message)));
  w.write("b", (e) => log.push("cb b " + (e && e.message)));
  w.end((e) => log.push("end cb " + (e && e.message)));
  await wait(10);
  log.push("destroyed=" + w.destroyed + " writable=" + w.writable + " aborted=" + w.writableAborted);
  console.log("write error:", log.join(" | "));
}
{
  const log = [];
  const w = new Writable({ write(c, e, cb) { cb(new Error("sync fail")); } });
  w.on("error", (e) => log.push("error " + e.message));
  w.on("close", () => log.push("close"));
  w.write("a", (e) => log.push("cb " + (e && e.message)));
  log.push("after write");
  await wait();
  console.log("sync write error:", log.join(" | "));
}
{
  const out = [];
  const w = new Writable({ write(c, e, cb) { cb(); } });
  for (const bad of [null, 42, {}, undefined]) {
    try { w.write(bad); out.push("no throw"); } catch (e) { out.push(e.name + " " + e.code + " " + e.message); }
  }
  try { w.write("x", "nope"); } catch (e) { out.push(e.code + " " + e.message); }
  try { w.setDefaultEncoding("nope"); } catch (e) { out.push(e.code + " " + e.message); }
  console.log("bad writes:", out.join(" | "));
}
{
  const log = [];
  const w = new Writable({ write(c, e, cb) { cb(); cb(); } });
  w.on("error", (e) => log.push("error " + e.code));
  w.on("close", () => log.push("close"));
  w.write("x");
  await wait();
  console.log("double callback:", log.join(" | "));
}
{
  const log = [];
  const w = new Writable();
  w.on("error", (e) => log.push("error " + e.code + " " + e.message));
  try { w.write("x"); } catch (e) { log.push("threw " + e.code + " " + e.message); }
  await wait();
  console.log("no _write:", log.join(" | "));
}
{
  const log = [];
  const w = new Writable({ write(c, e, cb) { cb(); } });
  w.on("error", (e) => log.push("error " + e.code + " " + e.message));
  w.pipe(w);
  await wait();
  console.log("pipe from writable:", log.join(" | "));
}

// destroy with queued writes
{
  const log = [];
  const w = new Writable({ write(c, e, cb) { log.push("_write " + c); setTimeout(cb, 2); } });
  w.on("error", (e) => log.push("error " + e.message));
  w.on("close", () => log.push("close"));
  w.on("finish", () => log.push("finish"));
  w.write("a", (e) => log.push("cb a " + (e && e.code)));
  w.write("b", (e) => log.push("cb b " + (e && e.code)));
  w.end((e) => log.push("end cb " + (e && e.code)));
  w.destroy();
  log.push("destroyed");
  await wait(10);
  log.push("write after destroy " + w.write("c", (e) => log.push("cb c " + (e && e.code))));
  await wait();
  console.log("destroy queued:", log.join(" | "));
}

// end twice; end after finish
{
  const log = [];
  const w = new Writable({ write(c, e, cb) { cb(); } });
  w.on("error", (e) => log.push("error " + e.code));
  w.end("a", () => log.push("first end cb"));
  w.end(() => log.push("second end cb"));
  await wait();
  w.end((e) => log.push("after finish " + (e && e.code)));
  await wait();
  console.log("end twice:", log.join(" | "));
}

// construct delays writes; instanceof
{
  const log = [];
  const w = new Writable({
    construct(cb) { log.push("construct"); setTimeout(() => { log.push("ready"); cb(); }, 2); },
    write(c, e, cb) { log.push("_write " + c); cb(); },
  });
  w.write("early");
  w.end();
  await new Promise((res) => w.on("finish", () => { log.push("finish"); res(); }));
  console.log("construct:", log.join(" | "));
  console.log("instanceof:", w instanceof Writable, w instanceof Stream, Writable({ write() {} }) instanceof Writable,
    typeof w.writableNeedDrain, w.writableLength, w.writableCorked);
}
{
  const log = [];
  const w = new Writable({
    construct(cb) { cb(new Error("cannot open")); },
    write(c, e, cb) { cb(); },
  });
  w.on("error", (e) => log.push("error " + e.message));
  w.on("close", () => log.push("close"));
  w.write("x", (e) => log.push("cb " + (e && e.message)));
  await wait(5);
  console.log("construct error:", log.join(" | "));
}

// signal destroys with an AbortError
{
  const log = [];
  const ac = new AbortController();
  const w = new Writable({ signal: ac.signal, write(c, e, cb) { setTimeout(cb, 5); } });
  w.on("error", (e) => log.push("error " + e.name + " " + e.code + " " + e.message));
  w.on("close", () => log.push("close"));
  w.write("x");
  ac.abort();
  await wait(10);
  console.log("signal:", log.join(" | "));
}

// what the callbacks get
{
  const log = [];
  const w = new Writable({ write(chunk, enc, cb) { cb(); } });
  w.write("a", (...a) => log.push("write cb " + a.length + " " + a[0]));
  w.end((...a) => log.push("end cb " + a.length + " " + a[0]));
  w.on("finish", (...a) => log.push("finish " + a.length));
  await wait();
  console.log("callback arguments:", log.join(" | "));
}
