// node:assert and node:assert/strict as Node 20's: ok, equal, strictEqual,
// deepEqual, deepStrictEqual and their negations, throws, rejects,
// doesNotThrow, doesNotReject, match, doesNotMatch, fail, ifError and
// AssertionError (code ERR_ASSERTION, actual, expected, operator,
// generatedMessage), with Node 20's messages and its line-by-line diffs.
// It differs from Node in that a failed assert(value) without a message
// says "false == true" (as Node says when it cannot read the caller's
// source) rather than quoting the expression, and that CallTracker is
// not provided.
"use strict";

const errors = require("internal/errors");
const { inspect, types } = require("util");
const { isDeepEqual, isDeepStrictEqual } = require("internal/comparisons");

const readable = {
  deepStrictEqual: "Expected values to be strictly deep-equal:",
  strictEqual: "Expected values to be strictly equal:",
  strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
  deepEqual: "Expected values to be loosely deep-equal:",
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
  notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
  notIdentical: "Values have same structure but are not reference-equal:",
  notDeepEqualUnequal: "Expected values not to be loosely deep-equal:",
};
const maxShort = 12;

// show renders a value as the messages of assert show it: every level
// expanded, one entry a line, keys sorted.
const show = (v) => inspect(v, { compact: false, customInspect: false, depth: 1000, maxArrayLength: Infinity, showHidden: false, showProxy: false, sorted: true, getters: true });
const isObjLike = (v) => (typeof v === "object" && v !== null) || typeof v === "function";

// diffMessage is the message of a failed strictEqual or deepStrictEqual:
// the two values, side by side when short, else line by line, "+" for
// actual's lines and "-" for expected's.
function diffMessage(actual, expected, operator) {
  let other = "";
  let res = "";
  let end = "";
  let skipped = false;
  const actualText = show(actual);
  const aLines = actualText.split("\n");
  const eLines = show(expected).split("\n");
  let i = 0;
  let indicator = "";
  if (operator === "strictEqual" && ((typeof actual === "object" && actual !== null && typeof expected === "object" && expected !== null) ||
      (typeof actual === "function" && typeof expected === "function"))) {
    operator = "strictEqualObject";
  }
  if (aLines.length === 1 && eLines.length === 1 && aLines[0] !== eLines[0]) {
    const len = aLines[0].length + eLines[0].length;
    if (len <= maxShort) {
      if (!isObjLike(actual) && !isObjLike(expected) && (actual !== 0 || expected !== 0)) {
        return readable[operator] + "\n\n" + aLines[0] + " !== " + eLines[0] + "\n";
      }
    } else if (operator !== "strictEqualObject" && len < 80) {
      while (aLines[0][i] === eLines[0][i]) i++;
      if (i > 2) {
        indicator = "\n  " + " ".repeat(i) + "^"; // under the first difference
        i = 0;
      }
    }
  }
  // the equal lines at the end are shown once (three at most)
  let a = aLines[aLines.length - 1];
  let b = eLines[eLines.length - 1];
  while (a === b) {
    if (i++ < 3) end = "\n  " + a + end;
    else other = a;
    aLines.pop();
    eLines.pop();
    if (aLines.length === 0 || eLines.length === 0) break;
    a = aLines[aLines.length - 1];
    b = eLines[eLines.length - 1];
  }
  const maxLines = Math.max(aLines.length, eLines.length);
  if (maxLines === 0) {
    const lines = actualText.split("\n");
    if (lines.length > 50) {
      lines[46] = "...";
      lines.length = 47;
    }
    return readable.notIdentical + "\n\n" + lines.join("\n") + "\n";
  }
  if (i >= 5) {
    end = "\n..." + end;
    skipped = true;
  }
  if (other !== "") {
    end = "\n  " + other + end;
    other = "";
  }
  let printed = 0;
  let identical = 0;
  const head = readable[operator] + "\n+ actual - expected";
  const skippedNote = " ... Lines skipped";
  let lines = aLines;
  let sign = "+";
  let shorter = eLines.length;
  if (aLines.length < maxLines) {
    lines = eLines;
    sign = "-";
    shorter = aLines.length;
  }
  // the equal lines before a difference: up to three shown (where lines
  // differ, actual's; past the shorter side's end, the longer side's)
  const flushIdentical = (from, at) => {
    if (identical > 2) {
      if (identical > 3) {
        if (identical > 4) {
          if (identical === 5) {
            res += "\n  " + from[at - 3];
            printed++;
          } else {
            res += "\n...";
            skipped = true;
          }
        }
        res += "\n  " + from[at - 2];
        printed++;
      }
      res += "\n  " + from[at - 1];
      printed++;
    }
    identical = 0;
  };
  for (i = 0; i < maxLines; i++) {
    if (shorter < i + 1) {
      flushIdentical(lines, i);
      if (lines === aLines) res += "\n" + sign + " " + lines[i];
      else other += "\n" + sign + " " + lines[i];
      printed++;
    } else {
      const eLine = eLines[i];
      let aLine = aLines[i];
      let differ = aLine !== eLine && (!aLine.endsWith(",") || aLine.slice(0, -1) !== eLine);
      if (differ && eLine.endsWith(",") && eLine.slice(0, -1) === aLine) {
        differ = false;
        aLine += ",";
      }
      if (differ) {
        flushIdentical(aLines, i);
        res += "\n+ " + aLine;
        other += "\n- " + eLine;
        printed += 2;
      } else {
        res += other;
        other = "";
        identical++;
        if (identical <= 2) {
          res += "\n  " + aLine;
          printed++;
        }
      }
    }
    if (printed > 50 && i < maxLines - 2) {
      return head + skippedNote + "\n" + res + "\n..." + other + "\n...";
    }
  }
  return head + (skipped ? skippedNote : "") + "\n" + res + other + end + indicator;
}

