// Node's errors with a code (err.code, and "TypeError [CODE]: message" as
// their string and the first line of their stack), and the words Node uses
// to describe the value it received. Every module of node/ makes its
// errors here.
"use strict";

// inspectShort renders a primitive as Node's messages quote it.
function inspectShort(v) {
  if (typeof v === "string") {
    const q = v.includes("'") ? (v.includes('"') ? "`" : '"') : "'";
    // control characters escaped as util.inspect escapes them
    const named = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };
    return q + v.replace(/[\x00-\x1f\x7f]/g, (c) => named[c] || "\\x" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")) + q;
  }
  if (typeof v === "bigint") return v + "n";
  if (typeof v === "symbol") return v.toString();
  if (Object.is(v, -0)) return "-0";
  return String(v);
}

// formatS renders a value as Node's %s does in its messages: strings as
// they are, objects without a toString of their own shown shallowly.
function formatS(v) {
  if (typeof v === "bigint") return v + "n";
  if (Object.is(v, -0)) return "-0";
  if (v === null || typeof v !== "object") return `${v}`;
  for (let p = v; p !== null && p !== Object.prototype && p !== Array.prototype; p = Object.getPrototypeOf(p)) {
    if (Object.prototype.hasOwnProperty.call(p, "toString")) return `${v}`;
  }
  const show = (x) => (typeof x === "object" && x !== null ? (Array.isArray(x) ? "[Array]" : "[Object]") : typeof x === "function" ? "[Function]" : inspectShort(x));
  if (Array.isArray(v)) return v.length === 0 ? "[]" : "[ " + v.map(show).join(", ") + " ]";
  const keys = Object.keys(v);
  const ctor = v.constructor && v.constructor !== Object ? v.constructor.name + " " : "";
  return ctor + (keys.length === 0 ? "{}" : "{ " + keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : inspectShort(k)) + ": " + show(v[k])).join(", ") + " }");
}

// received is the end of an ERR_INVALID_ARG_TYPE message: what was given.
function received(v) {
  if (v === null || v === undefined) return " Received " + v;
  if (typeof v === "function") return " Received function " + (v.name || "<anonymous>");
  if (typeof v === "object") {
    const name = v.constructor && v.constructor.name;
    if (name) return " Received an instance of " + name;
    return " Received [Object: null prototype]";
  }
  let s = inspectShort(v);
  if (s.length > 28) s = s.slice(0, 25) + "...";
  return " Received type " + typeof v + " (" + s + ")";
}

// coded makes an error of class Base with Node's code.
function coded(Base, code, message) {
  const e = new Base(message);
  Object.defineProperty(e, "code", { value: code, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(e, "toString", {
    value() { return this.name + " [" + code + "]: " + this.message; },
    enumerable: false, writable: true, configurable: true,
  });
  if (typeof e.stack === "string") {
    const nl = e.stack.indexOf("\n");
    const rest = nl < 0 ? "" : e.stack.slice(nl);
    Object.defineProperty(e, "stack", { value: e.name + " [" + code + "]: " + message + rest, enumerable: false, writable: true, configurable: true });
  }
  return e;
}

const codedError = (code, message) => coded(Error, code, message);
const codedTypeError = (code, message) => coded(TypeError, code, message);
const codedRangeError = (code, message) => coded(RangeError, code, message);

// article is "a" or "an" before a type name, as Node writes it.
function article(type) {
  return /^[aeiou]/i.test(type) ? "an" : "a";
}

// invalidArgType is ERR_INVALID_ARG_TYPE for the argument name, which had
// to be of type expected ("string", "function", "string or an instance of
// Buffer or URL", …).
function invalidArgType(name, expected, value) {
  // "The last argument must be…" names itself; other names are quoted
  const subject = name.endsWith(" argument") ? name : '"' + name + '" ' + (name.includes(".") ? "property" : "argument");
  const kind = /^[a-z]/.test(expected) && !/^(an instance|of type |one of )/.test(expected) ? "of type " : "";
  return codedTypeError("ERR_INVALID_ARG_TYPE", "The " + subject + " must be " + kind + expected + "." + received(value));
}

function invalidArgValue(name, value, reason) {
  const what = name.includes(".") ? "property" : "argument";
  let shown = typeof value === "object" && value !== null ? require("util").inspect(value) : inspectShort(value);
  if (shown.length > 128) shown = shown.slice(0, 128) + "...";
  return codedTypeError("ERR_INVALID_ARG_VALUE", "The " + what + " '" + name + "' " + (reason || "is invalid") + ". Received " + shown);
}

// addNumericalSeparator groups a number's text by threes from the right
// with "_", as Node does (whatever the characters: 1_.18_059e_+21).
function addNumericalSeparator(s) {
  let out = "";
  let i = s.length;
  const start = s[0] === "-" ? 1 : 0;
  for (; i >= start + 4; i -= 3) out = "_" + s.slice(i - 3, i) + out;
  return s.slice(0, i) + out;
}

function outOfRange(name, range, value) {
  let shown = inspectShort(value);
  if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) > 2 ** 32) {
    shown = addNumericalSeparator(String(value));
  }
  return codedRangeError("ERR_OUT_OF_RANGE", 'The value of "' + name + '" is out of range. It must be ' + range + ". Received " + shown);
}

function missingArgs(...names) {
  const list = names.map((n) => '"' + n + '"');
  const words = list.length === 1 ? list[0] + " argument" : list.slice(0, -1).join(", ") + " and " + list[list.length - 1] + " arguments";
  return codedTypeError("ERR_MISSING_ARGS", "The " + words + " must be specified");
}

// unavailable is the error of a Node API Podcode does not provide: it names
// the API, so a plugin that calls it fails with a line that says what.
//
// Its stack is one line that ends with where the plugin's own code called
// it (the first frame outside the runtime's modules), so that the line
// the server logs when a plugin is refused at load names the API and the
// file:line that uses it.
function unavailable(api, why) {
  const e = codedError("ERR_PODCODE_UNAVAILABLE", api + " is not available to Podcode plugins" + (why ? ": " + why : ""));
  e.api = api;
  const at = callerOutsideRuntime(e.stack);
  if (at) {
    e.at = at;
    Object.defineProperty(e, "stack", { value: e.name + " [" + e.code + "]: " + e.message + " (used at " + at + ")", writable: true, configurable: true });
  }
  return e;
}

// callerOutsideRuntime is file:line:col of the first frame of stack that
// is not the runtime's (node:…, podcode:…).
function callerOutsideRuntime(stack) {
  for (const line of String(stack || "").split("\n").slice(1)) {
    const m = /^\s*at (?:.*? \()?(.+?:\d+:\d+)(?:\(\d+\))?\)?$/.exec(line);
    if (m && !/^(node|podcode|native)[:)]/.test(m[1]) && !m[1].startsWith("podcode-")) return m[1];
  }
  return "";
}

// AbortError is what an aborted operation rejects with.
class AbortError extends Error {
  constructor(message, options) {
    super(message || "The operation was aborted", options);
    this.code = "ABORT_ERR";
    this.name = "AbortError";
  }
}

module.exports = {
  coded, codedError, codedTypeError, codedRangeError, article, received, inspectShort,
  invalidArgType, invalidArgValue, outOfRange, addNumericalSeparator, formatS, missingArgs, unavailable, AbortError,
};
