// Random values compared with a slightly changed copy: whether the
// assertions pass, and their messages, are Node's (seeded).
const assert = require("assert");
let seed = 1234;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
function value(depth) {
  const r = rnd();
  if (depth <= 0 || r < 0.4) return pick([0, -0, 1, "1", "", "str", "a longer string value", null, undefined, true, NaN, 2n]);
  if (r < 0.65) return Array.from({ length: pick([0, 1, 2, 3, 4, 8]) }, () => value(depth - 1));
  if (r < 0.9) {
    const o = {};
    for (let i = Math.floor(rnd() * 5); i > 0; i--) o[pick(["a", "b", "c", "key", "other"])] = value(depth - 1);
    return o;
  }
  return rnd() < 0.5 ? new Map([[value(0), value(depth - 1)]]) : new Set([value(0), value(0)]);
}
function mutate(v, depth) {
  if (rnd() < 0.3 || depth <= 0) return rnd() < 0.5 ? value(1) : v;
  if (Array.isArray(v)) {
    const c = v.map((x) => mutate(x, depth - 1));
    if (rnd() < 0.2) c.push(value(0));
    if (rnd() < 0.2) c.pop();
    return c;
  }
  if (v !== null && typeof v === "object" && !(v instanceof Map) && !(v instanceof Set)) {
    const c = {};
    for (const k of Object.keys(v)) if (rnd() < 0.9) c[k] = mutate(v[k], depth - 1);
    if (rnd() < 0.2) c.extra = value(0);
    return c;
  }
  return v;
}
const show = (e) => (e ? JSON.stringify([e.code, e.operator, e.generatedMessage, e.message]) : "ok");
for (let i = 0; i < 60; i++) {
  const a = value(3);
  const b = mutate(a, 3);
  const res = [];
  for (const fn of ["deepStrictEqual", "deepEqual", "notDeepStrictEqual", "notDeepEqual", "strictEqual"]) {
    try { assert[fn](a, b); res.push("ok"); } catch (e) { res.push(show(e)); }
  }
  console.log("#" + i, res.join(" | "));
}
