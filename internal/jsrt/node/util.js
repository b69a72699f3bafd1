// node:util as Node 20's: format and inspect (its output, line breaking
// and all, for the values a plugin logs), promisify, callbackify,
// inherits, deprecate, isDeepStrictEqual, types, parseArgs, styleText,
// stripVTControlCharacters, getSystemErrorName/Map, debuglog, MIMEType
// and the old is* checks. It differs from Node where goja cannot see what V8 can:
// Map and Set iterators and WeakMap/WeakSet contents are not previewed;
// an array or typed array longer than 10000 elements shows no extra
// string-keyed properties; with showHidden a function shows goja's own properties
// (V8 adds arguments and caller); and an error's stack is goja's (its
// "\tat" lines shown as Node's "    at").
"use strict";

const errors = require("internal/errors");
const { validateFunction, validateString, validateObject, validateNumber, validateBoolean } = require("internal/validators");

const customInspect = Symbol.for("nodejs.util.inspect.custom");
const customPromisify = Symbol.for("nodejs.util.promisify.custom");

// ---- what a value is -------------------------------------------------

const kind = (v) => host.kind(v);
const isObjectLike = (v) => (typeof v === "object" && v !== null) || typeof v === "function";

// brand calls fn on v, reporting whether v has the internal slot fn needs.
function brand(fn, v, ...args) {
  if (!isObjectLike(v) || kind(v) === "proxy") return false;
  try { fn.call(v, ...args); return true; } catch (e) { return false; }
}
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = getter(TypedArrayProto, Symbol.toStringTag);
const arrayBufferLength = getter(ArrayBuffer.prototype, "byteLength");
const dataViewLength = getter(DataView.prototype, "byteLength");
// the getters read internal slots, so they work on a null prototype too
const mapSize = getter(Map.prototype, "size");
const setSize = getter(Set.prototype, "size");
const typedArrayLength = getter(TypedArrayProto, "length");
const regExpSource = getter(RegExp.prototype, "source");
const regExpFlags = [["hasIndices", "d"], ["global", "g"], ["ignoreCase", "i"], ["multiline", "m"], ["dotAll", "s"], ["unicode", "u"], ["unicodeSets", "v"], ["sticky", "y"]]
  .map(([name, flag]) => [Object.getOwnPropertyDescriptor(RegExp.prototype, name), flag]).filter(([d]) => d !== undefined && d.get !== undefined);
function regExpString(v) {
  return "/" + regExpSource.call(v) + "/" + regExpFlags.map(([d, flag]) => (d.get.call(v) ? flag : "")).join("");
}

function typedArrayName(v) {
  if (!isObjectLike(v) || kind(v) === "proxy") return undefined;
  return typedArrayTag.call(v);
}

const types = {
  isPromise: (v) => kind(v) === "promise",
  isDate: (v) => kind(v) === "Date",
  isRegExp: (v) => kind(v) === "RegExp",
  isNativeError: (v) => kind(v) === "Error",
  isArgumentsObject: (v) => kind(v) === "Arguments",
  isProxy: (v) => kind(v) === "proxy",
  isMap: (v) => brand(Map.prototype.has, v, undefined),
  isSet: (v) => brand(Set.prototype.has, v, undefined),
  isWeakMap: (v) => brand(WeakMap.prototype.has, v, {}),
  isWeakSet: (v) => brand(WeakSet.prototype.has, v, {}),
  isMapIterator: (v) => isObjectLike(v) && kind(v) !== "proxy" && v[Symbol.toStringTag] === "Map Iterator",
  isSetIterator: (v) => isObjectLike(v) && kind(v) !== "proxy" && v[Symbol.toStringTag] === "Set Iterator",
  isGeneratorObject: (v) => isObjectLike(v) && kind(v) !== "proxy" && v[Symbol.toStringTag] === "Generator",
  isArrayBuffer: (v) => brand(arrayBufferLength, v),
  isSharedArrayBuffer: () => false, // goja has none
  isAnyArrayBuffer: (v) => brand(arrayBufferLength, v),
  isDataView: (v) => brand(dataViewLength, v),
  isArrayBufferView: (v) => ArrayBuffer.isView(v),
  isTypedArray: (v) => typedArrayName(v) !== undefined,
  isAsyncFunction: (v) => typeof v === "function" && kind(v) !== "proxy" && v.constructor !== undefined && v[Symbol.toStringTag] === "AsyncFunction",
  isGeneratorFunction: (v) => typeof v === "function" && kind(v) !== "proxy" && v[Symbol.toStringTag] === "GeneratorFunction",
  isNumberObject: (v) => kind(v) === "Number",
  isStringObject: (v) => kind(v) === "String",
  isBooleanObject: (v) => kind(v) === "Boolean",
  isBigIntObject: (v) => typeof v === "object" && brand(BigInt.prototype.valueOf, v),
  isSymbolObject: (v) => typeof v === "object" && brand(Symbol.prototype.valueOf, v),
  isBoxedPrimitive: (v) => types.isNumberObject(v) || types.isStringObject(v) || types.isBooleanObject(v) || types.isBigIntObject(v) || types.isSymbolObject(v),
  isWeakRef: () => false,
  isModuleNamespaceObject: () => false,
  isExternal: () => false,
  isKeyObject: () => false,
  isCryptoKey: () => false,
};
for (const name of ["Uint8Array", "Uint8ClampedArray", "Uint16Array", "Uint32Array", "Int8Array", "Int16Array", "Int32Array",
  "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
  types["is" + name] = (v) => typedArrayName(v) === name;
}

// ---- inspect ------------------------------------------------------------

const defaultOptions = {
  showHidden: false, depth: 2, colors: false, customInspect: true, showProxy: false, maxArrayLength: 100,
  maxStringLength: 10000, breakLength: 80, compact: 3, sorted: false, getters: false, numericSeparator: false,
};

const colors = {
  reset: [0, 0], bold: [1, 22], dim: [2, 22], italic: [3, 23], underline: [4, 24], blink: [5, 25], inverse: [7, 27],
  hidden: [8, 28], strikethrough: [9, 29], doubleunderline: [21, 24], black: [30, 39], red: [31, 39], green: [32, 39],
  yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39], white: [37, 39], bgBlack: [40, 49], bgRed: [41, 49],
  bgGreen: [42, 49], bgYellow: [43, 49], bgBlue: [44, 49], bgMagenta: [45, 49], bgCyan: [46, 49], bgWhite: [47, 49],
  framed: [51, 54], overlined: [53, 55], gray: [90, 39], redBright: [91, 39], greenBright: [92, 39], yellowBright: [93, 39],
  blueBright: [94, 39], magentaBright: [95, 39], cyanBright: [96, 39], whiteBright: [97, 39], bgGray: [100, 49],
  bgRedBright: [101, 49], bgGreenBright: [102, 49], bgYellowBright: [103, 49], bgBlueBright: [104, 49],
  bgMagentaBright: [105, 49], bgCyanBright: [106, 49], bgWhiteBright: [107, 49],
};
for (const [alias, name] of [["grey", "gray"], ["blackBright", "gray"], ["bgGrey", "bgGray"], ["bgBlackBright", "bgGray"],
  ["dim", "dim"], ["faint", "dim"], ["crossedout", "strikethrough"], ["strikeThrough", "strikethrough"], ["crossedOut", "strikethrough"],
  ["conceal", "hidden"], ["swapColors", "inverse"], ["swapcolors", "inverse"], ["doubleUnderline", "doubleunderline"]]) {
  if (!(alias in colors)) Object.defineProperty(colors, alias, { get() { return this[name]; }, set(v) { this[name] = v; }, enumerable: false, configurable: true });
}
const styles = {
  special: "cyan", number: "yellow", bigint: "yellow", boolean: "yellow", undefined: "grey", null: "bold",
  string: "green", symbol: "green", date: "magenta", regexp: "red", module: "underline",
};

