const util = require("util");
const f = util.format;
console.log(f("%s %s", "a", "b"), f("%s", 1.5), f("%s", -0), f("%s", 5n), f("%s", Symbol("s")), f("%s", null), f("%s", undefined), f("%s", true));
console.log(f("%s", { a: { b: { c: 1 } } }), f("%s", [1, [2, [3]]]), f("%s", new Date(0)), f("%s", { toString() { return "custom"; } }));
class WithToString { toString() { return "class toString"; } }
class Plain { constructor() { this.p = 1; } }
console.log(f("%s", new WithToString()), f("%s", new Plain()), f("%s", Object.create(null)), f("%s", new Map([[1, 2]])), f("%s", () => 1));
console.log(f("%s", new Error("e")).split("\n")[0]);
console.log(f("%d", "42"), f("%d", 1.5), f("%d", "x"), f("%d", 10n), f("%d", Symbol()), f("%d", {}), f("%d", -0), f("%d", ""), f("%d", null));
console.log(f("%i", "42.9"), f("%i", -1.5), f("%i", "0x10"), f("%i", 3n), f("%i", Symbol()), f("%i", "abc"));
console.log(f("%f", "1.25"), f("%f", "x"), f("%f", Symbol()), f("%f", 1e21), f("%f", "1e3"));
console.log(f("%j", { a: [1, "x"] }), f("%j", "s"), f("%j", undefined), f("%j", () => 1));
const circ = {};
circ.c = circ;
console.log(f("%j", circ), f("%j", { toJSON() { return "tj"; } }));
console.log(f("%o", [1, 2]), f("%o", { a: 1 }), f("%O", { a: { b: { c: { d: 1 } } } }), f("%o", { a: { b: { c: { d: { e: 1 } } } } }));
console.log(f("%c", "color: red"), f("%c%s", "x", "y"), f("%%"), f("%%", 1), f("%% %s", "a"), f("100%"), f("%"), f("%x", 1), f("%s%"), f("a%sb%sc", 1));
console.log(f("%s"), f("%s", "only"), f("%s %s", "one"), f("no specifiers", 1, "two", { three: 3 }), f(1, 2, "three"), f({ a: 1 }, "x"));
console.log(f(), f(""), f("", ""), f(null), f(undefined, null), f("%s", "a", "extra", { e: 1 }), f("%d%d", 1, 2), f("%s:%s", "k"));
console.log(util.formatWithOptions({ depth: 0 }, "%O", { a: { b: 1 } }), util.formatWithOptions({ compact: false }, { a: 1 }), util.formatWithOptions({ colors: true }, "%s", 1));
try { util.formatWithOptions("x"); } catch (e) { console.log(e.code, e.message); }
try { util.formatWithOptions(null, "a"); } catch (e) { console.log(e.code, e.message); }
console.log(f("%s", "x".repeat(3)), f("%s\n%s", "line1", "line2"), f("%s", ["a\nb"]));
console.log(f("%s", new URL("http://x/y")), f("%s", new URLSearchParams("a=1")), f("%s", new Uint8Array([1, 2])), f("%s", new ArrayBuffer(1)), f("%s", Promise.resolve(1)));
