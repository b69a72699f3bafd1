// Random format strings with random arguments: util.format's output is
// Node's (seeded). (No function declaration: under %o, which shows
// hidden properties, V8 lists arguments and caller, which goja's lack.)
const util = require("util");
let seed = 77;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const pieces = ["%s", "%d", "%i", "%f", "%j", "%o", "%O", "%c", "%%", "%", "%x", "text", " ", "\n", "é", "%%s", "100%"];
const args = [0, -0, 1.5, -42, 1e21, NaN, "str", "", "12px", "0x1A", true, null, undefined, 5n, Symbol("s"), [1, [2, [3, [4]]]], { a: { b: { c: { d: 1 } } } },
  new Map([[1, 2]]), new Set(["x"]), new Date(0), /re/g, () => 1, new Error("e"), Object.create(null), { toString() { return "TS"; } }];
args[22].stack = "Error: e\n    at x (y.js:1:1)";
for (let i = 0; i < 150; i++) {
  const first = rnd() < 0.8 ? Array.from({ length: Math.floor(rnd() * 5) }, () => pick(pieces)).join("") : pick(args);
  const rest = Array.from({ length: Math.floor(rnd() * 4) }, () => pick(args));
  let out;
  try { out = util.format(first, ...rest); } catch (e) { out = "throws " + e.name; } // %d of a null-prototype object
  console.log(JSON.stringify(out));
}