function stylizeNoColor(s) { return s; }
function stylizeWithColor(s, styleType) {
  const style = styles[styleType];
  const c = style !== undefined && colors[style];
  return c ? "\u001b[" + c[0] + "m" + s + "\u001b[" + c[1] + "m" : s;
}

// ansi matches the escape sequences stripVTControlCharacters removes.
const ansi = /[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g;
function stripVTControlCharacters(str) {
  validateString(str, "str");
  return str.replace(ansi, "");
}
const visibleLength = (ctx, s) => (ctx.colors ? s.replace(ansi, "").length : s.length);

// Columns a string takes in a terminal (internal/strwidth).
const { width } = require("internal/strwidth");
const { toUSVString } = require("internal/usv");
const stringWidth = (ctx, s) => width(ctx.colors ? s.replace(ansi, "") : s);

// quote renders s as a string literal as Node does: single quotes unless
// s holds one, control characters and lone surrogates escaped.
function quote(s) {
  let q = "'";
  if (s.includes("'")) {
    if (!s.includes('"')) q = '"';
    else if (!s.includes("`") && !s.includes("${")) q = "`";
  }
  let out = "";
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      esc = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r" }[c] || "\\x" + c.toString(16).toUpperCase().padStart(2, "0");
    } else if (c === 0x5c) {
      esc = "\\\\";
    } else if (c === 0x27 && q === "'") {
      esc = "\\'";
    } else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
      }
      esc = "\\u" + c.toString(16);
    } else {
      continue;
    }
    out += s.slice(last, i) + esc;
    last = i + 1;
  }
  return q + out + s.slice(last) + q;
}

function groupDigits(int) {
  const neg = int.startsWith("-") ? 1 : 0;
  let out = "";
  let i = int.length;
  for (; i >= neg + 4; i -= 3) out = "_" + int.slice(i - 3, i) + out;
  return int.slice(0, i) + out;
}
function formatNumber(stylize, n, separators) {
  if (Object.is(n, -0)) return stylize("-0", "number");
  const s = String(n);
  if (!separators || !Number.isFinite(n) || s.includes("e")) return stylize(s, "number");
  const dot = s.indexOf(".");
  if (dot === -1) return stylize(groupDigits(s), "number");
  const frac = s.slice(dot + 1);
  let fracOut = "";
  let i = 0;
  for (; i < frac.length - 3; i += 3) fracOut += frac.slice(i, i + 3) + "_";
  return stylize(groupDigits(s.slice(0, dot)) + "." + fracOut + frac.slice(i), "number");
}
function formatBigInt(stylize, n, separators) {
  const s = String(n);
  return stylize((separators ? groupDigits(s) : s) + "n", "bigint");
}

function formatPrimitive(ctx, v) {
  const stylize = ctx.stylize;
  switch (typeof v) {
    case "string": {
      let trailer = "";
      if (v.length > ctx.maxStringLength) {
        const left = v.length - ctx.maxStringLength;
        v = v.slice(0, ctx.maxStringLength);
        trailer = "... " + left + " more character" + (left > 1 ? "s" : "");
      }
      // a long string is cut after each of its newlines, one piece a line
      if (ctx.compact !== true && v.length > 16 && v.length > ctx.breakLength - ctx.indentationLvl - 4 && v.indexOf("\n") !== -1 && v.indexOf("\n") < v.length - 1) {
        const pieces = [];
        let start = 0;
        for (let nl = v.indexOf("\n"); nl !== -1 && nl < v.length - 1; nl = v.indexOf("\n", start)) {
          pieces.push(v.slice(start, nl + 1));
          start = nl + 1;
        }
        pieces.push(v.slice(start));
        return pieces.map((p) => stylize(quote(p), "string")).join(" +\n" + " ".repeat(ctx.indentationLvl + 2)) + trailer;
      }
      return stylize(quote(v), "string") + trailer;
    }
    case "number": return formatNumber(stylize, v, ctx.numericSeparator);
    case "bigint": return formatBigInt(stylize, v, ctx.numericSeparator);
    case "boolean": return stylize(String(v), "boolean");
    case "undefined": return stylize("undefined", "undefined");
    default: return stylize(v.toString(), "symbol"); // symbol
  }
}

// constructorName is the name of the nearest constructor in v's
// prototype chain that v is an instance of, or null for a chain without
// one (a null prototype).
function constructorName(v, ctx, depth) {
  for (let o = v; o !== null && o !== undefined; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, "constructor");
    if (d !== undefined && typeof d.value === "function" && d.value.name !== "") {
      let is = false;
      try { is = v instanceof d.value; } catch (e) { /* a non-callable prototype */ }
      if (is) return String(d.value.name);
    }
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === null) return null;
  // a chain without a named constructor: goja's class, then the chain's
  const inner = kind(v) === "Function" ? "Function" : kind(v) === "Array" ? "Array" : "Object";
  if (ctx !== undefined && depth > ctx.depth && ctx.depth !== null) return inner + " <Complex prototype>";
  const protoName = constructorName(proto, ctx, depth + 1);
  if (protoName === null) return inner + " <" + inspect(proto, { ...ctx, customInspect: false, depth: -1 }) + ">";
  return inner + " <" + protoName + ">";
}

// prefix is what stands before a value's braces: its constructor, size
// and tag, as in "Map(2) ", "[Object: null prototype] ", "Foo [bar] ".
function prefix(ctor, tag, fallback, size = "") {
  if (ctor === null) {
    if (tag !== "" && fallback !== tag) return "[" + fallback + size + ": null prototype] [" + tag + "] ";
    return "[" + fallback + size + ": null prototype] ";
  }
  if (tag !== "" && ctor !== tag) return ctor + size + " [" + tag + "] ";
  return ctor + size + " ";
}

