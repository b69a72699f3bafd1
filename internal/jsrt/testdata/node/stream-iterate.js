const { Readable, PassThrough, pipeline } = require("node:stream");
const { Buffer } = require("node:buffer");
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));
const show = (c) => (Buffer.isBuffer(c) ? "buf:" + c.toString() : typeof c + ":" + JSON.stringify(c));

// for await over a readable that produces data later
{
  const log = [];
  let i = 0;
  const r = new Readable({
    read() { setTimeout(() => this.push(i < 3 ? "c" + i++ : null), 1); },
  });
  r.on("close", () => log.push("close"));
  for await (const chunk of r) log.push(show(chunk));
  log.push("loop done, destroyed " + r.destroyed);
  await wait();
  console.log("for await:", log.join(" | "));
}

// object mode, with setEncoding
{
  const objs = [];
  for await (const o of Readable.from([{ a: 1 }, 2, "three"])) objs.push(JSON.stringify(o));
  const r = new Readable({ read() {} });
  r.setEncoding("utf8");
  r.push(Buffer.from([0xe2, 0x9c]));
  r.push(Buffer.from([0x93, 0x21]));
  r.push(null);
  const strs = [];
  for await (const s of r) strs.push(show(s));
  console.log("object and text:", objs.join(","), strs.join(","));
}

// break destroys the stream (an AbortError it does not emit unheard)
{
  const log = [];
  const r = new Readable({ objectMode: true, read() {} });
  r.push(1);
  r.push(2);
  let closed = 0;
  r.on("close", () => closed++);
  for await (const v of r) {
    log.push("got " + v);
    break;
  }
  // whether 'close' came yet differs: Node's nextTick waits for the
  // microtasks the loop's end runs, Podcode's is one of them
  log.push("destroyed " + r.destroyed);
  await wait();
  log.push("closed " + closed + " errored " + (r.errored && r.errored.name) + " aborted " + r.readableAborted);
  console.log("break:", log.join(" | "));
}

// destroyOnReturn: false keeps it open for another loop
{
  const r = Readable.from([1, 2, 3, 4]);
  const first = [];
  for await (const v of r.iterator({ destroyOnReturn: false })) {
    first.push(v);
    if (v === 2) break;
  }
  const rest = [];
  for await (const v of r) rest.push(v);
  console.log("destroyOnReturn:", first.join(","), rest.join(","));
}

// an error ends the loop with it
{
  const log = [];
  const r = new Readable({ read() {} });
  r.push("ok");
  setTimeout(() => r.destroy(new Error("mid-stream")), 2);
  try {
    for await (const c of r) log.push(show(c));
  } catch (e) {
    log.push("caught " + e.message);
  }
  log.push("destroyed " + r.destroyed);
  console.log("error:", log.join(" | "));
}

// a throw in the loop body destroys the stream
{
  const log = [];
  const r = Readable.from(["a", "b"]);
  r.on("close", () => log.push("close"));
  try {
    for await (const c of r) throw new Error("body " + c);
  } catch (e) {
    log.push("caught " + e.message);
  }
  await wait();
  log.push("destroyed " + r.destroyed);
  console.log("throw in body:", log.join(" | "));
}

// the iterator by hand, and next() calls that overlap
{
  const r = new Readable({ objectMode: true, read() {} });
  const it = r[Symbol.asyncIterator]();
  const p1 = it.next(), p2 = it.next();
  r.push("x");
  r.push("y");
  r.push(null);
  const a = await p1, b = await p2, c = await it.next(), d = await it.next();
  console.log("by hand:", JSON.stringify([a, b, c, d]), it.stream === r);
}

// an async generator as a pipeline stage and as a Readable.from source
{
  async function* upper(source) {
    for await (const chunk of source) yield chunk.toString().toUpperCase();
  }
  async function* gen() {
    yield "x";
    await wait(1);
    yield "y";
  }
  const out = [];
  const dst = new PassThrough({ objectMode: true });
  dst.on("data", (c) => out.push(c));
  await new Promise((res, rej) => pipeline(Readable.from(gen()), upper, dst, (e) => (e ? rej(e) : res())));
  const fromGen = [];
  for await (const v of Readable.from(gen())) fromGen.push(v);
  console.log("generators:", out.join(","), fromGen.join(","));
}

// operators
{
  const nums = () => Readable.from([1, 2, 3, 4, 5]);
  console.log("toArray:", JSON.stringify(await nums().toArray()));
  console.log("map/filter:", JSON.stringify(await nums().map((x) => x * 2).filter((x) => x > 4).toArray()));
  console.log("take/drop:", JSON.stringify(await nums().drop(1).take(2).toArray()));
  console.log("reduce:", await nums().reduce((a, b) => a + b, 0), await nums().reduce((a, b) => a + b));
  console.log("some/every/find:", await nums().some((x) => x > 4), await nums().every((x) => x > 4), await nums().find((x) => x > 2));
  const seen = [];
  await nums().forEach((x) => { seen.push(x); });
  console.log("forEach:", seen.join(","));
  const bytes = new Readable({ read() {} });
  bytes.push("ab");
  bytes.push("cd");
  bytes.push(null);
  console.log("toArray of bytes:", (await bytes.toArray()).map(show).join(","));
}
