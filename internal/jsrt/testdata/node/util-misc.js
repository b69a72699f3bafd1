const util = require("util");
const t = util.types;
const vals = { obj: {}, arr: [], date: new Date(), re: /x/, map: new Map(), set: new Set(), wm: new WeakMap(), ws: new WeakSet(), prom: Promise.resolve(),
  thenable: { then() {} }, u8: new Uint8Array(1), f64: new Float64Array(1), ab: new ArrayBuffer(1), dv: new DataView(new ArrayBuffer(1)),
  fn: function () {}, afn: async function () {}, gfn: function* () {}, arrow: () => {}, err: new Error(), terr: new TypeError(),
  fakeErr: { name: "Error", message: "x" }, num: Object(1), str: Object("s"), bool: Object(false), sym: Object(Symbol()), big: Object(1n),
  prim: 1, nul: null, proxy: new Proxy({}, {}), args: (function () { return arguments; })(), mapIter: new Map().entries(), gen: (function* () {})() };
const checks = ["isPromise", "isDate", "isRegExp", "isMap", "isSet", "isWeakMap", "isWeakSet", "isTypedArray", "isUint8Array", "isFloat64Array",
  "isArrayBuffer", "isAnyArrayBuffer", "isArrayBufferView", "isDataView", "isAsyncFunction", "isGeneratorFunction", "isNativeError",
  "isBoxedPrimitive", "isNumberObject", "isStringObject", "isBooleanObject", "isSymbolObject", "isBigIntObject", "isProxy", "isArgumentsObject",
  "isMapIterator", "isGeneratorObject", "isSharedArrayBuffer"];
for (const c of checks) console.log(c, Object.entries(vals).filter(([, v]) => t[c](v)).map(([k]) => k).join(","));
console.log(require("util/types") === t, require("node:util/types").isDate(new Date()));
console.log(util.isArray([]), util.isArray({}), util.isBoolean(false), util.isNull(null), util.isNullOrUndefined(undefined), util.isNumber(NaN),
  util.isString(""), util.isSymbol(Symbol()), util.isUndefined(undefined), util.isRegExp(/x/), util.isObject(null), util.isObject([]),
  util.isDate(new Date()), util.isError(new Error()), util.isError({}), util.isFunction(() => {}), util.isPrimitive(1), util.isPrimitive({}));
console.log(util.isDeepStrictEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), util.isDeepStrictEqual([1], ["1"]), util.isDeepStrictEqual(NaN, NaN),
  util.isDeepStrictEqual(0, -0), util.isDeepStrictEqual(new Set([1, { a: 1 }]), new Set([{ a: 1 }, 1])), util.isDeepStrictEqual(new Map([[{ k: 1 }, "v"]]), new Map([[{ k: 1 }, "v"]])),
  util.isDeepStrictEqual(Object.create(null), {}), util.isDeepStrictEqual(new Date(1), new Date(1)), util.isDeepStrictEqual(/a/g, /a/i));
const c1 = { x: 1 }; c1.self = c1;
const c2 = { x: 1 }; c2.self = c2;
console.log(util.isDeepStrictEqual(c1, c2), util.isDeepStrictEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])), util.isDeepStrictEqual(new Uint8Array([1]), new Int8Array([1])));
console.log(JSON.stringify(util.stripVTControlCharacters("\u001b[31mred\u001b[39m plain \u001b[1;4mboth\u001b[0m \u001b]8;;http://x\u0007link\u001b]8;;\u0007")));
try { util.stripVTControlCharacters(1); } catch (e) { console.log(e.code, e.message); }
console.log(JSON.stringify([util.styleText("red", "hi"), util.styleText(["red"], "hi"), util.styleText(["bold", "underline"], "x"), util.styleText("bgBlue", ""), util.styleText([], "none")]));
try { util.styleText("nocolor", "x"); } catch (e) { console.log(e.code, e.message); }
try { util.styleText(["red", 1], "x"); } catch (e) { console.log(e.code, e.message.slice(-20)); }
try { util.styleText("red", 1); } catch (e) { console.log(e.code, e.message); }
console.log(JSON.stringify(util.toUSVString("a\ud800b\udc00c\ud83d\ude00")), util.toUSVString("plain"));
console.log(util.getSystemErrorName(-2), util.getSystemErrorName(-13), util.getSystemErrorName(-17));
for (const bad of [2, 0, "x", -1.5]) { try { util.getSystemErrorName(bad); } catch (e) { console.log(e.code, e.message); } }
const sysMap = util.getSystemErrorMap();
console.log(sysMap instanceof Map, JSON.stringify(sysMap.get(-2)), JSON.stringify(sysMap.get(-1)), JSON.stringify(sysMap.get(-22)));
const dbg = util.debuglog("podcodetest");
console.log(typeof dbg, dbg.enabled);
dbg("not shown");
console.log(util.debuglog === util.debug, typeof util.TextEncoder, util.TextEncoder === TextEncoder, util.TextDecoder === TextDecoder);
const ac = new AbortController();
const waiting = util.aborted(ac.signal, {});
ac.abort();
console.log(await waiting === undefined || "resolved");
await util.aborted({}, {}).catch((e) => console.log(e.code, e.message));
await util.aborted(ac.signal, 1).catch((e) => console.log(e.code, e.message));
console.log(await util.aborted(ac.signal, {}));
console.log(util._extend({ a: 1 }, { b: 2 }).b, util.inspect(util._extend({}, null)));
