// The web APIs Podcode gives plugins, written over a few host functions.
// It runs once per runtime, before any plugin code, as a function of `host`
// (Go functions) that installs globals and returns the Node modules Podcode
// provides and a few helpers for the host. Nothing here is reachable as
// `host` afterwards.
(function (host) {
  "use strict";
  const g = globalThis;

  function define(name, value) {
    Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  }
  define("global", g); // Node's name for globalThis, which npm packages probe

  // goja has no Symbol.asyncIterator: it is the symbol esbuild's lowering
  // of for await falls back to, so that a plugin's hand-written async
  // iterables and its lowered loops agree.
  if (typeof Symbol.asyncIterator !== "symbol") {
    Object.defineProperty(Symbol, "asyncIterator", { value: Symbol.for("Symbol.asyncIterator"), writable: false, enumerable: false, configurable: false });
  }

  // console: every line goes to the server's log with the plugin's id,
  // formatted as Node's console formats it (util.formatWithOptions). A
  // line of strings alone needs no formatting: node:util is loaded only
  // for the first line that does.
  let util;
  const fmt = (args) => {
    if (args.length === 1 && typeof args[0] === "string") return args[0];
    let plain = args.length === 0 || (typeof args[0] === "string" && !/%[sdifjoOc%]/.test(args[0]));
    for (let i = 0; plain && i < args.length; i++) plain = typeof args[i] === "string";
    if (plain) return args.join(" ");
    if (util === undefined) util = host.require("util");
    return util.formatWithOptions({}, ...args);
  };
  let indent = "";
  const write = (level, text) => {
    if (indent !== "") text = indent + (text.includes("\n") ? text.split("\n").join("\n" + indent) : text);
    host.log(level, text);
  };
  // print formats a line only when the log takes its level (console.debug
  // costs nothing on a server that logs at info)
  const print = (level, args) => {
    if (host.logEnabled(level)) write(level, fmt(args));
  };
  const counts = new Map();
  const timers = new Map();
  const warn = (msg) => host.log("warn", "(node) Warning: " + msg);
  const label = (l) => (l === undefined ? "default" : String(l));
  // elapsed renders milliseconds as Node's console.timeEnd does.
  const elapsed = (ms) => {
    if (ms >= 60000) {
      const h = Math.floor(ms / 3600000), m = Math.floor((ms % 3600000) / 60000);
      const [s, frac] = ((ms % 60000) / 1000).toFixed(3).split(".");
      const pad = (n) => String(n).padStart(2, "0");
      return (h !== 0 ? h + ":" + pad(m) : m) + ":" + pad(s) + "." + frac + " (" + (h !== 0 ? "h:m" : "") + "m:ss.mmm)";
    }
    if (ms >= 1000) return (ms / 1000).toFixed(3) + "s";
    return Number(ms.toFixed(3)) + "ms";
  };
  const now = () => { const [s, ns] = host.hrtime(); return s * 1e3 + ns / 1e6; };
  const timeLog = (name, l, args) => {
    l = label(l);
    const start = timers.get(l);
    if (start === undefined) { warn("No such label '" + l + "' for console." + name + "()"); return false; }
    write("info", fmt([l + ": " + elapsed(now() - start), ...args]));
    return true;
  };
  const console = {
    log: (...args) => print("info", args),
    info: (...args) => print("info", args),
    debug: (...args) => print("debug", args),
    warn: (...args) => print("warn", args),
    error: (...args) => print("error", args),
    trace: (...args) => {
      if (!host.logEnabled("debug")) return;
      // the caller's frames: the stack of an Error without a message, less
      // its first line and this function's frame
      const frames = String(new Error().stack).split("\n").slice(2).map((l) => l.replace(/^\tat /, "    at ")).join("\n");
      write("debug", "Trace" + (args.length ? ": " + fmt(args) : "") + (frames ? "\n" + frames : ""));
    },
    dir: (obj, options) => {
      if (util === undefined) util = host.require("util");
      write("info", util.inspect(obj, { customInspect: false, ...options }));
    },
    dirxml: (...args) => console.log(...args),
    table: (data, properties) => {
      const t = host.require("internal/console").table(data, properties);
      if (t === undefined) console.log(data);
      else write("info", t);
    },
    assert: (ok, ...args) => {
      if (ok) return;
      if (typeof args[0] === "string") args[0] = "Assertion failed: " + args[0];
      else args.unshift("Assertion failed");
      console.warn(...args);
    },
    count: (l) => {
      l = label(l);
      const n = (counts.get(l) || 0) + 1;
      counts.set(l, n);
      write("info", l + ": " + n);
    },
    countReset: (l) => {
      l = label(l);
      if (!counts.has(l)) warn("Count for '" + l + "' does not exist");
      else counts.set(l, 0);
    },
    group: (...args) => {
      if (args.length > 0) console.log(...args);
      indent += "  ";
    },
    groupEnd: () => { indent = indent.slice(0, -2); },
    time: (l) => {
      l = label(l);
      if (timers.has(l)) { warn("Label '" + l + "' already exists for console.time()"); return; }
      timers.set(l, now());
    },
    timeEnd: (l) => { if (timeLog("timeEnd", l, [])) timers.delete(label(l)); },
    timeLog: (l, ...args) => { timeLog("timeLog", l, args); },
    clear: () => {},
    profile: () => {},
    profileEnd: () => {},
    timeStamp: () => {},
  };
  console.groupCollapsed = console.group;
  define("console", console);

  // Timers. A runtime holds at most host.maxTimers at once. As in Node,
  // setTimeout and setInterval return a Timeout object (its number is its
  // primitive value, so code that keeps ids as numbers works too); ref and
  // unref change nothing in a server that runs until it stops.
  const timerId = Symbol("timerId");
  class Timeout {
    constructor(id, start) { this[timerId] = id; Object.defineProperty(this, "_start", { value: start }); }
    ref() { return this; }
    unref() { return this; }
    hasRef() { return true; }
    refresh() {
      host.clearTimer(this[timerId]);
      this[timerId] = this._start();
      return this;
    }
    close() { host.clearTimer(this[timerId]); return this; }
    [Symbol.toPrimitive]() { return this[timerId]; }
  }
  function setTimer(name, fn, ms, args, repeat) {
    if (typeof fn !== "function") throw new TypeError(name + ": the callback must be a function");
    const start = () => {
      const id = host.setTimer(() => fn(...args), Number(ms) || 0, repeat);
      if (id === 0) {
        throw new RangeError(name + ": this plugin already holds " + host.maxTimers +
          " timers, the most one plugin may hold; clear some first (clearTimeout, clearInterval)");
      }
      return id;
    };
    return new Timeout(start(), start);
  }
  const clearTimer = (t) => {
    if (t === undefined || t === null) return;
    host.clearTimer(typeof t === "object" ? t[timerId] : Number(t));
  };
  define("setTimeout", (fn, ms, ...args) => setTimer("setTimeout", fn, ms, args, false));
  define("setInterval", (fn, ms, ...args) => setTimer("setInterval", fn, ms, args, true));
  // util.promisify(setTimeout) is timers/promises' setTimeout, as in Node
  // (loaded when first asked for)
  Object.defineProperty(g.setTimeout, Symbol.for("nodejs.util.promisify.custom"), {
    get: () => host.require("timers").promises.setTimeout,
    enumerable: false, configurable: true,
  });
  define("clearTimeout", clearTimer);
  define("clearInterval", clearTimer);
  define("queueMicrotask", (fn) => { Promise.resolve().then(fn); });

  // Events and abort signals (the subset fetch and tools need).
  class Event {
    constructor(type) { this.type = type; }
  }
  class EventTarget {
    #listeners = new Map();
    addEventListener(type, fn, opts) {
      if (typeof fn !== "function") return;
      const list = this.#listeners.get(type) || [];
      list.push({ fn, once: !!(opts && opts.once) });
      this.#listeners.set(type, list);
    }
    removeEventListener(type, fn) {
      const list = this.#listeners.get(type);
      if (list) this.#listeners.set(type, list.filter((l) => l.fn !== fn));
    }
    dispatchEvent(event) {
      const list = (this.#listeners.get(event.type) || []).slice();
      for (const l of list) {
        if (l.once) this.removeEventListener(event.type, l.fn);
        try { l.fn.call(this, event); } catch (e) { console.error("event listener threw:", e); }
      }
      const prop = this["on" + event.type];
      if (typeof prop === "function") {
        try { prop.call(this, event); } catch (e) { console.error("event listener threw:", e); }
      }
      return true;
    }
  }
  function abortError(message) {
    const e = new Error(message || "This operation was aborted");
    e.name = "AbortError";
    return e;
  }
  class AbortSignal extends EventTarget {
    constructor() { super(); this.aborted = false; this.reason = undefined; this.onabort = null; }
    throwIfAborted() { if (this.aborted) throw this.reason; }
    static abort(reason) { const c = new AbortController(); c.abort(reason); return c.signal; }
    static timeout(ms) {
      const c = new AbortController();
      setTimeout(() => { const e = new Error("The operation timed out"); e.name = "TimeoutError"; c.abort(e); }, ms);
      return c.signal;
    }
  }
  class AbortController {
    constructor() { this.signal = new AbortSignal(); }
    abort(reason) {
      const s = this.signal;
      if (s.aborted) return;
      s.aborted = true;
      s.reason = reason === undefined ? abortError() : reason;
      s.dispatchEvent(new Event("abort"));
    }
  }
  define("Event", Event);
  define("EventTarget", EventTarget);
  define("AbortSignal", AbortSignal);
  define("AbortController", AbortController);

  // Text encoding: UTF-8 only, as on the web.
  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(s) { return new Uint8Array(host.utf8Encode(s === undefined ? "" : String(s))); }
  }
  // As the Encoding Standard's: a BOM is dropped (unless ignoreBOM), and
  // each ill-formed sequence becomes one U+FFFD, or a TypeError if fatal.
  class TextDecoder {
    #fatal; #ignoreBOM;
    constructor(label, options) {
      const l = (label === undefined ? "utf-8" : String(label)).trim().toLowerCase();
      if (l !== "utf-8" && l !== "utf8" && l !== "unicode-1-1-utf-8") throw new RangeError("TextDecoder: only utf-8 is supported, not " + label);
      this.#fatal = !!(options && options.fatal);
      this.#ignoreBOM = !!(options && options.ignoreBOM);
    }
    get encoding() { return "utf-8"; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input) {
      if (input === undefined) return "";
      let buf, off, n;
      if (input instanceof ArrayBuffer) [buf, off, n] = [input, 0, input.byteLength];
      else if (ArrayBuffer.isView(input)) [buf, off, n] = [input.buffer, input.byteOffset, input.byteLength];
      else throw new TypeError("TextDecoder.decode: expected an ArrayBuffer or a typed array");
      const s = host.utf8Decode(buf, off, n, this.#fatal);
      if (s === null) {
        const e = new TypeError("The encoded data was not valid for encoding utf-8");
        e.code = "ERR_ENCODING_INVALID_ENCODED_DATA";
        throw e;
      }
      return !this.#ignoreBOM && s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
    }
  }
  define("TextEncoder", TextEncoder);
  define("TextDecoder", TextDecoder);

  // structuredClone: plain data, Dates, Maps, Sets, arrays, typed arrays.
  function clone(v, seen) {
    if (typeof v === "function" || typeof v === "symbol") {
      const e = new Error("structuredClone: " + typeof v + " could not be cloned");
      e.name = "DataCloneError";
      throw e;
    }
    if (typeof v !== "object" || v === null) return v;
    if (seen.has(v)) return seen.get(v);
    let out;
    if (v instanceof Date) out = new Date(v.getTime());
    else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
    else if (v instanceof ArrayBuffer) out = v.slice(0);
    else if (ArrayBuffer.isView(v)) out = new v.constructor(v);
    else if (v instanceof Map) {
      out = new Map(); seen.set(v, out);
      for (const [k, x] of v) out.set(clone(k, seen), clone(x, seen));
      return out;
    } else if (v instanceof Set) {
      out = new Set(); seen.set(v, out);
      for (const x of v) out.add(clone(x, seen));
      return out;
    } else if (Array.isArray(v)) {
      out = []; seen.set(v, out);
      for (let i = 0; i < v.length; i++) out[i] = clone(v[i], seen);
      return out;
    } else {
      out = {}; seen.set(v, out);
      for (const k of Object.keys(v)) out[k] = clone(v[k], seen);
      return out;
    }
    seen.set(v, out);
    return out;
  }
  define("structuredClone", (v) => clone(v, new Map()));

  // Podcode.plugin(p) is p: it is there for its declared type, which
  // rejects a key of server()'s hooks that is no hook ("tool.before").
  define("Podcode", Object.freeze({ plugin: (p) => p }));

  // fetch, over Go's HTTP client.
  class Headers {
    #m = new Map();
    constructor(init) {
      if (!init) return;
      const entries = init instanceof Headers ? init.entries() : Array.isArray(init) ? init : Object.entries(init);
      for (const [k, v] of entries) this.append(k, v);
    }
    append(k, v) {
      k = String(k).toLowerCase();
      const old = this.#m.get(k);
      this.#m.set(k, old === undefined ? String(v) : old + ", " + v);
    }
    set(k, v) { this.#m.set(String(k).toLowerCase(), String(v)); }
    get(k) { const v = this.#m.get(String(k).toLowerCase()); return v === undefined ? null : v; }
    has(k) { return this.#m.has(String(k).toLowerCase()); }
    delete(k) { this.#m.delete(String(k).toLowerCase()); }
    forEach(fn) { for (const [k, v] of this.#m) fn(v, k, this); }
    *entries() { yield* this.#m.entries(); }
    *keys() { yield* this.#m.keys(); }
    *values() { yield* this.#m.values(); }
    [Symbol.iterator]() { return this.entries(); }
  }
  class Response {
    #body; #used = false;
    constructor(body, init) {
      init = init || {};
      this.#body = body === undefined || body === null ? "" : String(body);
      this.status = init.status === undefined ? 200 : init.status;
      this.statusText = init.statusText || "";
      this.headers = new Headers(init.headers);
      this.url = init.url || "";
      this.ok = this.status >= 200 && this.status < 300;
      this.redirected = !!init.redirected;
    }
    get bodyUsed() { return this.#used; }
    #take() {
      if (this.#used) return Promise.reject(new TypeError("Body has already been consumed"));
      this.#used = true;
      return Promise.resolve(this.#body);
    }
    text() { return this.#take(); }
    json() { return this.#take().then((t) => JSON.parse(t)); }
    arrayBuffer() { return this.#take().then((t) => new TextEncoder().encode(t).buffer); }
  }
  define("Headers", Headers);
  define("Response", Response);
  define("fetch", (input, init) => {
    init = init || {};
    // (not instanceof URL: that would load node:url for every fetch)
    const url = typeof input === "string" ? input : input && typeof input.href === "string" ? input.href : String(input && input.url || input);
    const headers = [...new Headers(init.headers)];
    let body = init.body;
    if (body !== undefined && body !== null && typeof body !== "string") {
      if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) body = new TextDecoder().decode(body);
      else if (Object.prototype.toString.call(body) === "[object URLSearchParams]") body = body.toString();
      else throw new TypeError("fetch: body must be a string, an ArrayBuffer, a typed array or URLSearchParams");
    }
    const signal = init.signal;
    if (signal && signal.aborted) return Promise.reject(signal.reason);
    const [id, promise] = host.fetch(url, String(init.method || "GET").toUpperCase(), headers, body === undefined ? null : body);
    if (signal) {
      const onAbort = () => host.fetchAbort(id);
      signal.addEventListener("abort", onAbort, { once: true });
      promise.then(() => signal.removeEventListener("abort", onAbort), () => signal.removeEventListener("abort", onAbort));
    }
    return promise.then((r) => new Response(r.body, { status: r.status, statusText: r.statusText, headers: r.headers, url: r.url, redirected: r.redirected }),
      (e) => { throw signal && signal.aborted ? signal.reason : new TypeError("fetch failed: " + (e && e.message || e)); });
  });

  // Node's globals, each made from its module (node/) when first read, so
  // that a plugin that never reads one pays nothing for it. Writing one
  // replaces it, as in Node.
  function lazy(name, module, prop) {
    Object.defineProperty(g, name, {
      get() {
        const m = host.require(module);
        const v = prop === undefined ? m : m[prop];
        define(name, v);
        return v;
      },
      set(v) { define(name, v); },
      enumerable: false, configurable: true,
    });
  }
  lazy("process", "process");
  lazy("URL", "url", "URL");
  lazy("URLSearchParams", "url", "URLSearchParams");
  lazy("Buffer", "buffer", "Buffer");
  lazy("atob", "buffer", "atob");
  lazy("btoa", "buffer", "btoa");
  lazy("setImmediate", "timers", "setImmediate");
  lazy("clearImmediate", "timers", "clearImmediate");
  lazy("crypto", "crypto", "webcrypto");
  lazy("DOMException", "internal/domexception", "DOMException");
  lazy("performance", "perf_hooks", "performance");
  lazy("Bun", "bun");
  lazy("FormData", "internal/formdata", "FormData");

  // The memory budget (see memory.go): a builtin whose one allocation the
  // script sizes refuses, with a RangeError, any that would pass the budget
  // on its own; join (in Go) counts as it goes and gives up when the job is
  // interrupted. Strings count two bytes a character, array slots 16.
  const budget = host.memoryLimit;
  const method = (obj, name, fn) => Object.defineProperty(obj, name, { value: fn, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(host.join, "name", { value: "join" });
  Object.defineProperty(host.join, "length", { value: 1 });
  method(Array.prototype, "join", host.join);
  if (budget > 0) {
    const mib = (n) => Math.ceil(n / 1048576) + " MiB";
    const refuse = (what, bytes) => new RangeError(what + " would allocate " + mib(bytes) + ", more than this plugin's memory budget of " + mib(budget));
    const toLength = (v) => { v = Math.trunc(Number(v)); return v > 0 ? Math.min(v, Number.MAX_SAFE_INTEGER) : 0; };
    const string = (self, what) => {
      if (self === null || self === undefined) throw new TypeError(what + " called on null or undefined");
      return String(self);
    };

    const repeat = String.prototype.repeat;
    method(String.prototype, "repeat", { repeat(count) {
      const s = string(this, "String.prototype.repeat"), n = Math.trunc(Number(count)) || 0;
      if (n > 0 && s.length * n * 2 > budget) throw refuse("String.prototype.repeat", s.length * n * 2);
      return repeat.call(s, n);
    } }.repeat);
    for (const name of ["padStart", "padEnd"]) {
      const pad = String.prototype[name];
      method(String.prototype, name, { [name](maxLength) {
        const s = string(this, "String.prototype." + name), n = toLength(maxLength);
        if (n > s.length && n * 2 > budget) throw refuse("String.prototype." + name, n * 2);
        return pad.call(s, n, arguments[1]);
      } }[name]);
    }

    // Constructors: a function that checks what is asked for, then
    // constructs the original; it shares the original's prototype (so
    // instanceof holds) and inherits its statics (from, of, isArray,
    // Symbol.species, which then returns it: species lookups, map and
    // slice included, go through it too). It replaces the global and its
    // prototype's constructor. (A Proxy would do, but goja's instanceof
    // refuses a proxy as its right-hand side.)
    const guard = (C, check) => {
      const W = function (...args) {
        check(args);
        if (new.target === undefined) return C(...args); // Array(n); a typed array throws, as it should
        return Reflect.construct(C, args, new.target === W ? C : new.target);
      };
      Object.setPrototypeOf(W, C);
      Object.defineProperty(W, "prototype", { value: C.prototype, writable: false, enumerable: false, configurable: false });
      Object.defineProperty(W, "name", { value: C.name, configurable: true });
      Object.defineProperty(W, "length", { value: C.length, configurable: true });
      method(C.prototype, "constructor", W);
      define(C.name, W);
      return W;
    };
    // new Array(n) takes no memory until filled, but n becomes the length
    // that fill, map, from, join or JSON.stringify then allocate in one go.
    const maxSlots = Math.floor(budget / 16);
    guard(Array, (args) => {
      if (args.length === 1 && typeof args[0] === "number" && args[0] > maxSlots) throw refuse("new Array(" + args[0] + ")", args[0] * 16);
    });
    const from = Array.from;
    method(Array, "from", { from(items) {
      if (items !== null && items !== undefined && typeof items !== "function") {
        const n = toLength(Object(items).length);
        if (n > maxSlots) throw refuse("Array.from", n * 16);
      }
      return from.apply(this, arguments);
    } }.from);
    const fill = Array.prototype.fill;
    method(Array.prototype, "fill", { fill(value, start, end) {
      const o = Object(this), len = toLength(o.length);
      const rel = (v, dflt) => { if (v === undefined) return dflt; v = Math.trunc(Number(v)) || 0; return v < 0 ? Math.max(len + v, 0) : Math.min(v, len); };
      const k = rel(start, 0), fin = rel(end, len);
      if (fin - k > maxSlots) throw refuse("Array.prototype.fill", (fin - k) * 16);
      return fill.call(o, value, k, fin);
    } }.fill);
    const bytes = (n, size) => (typeof n === "number" ? toLength(n) : 0) * size;
    const NativeArrayBuffer = ArrayBuffer;
    guard(ArrayBuffer, (args) => {
      if (bytes(args[0], 1) > budget) throw refuse("new ArrayBuffer", bytes(args[0], 1));
    });
    for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
      "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
      const T = g[name];
      if (typeof T !== "function") continue;
      const size = T.BYTES_PER_ELEMENT;
      guard(T, (args) => {
        const a = args[0];
        let n = bytes(a, size);
        if (typeof a === "object" && a !== null && !(a instanceof NativeArrayBuffer)) n = toLength(a.length) * size;
        if (n > budget) throw refuse("new " + name, n);
      });
    }
  }

  return {
    // The host's way to make an AbortSignal it can abort later.
    newAbortController: () => new AbortController(),
  };
});
