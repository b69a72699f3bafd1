// node:events: EventEmitter as Node's, and its static helpers.
"use strict";

const errors = require("internal/errors");
const { validateFunction, validateNumber } = require("internal/validators");

const kCapture = Symbol("kCapture");
const errorMonitor = Symbol("events.errorMonitor");
let defaultMaxListeners = 10;

function checkListener(fn) {
  validateFunction(fn, "listener");
}

function EventEmitter(opts) {
  EventEmitter.init.call(this, opts);
}

EventEmitter.init = function (opts) {
  if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
    this._events = Object.create(null);
    this._eventsCount = 0;
  }
  this._maxListeners = this._maxListeners || undefined;
  if (opts && opts.captureRejections) this[kCapture] = true;
};

EventEmitter.prototype._events = undefined;
EventEmitter.prototype._eventsCount = 0;
EventEmitter.prototype._maxListeners = undefined;

EventEmitter.prototype.setMaxListeners = function setMaxListeners(n) {
  validateNumber(n, "n", 0);
  this._maxListeners = n;
  return this;
};

function maxListeners(that) {
  return that._maxListeners === undefined ? defaultMaxListeners : that._maxListeners;
}

EventEmitter.prototype.getMaxListeners = function getMaxListeners() {
  return maxListeners(this);
};

EventEmitter.prototype.emit = function emit(type, ...args) {
  const events = this._events;
  if (type === "error" && events !== undefined && events[errorMonitor] !== undefined) {
    this.emit(errorMonitor, ...args);
  }
  const handler = events === undefined ? undefined : events[type];
  if (handler === undefined) {
    if (type === "error") {
      const er = args[0];
      if (er instanceof Error) throw er;
      const err = errors.codedError("ERR_UNHANDLED_ERROR", "Unhandled error." + (er === undefined ? "" : " (" + errors.inspectShort(er) + ")"));
      err.context = er;
      throw err;
    }
    return false;
  }
  if (typeof handler === "function") {
    callListener(this, handler, type, args);
  } else {
    for (const fn of handler.slice()) callListener(this, fn, type, args);
  }
  return true;
};

function callListener(that, fn, type, args) {
  const result = fn.apply(that, args);
  if (that[kCapture] && result && typeof result.then === "function") {
    result.then(undefined, (err) => {
      queueMicrotask(() => {
        if (typeof that[Symbol.for("nodejs.rejection")] === "function") that[Symbol.for("nodejs.rejection")](err, type, ...args);
        else that.emit("error", err);
      });
    });
  }
}

function addListener(target, type, listener, prepend) {
  checkListener(listener);
  let events = target._events;
  if (events === undefined) {
    events = target._events = Object.create(null);
    target._eventsCount = 0;
  } else if (events.newListener !== undefined) {
    target.emit("newListener", type, listener.listener ? listener.listener : listener);
    events = target._events;
  }
  const existing = events[type];
  if (existing === undefined) {
    events[type] = listener;
    target._eventsCount++;
  } else {
    const list = typeof existing === "function" ? [existing] : existing;
    if (prepend) list.unshift(listener);
    else list.push(listener);
    events[type] = list;
    const m = maxListeners(target);
    if (m > 0 && list.length > m && !list.warned) {
      list.warned = true;
      const name = target.constructor && target.constructor.name || "EventEmitter";
      if (typeof process !== "undefined" && process.emitWarning) {
        process.emitWarning("Possible EventEmitter memory leak detected. " + list.length + " " + String(type) +
          " listeners added to [" + name + "]. MaxListeners is " + m + ". Use emitter.setMaxListeners() to increase limit", "MaxListenersExceededWarning");
      }
    }
  }
  return target;
}

EventEmitter.prototype.addListener = function addListenerMethod(type, listener) {
  return addListener(this, type, listener, false);
};
EventEmitter.prototype.on = EventEmitter.prototype.addListener;
EventEmitter.prototype.prependListener = function prependListener(type, listener) {
  return addListener(this, type, listener, true);
};