const isIndex = (k) => typeof k === "string" && /^(?:0|[1-9][0-9]*)$/.test(k) && Number(k) < 4294967295;

// (Index loops rather than spreads and for…of in what inspect runs for
// every value: goja makes an object for every step of an iterator.)
function ownKeys(v, showHidden) {
  const keys = showHidden ? Object.getOwnPropertyNames(v) : Object.keys(v);
  const symbols = Object.getOwnPropertySymbols(v);
  for (let i = 0; i < symbols.length; i++) {
    if (showHidden || Object.prototype.propertyIsEnumerable.call(v, symbols[i])) keys.push(symbols[i]);
  }
  return keys;
}
// nonIndexKeys are an array's (or typed array's) other properties. Past
// 10000 elements only its symbols are looked for: listing its string
// keys would make a string of every index.
function nonIndexKeys(v, showHidden) {
  if (v.length > 10000) return Object.getOwnPropertySymbols(v).filter((s) => showHidden || Object.prototype.propertyIsEnumerable.call(v, s));
  const keys = ownKeys(v, showHidden);
  // the indices come first, in order: without holes, they are the first
  // length keys
  const n = v.length;
  if (typeof n === "number" && n > 0 && keys.length >= n && keys[n - 1] === String(n - 1)) return keys.slice(n);
  return keys.filter((k) => !isIndex(k));
}

function functionBase(fn, ctor, tag) {
  let src = "";
  try { src = Function.prototype.toString.call(fn); } catch (e) { /* a proxy */ }
  if (src.startsWith("class") && src.endsWith("}")) {
    const head = src.slice(5, src.indexOf("{"));
    if (!head.includes("(")) {
      const name = (Object.prototype.hasOwnProperty.call(fn, "name") && fn.name) || "(anonymous)";
      let base = "class " + name;
      if (ctor !== "Function" && ctor !== null) base += " [" + ctor + "]";
      if (tag !== "" && ctor !== tag) base += " [" + tag + "]";
      if (ctor !== null) {
        const sup = Object.getPrototypeOf(fn).name;
        if (sup) base += " extends " + sup;
      } else {
        base += " extends [null prototype]";
      }
      return "[" + base + "]";
    }
  }
  let type = "Function";
  if (types.isGeneratorFunction(fn)) type = "Generator" + type;
  if (types.isAsyncFunction(fn)) type = "Async" + type;
  let base = "[" + type;
  if (ctor === null) base += " (null prototype)";
  base += fn.name === "" ? " (anonymous)" : ": " + fn.name;
  base += "]";
  if (ctor !== type && ctor !== null) base += " " + ctor;
  if (tag !== "" && ctor !== tag) base += " [" + tag + "]";
  return base;
}

function formatError(err, ctor, tag, ctx, keys) {
  const name = err.name != null ? String(err.name) : "Error";
  let stack = err.stack ? String(err.stack) : Error.prototype.toString.call(err);
  stack = stack.replace(/\n\tat /g, "\n    at "); // goja's frames, as V8 writes them
  if (!ctx.showHidden && keys.length !== 0) {
    for (const k of ["name", "message", "stack"]) {
      const i = keys.indexOf(k);
      if (i !== -1 && stack.includes(err[k])) keys.splice(i, 1);
    }
  }
  if ("cause" in err && !keys.includes("cause")) keys.push("cause");
  if (Array.isArray(err.errors) && !keys.includes("errors")) keys.push("errors");
  // name the constructor when it is not what the stack says
  let len = name.length;
  if (ctor === null || (name.endsWith("Error") && stack.startsWith(name) && (stack.length === len || stack[len] === ":" || stack[len] === "\n"))) {
    let fallback = "Error";
    if (ctor === null) {
      const m = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/.exec(stack) || /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
      fallback = (m && m[1]) || "";
      len = fallback.length;
      fallback = fallback || "Error";
    }
    const p = prefix(ctor, tag, fallback).slice(0, -1);
    if (name !== p) {
      if (p.includes(name)) stack = len === 0 ? p + ": " + stack : p + stack.slice(len);
      else stack = p + " [" + name + "]" + stack.slice(len);
    }
  }
  let pos = (err.message && stack.indexOf(err.message)) || -1;
  if (pos !== -1) pos += err.message.length;
  if (stack.indexOf("\n    at", pos) === -1) stack = "[" + stack + "]";
  if (ctx.indentationLvl !== 0) stack = stack.split("\n").join("\n" + " ".repeat(ctx.indentationLvl));
  return stack;
}

function boxedBase(v, ctx, keys, ctor, tag) {
  let type, prim;
  if (types.isNumberObject(v)) { type = "Number"; prim = Number.prototype.valueOf.call(v); }
  else if (types.isStringObject(v)) { type = "String"; prim = String.prototype.valueOf.call(v); keys.splice(0, prim.length); }
  else if (types.isBooleanObject(v)) { type = "Boolean"; prim = Boolean.prototype.valueOf.call(v); }
  else if (types.isBigIntObject(v)) { type = "BigInt"; prim = BigInt.prototype.valueOf.call(v); }
  else { type = "Symbol"; prim = Symbol.prototype.valueOf.call(v); }
  let base = "[" + type;
  if (type !== ctor) base += ctor === null ? " (null prototype)" : " (" + ctor + ")";
  base += ": " + formatPrimitive({ ...ctx, stylize: stylizeNoColor, compact: true }, prim) + "]";
  if (tag !== "" && tag !== ctor) base += " [" + tag + "]";
  if (keys.length !== 0 || ctx.stylize === stylizeNoColor) return base;
  return ctx.stylize(base, type.toLowerCase());
}

const moreItems = (n) => "... " + n + " more item" + (n > 1 ? "s" : "");

function formatArray(ctx, v, depth) {
  const len = v.length;
  const shown = Math.min(Math.max(0, ctx.maxArrayLength), len);
  const out = [];
  for (let i = 0; i < shown; i++) {
    if (!Object.prototype.hasOwnProperty.call(v, i)) return formatSparse(ctx, v, depth, shown, out, i);
    out.push(formatProperty(ctx, v, depth, i, 1));
  }
  if (len > shown) out.push(moreItems(len - shown));
  return out;
}

// formatSparse goes on from index i of an array with holes, walking its
// keys rather than every index (a sparse array may be long).
function formatSparse(ctx, v, depth, shown, out, i) {
  const indices = Object.keys(v).filter(isIndex).map(Number).filter((k) => k >= i);
  const holes = (n) => "<" + n + " empty item" + (n > 1 ? "s" : "") + ">";
  let at = i;
  for (const k of indices) {
    if (out.length >= shown) break;
    if (k > at) {
      out.push(holes(k - at));
      if (out.length >= shown) { at = k; break; }
    }
    out.push(formatProperty(ctx, v, depth, k, 1));
    at = k + 1;
  }
  const left = v.length - at;
  if (out.length < shown && left > 0) {
    out.push(holes(left));
  } else if (left > 0) {
    out.push(moreItems(left));
  }
  return out;
}

