const util = require("util");
const nodeStyle = (x, cb) => (x < 0 ? cb(new Error("neg")) : cb(null, x * 2, "extra"));
const p = util.promisify(nodeStyle);
console.log(await p(2), await p(-1).catch((e) => "rejected " + e.message), p.name, typeof p, util.promisify(p) === p);
function withProps(cb) { cb(null, this && this.v); }
withProps.prop = "kept";
const pp = util.promisify(withProps);
console.log(pp.prop, pp.name, pp.length, await pp.call({ v: "this kept" }));
const custom = () => {};
custom[util.promisify.custom] = () => Promise.resolve("custom!");
console.log(await util.promisify(custom)(), util.promisify(custom) === custom[util.promisify.custom], util.promisify.custom === Symbol.for("nodejs.util.promisify.custom"));
const badCustom = () => {};
badCustom[util.promisify.custom] = "nope";
for (const bad of [undefined, null, 1, "s", {}]) { try { util.promisify(bad); } catch (e) { console.log(e.code, e.message); } }
try { util.promisify(badCustom); } catch (e) { console.log(e.code, e.message); }
const sleep = util.promisify(setTimeout);
console.log(await sleep(1, "slept"));
const throwsSync = util.promisify(() => { throw new Error("sync"); });
console.log(await throwsSync().catch((e) => "caught " + e.message));

async function af(a, b) { if (a === "fail") throw new Error("failed"); if (a === "falsy") throw null; return a + b; }
const cbf = util.callbackify(af);
console.log(cbf.name, cbf.length);
await new Promise((res) => cbf(1, 2, (err, v) => { console.log("cb", err, v); res(); }));
await new Promise((res) => cbf("fail", 0, (err, v) => { console.log("cb", err.message, v); res(); }));
await new Promise((res) => cbf("falsy", 0, (err) => { console.log("cb", err.code, err.message, err.reason); res(); }));
try { util.callbackify(af)(1, 2); } catch (e) { console.log(e.code, e.message); }
try { util.callbackify("x"); } catch (e) { console.log(e.code, e.message); }

function Animal(name) { this.name = name; }
Animal.prototype.speak = function () { return this.name + " speaks"; };
function Dog(name) { Animal.call(this, name); }
util.inherits(Dog, Animal);
const d = new Dog("rex");
console.log(d.speak(), d instanceof Animal, Dog.super_ === Animal, Object.keys(Dog).join());
for (const [a, b] of [[null, Animal], [Dog, null], [Dog, {}], [undefined, Animal]]) {
  try { util.inherits(a, b); } catch (e) { console.log(e.code, e.message); }
}

const warnings = [];
process.emitWarning = (...args) => warnings.push(args.map((a) => (typeof a === "function" ? "fn:" + a.name : String(a))).join("|"));
const old = util.deprecate(function oldFn(x) { return x + 1; }, "oldFn is old", "DEP_X");
const old2 = util.deprecate(() => 2, "again same code", "DEP_X");
const old3 = util.deprecate(() => 3, "no code");
console.log(old(1), old(2), old2(), old3(), old3(), warnings.join(" ; "), old.name);
class Base { constructor(v) { this.v = v; } }
const DepClass = util.deprecate(Base, "class dep");
console.log(new DepClass(5).v, new DepClass(6) instanceof Base, warnings.length);
try { util.deprecate(() => 1, "m", 5); } catch (e) { console.log(e.code, e.message); }
