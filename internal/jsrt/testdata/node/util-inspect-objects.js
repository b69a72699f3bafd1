const { inspect } = require("util");
console.log(inspect({}), inspect([]), inspect({ a: 1, b: "two", c: [3] }), inspect([1, "2", [3, [4, [5, [6]]]]]));
console.log(inspect({ "a-b": 1, "": 2, "0": 3, "1x": 4, _ok: 5, $no: 6, "é": 7, "quo'te": 8, __proto__x: 9 }));
console.log(inspect({ ["__proto__"]: 1 }), inspect(JSON.parse('{"__proto__": 2}')));
console.log(inspect({ [Symbol("s")]: 1, [Symbol()]: 2, [Symbol.for("f")]: 3 }));
const hidden = { shown: 1 };
Object.defineProperty(hidden, "secret", { value: 2, enumerable: false });
Object.defineProperty(hidden, Symbol("hs"), { value: 3, enumerable: false });
console.log(inspect(hidden), inspect(hidden, { showHidden: true }));
console.log(inspect({ a: { b: { c: { d: { e: 1 } } } } }), inspect({ a: { b: { c: {} } } }), inspect([[[[[]]]]]), inspect([[[[1]]]]));
console.log(inspect({ a: { b: { c: { d: 1 } } } }, { depth: 0 }), inspect({ a: { b: 1 } }, { depth: -1 }), inspect([[1]], { depth: 0 }));
console.log(inspect({ a: { b: { c: { d: { e: { f: 1 } } } } } }, { depth: null }));
console.log(inspect({ a: { b: { c: { d: { e: { f: 1 } } } } } }, { depth: Infinity }));
const o = { name: "root" };
o.self = o;
o.list = [o, { back: o }];
console.log(inspect(o));
const a = { id: "a" }, b = { id: "b", a };
a.b = b;
console.log(inspect([a, b]));
const arr = [1];
arr.push(arr);
console.log(inspect(arr), inspect({ x: arr, y: arr }));
const m = new Map();
m.set("me", m);
console.log(inspect(m));
console.log(inspect(Object.create(null)), inspect(Object.assign(Object.create(null), { k: "v" })), inspect(Object.create(Object.create(null))));
class Point { constructor() { this.x = 1; this.y = 2; } }
class Empty {}
class Sub extends Point { constructor() { super(); this.z = 3; } }
console.log(inspect(new Point()), inspect(new Empty()), inspect(new Sub()), inspect([new Point()]), inspect({ p: new Empty() }));
function Legacy() { this.v = 1; }
console.log(inspect(new Legacy()), inspect(Object.create(Legacy.prototype)), inspect(Legacy.prototype), inspect(Point.prototype));
class Tagged { get [Symbol.toStringTag]() { return "T"; } }
console.log(inspect(new Tagged()), inspect({ [Symbol.toStringTag]: "own" }), inspect(Object.assign(new Tagged(), { q: 1 })));
console.log(inspect({ get g() { return 1; }, set s(v) {}, get gs() { return 1; }, set gs(v) {} }));
console.log(inspect({ get g() { return { deep: 1 }; }, get n() { return null; }, get t() { throw new Error("no"); }, get p() { return "str"; } }, { getters: true }));
const wide = {};
for (let i = 0; i < 30; i++) wide["key" + i] = i;
console.log(inspect(wide));
console.log(inspect({ a: "x".repeat(70) }), inspect({ a: "x".repeat(50), b: 1 }), inspect({ a: [{ b: { c: 1 } }], d: "e" }));
console.log(inspect({ k1: { k2: { k3: [1, 2, 3] } }, other: { x: 1, y: [1, 2, { z: 1 }] } }));
console.log(inspect({ level1: { level2: { level3: { level4: "deep" } }, sibling: "s".repeat(40) }, tail: ["a", "b"] }));