function formatTypedArray(ctx, v, depth, length) {
  const shown = Math.min(Math.max(0, ctx.maxArrayLength), length);
  const out = [];
  for (let i = 0; i < shown; i++) {
    const x = v[i];
    out.push(typeof x === "bigint" ? formatBigInt(ctx.stylize, x, ctx.numericSeparator) : formatNumber(ctx.stylize, x, ctx.numericSeparator));
  }
  if (length > shown) out.push(moreItems(length - shown));
  if (ctx.showHidden) {
    ctx.indentationLvl += 2;
    for (const k of ["BYTES_PER_ELEMENT", "length", "byteLength", "byteOffset", "buffer"]) {
      out.push("[" + k + "]: " + formatValue(ctx, v[k], depth, true));
    }
    ctx.indentationLvl -= 2;
  }
  return out;
}

function hexBytes(bytes, max) {
  let s = "";
  const n = Math.min(max, bytes.length);
  for (let i = 0; i < n; i++) s += (i ? " " : "") + bytes[i].toString(16).padStart(2, "0");
  return s;
}

function formatArrayBuffer(ctx, v) {
  const bytes = new Uint8Array(v);
  const max = Math.max(0, ctx.maxArrayLength);
  let s = hexBytes(bytes, max);
  if (bytes.length > max) s += " ... " + (bytes.length - max) + " more byte" + (bytes.length - max > 1 ? "s" : "");
  return ["[Uint8Contents]: <" + s + ">"];
}

function formatBuffer(ctx, v, ctor) {
  const max = 50; // buffer.INSPECT_MAX_BYTES
  let s = hexBytes(v, max);
  if (v.length > max) s += " ... " + (v.length - max) + " more byte" + (v.length - max > 1 ? "s" : "");
  const extra = nonIndexKeys(v, ctx.showHidden);
  if (extra.length > 0) {
    const o = Object.create(null);
    for (const k of extra) o[k] = v[k];
    const inner = inspect(o, { ...ctx, breakLength: Infinity, compact: true });
    s += (v.length !== 0 ? ", " : "") + inner.slice(27, -2);
  }
  return "<" + ctor + " " + s + ">";
}

function formatSet(ctx, v, depth) {
  const shown = Math.min(Math.max(0, ctx.maxArrayLength), v.size);
  const out = [];
  ctx.indentationLvl += 2;
  for (const x of v) {
    if (out.length >= shown) break;
    out.push(formatValue(ctx, x, depth));
  }
  if (v.size > shown) out.push(moreItems(v.size - shown));
  ctx.indentationLvl -= 2;
  return out;
}

function formatMap(ctx, v, depth) {
  const shown = Math.min(Math.max(0, ctx.maxArrayLength), v.size);
  const out = [];
  ctx.indentationLvl += 2;
  for (const [k, x] of v) {
    if (out.length >= shown) break;
    out.push(formatValue(ctx, k, depth) + " => " + formatValue(ctx, x, depth));
  }
  if (v.size > shown) out.push(moreItems(v.size - shown));
  ctx.indentationLvl -= 2;
  return out;
}

function formatPromise(ctx, v, depth) {
  const [state, result] = host.promiseState(v);
  if (state === "pending") return [ctx.stylize("<pending>", "special")];
  ctx.indentationLvl += 2;
  const s = formatValue(ctx, result, depth);
  ctx.indentationLvl -= 2;
  return [state === "rejected" ? ctx.stylize("<rejected>", "special") + " " + s : s];
}

const plainKey = /^[a-zA-Z_][a-zA-Z_0-9]*$/;

// formatProperty is one entry: "key: value" (mode 0 in an object, 2 an
// array's other property), or the value alone (1, an array's element).
function formatProperty(ctx, v, depth, key, mode, desc) {
  let str;
  let sep = " ";
  desc = desc || Object.getOwnPropertyDescriptor(v, key) || { value: v[key], enumerable: true };
  if (desc.value !== undefined) {
    const diff = ctx.compact !== true || mode !== 0 ? 2 : 3;
    ctx.indentationLvl += diff;
    str = formatValue(ctx, desc.value, depth);
    if (diff === 3 && ctx.breakLength < stringWidth(ctx, str)) sep = "\n" + " ".repeat(ctx.indentationLvl);
    ctx.indentationLvl -= diff;
  } else if (desc.get !== undefined) {
    const label = desc.set !== undefined ? "Getter/Setter" : "Getter";
    if (ctx.getters && (ctx.getters === true || (ctx.getters === "get" && desc.set === undefined) || (ctx.getters === "set" && desc.set !== undefined))) {
      try {
        const got = desc.get.call(v);
        ctx.indentationLvl += 2;
        if (got === null) str = ctx.stylize("[" + label + ":", "special") + " " + ctx.stylize("null", "null") + ctx.stylize("]", "special");
        else if (typeof got === "object") str = ctx.stylize("[" + label + "]", "special") + " " + formatValue(ctx, got, depth);
        else str = ctx.stylize("[" + label + ":", "special") + " " + formatPrimitive(ctx, got) + ctx.stylize("]", "special");
        ctx.indentationLvl -= 2;
      } catch (err) {
        str = ctx.stylize("[" + label + ": <Inspection threw (" + err.message + ")>]", "special");
      }
    } else {
      str = ctx.stylize("[" + label + "]", "special");
    }
  } else if (desc.set !== undefined) {
    str = ctx.stylize("[Setter]", "special");
  } else {
    str = ctx.stylize("undefined", "undefined");
  }
  if (mode === 1) return str;
  let name;
  if (typeof key === "symbol") name = "[" + ctx.stylize(key.toString(), "symbol") + "]";
  else if (key === "__proto__") name = "['__proto__']";
  else if (desc.enumerable === false) name = "[" + key + "]";
  else if (plainKey.test(key)) name = ctx.stylize(key, "name");
  else name = ctx.stylize(quote(key), "string");
  return name + ":" + sep + str;
}