// copyError is an error without its stack, for a diff of two errors to
// show what was compared rather than where each was made.
function copyError(e) {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(e)), e);
  Object.defineProperty(copy, "message", { value: e.message });
  if (e.cause !== undefined) Object.defineProperty(copy, "cause", { value: e.cause instanceof Error ? copyError(e.cause) : e.cause });
  return copy;
}

function generatedMessage(actual, expected, operator) {
  if (actual instanceof Error && expected instanceof Error && "stack" in actual && "stack" in expected) {
    actual = copyError(actual);
    expected = copyError(expected);
  }
  if (operator === "deepStrictEqual" || operator === "strictEqual") return diffMessage(actual, expected, operator);
  if (operator === "notDeepStrictEqual" || operator === "notStrictEqual") {
    let base = readable[operator];
    const lines = show(actual).split("\n");
    if (operator === "notStrictEqual" && isObjLike(actual)) base = readable.notStrictEqualObject;
    if (lines.length > 50) {
      lines[46] = "...";
      lines.length = 47;
    }
    if (lines.length === 1) return base + (lines[0].length > 5 ? "\n\n" : " ") + lines[0];
    return base + "\n\n" + lines.join("\n") + "\n";
  }
  let res = show(actual);
  let other = show(expected);
  const known = readable[operator];
  if (operator === "notDeepEqual" && res === other) {
    res = known + "\n\n" + res;
    return res.length > 1024 ? res.slice(0, 1021) + "..." : res;
  }
  if (res.length > 512) res = res.slice(0, 509) + "...";
  if (other.length > 512) other = other.slice(0, 509) + "...";
  if (operator === "deepEqual") {
    res = known + "\n\n" + res + "\n\nshould loosely deep-equal\n\n";
  } else {
    const unequal = readable[operator + "Unequal"];
    if (unequal) res = unequal + "\n\n" + res + "\n\nshould not loosely deep-equal\n\n";
    else other = " " + operator + " " + other;
  }
  return res + other;
}

class AssertionError extends Error {
  constructor(options) {
    if (options === null || typeof options !== "object" || Array.isArray(options)) throw errors.invalidArgType("options", "object", options);
    const { message, operator, actual, expected } = options;
    super(message != null ? String(message) : generatedMessage(actual, expected, operator));
    this.generatedMessage = message == null;
    Object.defineProperty(this, "name", { value: "AssertionError", enumerable: false, writable: true, configurable: true });
    this.code = "ERR_ASSERTION";
    this.actual = actual;
    this.expected = expected;
    this.operator = operator;
    const s = typeof this.stack === "string" ? this.stack : "";
    const nl = s.indexOf("\n");
    Object.defineProperty(this, "stack", {
      value: "AssertionError [ERR_ASSERTION]: " + this.message + (nl < 0 ? "" : s.slice(s.indexOf("\n", s.indexOf("\tat") - 1))),
      enumerable: false, writable: true, configurable: true,
    });
  }
  toString() {
    return this.name + " [" + this.code + "]: " + this.message;
  }
}

