// node:perf_hooks, and the global performance: now() in milliseconds
// since timeOrigin (the server process's start, as Node's is its own
// process's), on a monotonic clock; mark, measure and the entries they
// make, kept until cleared; timerify; toJSON. PerformanceObserver sees
// marks and measures only (the entry types a plugin makes); the
// histograms (monitorEventLoopDelay, createHistogram) are not provided,
// and eventLoopUtilization and nodeTiming report zeros.
"use strict";

const errors = require("internal/errors");
const { validateFunction, validateObject } = require("internal/validators");

const now = host.now;
const timeOrigin = host.timeOrigin;

// makeDOMException is the global DOMException where there is one.
function domError(message, name, code) {
  if (typeof DOMException === "function") return new DOMException(message, name);
  const e = new Error(message);
  e.name = name;
  e.code = code;
  return e;
}

const kFields = Symbol("kFields");

class PerformanceEntry {
  constructor(fields) {
    if (fields === undefined || fields[kFields] !== true) throw errors.codedTypeError("ERR_ILLEGAL_CONSTRUCTOR", "Illegal constructor");
    this[kFields] = fields;
  }
  get name() { return this[kFields].name; }
  get entryType() { return this[kFields].entryType; }
  get startTime() { return this[kFields].startTime; }
  get duration() { return this[kFields].duration; }
  toJSON() {
    return { name: this.name, entryType: this.entryType, startTime: this.startTime, duration: this.duration };
  }
}

class PerformanceMark extends PerformanceEntry {
  constructor(name, options) {
    if (arguments.length === 0) throw errors.missingArgs("name");
    if (options !== undefined && options !== null) validateObject(options, "options");
    const startTime = options && options.startTime !== undefined ? options.startTime : now();
    if (typeof startTime !== "number") throw errors.invalidArgType("options.startTime", "number", startTime);
    if (startTime < 0) throw errors.codedTypeError("ERR_PERFORMANCE_INVALID_TIMESTAMP", startTime + " is not a valid timestamp");
    const detail = options && options.detail !== undefined ? structuredCopy(options.detail) : null;
    super({ [kFields]: true, name: String(name), entryType: "mark", startTime, duration: 0, detail });
  }
  get detail() { return this[kFields].detail; }
  toJSON() { return Object.assign(super.toJSON(), { detail: this.detail }); }
}

class PerformanceMeasure extends PerformanceEntry {
  get detail() { return this[kFields].detail; }
  toJSON() { return Object.assign(super.toJSON(), { detail: this.detail }); }
}

const structuredCopy = (v) => (typeof structuredClone === "function" ? structuredClone(v) : v);

// The entries a plugin has made, in the order made.
let entries = [];
const observers = new Set();

function record(entry) {
  entries.push(entry);
  for (const o of observers) o._deliver(entry);
}

function markTime(name, what) {
  if (typeof name === "number") {
    if (name < 0) throw errors.codedTypeError("ERR_PERFORMANCE_INVALID_TIMESTAMP", name + " is not a valid timestamp");
    return name;
  }
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].entryType === "mark" && entries[i].name === name) return entries[i].startTime;
  }
  throw domError('The "' + name + '" performance mark has not been set', "SyntaxError", 12);
}

// byStartTime sorts entries as Node lists them: by start, then as made.
function byStartTime(list) {
  return list.map((e, i) => [e, i]).sort((x, y) => x[0].startTime - y[0].startTime || x[1] - y[1]).map((x) => x[0]);
}

class PerformanceObserverEntryList {
  constructor(list) { this._list = byStartTime(list); }
  getEntries() { return this._list.slice(); }
  getEntriesByName(name, type) { return this._list.filter((e) => e.name === String(name) && (type === undefined || e.entryType === type)); }
  getEntriesByType(type) { return this._list.filter((e) => e.entryType === String(type)); }
}

const observable = ["mark", "measure"];

class PerformanceObserver {
  constructor(callback) {
    validateFunction(callback, "callback");
    this._callback = callback;
    this._types = new Set();
    this._pending = [];
    this._scheduled = false;
  }
  observe(options) {
    validateObject(options, "options");
    const { entryTypes, type, buffered } = options;
    if (entryTypes === undefined && type === undefined) throw errors.missingArgs("options.entryTypes", "options.type");
    const types = entryTypes !== undefined ? entryTypes : [type];
    for (const t of types) if (observable.includes(t)) this._types.add(t);
    observers.add(this);
    if (buffered) for (const e of entries) this._deliver(e);
  }
  disconnect() {
    observers.delete(this);
    this._pending = [];
  }
  takeRecords() {
    const list = this._pending;
    this._pending = [];
    return list;
  }
  _deliver(entry) {
    if (!this._types.has(entry.entryType)) return;
    this._pending.push(entry);
    if (this._scheduled) return;
    this._scheduled = true;
    // delivered in a batch after the code that made them, as Node does
    setTimeout(() => {
      this._scheduled = false;
      const list = this.takeRecords();
      if (list.length) this._callback(new PerformanceObserverEntryList(list), this);
    }, 0);
  }
  static get supportedEntryTypes() { return observable.slice(); }
}