function formatValue(ctx, v, depth, typedArray) {
  if (typeof v !== "object" && typeof v !== "function") return formatPrimitive(ctx, v);
  if (v === null) return ctx.stylize("null", "null");
  const original = v;
  if (kind(v) === "proxy") {
    if (ctx.showProxy) return formatProxy(ctx, v, depth);
    // what the proxy wraps, without calling its traps, as Node shows it
    do { v = host.proxyTarget(v); } while (v !== null && kind(v) === "proxy");
    if (v === null) return ctx.stylize("<Revoked Proxy>", "special");
  }
  if (ctx.customInspect) {
    const custom = v[customInspect];
    // a prototype's own custom inspect is for its instances, not for it
    if (typeof custom === "function" && custom !== inspect && !(v.constructor && v.constructor.prototype === v)) {
      const d = ctx.depth === null ? null : ctx.depth - depth;
      const opts = { ...ctx.userOptions };
      for (const k of Object.keys(defaultOptions)) opts[k] = ctx[k];
      opts.stylize = ctx.stylize;
      opts.depth = d;
      const ret = custom.call(original, d, opts, inspect);
      if (ret !== original) {
        if (typeof ret !== "string") return formatValue(ctx, ret, depth);
        return ret.split("\n").join("\n" + " ".repeat(ctx.indentationLvl));
      }
    }
  }
  if (ctx.seen.includes(v)) {
    if (ctx.circular === undefined) ctx.circular = new Map();
    let n = ctx.circular.get(v);
    if (n === undefined) {
      n = ctx.circular.size + 1;
      ctx.circular.set(v, n);
    }
    return ctx.stylize("[Circular *" + n + "]", "special");
  }
  return formatRaw(ctx, v, depth, typedArray);
}

function formatProxy(ctx, v, depth) {
  if (depth > ctx.depth && ctx.depth !== null) return ctx.stylize("Proxy [Array]", "special");
  const [target, handler] = host.proxyParts(v);
  if (target === null) return ctx.stylize("<Revoked Proxy>", "special");
  depth += 1;
  ctx.indentationLvl += 2;
  const out = [formatValue(ctx, target, depth), formatValue(ctx, handler, depth)];
  ctx.indentationLvl -= 2;
  return joinEntries(ctx, out, "", ["Proxy [", "]"], true, depth);
}

function formatRaw(ctx, v, depth, typedArray) {
  let keys;
  const ctor = constructorName(v, ctx, depth);
  let tag = v[Symbol.toStringTag];
  // Maps, Sets, ArrayBuffers, DataViews, WeakMaps, WeakSets and boxed
  // symbols and bigints carry a tag from their prototype: the checks
  // that tell them apart (each a thrown and caught TypeError when the
  // value is not one) run only for a value with a tag or no prototype.
  const exotic = ctor === null || typeof tag === "string";
  if (typeof tag !== "string" || (tag !== "" && (ctx.showHidden ? Object.prototype.hasOwnProperty : Object.prototype.propertyIsEnumerable).call(v, Symbol.toStringTag))) {
    tag = "";
  }
  let base = "";
  let formatter = () => [];
  let braces;
  let inArray = false;
  let iterable = false;
  const k = kind(v);
  if (typeof v[Symbol.iterator] === "function" || ctor === null) {
    iterable = true;
    let ta;
    if (Array.isArray(v)) {
      const p = ctor !== "Array" || tag !== "" ? prefix(ctor, tag, "Array", "(" + v.length + ")") : "";
      keys = nonIndexKeys(v, ctx.showHidden);
      braces = [p + "[", "]"];
      if (v.length === 0 && keys.length === 0) return braces[0] + "]";
      inArray = true;
      formatter = formatArray;
    } else if (exotic && types.isSet(v)) {
      const size = setSize.call(v);
      const p = prefix(ctor, tag, "Set", "(" + size + ")");
      keys = ownKeys(v, ctx.showHidden);
      formatter = ctor !== null ? formatSet : (c, x, d) => formatSet(c, new Set(Set.prototype.values.call(x)), d);
      if (size === 0 && keys.length === 0) return p + "{}";
      braces = [p + "{", "}"];
    } else if (exotic && types.isMap(v)) {
      const size = mapSize.call(v);
      const p = prefix(ctor, tag, "Map", "(" + size + ")");
      keys = ownKeys(v, ctx.showHidden);
      formatter = ctor !== null ? formatMap : (c, x, d) => formatMap(c, new Map(Map.prototype.entries.call(x)), d);
      if (size === 0 && keys.length === 0) return p + "{}";
      braces = [p + "{", "}"];
    } else if ((ta = typedArrayName(v)) !== undefined) {
      const length = typedArrayLength.call(v);
      keys = nonIndexKeys(v, ctx.showHidden);
      if (ctor !== null && ta === "Uint8Array" && isBufferName(v, ctor) && !ctx.showHidden) {
        return formatBuffer(ctx, v, ctor);
      }
      const p = prefix(ctor, tag, ctor === null ? ta : "", "(" + length + ")");
      braces = [p + "[", "]"];
      if (length === 0 && keys.length === 0 && !ctx.showHidden) return braces[0] + "]";
      formatter = (c, x, d) => formatTypedArray(c, x, d, length);
      inArray = true;
    } else {
      iterable = false;
    }
  }
  if (!iterable) {
    keys = ownKeys(v, ctx.showHidden);
    braces = ["{", "}"];
    if (typeof v === "function") {
      base = functionBase(v, ctor, tag);
      if (keys.length === 0) return ctx.stylize(base, "special");
    } else if (ctor === "Object") {
      if (k === "Arguments") braces[0] = "[Arguments] {";
      else if (tag !== "") braces[0] = prefix(ctor, tag, "Object") + "{";
      if (keys.length === 0) return braces[0] + "}";
    } else if (k === "RegExp") {
      base = ctor !== null ? RegExp.prototype.toString.call(v) : regExpString(v);
      const p = prefix(ctor, tag, "RegExp");
      if (p !== "RegExp ") base = p + base;
      if (keys.length === 0 || (depth > ctx.depth && ctx.depth !== null)) return ctx.stylize(base, "regexp");
    } else if (k === "Date") {
      const t = Date.prototype.getTime.call(v);
      base = Number.isNaN(t) ? "Invalid Date" : Date.prototype.toISOString.call(v);
      const p = prefix(ctor, tag, "Date");
      if (p !== "Date ") base = p + base;
      if (keys.length === 0) return ctx.stylize(base, "date");
    } else if (k === "Error" || v instanceof Error) {
      base = formatError(v, ctor, tag, ctx, keys);
      if (keys.length === 0) return base;
    } else if (exotic && types.isAnyArrayBuffer(v)) {
      const p = prefix(ctor, tag, "ArrayBuffer");
      if (typedArray === undefined) formatter = formatArrayBuffer;
      else if (keys.length === 0) return p + "{ byteLength: " + formatNumber(ctx.stylize, v.byteLength, false) + " }";
      braces[0] = p + "{";
      keys.unshift("byteLength");
    } else if (exotic && types.isDataView(v)) {
      braces[0] = prefix(ctor, tag, "DataView") + "{";
      keys.unshift("byteLength", "byteOffset", "buffer");
    } else if (k === "promise") {
      braces[0] = prefix(ctor, tag, "Promise") + "{";
      formatter = formatPromise;
    } else if (exotic && types.isWeakSet(v)) {
      braces[0] = prefix(ctor, tag, "WeakSet") + "{";
      formatter = () => [ctx.stylize("<items unknown>", "special")];
    } else if (exotic && types.isWeakMap(v)) {
      braces[0] = prefix(ctor, tag, "WeakMap") + "{";
      formatter = () => [ctx.stylize("<items unknown>", "special")];
    } else if (k === "Number" || k === "String" || k === "Boolean" || (exotic && types.isBoxedPrimitive(v))) {
      base = boxedBase(v, ctx, keys, ctor, tag);
      if (keys.length === 0) return base;
    } else {
      if (keys.length === 0) return prefix(ctor, tag, "Object") + "{}";
      braces[0] = prefix(ctor, tag, "Object") + "{";
    }
  }
  if (depth > ctx.depth && ctx.depth !== null) {
    let name = prefix(ctor, tag, "Object").slice(0, -1);
    if (ctor !== null) name = "[" + name + "]";
    return ctx.stylize(name, "special");
  }
  depth += 1;
  ctx.seen.push(v);
  ctx.currentDepth = depth;
  let out;
  try {
    out = formatter(ctx, v, depth);
    for (let i = 0; i < keys.length; i++) out.push(formatProperty(ctx, v, depth, keys[i], inArray ? 2 : 0));
  } catch (err) {
    if (!(err instanceof RangeError) || !/call stack|stack overflow/i.test(err.message)) throw err;
    ctx.seen.pop();
    return ctx.stylize("[" + (ctor || tag || "Object") + ": Inspection interrupted prematurely. Maximum call stack size exceeded.]", "special");
  }
  if (ctx.circular !== undefined) {
    const n = ctx.circular.get(v);
    if (n !== undefined) {
      const ref = ctx.stylize("<ref *" + n + ">", "special");
      if (ctx.compact !== true) base = base === "" ? ref : ref + " " + base;
      else braces[0] = ref + " " + braces[0];
    }
  }
  ctx.seen.pop();
  if (ctx.sorted) {
    const cmp = ctx.sorted === true ? undefined : ctx.sorted;
    if (!inArray) out.sort(cmp);
    else if (keys.length > 1) {
      const tail = out.slice(out.length - keys.length).sort(cmp);
      out.splice(out.length - keys.length, keys.length, ...tail);
    }
  }
  return joinEntries(ctx, out, base, braces, inArray, depth, v);
}

