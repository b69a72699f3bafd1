// Random values: randomBytes, randomFill(Sync), randomInt, randomUUID,
// getRandomValues (module and webcrypto), timingSafeEqual. Values are
// random: their lengths, ranges and formats are printed, and the errors.
const crypto = require("crypto");
const t = (label, fn) => {
  try { console.log(label, JSON.stringify(fn())); } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
const cb = (fn) => new Promise((resolve) => fn((err, v) => resolve([err, v])));

t("randomBytes", () => [0, 1, 16, 1000].map((n) => { const b = crypto.randomBytes(n); return [Buffer.isBuffer(b), b.length]; }));
t("randomBytes differ", () => crypto.randomBytes(16).equals(crypto.randomBytes(16)));
t("randomBytes spread", () => { const b = crypto.randomBytes(4096); return new Set(b).size > 200; });
for (const bad of [-1, "1", 2 ** 31, 1.5, NaN, undefined, null]) t("randomBytes bad " + String(bad), () => crypto.randomBytes(bad).length);
t("randomBytes bad callback", () => crypto.randomBytes(1, 5));
{
  let order = [];
  const p = cb((done) => crypto.randomBytes(8, (err, b) => { order.push("callback"); done(err, b); }));
  order.push("after call");
  const [err, b] = await p;
  console.log("randomBytes callback", err, b.length, Buffer.isBuffer(b), order.join(","));
}
t("pseudoRandomBytes", () => crypto.pseudoRandomBytes(3).length);

t("randomFillSync", () => { const b = Buffer.alloc(8); const r = crypto.randomFillSync(b); return [r === b, b.some((x) => x !== 0) || b.some((x) => x !== 0)]; });
t("randomFillSync range", () => { const b = Buffer.alloc(16); crypto.randomFillSync(b, 4, 8); return [b.subarray(0, 4).every((x) => x === 0), b.subarray(12).every((x) => x === 0)]; });
t("randomFillSync u32", () => { const u = new Uint32Array(4); crypto.randomFillSync(u, 1, 2); return [u[0], u[3]]; });
t("randomFillSync ab", () => { const ab = new ArrayBuffer(4); return crypto.randomFillSync(ab) === ab; });
t("randomFillSync dataview", () => crypto.randomFillSync(new DataView(new ArrayBuffer(4))).byteLength);
t("randomFillSync bad", () => crypto.randomFillSync(5));
t("randomFillSync array", () => crypto.randomFillSync([1, 2]));
t("randomFillSync offset past", () => crypto.randomFillSync(Buffer.alloc(4), 5));
t("randomFillSync size past", () => crypto.randomFillSync(Buffer.alloc(4), 1, 4));
t("randomFillSync u32 size past", () => crypto.randomFillSync(new Uint32Array(4), 1, 4));
t("randomFillSync offset str", () => crypto.randomFillSync(new Uint32Array(4), "x"));
t("randomFillSync offset neg", () => crypto.randomFillSync(Buffer.alloc(4), -1));
t("randomFillSync size neg", () => crypto.randomFillSync(Buffer.alloc(4), 0, -1));
t("randomFillSync size NaN", () => crypto.randomFillSync(Buffer.alloc(4), 0, NaN));
{
  const b = Buffer.alloc(6);
  const [err, r] = await cb((done) => crypto.randomFill(b, 2, done));
  console.log("randomFill", err, r === b, b[0], b[1]);
  const [err2, r2] = await cb((done) => crypto.randomFill(new Uint16Array(3), 1, 1, done));
  console.log("randomFill size", err2, r2[0], r2[2]);
  const [err3, r3] = await cb((done) => crypto.randomFill(new ArrayBuffer(3), done));
  console.log("randomFill ab", err3, r3.byteLength);
}
t("randomFill no callback", () => crypto.randomFill(Buffer.alloc(2)));
t("randomFill bad", () => crypto.randomFill("x", () => {}));

t("randomInt", () => { const seen = new Set(); for (let i = 0; i < 200; i++) seen.add(crypto.randomInt(3)); return [...seen].sort(); });
t("randomInt range", () => { for (let i = 0; i < 200; i++) { const n = crypto.randomInt(-5, 5); if (n < -5 || n >= 5 || !Number.isInteger(n)) return n; } return "ok"; });
t("randomInt big", () => { const n = crypto.randomInt(2 ** 48 - 1); return Number.isSafeInteger(n) && n >= 0; });
t("randomInt neg range", () => { const n = crypto.randomInt(-(2 ** 40), -(2 ** 40) + 2); return n === -(2 ** 40) || n === -(2 ** 40) + 1; });
for (const args of [[5, 5], [1.5], [2 ** 48 + 1], [-1, 2 ** 48], [0, 2 ** 48], [1, 2, 3], ["5"], [], [NaN], [0, Infinity], [2 ** 53], [10, 5]]) {
  t("randomInt bad " + JSON.stringify(args), () => crypto.randomInt(...args));
}
{
  const [err, n] = await cb((done) => crypto.randomInt(10, done));
  console.log("randomInt callback", err, n >= 0 && n < 10);
  const [err2, n2] = await cb((done) => crypto.randomInt(5, 7, done));
  console.log("randomInt callback range", err2, n2 === 5 || n2 === 6);
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
t("randomUUID", () => [uuid.test(crypto.randomUUID()), uuid.test(crypto.randomUUID({ disableEntropyCache: true })), crypto.randomUUID() !== crypto.randomUUID()]);
t("randomUUID webcrypto", () => [uuid.test(crypto.webcrypto.randomUUID()), uuid.test(globalThis.crypto.randomUUID())]);
t("randomUUID bad option", () => crypto.randomUUID({ disableEntropyCache: 1 }));
t("randomUUID bad options", () => crypto.randomUUID(5));
t("randomUUID null", () => crypto.randomUUID(null));

for (const make of [() => new Uint8Array(16), () => new Int32Array(4), () => new BigUint64Array(2), () => new Uint8ClampedArray(3), () => Buffer.alloc(5), () => new Uint8Array(65536), () => new Uint8Array(0)]) {
  t("getRandomValues " + make().constructor.name + " " + make().length, () => { const a = make(); const r = crypto.getRandomValues(a); return [r === a, a.length]; });
}
for (const bad of [() => new Uint8Array(65537), () => new Float32Array(2), () => new Float64Array(1), () => 5, () => new DataView(new ArrayBuffer(2)), () => [1, 2], () => new ArrayBuffer(2)]) {
  try { crypto.getRandomValues(bad()); } catch (e) { console.log("getRandomValues bad", e.name, e.code, e.message, e instanceof DOMException); }
}
t("webcrypto getRandomValues", () => globalThis.crypto.getRandomValues(new Uint16Array(3)).length);
t("webcrypto getRandomValues this", () => crypto.webcrypto.getRandomValues.call({}, new Uint8Array(2)));
t("webcrypto getRandomValues unbound", () => { const g = crypto.webcrypto.getRandomValues; return g(new Uint8Array(2)); });
t("module getRandomValues unbound", () => { const g = crypto.getRandomValues; return g(new Uint8Array(2)).length; });
t("global crypto", () => [globalThis.crypto === crypto.webcrypto, Object.keys(crypto.webcrypto), Object.prototype.toString.call(crypto.webcrypto), crypto.webcrypto.subtle === crypto.subtle]);

t("timingSafeEqual", () => [crypto.timingSafeEqual(Buffer.from("abc"), Buffer.from("abc")), crypto.timingSafeEqual(Buffer.from("abc"), Buffer.from("abd")), crypto.timingSafeEqual(new Uint16Array([1]), new Uint8Array([1, 0])), crypto.timingSafeEqual(new ArrayBuffer(2), new DataView(new ArrayBuffer(2))), crypto.timingSafeEqual(Buffer.alloc(0), Buffer.alloc(0))]);
t("timingSafeEqual length", () => crypto.timingSafeEqual(Buffer.from("a"), Buffer.from("ab")));
t("timingSafeEqual bad 1", () => crypto.timingSafeEqual("a", Buffer.from("ab")));
t("timingSafeEqual bad 2", () => crypto.timingSafeEqual(Buffer.from("a"), "a"));