function onceWrapper(target, type, listener) {
  const state = { fired: false, target, type, listener };
  const wrapped = function (...args) {
    if (state.fired) return undefined;
    state.target.removeListener(state.type, wrapped);
    state.fired = true;
    return state.listener.apply(state.target, args);
  };
  wrapped.listener = listener;
  return wrapped;
}

EventEmitter.prototype.once = function once(type, listener) {
  checkListener(listener);
  this.on(type, onceWrapper(this, type, listener));
  return this;
};
EventEmitter.prototype.prependOnceListener = function prependOnceListener(type, listener) {
  checkListener(listener);
  this.prependListener(type, onceWrapper(this, type, listener));
  return this;
};

EventEmitter.prototype.removeListener = function removeListener(type, listener) {
  checkListener(listener);
  const events = this._events;
  if (events === undefined) return this;
  const list = events[type];
  if (list === undefined) return this;
  if (list === listener || list.listener === listener) {
    this._eventsCount--;
    if (this._eventsCount === 0) this._events = Object.create(null);
    else delete events[type];
    if (events.removeListener !== undefined) this.emit("removeListener", type, list.listener || listener);
  } else if (typeof list !== "function") {
    let at = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i] === listener || list[i].listener === listener) { at = i; break; }
    }
    if (at < 0) return this;
    const removed = list[at];
    if (at === 0) list.shift();
    else list.splice(at, 1);
    if (list.length === 1) events[type] = list[0];
    if (events.removeListener !== undefined) this.emit("removeListener", type, removed.listener || listener);
  }
  return this;
};
EventEmitter.prototype.off = EventEmitter.prototype.removeListener;

EventEmitter.prototype.removeAllListeners = function removeAllListeners(type) {
  const events = this._events;
  if (events === undefined) return this;
  if (events.removeListener === undefined) {
    if (arguments.length === 0) {
      this._events = Object.create(null);
      this._eventsCount = 0;
    } else if (events[type] !== undefined) {
      if (--this._eventsCount === 0) this._events = Object.create(null);
      else delete events[type];
    }
    return this;
  }
  if (arguments.length === 0) {
    for (const key of Reflect.ownKeys(events)) {
      if (key !== "removeListener") this.removeAllListeners(key);
    }
    this.removeAllListeners("removeListener");
    this._events = Object.create(null);
    this._eventsCount = 0;
    return this;
  }
  const listeners = events[type];
  if (typeof listeners === "function") this.removeListener(type, listeners);
  else if (listeners !== undefined) {
    for (let i = listeners.length - 1; i >= 0; i--) this.removeListener(type, listeners[i]);
  }
  return this;
};

function listenersOf(target, type, unwrap) {
  const events = target._events;
  if (events === undefined || events[type] === undefined) return [];
  const l = events[type];
  if (typeof l === "function") return unwrap ? [l.listener || l] : [l];
  return unwrap ? l.map((f) => f.listener || f) : l.slice();
}

EventEmitter.prototype.listeners = function listeners(type) { return listenersOf(this, type, true); };
EventEmitter.prototype.rawListeners = function rawListeners(type) { return listenersOf(this, type, false); };
EventEmitter.prototype.listenerCount = function listenerCount(type, listener) {
  const list = listenersOf(this, type, false);
  if (listener === undefined) return list.length;
  return list.filter((f) => f === listener || f.listener === listener).length;
};
EventEmitter.prototype.eventNames = function eventNames() {
  return this._eventsCount > 0 ? Reflect.ownKeys(this._events) : [];
};