function isBufferName(v, ctor) {
  for (let o = Object.getPrototypeOf(v); o !== null; o = Object.getPrototypeOf(o)) {
    const c = Object.getOwnPropertyDescriptor(o, "constructor");
    if (c && typeof c.value === "function" && c.value.name === "Buffer") return true;
    if (o === Uint8Array.prototype) return false;
  }
  return ctor === "Buffer";
}

// columns lays the entries of a long array of short items out in a grid,
// as Node does: about as many columns as make the block square (a
// character being some 2.5 times as tall as wide), at most 15 and within
// breakLength; numbers aligned right, the rest left.
function columns(ctx, out, v) {
  let count = out.length;
  if (ctx.maxArrayLength < out.length) count--; // the "more items" line stays apart
  const sep = 2;
  const lens = [];
  let total = 0;
  let widest = 0;
  for (let i = 0; i < count; i++) {
    const n = stringWidth(ctx, out[i]);
    lens.push(n);
    total += n + sep;
    if (n > widest) widest = n;
  }
  const cell = widest + sep;
  if (cell * 3 + ctx.indentationLvl >= ctx.breakLength || (total / cell <= 5 && widest > 6)) return out;
  const bias = Math.sqrt(cell - total / out.length);
  const biased = Math.max(cell - 3 - bias, 1);
  const cols = Math.min(Math.round(Math.sqrt(2.5 * biased * count) / biased), Math.floor((ctx.breakLength - ctx.indentationLvl) / cell), ctx.compact * 4, 15);
  if (cols <= 1) return out;
  const colWidth = [];
  for (let c = 0; c < cols; c++) {
    let w = 0;
    for (let j = c; j < out.length; j += cols) if (lens[j] > w) w = lens[j];
    colWidth.push(w + sep);
  }
  let right = true;
  if (v !== undefined) {
    for (let i = 0; i < out.length; i++) {
      if (typeof v[i] !== "number" && typeof v[i] !== "bigint") { right = false; break; }
    }
  }
  const rows = [];
  for (let i = 0; i < count; i += cols) {
    const end = Math.min(i + cols, count);
    let line = "";
    let j = i;
    for (; j < end - 1; j++) {
      const pad = colWidth[j - i] + out[j].length - lens[j];
      line += right ? (out[j] + ", ").padStart(pad, " ") : (out[j] + ", ").padEnd(pad, " ");
    }
    line += right ? out[j].padStart(colWidth[j - i] + out[j].length - lens[j] - sep, " ") : out[j];
    rows.push(line);
  }
  if (ctx.maxArrayLength < out.length) rows.push(out[count]);
  return rows;
}

// fits says whether the entries, with start characters before them, stay
// within breakLength on one line.
function fits(ctx, out, start, base) {
  let total = out.length + start;
  if (total + out.length > ctx.breakLength) return false;
  for (let i = 0; i < out.length; i++) {
    total += visibleLength(ctx, out[i]);
    if (total > ctx.breakLength) return false;
  }
  return base === "" || !base.includes("\n");
}

// joinEntries puts a value's entries on one line when they fit (and the
// value holds at most ctx.compact levels), else one entry a line.
function joinEntries(ctx, out, base, braces, inArray, depth, v) {
  if (ctx.compact !== true) {
    if (typeof ctx.compact === "number" && ctx.compact >= 1) {
      const entries = out.length;
      if (inArray && entries > 6) out = columns(ctx, out, v);
      if (ctx.currentDepth - depth < ctx.compact && entries === out.length) {
        const start = out.length + ctx.indentationLvl + braces[0].length + base.length + 10;
        if (fits(ctx, out, start, base)) {
          const line = out.join(", ");
          if (!line.includes("\n")) return (base ? base + " " : "") + braces[0] + " " + line + " " + braces[1];
        }
      }
    }
    const ind = "\n" + " ".repeat(ctx.indentationLvl);
    return (base ? base + " " : "") + braces[0] + ind + "  " + out.join("," + ind + "  ") + ind + braces[1];
  }
  if (fits(ctx, out, 0, base)) return braces[0] + (base ? " " + base : "") + " " + out.join(", ") + " " + braces[1];
  const ind = " ".repeat(ctx.indentationLvl);
  const lead = base === "" && braces[0].length === 1 ? " " : (base ? " " + base : "") + "\n" + ind + "  ";
  return braces[0] + lead + out.join(",\n" + ind + "  ") + " " + braces[1];
}