class Performance {
  constructor(key) {
    if (key !== kFields) throw errors.codedTypeError("ERR_ILLEGAL_CONSTRUCTOR", "Illegal constructor");
  }
  now() { return now(); }
  get timeOrigin() { return timeOrigin; }
  mark(name, options) {
    const m = arguments.length === 0 ? new PerformanceMark() : new PerformanceMark(name, options);
    record(m);
    return m;
  }
  measure(name, startOrOptions, endMark) {
    if (arguments.length === 0) throw errors.missingArgs("name");
    let start, end, detail = null;
    if (startOrOptions !== null && typeof startOrOptions === "object") {
      const o = startOrOptions;
      if (o.start !== undefined && o.end !== undefined && o.duration !== undefined) {
        throw errors.codedTypeError("ERR_PERFORMANCE_MEASURE_INVALID_OPTIONS", "Must not have options.start, options.end, and options.duration specified");
      }
      if (o.detail !== undefined) detail = structuredCopy(o.detail);
      start = o.start !== undefined ? markTime(o.start) : undefined;
      end = o.end !== undefined ? markTime(o.end) : undefined;
      if (o.duration !== undefined) {
        if (start !== undefined) end = start + o.duration;
        else if (end !== undefined) start = end - o.duration;
      }
      if (endMark !== undefined) end = markTime(endMark);
    } else {
      if (startOrOptions !== undefined) start = markTime(startOrOptions);
      if (endMark !== undefined) end = markTime(endMark);
    }
    if (start === undefined) start = 0;
    if (end === undefined) end = now();
    const m = new PerformanceMeasure({ [kFields]: true, name: String(name), entryType: "measure", startTime: start, duration: end - start, detail });
    record(m);
    return m;
  }
  clearMarks(name) { entries = entries.filter((e) => e.entryType !== "mark" || (name !== undefined && e.name !== String(name))); }
  clearMeasures(name) { entries = entries.filter((e) => e.entryType !== "measure" || (name !== undefined && e.name !== String(name))); }
  clearResourceTimings() {}
  getEntries() { return byStartTime(entries); }
  getEntriesByName(name, type) { return byStartTime(entries.filter((e) => e.name === String(name) && (type === undefined || e.entryType === type))); }
  getEntriesByType(type) { return byStartTime(entries.filter((e) => e.entryType === String(type))); }
  setResourceTimingBufferSize() {}
  markResourceTiming() { throw errors.unavailable("performance.markResourceTiming"); }
  eventLoopUtilization() { return { idle: 0, active: 0, utilization: 0 }; }
  get nodeTiming() {
    return { name: "node", entryType: "node", startTime: 0, duration: now(), nodeStart: 0, v8Start: 0, bootstrapComplete: 0,
      environment: 0, loopStart: 0, loopExit: -1, idleTime: 0 };
  }
  timerify(fn) {
    validateFunction(fn, "fn");
    const timed = function (...args) {
      return new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args);
    };
    Object.defineProperty(timed, "name", { value: "timerified " + fn.name, configurable: true });
    Object.defineProperty(timed, "length", { value: fn.length, configurable: true });
    return timed;
  }
  toJSON() {
    return { nodeTiming: this.nodeTiming, timeOrigin: this.timeOrigin, eventLoopUtilization: this.eventLoopUtilization() };
  }
  get [Symbol.toStringTag]() { return "Performance"; }
}

const performance = new Performance(kFields);

const histograms = (name) => () => {
  throw errors.unavailable("perf_hooks." + name, "Podcode does not sample the event loop for plugins");
};

module.exports = {
  Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver, PerformanceObserverEntryList,
  PerformanceResourceTiming: class PerformanceResourceTiming extends PerformanceEntry {},
  monitorEventLoopDelay: histograms("monitorEventLoopDelay"),
  createHistogram: histograms("createHistogram"),
  performance,
  constants: { NODE_PERFORMANCE_GC_MAJOR: 4, NODE_PERFORMANCE_GC_MINOR: 1, NODE_PERFORMANCE_GC_INCREMENTAL: 8, NODE_PERFORMANCE_GC_WEAKCB: 16,
    NODE_PERFORMANCE_GC_FLAGS_NO: 0, NODE_PERFORMANCE_GC_FLAGS_CONSTRUCT_RETAINED: 2, NODE_PERFORMANCE_GC_FLAGS_FORCED: 4,
    NODE_PERFORMANCE_GC_FLAGS_SYNCHRONOUS_PHANTOM_PROCESSING: 8, NODE_PERFORMANCE_GC_FLAGS_ALL_AVAILABLE_GARBAGE: 16,
    NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY: 32, NODE_PERFORMANCE_GC_FLAGS_SCHEDULE_IDLE: 64 },
};