// once resolves with the arguments of the next emit of name; an 'error'
// emitted first rejects.
function once(emitter, name, options) {
  const signal = options && options.signal;
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(new errors.AbortError(undefined, { cause: signal.reason }));
      return;
    }
    if (typeof emitter.addEventListener === "function" && typeof emitter.on !== "function") {
      emitter.addEventListener(name, (...args) => resolve(args), { once: true });
      return;
    }
    const onError = (err) => {
      emitter.removeListener(name, onEvent);
      if (signal) signal.removeEventListener("abort", onAbort);
      reject(err);
    };
    const onEvent = (...args) => {
      if (name !== "error") emitter.removeListener("error", onError);
      if (signal) signal.removeEventListener("abort", onAbort);
      resolve(args);
    };
    const onAbort = () => {
      emitter.removeListener(name, onEvent);
      emitter.removeListener("error", onError);
      reject(new errors.AbortError(undefined, { cause: signal.reason }));
    };
    emitter.once(name, onEvent);
    if (name !== "error") emitter.once("error", onError);
    if (signal) signal.addEventListener("abort", onAbort, { once: true });
  });
}

// on is an async iterator of the emits of name (each an array of their
// arguments), until the iterator is returned from or 'error' is emitted.
function on(emitter, name, options) {
  const signal = options && options.signal;
  const queue = [];
  const waiting = [];
  let error = null;
  let done = false;
  const onEvent = (...args) => {
    const w = waiting.shift();
    if (w) w.resolve({ value: args, done: false });
    else queue.push(args);
  };
  const onError = (err) => {
    const w = waiting.shift();
    if (w) w.reject(err);
    else error = err;
    stop();
  };
  const stop = () => {
    done = true;
    emitter.removeListener(name, onEvent);
    emitter.removeListener("error", onError);
    for (const w of waiting.splice(0)) w.resolve({ value: undefined, done: true });
  };
  emitter.on(name, onEvent);
  if (name !== "error") emitter.on("error", onError);
  if (signal) signal.addEventListener("abort", () => onError(new errors.AbortError(undefined, { cause: signal.reason })), { once: true });
  return {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift(), done: false });
      if (error) { const e = error; error = null; return Promise.reject(e); }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() { stop(); return Promise.resolve({ value: undefined, done: true }); },
    throw(err) { onError(err); return Promise.reject(err); },
    [Symbol.asyncIterator]() { return this; },
  };
}

function getEventListeners(emitter, name) {
  if (typeof emitter.listeners === "function") return emitter.listeners(name);
  return [];
}

function listenerCount(emitter, name) {
  return emitter.listenerCount(name);
}

function setMaxListeners(n, ...targets) {
  validateNumber(n, "n", 0);
  if (targets.length === 0) defaultMaxListeners = n;
  for (const t of targets) if (typeof t.setMaxListeners === "function") t.setMaxListeners(n);
}

function addAbortListener(signal, listener) {
  if (signal.aborted) {
    queueMicrotask(() => listener());
  } else {
    signal.addEventListener("abort", listener, { once: true });
  }
  return { [Symbol.dispose || Symbol.for("nodejs.dispose")]() { signal.removeEventListener("abort", listener); } };
}

Object.defineProperty(EventEmitter, "defaultMaxListeners", {
  get() { return defaultMaxListeners; },
  set(n) { validateNumber(n, "defaultMaxListeners", 0); defaultMaxListeners = n; },
  enumerable: true,
});
Object.defineProperty(EventEmitter, "captureRejections", { value: false, writable: true, enumerable: true });
EventEmitter.EventEmitter = EventEmitter;
EventEmitter.usingDomains = false;
EventEmitter.captureRejectionSymbol = Symbol.for("nodejs.rejection");
EventEmitter.errorMonitor = errorMonitor;
EventEmitter.once = once;
EventEmitter.on = on;
EventEmitter.getEventListeners = getEventListeners;
EventEmitter.listenerCount = listenerCount;
EventEmitter.setMaxListeners = setMaxListeners;
EventEmitter.addAbortListener = addAbortListener;
EventEmitter.EventTarget = globalThis.EventTarget;
EventEmitter.Event = globalThis.Event;

module.exports = EventEmitter;