function inspect(value, opts) {
  const ctx = {
    seen: [], indentationLvl: 0, currentDepth: 0, stylize: stylizeNoColor, circular: undefined, userOptions: undefined,
    ...defaultOptions,
  };
  if (arguments.length > 1) {
    if (arguments.length > 2) {
      if (arguments[2] !== undefined) ctx.depth = arguments[2];
      if (arguments.length > 3 && arguments[3] !== undefined) ctx.colors = arguments[3];
    }
    if (typeof opts === "boolean") ctx.showHidden = opts;
    else if (opts) {
      for (const key of Object.keys(opts)) {
        if (Object.prototype.hasOwnProperty.call(defaultOptions, key) || key === "stylize") ctx[key] = opts[key];
        else if (ctx.userOptions === undefined) ctx.userOptions = opts;
      }
    }
  }
  if (ctx.colors) ctx.stylize = stylizeWithColor;
  if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
  if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
  return formatValue(ctx, value, 0);
}
inspect.custom = customInspect;
Object.defineProperty(inspect, "defaultOptions", {
  get() { return defaultOptions; },
  set(options) {
    validateObject(options, "options");
    Object.assign(defaultOptions, options);
  },
  enumerable: true, configurable: true,
});
inspect.colors = colors;
inspect.styles = styles;

// ---- format -------------------------------------------------------------

// builtinToString says whether v's toString is the one of a builtin
// (then %s inspects it rather than calling it).
function builtinToString(v) {
  if (kind(v) === "proxy") return true;
  if (typeof v.toString !== "function") return true;
  if (Object.prototype.hasOwnProperty.call(v, "toString")) return false;
  let p = v;
  do { p = Object.getPrototypeOf(p); } while (p !== null && !Object.prototype.hasOwnProperty.call(p, "toString"));
  if (p === null) return true;
  const d = Object.getOwnPropertyDescriptor(p, "constructor");
  return d !== undefined && typeof d.value === "function" && builtinNames.has(d.value.name);
}
// builtinNames are JavaScript's own classes (not the web's or Node's:
// %s of a URL or a Buffer calls its toString, as in Node).
const builtinNames = new Set(["Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Date", "Promise", "RegExp",
  "Error", "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "ArrayBuffer",
  "SharedArrayBuffer", "DataView", "Map", "Set", "WeakMap", "WeakSet", "WeakRef", "FinalizationRegistry", "Proxy", "Int8Array",
  "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array",
  "BigInt64Array", "BigUint64Array"]);

function stringify(v) {
  try {
    return JSON.stringify(v);
  } catch (err) {
    if (/circular|cyclic/i.test(err && err.message)) return "[Circular]";
    throw err;
  }
}

function formatWithOptionsInternal(opts, args) {
  const first = args[0];
  let a = 0;
  let str = "";
  let join = "";
  if (typeof first === "string") {
    if (args.length === 1) return first;
    let last = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue; // '%'
      const c = first[++i];
      if (a + 1 !== args.length) {
        let s;
        switch (c) {
          case "s": {
            const x = args[++a];
            if (typeof x === "number") s = formatNumber(stylizeNoColor, x, false);
            else if (typeof x === "bigint") s = formatBigInt(stylizeNoColor, x, false);
            else if (typeof x !== "object" || x === null || !builtinToString(x)) s = String(x);
            else s = inspect(x, { ...opts, depth: 0, colors: false, compact: 3 });
            break;
          }
          case "j": s = stringify(args[++a]); break;
          case "d": {
            const x = args[++a];
            if (typeof x === "bigint") s = formatBigInt(stylizeNoColor, x, false);
            else if (typeof x === "symbol") s = "NaN";
            else s = formatNumber(stylizeNoColor, Number(x), false);
            break;
          }
          case "O": s = inspect(args[++a], opts); break;
          case "o": s = inspect(args[++a], { ...opts, showHidden: true, showProxy: true, depth: 4 }); break;
          case "i": {
            const x = args[++a];
            if (typeof x === "bigint") s = formatBigInt(stylizeNoColor, x, false);
            else if (typeof x === "symbol") s = "NaN";
            else s = formatNumber(stylizeNoColor, parseInt(x), false);
            break;
          }
          case "f": {
            const x = args[++a];
            s = typeof x === "symbol" ? "NaN" : formatNumber(stylizeNoColor, parseFloat(x), false);
            break;
          }
          case "c": a++; s = ""; break;
          case "%": str += first.slice(last, i); last = i + 1; continue;
          default: continue;
        }
        if (last !== i - 1) str += first.slice(last, i - 1);
        str += s;
        last = i + 1;
      } else if (c === "%") {
        str += first.slice(last, i);
        last = i + 1;
      }
    }
    if (last !== 0) {
      a++;
      join = " ";
      if (last < first.length) str += first.slice(last);
    }
  }
  while (a < args.length) {
    const v = args[a];
    str += join + (typeof v !== "string" ? inspect(v, opts) : v);
    join = " ";
    a++;
  }
  return str;
}

function format(...args) {
  return formatWithOptionsInternal(undefined, args);
}

function formatWithOptions(inspectOptions, ...args) {
  if (inspectOptions === null || typeof inspectOptions !== "object") throw errors.invalidArgType("inspectOptions", "object", inspectOptions);
  return formatWithOptionsInternal(inspectOptions, args);
}

// ---- functions ------------------------------------------------------------