function innerFail(obj) {
  if (obj.message instanceof Error) throw obj.message;
  throw new AssertionError(obj);
}

function innerOk(fn, argLen, value, message) {
  if (value) return;
  let generated = false;
  if (argLen === 0) {
    generated = true;
    message = "No value argument passed to `assert.ok()`";
  } else if (message == null) {
    generated = true;
  } else if (message instanceof Error) {
    throw message;
  }
  const err = new AssertionError({ actual: value, expected: true, message, operator: "==" });
  err.generatedMessage = generated;
  throw err;
}

function ok(...args) {
  innerOk(ok, args.length, ...args);
}

function needTwo(n) {
  if (n < 2) throw errors.missingArgs("actual", "expected");
}

function equal(actual, expected, message) {
  needTwo(arguments.length);
  // eslint-disable-next-line eqeqeq
  if (actual != expected && (!Number.isNaN(actual) || !Number.isNaN(expected))) innerFail({ actual, expected, message, operator: "==" });
}
function notEqual(actual, expected, message) {
  needTwo(arguments.length);
  // eslint-disable-next-line eqeqeq
  if (actual == expected || (Number.isNaN(actual) && Number.isNaN(expected))) innerFail({ actual, expected, message, operator: "!=" });
}
function deepEqual(actual, expected, message) {
  needTwo(arguments.length);
  if (!isDeepEqual(actual, expected)) innerFail({ actual, expected, message, operator: "deepEqual" });
}
function notDeepEqual(actual, expected, message) {
  needTwo(arguments.length);
  if (isDeepEqual(actual, expected)) innerFail({ actual, expected, message, operator: "notDeepEqual" });
}
function deepStrictEqual(actual, expected, message) {
  needTwo(arguments.length);
  if (!isDeepStrictEqual(actual, expected)) innerFail({ actual, expected, message, operator: "deepStrictEqual" });
}
function notDeepStrictEqual(actual, expected, message) {
  needTwo(arguments.length);
  if (isDeepStrictEqual(actual, expected)) innerFail({ actual, expected, message, operator: "notDeepStrictEqual" });
}
function strictEqual(actual, expected, message) {
  needTwo(arguments.length);
  if (!Object.is(actual, expected)) innerFail({ actual, expected, message, operator: "strictEqual" });
}
function notStrictEqual(actual, expected, message) {
  needTwo(arguments.length);
  if (Object.is(actual, expected)) innerFail({ actual, expected, message, operator: "notStrictEqual" });
}

let failWarned = false;
function fail(actual, expected, message, operator, stackStartFn) {
  const n = arguments.length;
  let internal = false;
  if (actual == null && n <= 1) {
    internal = true;
    message = "Failed";
  } else if (n === 1) {
    message = actual;
    actual = undefined;
  } else {
    if (!failWarned) {
      failWarned = true;
      process.emitWarning("assert.fail() with more than one argument is deprecated. Please use assert.strictEqual() instead or only pass a message.", "DeprecationWarning", "DEP0094");
    }
    if (n === 2) operator = "!=";
  }
  if (message instanceof Error) throw message;
  const err = new AssertionError({ actual, expected, operator: operator === undefined ? "fail" : operator, message });
  if (internal) err.generatedMessage = true;
  throw err;
}

function ifError(err) {
  if (err === null || err === undefined) return;
  let message = "ifError got unwanted exception: ";
  if (typeof err === "object" && typeof err.message === "string") {
    message += err.message.length === 0 && err.constructor ? err.constructor.name : err.message;
  } else {
    message += inspect(err);
  }
  throw new AssertionError({ actual: err, expected: null, operator: "ifError", message });
}

