// zlib's callback forms: results and errors through the callback, in
// the order Node calls back, promisified, and their argument checks.
const zlib = require("zlib");
const promisify = (fn) => (...args) => new Promise((resolve, reject) => fn(...args, (err, v) => (err ? reject(err) : resolve(v))));
const call = (fn, ...args) => new Promise((resolve) => fn(...args, (...cbArgs) => resolve(cbArgs)));
const show = (args) => args.map((a) => (Buffer.isBuffer(a) ? "Buffer<" + a.toString("hex") + ">" : a instanceof Error ? a.name + " " + a.code + " " + a.errno + " " + a.message : JSON.stringify(a))).join(" | ");

const text = "async ".repeat(200);
for (const [c, d] of [["deflate", "inflate"], ["gzip", "gunzip"], ["deflateRaw", "inflateRaw"], ["gzip", "unzip"], ["deflate", "unzip"]]) {
  const [err, z] = await call(zlib[c], text);
  const [err2, back] = await call(zlib[d], z);
  console.log(c, d, err, err2, back.toString() === text, Buffer.isBuffer(z), z.equals(zlib[c + "Sync"](text)));
  const [err3, z2] = await call(zlib[c], Buffer.from(text), { level: 1 });
  console.log(c, "with options", err3, zlib[d + "Sync"](z2).toString() === text);
}
console.log("error", show(await call(zlib.gunzip, Buffer.from("bad"))));
console.log("error count", (await call(zlib.inflate, Buffer.from("bad"))).length);
console.log("truncated", show(await call(zlib.inflate, zlib.deflateSync("hello").subarray(0, 4))));
console.log("too large", show(await call(zlib.inflate, zlib.deflateSync("a".repeat(100)), { maxOutputLength: 10 })));
console.log("empty", show(await call(zlib.gzip, "")).length > 0, show(await call(zlib.inflate, zlib.deflateSync(""))));
console.log("arraybuffer", show(await call(zlib.inflate, new Uint8Array(zlib.deflateSync("ab")).buffer)));
console.log("uint16", show(await call(zlib.deflateRaw, new Uint16Array([0x6261]))).length > 0);
console.log("info", (await call(zlib.inflate, zlib.deflateSync("i"), { info: true }))[1].buffer.toString());
{
  const order = [];
  const p = new Promise((resolve) => zlib.deflate("x", () => { order.push("callback"); resolve(); }));
  order.push("after");
  await p;
  console.log("order", order.join(","));
}
const gzipP = promisify(zlib.gzip), gunzipP = promisify(zlib.gunzip);
console.log("promisified", (await gunzipP(await gzipP("promised"))).toString());
try { await gunzipP(Buffer.from("nope")); } catch (e) { console.log("promisified error", e.code, e.message); }
for (const [label, fn] of [
  ["no callback", () => zlib.gzip("x")],
  ["callback not a function", () => zlib.gzip("x", {}, 5)],
  ["bad input", () => zlib.gzip(5, () => {})],
  ["bad input object", () => zlib.inflate({}, () => {})],
  ["bad option", () => zlib.gzip("x", { level: 99 }, () => {})],
  ["bad option before callback", () => zlib.gzip("x", { level: 99 })],
]) {
  try { fn(); console.log(label, "no error"); } catch (e) { console.log(label, e.name, e.code, e.message); }
}