function promisify(original) {
  validateFunction(original, "original");
  if (original[customPromisify]) {
    const fn = original[customPromisify];
    validateFunction(fn, "util.promisify.custom");
    return Object.defineProperty(fn, customPromisify, { value: fn, enumerable: false, writable: false, configurable: true });
  }
  function fn(...args) {
    return new Promise((resolve, reject) => {
      args.push((err, ...values) => (err ? reject(err) : resolve(values[0])));
      Reflect.apply(original, this, args);
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  Object.defineProperty(fn, customPromisify, { value: fn, enumerable: false, writable: false, configurable: true });
  const descriptors = Object.getOwnPropertyDescriptors(original);
  if (descriptors.prototype && !descriptors.prototype.writable) delete descriptors.prototype;
  return Object.defineProperties(fn, descriptors);
}
promisify.custom = customPromisify;

function callbackify(original) {
  validateFunction(original, "original");
  function callbackified(...args) {
    const last = args.pop();
    validateFunction(last, "last argument");
    const cb = last.bind(this);
    Reflect.apply(original, this, args).then(
      (ret) => process.nextTick(cb, null, ret),
      (reason) => {
        if (!reason) {
          const e = errors.codedError("ERR_FALSY_VALUE_REJECTION", "Promise was rejected with falsy value");
          e.reason = reason;
          reason = e;
        }
        process.nextTick(cb, reason);
      });
  }
  const descriptors = Object.getOwnPropertyDescriptors(original);
  if (descriptors.length && typeof descriptors.length.value === "number") descriptors.length.value++;
  if (descriptors.name && typeof descriptors.name.value === "string") descriptors.name.value += "Callbackified";
  if (descriptors.prototype && !descriptors.prototype.writable) delete descriptors.prototype;
  Object.defineProperties(callbackified, descriptors);
  return callbackified;
}

function inherits(ctor, superCtor) {
  if (ctor === undefined || ctor === null) throw errors.invalidArgType("ctor", "function", ctor);
  if (superCtor === undefined || superCtor === null) throw errors.invalidArgType("superCtor", "function", superCtor);
  if (superCtor.prototype === undefined) throw errors.invalidArgType("superCtor.prototype", "object", superCtor.prototype);
  Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

const codesWarned = new Set();
function deprecate(fn, msg, code) {
  if (process.noDeprecation === true) return fn;
  if (code !== undefined) validateString(code, "code");
  let warned = false;
  function deprecated(...args) {
    if (!warned && !process.noDeprecation) {
      warned = true;
      if (code === undefined) process.emitWarning(msg, "DeprecationWarning", deprecated);
      else if (!codesWarned.has(code)) {
        codesWarned.add(code);
        process.emitWarning(msg, "DeprecationWarning", code, deprecated);
      }
    }
    if (new.target) return Reflect.construct(fn, args, new.target);
    return Reflect.apply(fn, this, args);
  }
  Object.setPrototypeOf(deprecated, fn);
  if (fn.prototype) deprecated.prototype = fn.prototype;
  return deprecated;
}

// debuglog logs through console.error when NODE_DEBUG names the section
// (a comma-separated list, * as a wildcard), as Node does.
const debugSections = new Map();
function debugEnabled(set) {
  const env = process.env.NODE_DEBUG;
  if (!env) return false;
  const up = set.toUpperCase();
  return env.split(/[\s,]+/).some((p) => p !== "" && new RegExp("^" + p.replace(/[|\\{}()[\]^$+?.]/g, "\\$&").replace(/\*/g, ".*") + "$", "i").test(up));
}
function debuglog(set, cb) {
  validateString(set, "set");
  let on;
  const enabled = () => {
    if (on === undefined) {
      if (!debugSections.has(set)) debugSections.set(set, debugEnabled(set));
      on = debugSections.get(set);
      if (typeof cb === "function") cb(logger);
    }
    return on;
  };
  function logger(...args) {
    if (!enabled()) return;
    console.error("%s %d: " + (typeof args[0] === "string" ? args.shift() : "%O"), set.toUpperCase(), process.pid, ...args);
  }
  Object.defineProperty(logger, "enabled", { get: enabled, enumerable: true, configurable: true });
  return logger;
}

function isDeepStrictEqual(a, b) {
  return require("internal/comparisons").isDeepStrictEqual(a, b);
}

function getSystemErrorName(err) {
  validateNumber(err, "err");
  if (err >= 0 || !Number.isSafeInteger(err)) throw errors.outOfRange("err", "a negative integer", err);
  return host.errnoName(-err) || "Unknown system error " + err;
}

function getSystemErrorMap() {
  const m = new Map();
  for (const [n, name, message] of host.errnoList()) m.set(n, [name, message]);
  return m;
}

// styleText colours nothing given one format, as Node 20 does when its
// output is no terminal (a plugin's never is), but, as Node 20 does, it
// colours the text given an array of formats.
function styleText(format, text, options) {
  validateString(text, "text");
  if (options !== undefined && options !== null && options.validateStream !== undefined) validateBoolean(options.validateStream, "options.validateStream");
  const list = Array.isArray(format) ? format : [format];
  let left = "";
  let right = "";
  for (const f of list) {
    const c = colors[f];
    if (c === undefined || c === null) {
      throw errors.invalidArgValue("format", f, "must be one of: " + Object.keys(colors).map((k) => "'" + k + "'").join(", "));
    }
    left += "\u001b[" + c[0] + "m";
    right = "\u001b[" + c[1] + "m" + right;
  }
  return Array.isArray(format) ? left + text + right : text;
}

async function aborted(signal, resource) {
  if (signal === undefined || signal === null || typeof signal !== "object" || !("aborted" in signal)) {
    throw errors.invalidArgType("signal", "an instance of AbortSignal", signal);
  }
  if (resource === null || (typeof resource !== "object" && typeof resource !== "function")) {
    throw errors.invalidArgType("resource", "object", resource);
  }
  if (signal.aborted) return undefined;
  return new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
}

function deprecatedIs(name, test) {
  return { [name](v) { return test(v); } }[name];
}

module.exports = {
  format, formatWithOptions, inspect, promisify, callbackify, inherits, deprecate, debuglog, debug: debuglog,
  isDeepStrictEqual, types, TextEncoder: globalThis.TextEncoder, TextDecoder: globalThis.TextDecoder,
  stripVTControlCharacters, styleText, toUSVString, getSystemErrorName, getSystemErrorMap, aborted,
  parseArgs: (config) => require("internal/parseargs").parseArgs(config),
  get MIMEType() { return require("internal/mime").MIMEType; },
  get MIMEParams() { return require("internal/mime").MIMEParams; },
  isArray: Array.isArray,
  isBoolean: deprecatedIs("isBoolean", (v) => typeof v === "boolean"),
  isBuffer: deprecatedIs("isBuffer", (v) => typedArrayName(v) === "Uint8Array" && isBufferName(v, constructorName(v))),
  isNull: deprecatedIs("isNull", (v) => v === null),
  isNullOrUndefined: deprecatedIs("isNullOrUndefined", (v) => v === null || v === undefined),
  isNumber: deprecatedIs("isNumber", (v) => typeof v === "number"),
  isString: deprecatedIs("isString", (v) => typeof v === "string"),
  isSymbol: deprecatedIs("isSymbol", (v) => typeof v === "symbol"),
  isUndefined: deprecatedIs("isUndefined", (v) => v === undefined),
  isRegExp: deprecatedIs("isRegExp", types.isRegExp),
  isObject: deprecatedIs("isObject", (v) => v !== null && typeof v === "object"),
  isDate: deprecatedIs("isDate", types.isDate),
  isError: deprecatedIs("isError", (v) => types.isNativeError(v) || v instanceof Error),
  isFunction: deprecatedIs("isFunction", (v) => typeof v === "function"),
  isPrimitive: deprecatedIs("isPrimitive", (v) => v === null || (typeof v !== "object" && typeof v !== "function")),
  log(...args) {
    const d = new Date();
    const pad = (n) => String(n).padStart(2, "0");
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    console.log("%s - %s", d.getDate() + " " + months[d.getMonth()] + " " + [pad(d.getHours()), pad(d.getMinutes()), pad(d.getSeconds())].join(":"), format(...args));
  },
  _extend(target, source) {
    if (source === null || typeof source !== "object") return target;
    for (const k of Object.keys(source)) target[k] = source[k];
    return target;
  },
};
