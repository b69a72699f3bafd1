// Deep equality as Node's assert and util.isDeepStrictEqual define it:
// strict (Object.is for primitives, same prototypes, enumerable symbol
// keys too) and loose (== for primitives, prototypes ignored). Both walk
// arrays, plain objects, Maps and Sets (in any order), Dates, RegExps,
// errors (name and message), boxed primitives, typed arrays and
// ArrayBuffers (byte by byte), and survive cycles.
"use strict";

const { types } = require("util");

const isObj = (v) => v !== null && typeof v === "object";
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const enumerable = (o, k) => Object.prototype.propertyIsEnumerable.call(o, k);
const tagOf = (v) => Object.prototype.toString.call(v);
const isIndex = (k) => /^(?:0|[1-9][0-9]*)$/.test(k) && Number(k) < 4294967295;

function nonIndexKeys(v, strict) {
  const keys = Object.keys(v).filter((k) => !isIndex(k));
  if (strict) for (const s of Object.getOwnPropertySymbols(v)) if (enumerable(v, s)) keys.push(s);
  return keys;
}

function sameBytes(a, b) {
  if (a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a.buffer || a, a.byteOffset || 0, a.byteLength);
  const y = new Uint8Array(b.buffer || b, b.byteOffset || 0, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function boxedEqual(a, b) {
  for (const [is, valueOf] of [[types.isNumberObject, Number.prototype.valueOf], [types.isStringObject, String.prototype.valueOf],
    [types.isBooleanObject, Boolean.prototype.valueOf], [types.isBigIntObject, BigInt.prototype.valueOf], [types.isSymbolObject, Symbol.prototype.valueOf]]) {
    if (is(a)) return is(b) && Object.is(valueOf.call(a), valueOf.call(b));
  }
  return false;
}

const special = (v) => Array.isArray(v) || ArrayBuffer.isView(v) || types.isSet(v) || types.isMap(v) || types.isDate(v) ||
  types.isRegExp(v) || types.isAnyArrayBuffer(v) || types.isBoxedPrimitive(v) || types.isNativeError(v) || v instanceof Error;

function equal(a, b, strict, memos) {
  if (a === b) return a !== 0 || !strict || Object.is(a, b);
  if (strict) {
    if (typeof a !== "object") return typeof a === "number" && Number.isNaN(a) && Number.isNaN(b);
    if (typeof b !== "object" || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  } else {
    if (!isObj(a)) return !isObj(b) && (a == b || (Number.isNaN(a) && Number.isNaN(b))); // eslint-disable-line eqeqeq
    if (!isObj(b)) return false;
  }
  if (tagOf(a) !== tagOf(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    const ka = nonIndexKeys(a, strict);
    if (ka.length !== nonIndexKeys(b, strict).length) return false;
    return keyCheck(a, b, strict, memos, "array", ka);
  }
  if (tagOf(a) === "[object Object]" && !special(a) && !special(b)) return keyCheck(a, b, strict, memos, "object");
  if (types.isDate(a)) {
    if (!types.isDate(b) || a.getTime() !== b.getTime()) return false;
  } else if (types.isRegExp(a)) {
    if (!types.isRegExp(b) || a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
  } else if (types.isNativeError(a) || a instanceof Error) {
    if ((!types.isNativeError(b) && !(b instanceof Error)) || a.message !== b.message || a.name !== b.name) return false;
  } else if (ArrayBuffer.isView(a)) {
    if (!ArrayBuffer.isView(b)) return false;
    if (!strict && (types.isFloat32Array(a) || types.isFloat64Array(a))) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    } else if (!sameBytes(a, b)) {
      return false;
    }
    const ka = a.length > 10000 ? [] : nonIndexKeys(a, strict);
    if (ka.length !== (b.length > 10000 ? 0 : nonIndexKeys(b, strict).length)) return false;
    return keyCheck(a, b, strict, memos, "object", ka);
  } else if (types.isSet(a)) {
    if (!types.isSet(b) || a.size !== b.size) return false;
    return keyCheck(a, b, strict, memos, "set");
  } else if (types.isMap(a)) {
    if (!types.isMap(b) || a.size !== b.size) return false;
    return keyCheck(a, b, strict, memos, "map");
  } else if (types.isAnyArrayBuffer(a)) {
    if (!types.isAnyArrayBuffer(b) || !sameBytes(a, b)) return false;
  } else if (types.isBoxedPrimitive(a)) {
    if (!boxedEqual(a, b)) return false;
  } else if (special(b)) {
    return false;
  }
  return keyCheck(a, b, strict, memos, "object");
}

function keyCheck(a, b, strict, memos, kind, ka) {
  if (ka === undefined) {
    ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    if (strict) {
      const sa = Object.getOwnPropertySymbols(a).filter((s) => enumerable(a, s));
      const sb = Object.getOwnPropertySymbols(b).filter((s) => enumerable(b, s));
      if (sa.length !== sb.length) return false;
      ka.push(...sa);
    }
  }
  for (const k of ka) if (!enumerable(b, k)) return false;
  if (ka.length === 0 && (kind === "object" || (kind === "array" && a.length === 0) || ((kind === "set" || kind === "map") && a.size === 0))) return true;
  // a pair met again on the same path compares by position: cycles end
  if (memos === undefined) {
    memos = { a: new Map(), b: new Map(), position: 0 };
  } else {
    const pa = memos.a.get(a);
    if (pa !== undefined) {
      const pb = memos.b.get(b);
      if (pb !== undefined) return pa === pb;
    }
    memos.position++;
  }
  memos.a.set(a, memos.position);
  memos.b.set(b, memos.position);
  const eq = entriesEqual(a, b, strict, memos, kind, ka);
  memos.a.delete(a);
  memos.b.delete(b);
  return eq;
}

function entriesEqual(a, b, strict, memos, kind, ka) {
  for (const k of ka) if (!equal(a[k], b[k], strict, memos)) return false;
  if (kind === "array") {
    for (let i = 0; i < a.length; i++) {
      const ha = hasOwn(a, i), hb = hasOwn(b, i);
      if (ha !== hb) return false; // a hole is no undefined, even loosely
      if ((ha || hb) && !equal(a[i], b[i], strict, memos)) return false;
    }
  } else if (kind === "set") {
    const left = [];
    for (const x of a) {
      if ((!isObj(x) || !strict) && b.has(x)) continue;
      if (isObj(x) || !strict) left.push(x);
      else return false;
    }
    if (left.length > 0) {
      const pool = [...b].filter((y) => !(a.has(y) && (!isObj(y) || !strict)));
      for (const x of left) {
        const i = pool.findIndex((y) => equal(x, y, strict, memos));
        if (i === -1) return false;
        pool.splice(i, 1);
      }
    }
  } else if (kind === "map") {
    const left = [];
    for (const [k, v] of a) {
      if (b.has(k) && (!isObj(k) || !strict)) {
        if (!equal(v, b.get(k), strict, memos)) return false;
      } else if (isObj(k) || !strict) {
        left.push([k, v]);
      } else {
        return false;
      }
    }
    if (left.length > 0) {
      const pool = [...b].filter(([k]) => !(a.has(k) && (!isObj(k) || !strict)));
      for (const [k, v] of left) {
        const i = pool.findIndex(([k2, v2]) => equal(k, k2, strict, memos) && equal(v, v2, strict, memos));
        if (i === -1) return false;
        pool.splice(i, 1);
      }
    }
  }
  return true;
}

module.exports = {
  isDeepStrictEqual: (a, b) => equal(a, b, true),
  isDeepEqual: (a, b) => equal(a, b, false),
};
