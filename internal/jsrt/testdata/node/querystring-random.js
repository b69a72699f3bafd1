// Random query strings through parse and back through stringify, with
// random separators and options: the results are Node's (seeded).
const qs = require("querystring");
const { inspect } = require("util");
let seed = 2718;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const pieces = ["a", "b", "=", "&", "+", "%", "%2", "%41", "%zz", "%E2%82%AC", "%C3", "é", "😀", " ", ";", ":", "==", "&&", "__proto__", "x[]", "%00", "%2B"];
const make = () => Array.from({ length: Math.floor(rnd() * 12) }, () => pick(pieces)).join("");
for (let i = 0; i < 120; i++) {
  const s = make();
  const sep = pick([undefined, "&", ";", "&&", ""]);
  const eq = pick([undefined, "=", ":", "=="]);
  const opts = pick([undefined, { maxKeys: 2 }, { maxKeys: 0 }, { decodeURIComponent: (x) => x.toUpperCase() }]);
  const parsed = qs.parse(s, sep, eq, opts);
  let back;
  try { back = qs.stringify(parsed, sep, eq); } catch (e) { back = e.code; }
  console.log(JSON.stringify([s, sep, eq]), inspect(parsed), JSON.stringify(back), qs.unescape(s), JSON.stringify(Array.from(qs.unescapeBuffer(s, rnd() < 0.5))));
}
