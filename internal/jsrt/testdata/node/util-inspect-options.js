const util = require("util");
const { inspect } = util;
const data = { a: [1, 2, { b: "c" }], d: { e: { f: { g: 1 } } }, s: "str" };
console.log(inspect(data, { compact: false }));
console.log(inspect(data, { compact: true }));
console.log(inspect(data, { compact: 1 }));
console.log(inspect(data, { breakLength: Infinity, depth: Infinity }));
console.log(inspect(data, { breakLength: 20 }));
console.log(inspect({ z: 1, a: 2, m: { y: 1, b: 2 } }, { sorted: true }));
console.log(inspect({ z: 1, a: 2 }, { sorted: (x, y) => (x < y ? 1 : -1) }));
console.log(inspect(new Map([["b", 1], ["a", 2]]), { sorted: true }), inspect(Object.assign([3, 1], { z: 1, b: 2 }), { sorted: true }));
console.log(inspect([1, 2], { showHidden: true }), inspect(new Uint8Array(1), { showHidden: true }));
console.log(inspect({ long: "x".repeat(100), arr: Array.from({ length: 30 }, (_, i) => i) }, { compact: true }));
console.log(inspect({ a: 1 }, false, 0), inspect({ a: { b: 1 } }, true, 0), inspect({ a: { b: { c: { d: 1 } } } }, false, null));
console.log(inspect({ a: 1, b: "s", c: null, d: undefined, e: true, f: 1n, g: Symbol("q"), h: new Date(0), i: /r/ }, { colors: true }));
console.log(JSON.stringify(inspect([1, "a"], { colors: true })), JSON.stringify(inspect(new Map([[1, 2]]), { colors: true })));
console.log(Object.keys(inspect.defaultOptions).join(","), inspect.defaultOptions.depth, inspect.defaultOptions.breakLength);
const saved = { ...inspect.defaultOptions };
inspect.defaultOptions = { depth: 0 };
console.log(inspect({ a: { b: 1 } }), util.format("%O", { a: { b: 1 } }));
inspect.defaultOptions = saved;
console.log(inspect({ a: { b: 1 } }));
try { inspect.defaultOptions = null; } catch (e) { console.log(e.code, e.message); }
try { inspect.defaultOptions = "x"; } catch (e) { console.log(e.code, e.message); }
console.log(typeof inspect.custom, inspect.custom === Symbol.for("nodejs.util.inspect.custom"), inspect.colors.red.join(), inspect.styles.string);
console.log(inspect({ a: { b: { c: {} } } }, { depth: 1 }), inspect(new Map([[{ a: { b: 1 } }, 1]]), { depth: 0 }), inspect([new Set([[1]])], { depth: 1 }));
console.log(inspect(new Array(5).fill("word"), { compact: 2 }), inspect(Array.from({ length: 20 }, (_, i) => i), { compact: 1 }));
console.log(inspect({ a: "b" }, { userKey: 1 }), inspect({ [inspect.custom](d, o) { return o.userKey; } }, { userKey: "passed" }));