function internalMatch(string, regexp, message, fn) {
  if (!types.isRegExp(regexp)) throw errors.invalidArgType("regexp", "an instance of RegExp", regexp);
  const match = fn === assert.match;
  if (typeof string !== "string" || (regexp.exec(string) !== null) !== match) {
    if (message instanceof Error) throw message;
    const generated = !message;
    message = message || (typeof string !== "string"
      ? 'The "string" argument must be of type string. Received type ' + typeof string + " (" + inspect(string) + ")"
      : (match ? "The input did not match the regular expression " : "The input was expected to not match the regular expression ") +
        inspect(regexp) + ". Input:\n\n" + inspect(string) + "\n");
    const err = new AssertionError({ actual: string, expected: regexp, message, operator: fn.name });
    err.generatedMessage = generated;
    throw err;
  }
}
function match(string, regexp, message) { internalMatch(string, regexp, message, match); }
function doesNotMatch(string, regexp, message) { internalMatch(string, regexp, message, doesNotMatch); }

// ---- throws and rejects ---------------------------------------------------

const none = Symbol("no exception");
const errorKinds = "function or an instance of Error, RegExp, or Object";

// Comparison shows, in a failed throws(fn, object), the keys compared.
class Comparison {
  constructor(obj, keys, actual) {
    for (const key of keys) {
      if (key in obj) {
        if (actual !== undefined && typeof actual[key] === "string" && types.isRegExp(obj[key]) && obj[key].exec(actual[key]) !== null) this[key] = actual[key];
        else this[key] = obj[key];
      }
    }
  }
}

function compareKey(actual, expected, key, message, keys, fn) {
  if (key in actual && isDeepStrictEqual(actual[key], expected[key])) return;
  if (!message) {
    const err = new AssertionError({ actual: new Comparison(actual, keys), expected: new Comparison(expected, keys, actual), operator: "deepStrictEqual" });
    err.actual = actual;
    err.expected = expected;
    err.operator = fn.name;
    throw err;
  }
  innerFail({ actual, expected, message, operator: fn.name });
}

const isError = (e) => types.isNativeError(e) || e instanceof Error;

function expectedException(actual, expected, message, fn) {
  let generated = false;
  if (typeof expected !== "function") {
    if (types.isRegExp(expected)) {
      const str = String(actual);
      if (expected.exec(str) !== null) return;
      if (!message) {
        generated = true;
        message = "The input did not match the regular expression " + inspect(expected) + ". Input:\n\n" + inspect(str) + "\n";
      }
    } else if (typeof actual !== "object" || actual === null) {
      const err = new AssertionError({ actual, expected, message, operator: "deepStrictEqual" });
      err.operator = fn.name;
      throw err;
    } else {
      const keys = Object.keys(expected);
      if (expected instanceof Error) keys.push("name", "message");
      else if (keys.length === 0) throw errors.invalidArgValue("error", expected, "may not be an empty object");
      for (const key of keys) {
        if (typeof actual[key] === "string" && types.isRegExp(expected[key]) && expected[key].exec(actual[key]) !== null) continue;
        compareKey(actual, expected, key, message, keys, fn);
      }
      return;
    }
  } else if (expected.prototype !== undefined && actual instanceof expected) {
    return;
  } else if (Error.isPrototypeOf(expected) || expected === Error) {
    if (!message) {
      generated = true;
      message = 'The error is expected to be an instance of "' + expected.name + '". Received ';
      if (isError(actual)) {
        const name = (actual.constructor && actual.constructor.name) || actual.name;
        message += expected.name === name ? "an error with identical name but a different prototype." : '"' + name + '"';
        if (actual.message) message += "\n\nError message:\n\n" + actual.message;
      } else {
        message += '"' + inspect(actual, { depth: -1 }) + '"';
      }
    }
  } else {
    const res = Reflect.apply(expected, {}, [actual]);
    if (res === true) return;
    if (!message) {
      generated = true;
      message = "The " + (expected.name ? '"' + expected.name + '" ' : "") + 'validation function is expected to return "true". Received ' + inspect(res);
      if (isError(actual)) message += "\n\nCaught error:\n\n" + actual;
    }
  }
  const err = new AssertionError({ actual, expected, message, operator: fn.name });
  err.generatedMessage = generated;
  throw err;
}

