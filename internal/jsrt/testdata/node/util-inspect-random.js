// Random values, inspected with random options: the output is Node's,
// for shapes no hand-written case thought of. The generator is seeded,
// so both runs see the same values.
const { inspect } = require("util");
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const chars = ["a", "b", "Z", "0", " ", "'", '"', "`", "\n", "\t", "\\", "é", "日", "😀", "$", "{", "-", "_", "\u0001", "\u007f"];
const str = (max) => Array.from({ length: Math.floor(rnd() * max) }, () => pick(chars)).join("");
const key = () => pick(["a", "b", "key", "long_key_name", "with space", "1", "42", "$x", "é", "", "__proto__x", str(6)]);
function value(depth) {
  const r = rnd();
  if (depth <= 0 || r < 0.35) {
    return pick([0, -0, 1.5, -7, 1e21, 123456789, NaN, Infinity, true, false, null, undefined, 10n, "", "short", str(12), str(40), "x".repeat(20) + "\n" + "y".repeat(70)]);
  }
  if (r < 0.55) {
    if (rnd() < 0.3) return Array.from({ length: pick([7, 27, 30, 101]) }, () => pick([1, 22, 333, 4444, -5, 0.5, "s", "str", true, null]));
    const n = pick([0, 1, 2, 3, 5, 7, 8]);
    return Array.from({ length: n }, () => (rnd() < 0.6 ? pick([1, 22, 333, 4444, -5, 0.5, "s", "str", true, null]) : value(depth - 1)));
  }
  if (r < 0.8) {
    const o = {};
    const n = Math.floor(rnd() * 6);
    for (let i = 0; i < n; i++) o[key()] = value(depth - 1);
    return o;
  }
  if (r < 0.9) {
    const m = new Map();
    for (let i = Math.floor(rnd() * 4); i > 0; i--) m.set(rnd() < 0.5 ? key() : value(0), value(depth - 1));
    return m;
  }
  const s = new Set();
  for (let i = Math.floor(rnd() * 5); i > 0; i--) s.add(value(depth - 1));
  return s;
}
for (let i = 0; i < 80; i++) {
  const v = value(4);
  const opts = pick([undefined, { depth: 0 }, { depth: 4 }, { compact: false }, { compact: 1 }, { compact: true }, { breakLength: 40 }, { breakLength: Infinity },
    { sorted: true }, { maxArrayLength: 3 }, { maxStringLength: 5 }, { depth: null, breakLength: 120 }]);
  console.log("#" + i, JSON.stringify(opts) || "");
  console.log(inspect(v, opts));
}
