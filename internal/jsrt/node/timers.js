// node:timers and node:timers/promises: the global timers (prelude.js),
// setImmediate (a timer of no delay: it runs after the jobs already
// queued, as Node's runs after I/O), and their promise forms.
"use strict";

const errors = require("internal/errors");
const { validateFunction } = require("internal/validators");

class Immediate {
  constructor(timer) { this._timer = timer; }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
}

function setImmediate(fn, ...args) {
  validateFunction(fn, "callback");
  return new Immediate(setTimeout(fn, 0, ...args));
}

function clearImmediate(immediate) {
  if (immediate instanceof Immediate) clearTimeout(immediate._timer);
}

function abortError(signal) {
  return new errors.AbortError(undefined, { cause: signal.reason });
}

// settleLater resolves with value after start's timer fires, or rejects
// when signal aborts first.
function settleLater(start, value, options) {
  const signal = options && options.signal;
  if (options !== undefined && (options === null || typeof options !== "object")) {
    return Promise.reject(errors.invalidArgType("options", "object", options));
  }
  if (signal && signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    let onAbort;
    const t = start(() => {
      if (signal) signal.removeEventListener("abort", onAbort);
      resolve(value);
    });
    if (signal) {
      onAbort = () => { clearTimeout(t); reject(abortError(signal)); };
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
}

const promises = {
  setTimeout: (ms, value, options) => settleLater((fn) => setTimeout(fn, ms), value, options),
  setImmediate: (value, options) => settleLater((fn) => setTimeout(fn, 0), value, options),
  // setInterval is an async iterator yielding value at each tick.
  setInterval(ms, value, options) {
    const signal = options && options.signal;
    let ticks = 0;
    let waiting = null;
    let done = false;
    const t = setInterval(() => {
      if (waiting) { const w = waiting; waiting = null; w.resolve({ value, done: false }); } else ticks++;
    }, ms);
    const stop = () => { done = true; clearInterval(t); };
    if (signal) {
      signal.addEventListener("abort", () => {
        stop();
        if (waiting) { const w = waiting; waiting = null; w.reject(abortError(signal)); }
      }, { once: true });
    }
    return {
      next() {
        if (signal && signal.aborted) return Promise.reject(abortError(signal));
        if (done) return Promise.resolve({ value: undefined, done: true });
        if (ticks > 0) { ticks--; return Promise.resolve({ value, done: false }); }
        return new Promise((resolve, reject) => { waiting = { resolve, reject }; });
      },
      return() { stop(); return Promise.resolve({ value: undefined, done: true }); },
      [Symbol.asyncIterator]() { return this; },
    };
  },
  scheduler: {
    wait: (ms, options) => settleLater((fn) => setTimeout(fn, ms), undefined, options),
    yield: () => settleLater((fn) => setTimeout(fn, 0), undefined, undefined),
  },
};

// util.promisify(setImmediate) is timers/promises' setImmediate, as in Node.
Object.defineProperty(setImmediate, Symbol.for("nodejs.util.promisify.custom"), { value: promises.setImmediate, enumerable: false });

module.exports = {
  setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval,
  setImmediate, clearImmediate, promises,
};