function expectsError(fn, actual, error, message, argc) {
  if (typeof error === "string") {
    if (argc === 4) throw errors.invalidArgType("error", errorKinds, error);
    if (typeof actual === "object" && actual !== null) {
      if (actual.message === error) {
        throw errors.codedTypeError("ERR_AMBIGUOUS_ARGUMENT", 'The "error/message" argument is ambiguous. The error message "' + actual.message + '" is identical to the message.');
      }
    } else if (actual === error) {
      throw errors.codedTypeError("ERR_AMBIGUOUS_ARGUMENT", 'The "error/message" argument is ambiguous. The error "' + actual + '" is identical to the message.');
    }
    message = error;
    error = undefined;
  } else if (error != null && typeof error !== "object" && typeof error !== "function") {
    throw errors.invalidArgType("error", errorKinds, error);
  }
  if (actual === none) {
    let details = error && error.name ? " (" + error.name + ")" : "";
    details += message ? ": " + message : ".";
    innerFail({ actual: undefined, expected: error, operator: fn.name, message: "Missing expected " + (fn === rejects ? "rejection" : "exception") + details });
  }
  if (!error) return;
  expectedException(actual, error, message, fn);
}

function matchingError(actual, expected) {
  if (typeof expected !== "function") {
    if (types.isRegExp(expected)) return expected.exec(String(actual)) !== null;
    throw errors.invalidArgType("expected", "function or an instance of RegExp", expected);
  }
  if (expected.prototype !== undefined && actual instanceof expected) return true;
  if (Error.isPrototypeOf(expected)) return false;
  return Reflect.apply(expected, {}, [actual]) === true;
}

function expectsNoError(fn, actual, error, message) {
  if (actual === none) return;
  if (typeof error === "string") {
    message = error;
    error = undefined;
  }
  if (!error || matchingError(actual, error)) {
    innerFail({
      actual, expected: error, operator: fn.name,
      message: "Got unwanted " + (fn === doesNotReject ? "rejection" : "exception") + (message ? ": " + message : ".") + "\nActual message: \"" + (actual && actual.message) + "\"",
    });
  }
  throw actual;
}

function caught(fn) {
  if (typeof fn !== "function") throw errors.invalidArgType("fn", "function", fn);
  try {
    fn();
  } catch (e) {
    return e;
  }
  return none;
}

const isPromiseLike = (p) => types.isPromise(p) || (p !== null && typeof p === "object" && typeof p.then === "function" && typeof p.catch === "function");

async function settled(promiseFn) {
  let p;
  if (typeof promiseFn === "function") {
    p = promiseFn();
    if (!isPromiseLike(p)) {
      const got = errors.received(p).slice(" Received ".length);
      throw errors.codedTypeError("ERR_INVALID_RETURN_VALUE", 'Expected instance of Promise to be returned from the "promiseFn" function but got ' + got + ".");
    }
  } else if (isPromiseLike(promiseFn)) {
    p = promiseFn;
  } else {
    throw errors.invalidArgType("promiseFn", "function or an instance of Promise", promiseFn);
  }
  try {
    await p;
  } catch (e) {
    return e;
  }
  return none;
}

// expectsError gets the count of arguments throws or rejects was given
// (with the function and the outcome), as Node's tells a message from an
// error given as a string.
function throws(fn, ...args) { expectsError(throws, caught(fn), args[0], args[1], args.length + 2); }
async function rejects(promiseFn, ...args) { expectsError(rejects, await settled(promiseFn), args[0], args[1], args.length + 2); }
function doesNotThrow(fn, ...args) { expectsNoError(doesNotThrow, caught(fn), ...args); }
async function doesNotReject(fn, ...args) { expectsNoError(doesNotReject, await settled(fn), ...args); }

const assert = function assert(...args) { innerOk(assert, args.length, ...args); };
Object.assign(assert, {
  fail, AssertionError, ok, equal, notEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual, strictEqual, notStrictEqual,
  throws, rejects, doesNotThrow, doesNotReject, ifError, match, doesNotMatch,
});

const strict = function strict(...args) { innerOk(strict, args.length, ...args); };
Object.assign(strict, assert, { equal: strictEqual, deepEqual: deepStrictEqual, notEqual: notStrictEqual, notDeepEqual: notDeepStrictEqual });
assert.strict = strict;
strict.strict = strict;

module.exports = assert;
