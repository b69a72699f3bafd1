// node:stream, and node:stream/promises as its promises property: Stream
// (the legacy base, with pipe), Readable, Writable, Duplex, Transform,
// PassThrough, pipeline, finished, addAbortSignal, Readable.from, async
// iteration, and the helpers isReadable, isErrored, isDisturbed,
// getDefaultHighWaterMark and setDefaultHighWaterMark, written from Node
// 20's documented behaviour: the same buffering and highWaterMark (16 KiB,
// 16 objects), backpressure, and order of events ('finish' before 'close',
// 'end' before 'close', one 'error' then 'close').
//
// How it differs from Node's: the callbacks Node defers with
// process.nextTick are microtasks here (as node:process's nextTick is), so
// a stream's events keep their order among themselves but may interleave
// with a plugin's own promise callbacks otherwise than in Node. Web streams
// (ReadableStream…, toWeb, fromWeb), compose, Duplex.from of anything but a
// stream or an iterable, and the experimental operators other than
// toArray, forEach, map, filter, reduce, some, every, find, take and drop
// (which take no concurrency) are not provided.
"use strict";

const EE = require("events");
const errors = require("internal/errors");
const { validateFunction, validateObject, validateAbortSignal, validateBoolean, validateInteger } = require("internal/validators");
const processModule = require("process");

// The prelude defines Symbol.asyncIterator where the engine lacks it.
const kAsyncIterator = Symbol.asyncIterator;
const kDestroy = Symbol("kDestroy");
const kConstruct = Symbol("kConstruct");
const kOnFinished = Symbol("kOnFinished");
const kPaused = Symbol("kPaused");
const kCallback = Symbol("kCallback");
const kIsDestroyed = Symbol.for("nodejs.stream.destroyed");
const kPromisify = Symbol.for("nodejs.util.promisify.custom");
const nop = () => {};

let BufferCtor, DecoderCtor;
const Buf = () => BufferCtor || (BufferCtor = require("buffer").Buffer);
const Decoder = () => DecoderCtor || (DecoderCtor = require("string_decoder").StringDecoder);
const nextTick = (fn, ...args) => processModule.nextTick(fn, ...args);

const isBuffer = (v) => v instanceof Uint8Array && Buf().isBuffer(v);
// A Uint8Array as a Buffer over the same memory, as Node does.
const toBuffer = (u) => Buf().from(u.buffer, u.byteOffset, u.byteLength);

// Node's errors for streams.
const E = {
  pushAfterEOF: () => errors.codedError("ERR_STREAM_PUSH_AFTER_EOF", "stream.push() after EOF"),
  unshiftAfterEnd: () => errors.codedError("ERR_STREAM_UNSHIFT_AFTER_END_EVENT", "stream.unshift() after end event"),
  notImplemented: (m) => errors.codedError("ERR_METHOD_NOT_IMPLEMENTED", "The " + m + " method is not implemented"),
  writeAfterEnd: () => errors.codedError("ERR_STREAM_WRITE_AFTER_END", "write after end"),
  destroyed: (m) => errors.codedError("ERR_STREAM_DESTROYED", "Cannot call " + m + " after a stream was destroyed"),
  nullValues: () => errors.codedTypeError("ERR_STREAM_NULL_VALUES", "May not write null values to stream"),
  multipleCallback: () => errors.codedError("ERR_MULTIPLE_CALLBACK", "Callback called multiple times"),
  alreadyFinished: (m) => errors.codedError("ERR_STREAM_ALREADY_FINISHED", "Cannot call " + m + " after a stream was finished"),
  prematureClose: () => errors.codedError("ERR_STREAM_PREMATURE_CLOSE", "Premature close"),
  unknownEncoding: (enc) => errors.codedTypeError("ERR_UNKNOWN_ENCODING", "Unknown encoding: " + enc),
  cannotPipe: () => errors.codedError("ERR_STREAM_CANNOT_PIPE", "Cannot pipe, not readable"),
  chunkType: (v) => errors.invalidArgType("chunk", "string or an instance of Buffer, TypedArray, or DataView", v),
};

function aggregateTwoErrors(inner, outer) {
  if (inner && outer && inner !== outer) {
    if (Array.isArray(outer.errors)) {
      outer.errors.push(inner);
      return outer;
    }
    const err = new AggregateError([outer, inner], outer.message);
    err.code = outer.code;
    return err;
  }
  return inner || outer;
}

// What kind of thing a value is, as pipeline and finished look at it.
function isReadableNodeStream(obj, strict) {
  return !!(obj && typeof obj.pipe === "function" && typeof obj.on === "function" &&
    (!strict || (typeof obj.pause === "function" && typeof obj.resume === "function")) &&
    (!obj._writableState || (obj._readableState && obj._readableState.readable !== false)) &&
    (!obj._writableState || obj._readableState));
}
function isWritableNodeStream(obj) {
  return !!(obj && typeof obj.write === "function" && typeof obj.on === "function" &&
    (!obj._readableState || (obj._writableState && obj._writableState.writable !== false)));
}
function isNodeStream(obj) {
  return !!(obj && (obj._readableState || obj._writableState ||
    (typeof obj.write === "function" && typeof obj.on === "function") ||
    (typeof obj.pipe === "function" && typeof obj.on === "function")));
}
function isIterable(obj, isAsync) {
  if (obj == null) return false;
  if (isAsync === true) return typeof obj[kAsyncIterator] === "function";
  if (isAsync === false) return typeof obj[Symbol.iterator] === "function";
  return typeof obj[kAsyncIterator] === "function" || typeof obj[Symbol.iterator] === "function";
}
function isDestroyed(stream) {
  if (!isNodeStream(stream)) return null;
  const state = stream._writableState || stream._readableState;
  return !!(stream.destroyed || stream[kIsDestroyed] || (state && state.destroyed));
}
function isWritableEnded(stream) {
  if (!isWritableNodeStream(stream)) return null;
  if (stream.writableEnded === true) return true;
  const w = stream._writableState;
  if (w && w.errored) return false;
  if (!w || typeof w.ended !== "boolean") return null;
  return w.ended;
}
function isWritableFinished(stream, strict) {
  if (!isWritableNodeStream(stream)) return null;
  if (stream.writableFinished === true) return true;
  const w = stream._writableState;
  if (w && w.errored) return false;
  if (!w || typeof w.finished !== "boolean") return null;
  return !!(w.finished || (strict === false && w.ended === true && w.length === 0));
}
function isReadableFinished(stream, strict) {
  if (!isReadableNodeStream(stream)) return null;
  const r = stream._readableState;
  if (r && r.errored) return false;
  if (!r || typeof r.endEmitted !== "boolean") return null;
  return !!(r.endEmitted || (strict === false && r.ended === true && r.length === 0));
}
function isReadable(stream) {
  if (stream && stream[Symbol.for("nodejs.stream.readable")] != null) return stream[Symbol.for("nodejs.stream.readable")];
  if (!stream || typeof stream.readable !== "boolean") return null;
  if (isDestroyed(stream)) return false;
  return isReadableNodeStream(stream) && stream.readable && !isReadableFinished(stream);
}
function isWritable(stream) {
  if (!stream || typeof stream.writable !== "boolean") return null;
  if (isDestroyed(stream)) return false;
  return isWritableNodeStream(stream) && stream.writable && !isWritableEnded(stream);
}
function isFinished(stream, opts) {
  if (!isNodeStream(stream)) return null;
  if (isDestroyed(stream)) return true;
  if ((!opts || opts.readable !== false) && isReadable(stream)) return false;
  if ((!opts || opts.writable !== false) && isWritable(stream)) return false;
  return true;
}
function isWritableErrored(stream) {
  if (!isNodeStream(stream)) return null;
  if (stream.writableErrored) return stream.writableErrored;
  const w = stream._writableState;
  return (w && w.errored) || null;
}
function isReadableErrored(stream) {
  if (!isNodeStream(stream)) return null;
  if (stream.readableErrored) return stream.readableErrored;
  const r = stream._readableState;
  return (r && r.errored) || null;
}
function isClosed(stream) {
  if (!isNodeStream(stream)) return null;
  const w = stream._writableState, r = stream._readableState;
  if ((w && typeof w.closed === "boolean") || (r && typeof r.closed === "boolean")) return !!((w && w.closed) || (r && r.closed));
  if (typeof stream.closed === "boolean" && isOutgoingMessage(stream)) return stream.closed;
  return null;
}
function isOutgoingMessage(stream) {
  return typeof stream._closed === "boolean" && typeof stream._defaultKeepAlive === "boolean" &&
    typeof stream._removedConnection === "boolean" && typeof stream._removedContLen === "boolean";
}
function isRequest(stream) {
  return !!(stream && typeof stream.setHeader === "function" && typeof stream.abort === "function");
}
function willEmitClose(stream) {
  if (!isNodeStream(stream)) return null;
  const state = stream._writableState || stream._readableState;
  return !!(state && state.autoDestroy && state.emitClose && state.closed === false);
}
function isErrored(stream) {
  if (!stream) return false;
  const r = stream._readableState, w = stream._writableState;
  const v = stream[Symbol.for("nodejs.stream.errored")] ?? stream.readableErrored ?? stream.writableErrored ??
    (r && r.errorEmitted) ?? (w && w.errorEmitted) ?? (r && r.errored) ?? (w && w.errored);
  return !!v;
}
function isDisturbed(stream) {
  return !!(stream && (stream[Symbol.for("nodejs.stream.disturbed")] ?? (stream.readableDidRead || stream.readableAborted)));
}

// Destruction, shared by every kind of stream.

function checkError(err, w, r) {
  if (err) {
    if (w && !w.errored) w.errored = err;
    if (r && !r.errored) r.errored = err;
  }
}

function destroy(err, cb) {
  const r = this._readableState, w = this._writableState;
  const s = w || r;
  if ((w && w.destroyed) || (r && r.destroyed)) {
    if (typeof cb === "function") cb();
    return this;
  }
  checkError(err, w, r);
  if (w) w.destroyed = true;
  if (r) r.destroyed = true;
  if (!s.constructed) {
    this.once(kDestroy, function (er) { destroyNow(this, aggregateTwoErrors(er, err), cb); });
  } else {
    destroyNow(this, err, cb);
  }
  return this;
}

function destroyNow(self, err, cb) {
  let called = false;
  function onDestroy(err) {
    if (called) return;
    called = true;
    const r = self._readableState, w = self._writableState;
    checkError(err, w, r);
    if (w) w.closed = true;
    if (r) r.closed = true;
    if (typeof cb === "function") cb(err);
    if (err) nextTick(emitErrorCloseNT, self, err);
    else nextTick(emitCloseNT, self);
  }
  try {
    self._destroy(err || null, onDestroy);
  } catch (e) {
    onDestroy(e);
  }
}

function emitErrorCloseNT(self, err) {
  emitErrorNT(self, err);
  emitCloseNT(self);
}

function emitCloseNT(self) {
  const r = self._readableState, w = self._writableState;
  if (w) w.closeEmitted = true;
  if (r) r.closeEmitted = true;
  if ((w && w.emitClose) || (r && r.emitClose)) self.emit("close");
}

function emitErrorNT(self, err) {
  const r = self._readableState, w = self._writableState;
  if ((w && w.errorEmitted) || (r && r.errorEmitted)) return;
  if (w) w.errorEmitted = true;
  if (r) r.errorEmitted = true;
  self.emit("error", err);
}

function undestroy() {
  const r = this._readableState, w = this._writableState;
  if (r) {
    r.constructed = true; r.closed = false; r.closeEmitted = false; r.destroyed = false; r.errored = null;
    r.errorEmitted = false; r.reading = false; r.ended = r.readable === false; r.endEmitted = r.readable === false;
  }
  if (w) {
    w.constructed = true; w.destroyed = false; w.closed = false; w.closeEmitted = false; w.errored = null;
    w.errorEmitted = false; w.finalCalled = false; w.prefinished = false; w.ended = w.writable === false;
    w.ending = w.writable === false; w.finished = w.writable === false;
  }
}

// errorOrDestroy fails a stream: destroys it if it destroys itself on
// errors (autoDestroy), else emits 'error' (once).
function errorOrDestroy(stream, err, sync) {
  const r = stream._readableState, w = stream._writableState;
  if ((w && w.destroyed) || (r && r.destroyed)) return;
  if ((r && r.autoDestroy) || (w && w.autoDestroy)) {
    stream.destroy(err);
  } else if (err) {
    if (w && !w.errored) w.errored = err;
    if (r && !r.errored) r.errored = err;
    if (sync) nextTick(emitErrorNT, stream, err);
    else emitErrorNT(stream, err);
  }
}

// construct runs a stream's _construct before it reads or writes.
function construct(stream, cb) {
  if (typeof stream._construct !== "function") return;
  const r = stream._readableState, w = stream._writableState;
  if (r) r.constructed = false;
  if (w) w.constructed = false;
  stream.once(kConstruct, cb);
  if (stream.listenerCount(kConstruct) > 1) return; // a Duplex: both halves wait on one call
  nextTick(constructNT, stream);
}

function constructNT(stream) {
  let called = false;
  function onConstruct(err) {
    if (called) {
      errorOrDestroy(stream, err ?? E.multipleCallback());
      return;
    }
    called = true;
    const r = stream._readableState, w = stream._writableState;
    const s = w || r;
    if (r) r.constructed = true;
    if (w) w.constructed = true;
    if (s.destroyed) stream.emit(kDestroy, err);
    else if (err) errorOrDestroy(stream, err, true);
    else nextTick(() => stream.emit(kConstruct));
  }
  try {
    stream._construct((err) => { nextTick(onConstruct, err); });
  } catch (err) {
    nextTick(onConstruct, err);
  }
}

// destroyer ends a stream a pipeline gives up on, whatever kind it is.
function destroyer(stream, err) {
  if (!stream || isDestroyed(stream)) return;
  if (!err && !isFinished(stream)) err = new errors.AbortError();
  if (isRequest(stream)) stream.abort();
  else if (isRequest(stream.req)) stream.req.abort();
  else if (typeof stream.destroy === "function") stream.destroy(err);
  else if (typeof stream.close === "function") stream.close();
  else if (err) nextTick(() => stream.emit("error", err));
  else nextTick(() => stream.emit("close"));
  if (!stream.destroyed) stream[kIsDestroyed] = true;
}

// The high-water marks.

let defaultHWM = 16 * 1024;
let defaultObjectHWM = 16;

function getDefaultHighWaterMark(objectMode) {
  return objectMode ? defaultObjectHWM : defaultHWM;
}

function setDefaultHighWaterMark(objectMode, value) {
  validateInteger(value, "value", 0);
  if (objectMode) defaultObjectHWM = value;
  else defaultHWM = value;
}

function getHighWaterMark(options, duplexKey, isDuplex, objectMode) {
  let hwm = null;
  if (options) hwm = options.highWaterMark != null ? options.highWaterMark : isDuplex ? options[duplexKey] : null;
  if (hwm != null) {
    if (!Number.isInteger(hwm) || hwm < 0) throw errors.invalidArgValue(isDuplex ? "options." + duplexKey : "options.highWaterMark", hwm);
    return Math.floor(hwm);
  }
  return getDefaultHighWaterMark(objectMode);
}

// ChunkList is a readable's buffer: a queue whose shift does not move the
// rest of it.
class ChunkList {
  constructor() { this.items = []; this.start = 0; }
  get length() { return this.items.length - this.start; }
  push(v) { this.items.push(v); }
  unshift(v) {
    if (this.start > 0) this.items[--this.start] = v;
    else this.items.unshift(v);
  }
  first() { return this.items[this.start]; }
  shift() {
    const v = this.items[this.start];
    this.items[this.start++] = undefined;
    if (this.start === this.items.length) this.clear();
    else if (this.start > 1024 && this.start * 2 > this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
    return v;
  }
  clear() { this.items = []; this.start = 0; }
  toArray() { return this.items.slice(this.start); }
  [Symbol.iterator]() { return this.toArray()[Symbol.iterator](); }
  join(sep) { return this.toArray().join(sep); }
  concat(n) { return Buf().concat(this.toArray(), n); }
  // consume takes n units (bytes, or characters of strings) off the front.
  consume(n, hasStrings) {
    const first = this.first();
    if (n < first.length) {
      this.items[this.start] = cut(first, n);
      return head(first, n);
    }
    if (n === first.length) return this.shift();
    if (hasStrings) {
      let ret = "";
      while (n > 0) {
        const s = this.first();
        if (n >= s.length) { ret += s; n -= s.length; this.shift(); } else { ret += s.slice(0, n); this.items[this.start] = s.slice(n); n = 0; }
      }
      return ret;
    }
    const ret = Buf().allocUnsafe(n);
    let off = 0;
    while (off < n) {
      const b = this.first();
      const need = n - off;
      if (b.length <= need) { ret.set(b, off); off += b.length; this.shift(); } else { ret.set(b.subarray(0, need), off); this.items[this.start] = b.subarray(need); off = n; }
    }
    return ret;
  }
}
const head = (c, n) => typeof c === "string" ? c.slice(0, n) : c.subarray(0, n);
const cut = (c, n) => typeof c === "string" ? c.slice(n) : c.subarray(n);

// Stream is the legacy base: an EventEmitter with a pipe that writes what
// it emits as 'data' to its destination.
function Stream(opts) {
  EE.call(this, opts);
}
Object.setPrototypeOf(Stream.prototype, EE.prototype);
Object.setPrototypeOf(Stream, EE);

Stream.prototype.pipe = function (dest, options) {
  const source = this;
  function ondata(chunk) {
    if (dest.writable && dest.write(chunk) === false && source.pause) source.pause();
  }
  source.on("data", ondata);
  function ondrain() {
    if (source.readable && source.resume) source.resume();
  }
  dest.on("drain", ondrain);
  if (!dest._isStdio && (!options || options.end !== false)) {
    source.on("end", onend);
    source.on("close", onclose);
  }
  let didOnEnd = false;
  function onend() {
    if (didOnEnd) return;
    didOnEnd = true;
    dest.end();
  }
  function onclose() {
    if (didOnEnd) return;
    didOnEnd = true;
    if (typeof dest.destroy === "function") dest.destroy();
  }
  function onerror(er) {
    cleanup();
    if (EE.listenerCount(this, "error") === 0) this.emit("error", er);
  }
  prependListener(source, "error", onerror);
  prependListener(dest, "error", onerror);
  function cleanup() {
    source.removeListener("data", ondata);
    dest.removeListener("drain", ondrain);
    source.removeListener("end", onend);
    source.removeListener("close", onclose);
    source.removeListener("error", onerror);
    dest.removeListener("error", onerror);
    source.removeListener("end", cleanup);
    source.removeListener("close", cleanup);
    dest.removeListener("close", cleanup);
  }
  source.on("end", cleanup);
  source.on("close", cleanup);
  dest.on("close", cleanup);
  dest.emit("pipe", source);
  return dest;
};

Stream.prototype.eventNames = function eventNames() {
  return EE.prototype.eventNames.call(this).filter((k) => k !== kConstruct && k !== kDestroy);
};

function prependListener(emitter, event, fn) {
  if (typeof emitter.prependListener === "function") return emitter.prependListener(event, fn);
  if (!emitter._events || !emitter._events[event]) emitter.on(event, fn);
  else if (Array.isArray(emitter._events[event])) emitter._events[event].unshift(fn);
  else emitter._events[event] = [fn, emitter._events[event]];
  return emitter;
}

// Readable.

function ReadableState(options, stream, isDuplex) {
  if (typeof isDuplex !== "boolean") isDuplex = stream instanceof Duplex;
  this.objectMode = !!(options && options.objectMode);
  if (isDuplex) this.objectMode = this.objectMode || !!(options && options.readableObjectMode);
  this.highWaterMark = getHighWaterMark(options, "readableHighWaterMark", isDuplex, this.objectMode);
  this.buffer = new ChunkList();
  this.length = 0;
  this.pipes = [];
  this.flowing = null;
  this.ended = false;
  this.endEmitted = false;
  this.reading = false;
  this.constructed = true;
  // sync: inside _read, whose pushes must not emit at once.
  this.sync = true;
  this.needReadable = false;
  this.emittedReadable = false;
  this.readableListening = false;
  this.resumeScheduled = false;
  this[kPaused] = null;
  this.errorEmitted = false;
  this.emitClose = !options || options.emitClose !== false;
  this.autoDestroy = !options || options.autoDestroy !== false;
  this.destroyed = false;
  this.errored = null;
  this.closed = false;
  this.closeEmitted = false;
  this.defaultEncoding = (options && options.defaultEncoding) || "utf8";
  this.awaitDrainWriters = null;
  this.multiAwaitDrain = false;
  this.readingMore = false;
  this.dataEmitted = false;
  this.decoder = null;
  this.encoding = null;
  if (options && options.encoding) {
    this.decoder = new (Decoder())(options.encoding);
    this.encoding = options.encoding;
  }
}
Object.defineProperty(ReadableState.prototype, "pipesCount", { get() { return this.pipes.length; } });
Object.defineProperty(ReadableState.prototype, "paused", {
  get() { return this[kPaused] !== false; },
  set(v) { this[kPaused] = !!v; },
});

function Readable(options) {
  if (!(this instanceof Readable)) return new Readable(options);
  const isDuplex = this instanceof Duplex;
  this._readableState = new ReadableState(options, this, isDuplex);
  if (options) {
    if (typeof options.read === "function") this._read = options.read;
    if (typeof options.destroy === "function") this._destroy = options.destroy;
    if (typeof options.construct === "function") this._construct = options.construct;
    if (options.signal && !isDuplex) addAbortSignal(options.signal, this);
  }
  Stream.call(this, options);
  construct(this, () => {
    if (this._readableState.needReadable) maybeReadMore(this, this._readableState);
  });
}
Object.setPrototypeOf(Readable.prototype, Stream.prototype);
Object.setPrototypeOf(Readable, Stream);
Readable.ReadableState = ReadableState;

Readable.prototype.destroy = destroy;
Readable.prototype._undestroy = undestroy;
Readable.prototype._destroy = function (err, cb) { cb(err); };
Readable.prototype[EE.captureRejectionSymbol] = function (err) { this.destroy(err); };

Readable.prototype.push = function (chunk, encoding) {
  return addChunkTo(this, chunk, encoding, false);
};
Readable.prototype.unshift = function (chunk, encoding) {
  return addChunkTo(this, chunk, encoding, true);
};

function addChunkTo(stream, chunk, encoding, front) {
  const state = stream._readableState;
  let err;
  if (!state.objectMode) {
    if (typeof chunk === "string") {
      encoding = encoding || state.defaultEncoding;
      if (state.encoding !== encoding) {
        if (front && state.encoding) chunk = Buf().from(chunk, encoding).toString(state.encoding);
        else {
          chunk = Buf().from(chunk, encoding);
          encoding = "";
        }
      }
    } else if (ArrayBuffer.isView(chunk)) {
      if (!isBuffer(chunk)) chunk = toBuffer(chunk);
      encoding = "";
    } else if (chunk != null) {
      err = E.chunkType(chunk);
    }
  }
  if (err) {
    errorOrDestroy(stream, err);
  } else if (chunk === null) {
    state.reading = false;
    onEofChunk(stream, state);
  } else if (state.objectMode || (chunk && chunk.length > 0)) {
    if (front) {
      if (state.endEmitted) errorOrDestroy(stream, E.unshiftAfterEnd());
      else if (state.destroyed || state.errored) return false;
      else addChunk(stream, state, chunk, true);
    } else if (state.ended) {
      errorOrDestroy(stream, E.pushAfterEOF());
    } else if (state.destroyed || state.errored) {
      return false;
    } else {
      state.reading = false;
      if (state.decoder && !encoding) {
        chunk = state.decoder.write(chunk);
        if (state.objectMode || chunk.length !== 0) addChunk(stream, state, chunk, false);
        else maybeReadMore(stream, state);
      } else {
        addChunk(stream, state, chunk, false);
      }
    }
  } else if (!front) {
    state.reading = false;
    maybeReadMore(stream, state);
  }
  return !state.ended && (state.length < state.highWaterMark || state.length === 0);
}

function addChunk(stream, state, chunk, front) {
  if (state.flowing && state.length === 0 && !state.sync && stream.listenerCount("data") > 0) {
    // flowing and nothing buffered: hand the chunk on at once
    if (state.multiAwaitDrain) state.awaitDrainWriters.clear();
    else state.awaitDrainWriters = null;
    state.dataEmitted = true;
    stream.emit("data", chunk);
  } else {
    state.length += state.objectMode ? 1 : chunk.length;
    if (front) state.buffer.unshift(chunk);
    else state.buffer.push(chunk);
    if (state.needReadable) emitReadable(stream);
  }
  maybeReadMore(stream, state);
}

Readable.prototype.isPaused = function () {
  const state = this._readableState;
  return state[kPaused] === true || state.flowing === false;
};

Readable.prototype.setEncoding = function (enc) {
  const decoder = new (Decoder())(enc);
  const state = this._readableState;
  state.decoder = decoder;
  state.encoding = decoder.encoding;
  let content = "";
  for (const data of state.buffer) content += decoder.write(data);
  state.buffer.clear();
  if (content !== "") state.buffer.push(content);
  state.length = content.length;
  return this;
};

const MAX_HWM = 0x40000000;
function computeNewHighWaterMark(n) {
  if (n > MAX_HWM) throw errors.outOfRange("size", "<= 1GiB", n);
  // the next power of two
  n--;
  n |= n >>> 1; n |= n >>> 2; n |= n >>> 4; n |= n >>> 8; n |= n >>> 16;
  return n + 1;
}

// howMuchToRead is how much read(n) returns of what is buffered.
function howMuchToRead(n, state) {
  if (n <= 0 || (state.length === 0 && state.ended)) return 0;
  if (state.objectMode) return 1;
  if (Number.isNaN(n)) {
    if (state.flowing && state.length) return state.buffer.first().length;
    return state.length;
  }
  if (n <= state.length) return n;
  return state.ended ? state.length : 0;
}

Readable.prototype.read = function (n) {
  if (n === undefined) n = NaN;
  else if (!Number.isInteger(n)) n = Number.parseInt(n, 10);
  const state = this._readableState;
  const nOrig = n;
  if (n > state.highWaterMark) state.highWaterMark = computeNewHighWaterMark(n);
  if (n !== 0) state.emittedReadable = false;

  // read(0) only kicks the stream: 'readable' or 'end' if it is time
  if (n === 0 && state.needReadable &&
    ((state.highWaterMark !== 0 ? state.length >= state.highWaterMark : state.length > 0) || state.ended)) {
    if (state.length === 0 && state.ended) endReadable(this);
    else emitReadable(this);
    return null;
  }

  n = howMuchToRead(n, state);
  if (n === 0 && state.ended) {
    if (state.length === 0) endReadable(this);
    return null;
  }

  // Ask _read for more when below the high-water mark after this read.
  let doRead = state.needReadable;
  if (state.length === 0 || state.length - n < state.highWaterMark) doRead = true;
  if (state.ended || state.reading || state.destroyed || state.errored || !state.constructed) {
    doRead = false;
  } else if (doRead) {
    state.reading = true;
    state.sync = true;
    if (state.length === 0) state.needReadable = true;
    try {
      this._read(state.highWaterMark);
    } catch (err) {
      errorOrDestroy(this, err);
    }
    state.sync = false;
    // a synchronous push may have changed what there is to return
    if (!state.reading) n = howMuchToRead(nOrig, state);
  }

  let ret = n > 0 ? fromList(n, state) : null;
  if (ret === null) {
    state.needReadable = state.length <= state.highWaterMark;
    n = 0;
  } else {
    state.length -= n;
    if (state.multiAwaitDrain) state.awaitDrainWriters.clear();
    else state.awaitDrainWriters = null;
  }
  if (state.length === 0) {
    if (!state.ended) state.needReadable = true;
    if (nOrig !== n && state.ended) endReadable(this);
  }
  if (ret !== null && !state.errorEmitted && !state.closeEmitted) {
    state.dataEmitted = true;
    this.emit("data", ret);
  }
  return ret;
};

function fromList(n, state) {
  if (state.length === 0) return null;
  let ret;
  if (state.objectMode) ret = state.buffer.shift();
  else if (!n || n >= state.length) {
    if (state.decoder) ret = state.buffer.join("");
    else if (state.buffer.length === 1) ret = state.buffer.first();
    else ret = state.buffer.concat(state.length);
    state.buffer.clear();
  } else {
    ret = state.buffer.consume(n, state.decoder);
  }
  return ret;
}

function onEofChunk(stream, state) {
  if (state.ended) return;
  if (state.decoder) {
    const chunk = state.decoder.end();
    if (chunk && chunk.length) {
      state.buffer.push(chunk);
      state.length += state.objectMode ? 1 : chunk.length;
    }
  }
  state.ended = true;
  if (state.sync) {
    emitReadable(stream);
  } else {
    state.needReadable = false;
    state.emittedReadable = true;
    emitReadableNT(stream);
  }
}

function emitReadable(stream) {
  const state = stream._readableState;
  state.needReadable = false;
  if (!state.emittedReadable) {
    state.emittedReadable = true;
    nextTick(emitReadableNT, stream);
  }
}

function emitReadableNT(stream) {
  const state = stream._readableState;
  if (!state.destroyed && !state.errored && (state.length || state.ended)) {
    stream.emit("readable");
    state.emittedReadable = false;
  }
  state.needReadable = !state.flowing && !state.ended && state.length <= state.highWaterMark;
  flow(stream);
}

// maybeReadMore fills the buffer up to the high-water mark ahead of reads.
function maybeReadMore(stream, state) {
  if (!state.readingMore && state.constructed) {
    state.readingMore = true;
    nextTick(maybeReadMoreNT, stream, state);
  }
}

function maybeReadMoreNT(stream, state) {
  while (!state.reading && !state.ended &&
    (state.length < state.highWaterMark || (state.flowing && state.length === 0))) {
    const len = state.length;
    stream.read(0);
    if (len === state.length) break; // nothing came
  }
  state.readingMore = false;
}

Readable.prototype._read = function () {
  throw E.notImplemented("_read()");
};

Readable.prototype.pipe = function (dest, pipeOpts) {
  const src = this;
  const state = this._readableState;
  if (state.pipes.length === 1 && !state.multiAwaitDrain) {
    state.multiAwaitDrain = true;
    state.awaitDrainWriters = new Set(state.awaitDrainWriters ? [state.awaitDrainWriters] : []);
  }
  state.pipes.push(dest);
  const doEnd = (!pipeOpts || pipeOpts.end !== false) && dest !== processModule.stdout && dest !== processModule.stderr;
  const endFn = doEnd ? onend : unpipe;
  if (state.endEmitted) nextTick(endFn);
  else src.once("end", endFn);
  dest.on("unpipe", onunpipe);
  function onunpipe(readable, info) {
    if (readable === src && info && info.hasUnpiped === false) {
      info.hasUnpiped = true;
      cleanup();
    }
  }
  function onend() {
    dest.end();
  }
  let ondrain;
  let cleanedUp = false;
  function cleanup() {
    dest.removeListener("close", onclose);
    dest.removeListener("finish", onfinish);
    if (ondrain) dest.removeListener("drain", ondrain);
    dest.removeListener("error", onerror);
    dest.removeListener("unpipe", onunpipe);
    src.removeListener("end", onend);
    src.removeListener("end", unpipe);
    src.removeListener("data", ondata);
    cleanedUp = true;
    // a drain this pipe waited for will not come: do not leave src paused on it
    if (ondrain && state.awaitDrainWriters && (!dest._writableState || dest._writableState.needDrain)) ondrain();
  }
  function pause() {
    if (!cleanedUp) {
      if (state.pipes.length === 1 && state.pipes[0] === dest) {
        state.awaitDrainWriters = dest;
        state.multiAwaitDrain = false;
      } else if (state.pipes.length > 1 && state.pipes.includes(dest)) {
        state.awaitDrainWriters.add(dest);
      }
      src.pause();
    }
    if (!ondrain) {
      ondrain = pipeOnDrain(src, dest);
      dest.on("drain", ondrain);
    }
  }
  src.on("data", ondata);
  function ondata(chunk) {
    if (dest.write(chunk) === false) pause();
  }
  function onerror(er) {
    unpipe();
    dest.removeListener("error", onerror);
    if (dest.listenerCount("error") === 0) {
      const s = dest._writableState || dest._readableState;
      if (s && !s.errorEmitted) errorOrDestroy(dest, er);
      else dest.emit("error", er);
    }
  }
  prependListener(dest, "error", onerror);
  function onclose() {
    dest.removeListener("finish", onfinish);
    unpipe();
  }
  dest.once("close", onclose);
  function onfinish() {
    dest.removeListener("close", onclose);
    unpipe();
  }
  dest.once("finish", onfinish);
  function unpipe() {
    src.unpipe(dest);
  }
  dest.emit("pipe", src);
  if (dest.writableNeedDrain === true) pause();
  else if (!state.flowing) src.resume();
  return dest;
};

function pipeOnDrain(src, dest) {
  return function pipeOnDrainFunctionResult() {
    const state = src._readableState;
    if (state.awaitDrainWriters === dest) state.awaitDrainWriters = null;
    else if (state.multiAwaitDrain) state.awaitDrainWriters.delete(dest);
    if ((!state.awaitDrainWriters || state.awaitDrainWriters.size === 0) && src.listenerCount("data")) src.resume();
  };
}

Readable.prototype.unpipe = function (dest) {
  const state = this._readableState;
  if (state.pipes.length === 0) return this;
  if (!dest) {
    const dests = state.pipes;
    state.pipes = [];
    this.pause();
    for (const d of dests) d.emit("unpipe", this, { hasUnpiped: false });
    return this;
  }
  const index = state.pipes.indexOf(dest);
  if (index === -1) return this;
  state.pipes.splice(index, 1);
  if (state.pipes.length === 0) this.pause();
  dest.emit("unpipe", this, { hasUnpiped: false });
  return this;
};

Readable.prototype.on = function (ev, fn) {
  const res = Stream.prototype.on.call(this, ev, fn);
  const state = this._readableState;
  if (ev === "data") {
    state.readableListening = this.listenerCount("readable") > 0;
    if (state.flowing !== false) this.resume();
  } else if (ev === "readable") {
    if (!state.endEmitted && !state.readableListening) {
      state.readableListening = state.needReadable = true;
      state.flowing = false;
      state.emittedReadable = false;
      if (state.length) emitReadable(this);
      else if (!state.reading) nextTick((self) => self.read(0), this);
    }
  }
  return res;
};
Readable.prototype.addListener = Readable.prototype.on;

Readable.prototype.removeListener = function (ev, fn) {
  const res = Stream.prototype.removeListener.call(this, ev, fn);
  if (ev === "readable") nextTick(updateReadableListening, this);
  return res;
};
Readable.prototype.off = Readable.prototype.removeListener;

Readable.prototype.removeAllListeners = function (ev) {
  const res = Stream.prototype.removeAllListeners.apply(this, arguments);
  if (ev === "readable" || ev === undefined) nextTick(updateReadableListening, this);
  return res;
};

function updateReadableListening(self) {
  const state = self._readableState;
  state.readableListening = self.listenerCount("readable") > 0;
  if (state.resumeScheduled && state[kPaused] === false) state.flowing = true;
  else if (self.listenerCount("data") > 0) self.resume();
  else if (!state.readableListening) state.flowing = null;
}

Readable.prototype.resume = function () {
  const state = this._readableState;
  if (!state.flowing) {
    // a 'readable' listener keeps the stream out of flowing mode
    state.flowing = !state.readableListening;
    if (!state.resumeScheduled) {
      state.resumeScheduled = true;
      nextTick(resumeNT, this, state);
    }
  }
  state[kPaused] = false;
  return this;
};

function resumeNT(stream, state) {
  if (!state.reading) stream.read(0);
  state.resumeScheduled = false;
  stream.emit("resume");
  flow(stream);
  if (state.flowing && !state.reading) stream.read(0);
}

Readable.prototype.pause = function () {
  const state = this._readableState;
  if (state.flowing !== false) {
    state.flowing = false;
    this.emit("pause");
  }
  state[kPaused] = true;
  return this;
};

function flow(stream) {
  const state = stream._readableState;
  while (state.flowing && stream.read() !== null);
}

// wrap makes a Readable of an old-style stream (one that only emits
// 'data' and 'end').
Readable.prototype.wrap = function (stream) {
  let paused = false;
  stream.on("data", (chunk) => {
    if (!this.push(chunk) && stream.pause) {
      paused = true;
      stream.pause();
    }
  });
  stream.on("end", () => { this.push(null); });
  stream.on("error", (err) => { errorOrDestroy(this, err); });
  stream.on("close", () => { this.destroy(); });
  stream.on("destroy", () => { this.destroy(); });
  this._read = () => {
    if (paused && stream.resume) {
      paused = false;
      stream.resume();
    }
  };
  for (const key of Object.keys(stream)) {
    if (this[key] === undefined && typeof stream[key] === "function") this[key] = stream[key].bind(stream);
  }
  return this;
};

Readable.prototype[kAsyncIterator] = function () {
  return streamToAsyncIterator(this);
};
Readable.prototype.iterator = function (options) {
  if (options !== undefined) validateObject(options, "options");
  return streamToAsyncIterator(this, options);
};

function streamToAsyncIterator(stream, options) {
  if (typeof stream.read !== "function") stream = Readable.wrap(stream, { objectMode: true });
  const iter = createAsyncIterator(stream, options);
  iter.stream = stream;
  return iter;
}

// createAsyncIterator reads a stream as an async generator would (engines
// without async generators included): each next() reads one chunk, or
// waits for 'readable' or the stream's end; the stream is destroyed when
// the loop ends early (unless destroyOnReturn is false) or fails.
function createAsyncIterator(stream, options) {
  let callback = nop;
  function next(resolve) {
    if (this === stream) {
      callback();
      callback = nop;
    } else {
      callback = resolve;
    }
  }
  stream.on("readable", next);
  let error; // undefined: under way; null: ended well; else why it failed
  const cleanup = eos(stream, { writable: false }, (err) => {
    error = err ? aggregateTwoErrors(error, err) : null;
    callback();
    callback = nop;
  });
  let done = false;
  function finish() {
    done = true;
    if ((error || !options || options.destroyOnReturn !== false) && (error === undefined || stream._readableState.autoDestroy)) {
      destroyer(stream, null);
    } else {
      stream.off("readable", next);
      cleanup();
    }
  }
  function step() {
    for (;;) {
      const chunk = stream.destroyed ? null : stream.read();
      if (chunk !== null) return Promise.resolve({ value: chunk, done: false });
      if (error) return Promise.reject(error);
      if (error === null) return Promise.resolve({ value: undefined, done: true });
      return new Promise(next).then(step);
    }
  }
  // Calls wait for the ones before them, as an async generator's do.
  let queue = Promise.resolve();
  const enqueue = (fn) => {
    const p = queue.then(fn);
    queue = p.then(nop, nop);
    return p;
  };
  return {
    next() {
      return enqueue(() => {
        if (done) return { value: undefined, done: true };
        return step().then((res) => {
          if (res.done) finish();
          return res;
        }, (err) => {
          error = aggregateTwoErrors(error, err);
          finish();
          throw error;
        });
      });
    },
    return(value) {
      return enqueue(() => {
        if (!done) finish();
        return { value, done: true };
      });
    },
    throw(err) {
      return enqueue(() => {
        if (done) throw err;
        error = aggregateTwoErrors(error, err);
        finish();
        throw error;
      });
    },
    [kAsyncIterator]() { return this; },
  };
}

function defineGetters(proto, props) {
  for (const [name, get] of Object.entries(props)) {
    const d = typeof get === "function" ? { get, enumerable: false, configurable: true } : Object.assign({ enumerable: false, configurable: true }, get);
    Object.defineProperty(proto, name, d);
  }
}

defineGetters(Readable.prototype, {
  readable: {
    get() {
      const r = this._readableState;
      return !!r && r.readable !== false && !r.destroyed && !r.errorEmitted && !r.endEmitted;
    },
    set(v) { if (this._readableState) this._readableState.readable = !!v; },
  },
  readableDidRead() { return this._readableState.dataEmitted; },
  readableAborted() {
    const r = this._readableState;
    return !!(r.readable !== false && (r.destroyed || r.errored) && !r.endEmitted);
  },
  readableHighWaterMark() { return this._readableState.highWaterMark; },
  readableBuffer() { return this._readableState && this._readableState.buffer; },
  readableFlowing: {
    get() { return this._readableState.flowing; },
    set(v) { if (this._readableState) this._readableState.flowing = v; },
  },
  readableLength() { return this._readableState.length; },
  readableObjectMode() { return this._readableState ? this._readableState.objectMode : false; },
  readableEncoding() { return this._readableState ? this._readableState.encoding : null; },
  errored() { return this._readableState ? this._readableState.errored : null; },
  closed() { return this._readableState ? this._readableState.closed : false; },
  destroyed: {
    get() { return this._readableState ? this._readableState.destroyed : false; },
    set(v) { if (this._readableState) this._readableState.destroyed = v; },
  },
  readableEnded() { return this._readableState ? this._readableState.endEmitted : false; },
});

function endReadable(stream) {
  const state = stream._readableState;
  if (!state.endEmitted) {
    state.ended = true;
    nextTick(endReadableNT, state, stream);
  }
}

function endReadableNT(state, stream) {
  if (!state.errored && !state.closeEmitted && !state.endEmitted && state.length === 0) {
    state.endEmitted = true;
    stream.emit("end");
    if (stream.writable && stream.allowHalfOpen === false) {
      nextTick(endWritableNT, stream);
    } else if (state.autoDestroy) {
      // a duplex is destroyed only once its writable side is done too
      const w = stream._writableState;
      if (!w || (w.autoDestroy && (w.finished || w.writable === false))) stream.destroy();
    }
  }
}

function endWritableNT(stream) {
  if (stream.writable && !stream.writableEnded && !stream.destroyed) stream.end();
}

Readable.from = function (iterable, opts) {
  return from(Readable, iterable, opts);
};
Readable.wrap = function (src, options) {
  return new Readable(Object.assign({ objectMode: src.readableObjectMode ?? src.objectMode ?? true }, options, {
    destroy(err, cb) {
      destroyer(src, err);
      cb(err);
    },
  })).wrap(src);
};
Readable.isDisturbed = isDisturbed;

// from makes a readable of an iterable, an async iterable, a string or a
// Buffer, in object mode unless opts say otherwise.
function from(Ctor, iterable, opts) {
  if (typeof iterable === "string" || isBuffer(iterable)) {
    return new Ctor(Object.assign({ objectMode: true }, opts, {
      read() {
        this.push(iterable);
        this.push(null);
      },
    }));
  }
  let iterator, isAsync;
  if (iterable && typeof iterable[kAsyncIterator] === "function") {
    isAsync = true;
    iterator = iterable[kAsyncIterator]();
  } else if (iterable && typeof iterable[Symbol.iterator] === "function") {
    isAsync = false;
    iterator = iterable[Symbol.iterator]();
  } else {
    throw errors.invalidArgType("iterable", "an instance of Iterable", iterable);
  }
  const readable = new Ctor(Object.assign({ objectMode: true, highWaterMark: 1 }, opts));
  let reading = false;
  readable._read = function () {
    if (!reading) {
      reading = true;
      next();
    }
  };
  readable._destroy = function (error, cb) {
    close(error).then(() => nextTick(cb, error), (e) => nextTick(cb, e || error));
  };
  async function close(error) {
    const hadError = error !== undefined && error !== null;
    if (hadError && typeof iterator.throw === "function") {
      const { value, done } = await iterator.throw(error);
      await value;
      if (done) return;
    }
    if (typeof iterator.return === "function") {
      const { value } = await iterator.return();
      await value;
    }
  }
  async function next() {
    for (;;) {
      try {
        const { value, done } = isAsync ? await iterator.next() : iterator.next();
        if (done) {
          readable.push(null);
        } else {
          const res = value && typeof value.then === "function" ? await value : value;
          if (res === null) {
            reading = false;
            throw E.nullValues();
          } else if (readable.push(res)) {
            continue;
          } else {
            reading = false;
          }
        }
      } catch (err) {
        readable.destroy(err);
      }
      break;
    }
  }
  return readable;
}

// The experimental operators, the common ones, over async iteration.
function operatorOptions(options) {
  if (options != null) validateObject(options, "options");
  if (options && options.signal !== undefined) validateAbortSignal(options.signal, "options.signal");
  return options || {};
}
function abortIfAborted(signal) {
  if (signal && signal.aborted) throw new errors.AbortError(undefined, { cause: signal.reason });
}

Readable.prototype.toArray = async function toArray(options) {
  const { signal } = operatorOptions(options);
  const out = [];
  const it = this[kAsyncIterator]();
  for (;;) {
    abortIfAborted(signal);
    const { value, done } = await it.next();
    if (done) return out;
    out.push(value);
  }
};

Readable.prototype.forEach = async function forEach(fn, options) {
  validateFunction(fn, "fn");
  const { signal } = operatorOptions(options);
  const it = this[kAsyncIterator]();
  for (;;) {
    abortIfAborted(signal);
    const { value, done } = await it.next();
    if (done) return;
    await fn(value, { signal });
  }
};

Readable.prototype.reduce = async function reduce(fn, initial, options) {
  validateFunction(fn, "reducer");
  const { signal } = operatorOptions(options);
  const it = this[kAsyncIterator]();
  let acc = initial;
  let first = arguments.length < 2;
  for (;;) {
    abortIfAborted(signal);
    const { value, done } = await it.next();
    if (done) break;
    if (first) {
      acc = value;
      first = false;
    } else {
      acc = await fn(acc, value, { signal });
    }
  }
  if (first) throw errors.codedTypeError("ERR_INVALID_ARGS", "Reduce of an empty stream requires an initial value");
  return acc;
};

async function searchStream(stream, fn, options, want) {
  validateFunction(fn, "fn");
  const { signal } = operatorOptions(options);
  const it = stream[kAsyncIterator]();
  for (;;) {
    abortIfAborted(signal);
    const { value, done } = await it.next();
    if (done) return { found: false };
    if (!!(await fn(value, { signal })) === want) {
      await it.return();
      return { found: true, value };
    }
  }
}
Readable.prototype.some = async function some(fn, options) { return (await searchStream(this, fn, options, true)).found; };
Readable.prototype.every = async function every(fn, options) { return !(await searchStream(this, fn, options, false)).found; };
Readable.prototype.find = async function find(fn, options) { return (await searchStream(this, fn, options, true)).value; };

// mapped makes a readable of this one's chunks through step, which
// returns [keep, value] for each (or stop).
function mapped(stream, options, step) {
  const { signal } = operatorOptions(options);
  const it = stream[kAsyncIterator]();
  return Readable.from({
    [kAsyncIterator]() {
      return {
        async next() {
          for (;;) {
            abortIfAborted(signal);
            const r = await it.next();
            if (r.done) return r;
            const [keep, value, stop] = await step(r.value, { signal });
            if (stop) {
              await it.return();
              return { value: undefined, done: true };
            }
            if (keep) return { value, done: false };
          }
        },
        return() { return it.return(); },
      };
    },
  });
}
Readable.prototype.map = function map(fn, options) {
  validateFunction(fn, "fn");
  return mapped(this, options, async (v, o) => [true, await fn(v, o)]);
};
Readable.prototype.filter = function filter(fn, options) {
  validateFunction(fn, "fn");
  return mapped(this, options, async (v, o) => [!!(await fn(v, o)), v]);
};
Readable.prototype.take = function take(n, options) {
  validateInteger(n, "number", 0);
  let taken = 0;
  return mapped(this, options, (v) => (taken++ < n ? [true, v] : [false, undefined, true]));
};
Readable.prototype.drop = function drop(n, options) {
  validateInteger(n, "number", 0);
  let dropped = 0;
  return mapped(this, options, (v) => [dropped++ >= n, v]);
};

// Writable.

function WritableState(options, stream, isDuplex) {
  if (typeof isDuplex !== "boolean") isDuplex = stream instanceof Duplex;
  this.objectMode = !!(options && options.objectMode);
  if (isDuplex) this.objectMode = this.objectMode || !!(options && options.writableObjectMode);
  this.highWaterMark = getHighWaterMark(options, "writableHighWaterMark", isDuplex, this.objectMode);
  this.finalCalled = false;
  this.needDrain = false;
  this.ending = false; // end() was called
  this.ended = false; // end() returned
  this.finished = false; // 'finish' was emitted
  this.destroyed = false;
  this.decodeStrings = !(options && options.decodeStrings === false);
  this.defaultEncoding = (options && options.defaultEncoding) || "utf8";
  this.length = 0;
  this.writing = false;
  this.corked = 0;
  // sync: inside _write, whose callback must not run what follows at once.
  this.sync = true;
  this.bufferProcessing = false;
  this.onwrite = (er) => onwrite(stream, er);
  this.writecb = null;
  this.writelen = 0;
  this.afterWriteTickInfo = null;
  resetBuffer(this);
  this.pendingcb = 0;
  this.constructed = true;
  this.prefinished = false;
  this.errorEmitted = false;
  this.emitClose = !options || options.emitClose !== false;
  this.autoDestroy = !options || options.autoDestroy !== false;
  this.errored = null;
  this.closed = false;
  this.closeEmitted = false;
  this[kOnFinished] = [];
}

function resetBuffer(state) {
  state.buffered = [];
  state.bufferedIndex = 0;
  state.allBuffers = true;
  state.allNoop = true;
}

WritableState.prototype.getBuffer = function () {
  return this.buffered.slice(this.bufferedIndex);
};
Object.defineProperty(WritableState.prototype, "bufferedRequestCount", {
  get() { return this.buffered.length - this.bufferedIndex; },
});

function Writable(options) {
  const isDuplex = this instanceof Duplex;
  if (!isDuplex && !Function.prototype[Symbol.hasInstance].call(Writable, this)) return new Writable(options);
  this._writableState = new WritableState(options, this, isDuplex);
  if (options) {
    if (typeof options.write === "function") this._write = options.write;
    if (typeof options.writev === "function") this._writev = options.writev;
    if (typeof options.destroy === "function") this._destroy = options.destroy;
    if (typeof options.final === "function") this._final = options.final;
    if (typeof options.construct === "function") this._construct = options.construct;
    if (options.signal) addAbortSignal(options.signal, this);
  }
  Stream.call(this, options);
  construct(this, () => {
    const state = this._writableState;
    if (!state.writing) clearBuffer(this, state);
    finishMaybe(this, state);
  });
}
Object.setPrototypeOf(Writable.prototype, Stream.prototype);
Object.setPrototypeOf(Writable, Stream);
Writable.WritableState = WritableState;

// A Duplex is a Writable too, though it inherits from Readable.
Object.defineProperty(Writable, Symbol.hasInstance, {
  value(object) {
    if (Function.prototype[Symbol.hasInstance].call(this, object)) return true;
    if (this !== Writable) return false;
    return !!(object && object._writableState instanceof WritableState);
  },
});

Writable.prototype.pipe = function () {
  errorOrDestroy(this, E.cannotPipe());
};

function isEncoding(enc) {
  return Buf().isEncoding(enc);
}

function writeChunk(stream, chunk, encoding, cb) {
  const state = stream._writableState;
  if (typeof encoding === "function") {
    cb = encoding;
    encoding = null;
  } else if (typeof cb !== "function") {
    cb = nop;
  }
  if (chunk === null) {
    throw E.nullValues();
  } else if (!state.objectMode) {
    // an object-mode stream's _write gets the encoding as it was given
    if (!encoding) encoding = state.defaultEncoding;
    else if (encoding !== "buffer" && !isEncoding(encoding)) throw E.unknownEncoding(encoding);
    if (typeof chunk === "string") {
      if (state.decodeStrings !== false) {
        chunk = Buf().from(chunk, encoding);
        encoding = "buffer";
      }
    } else if (ArrayBuffer.isView(chunk)) {
      if (!isBuffer(chunk)) chunk = toBuffer(chunk);
      encoding = "buffer";
    } else {
      throw E.chunkType(chunk);
    }
  }
  let err;
  if (state.ending) err = E.writeAfterEnd();
  else if (state.destroyed) err = E.destroyed("write");
  if (err) {
    nextTick(cb, err);
    errorOrDestroy(stream, err, true);
    return err;
  }
  state.pendingcb++;
  return writeOrBuffer(stream, state, chunk, encoding, cb);
}

Writable.prototype.write = function (chunk, encoding, cb) {
  return writeChunk(this, chunk, encoding, cb) === true;
};

Writable.prototype.cork = function () {
  this._writableState.corked++;
};

Writable.prototype.uncork = function () {
  const state = this._writableState;
  if (state.corked) {
    state.corked--;
    if (!state.writing) clearBuffer(this, state);
  }
};

Writable.prototype.setDefaultEncoding = function setDefaultEncoding(encoding) {
  if (typeof encoding === "string") encoding = encoding.toLowerCase();
  if (!isEncoding(encoding)) throw E.unknownEncoding(encoding);
  this._writableState.defaultEncoding = encoding;
  return this;
};

// writeOrBuffer writes a chunk now, or queues it while another write is
// under way (or the stream is corked); it says whether the caller may
// write more before 'drain'.
function writeOrBuffer(stream, state, chunk, encoding, callback) {
  const len = state.objectMode ? 1 : chunk.length;
  state.length += len;
  const ret = state.length < state.highWaterMark;
  if (!ret) state.needDrain = true;
  if (state.writing || state.corked || state.errored || !state.constructed) {
    state.buffered.push({ chunk, encoding, callback });
    if (state.allBuffers && encoding !== "buffer") state.allBuffers = false;
    if (state.allNoop && callback !== nop) state.allNoop = false;
  } else {
    state.writelen = len;
    state.writecb = callback;
    state.writing = true;
    state.sync = true;
    stream._write(chunk, encoding, state.onwrite);
    state.sync = false;
  }
  return ret && !state.errored && !state.destroyed;
}

function doWrite(stream, state, writev, len, chunk, encoding, cb) {
  state.writelen = len;
  state.writecb = cb;
  state.writing = true;
  state.sync = true;
  if (state.destroyed) state.onwrite(E.destroyed("write"));
  else if (writev) stream._writev(chunk, state.onwrite);
  else stream._write(chunk, encoding, state.onwrite);
  state.sync = false;
}

function onwriteError(stream, state, er, cb) {
  --state.pendingcb;
  cb(er);
  errorBuffer(state);
  errorOrDestroy(stream, er);
}

function onwrite(stream, er) {
  const state = stream._writableState;
  const sync = state.sync;
  const cb = state.writecb;
  if (typeof cb !== "function") {
    errorOrDestroy(stream, E.multipleCallback());
    return;
  }
  state.writing = false;
  state.writecb = null;
  state.length -= state.writelen;
  state.writelen = 0;
  if (er) {
    if (!state.errored) state.errored = er;
    if (stream._readableState && !stream._readableState.errored) stream._readableState.errored = er;
    if (sync) nextTick(onwriteError, stream, state, er, cb);
    else onwriteError(stream, state, er, cb);
  } else {
    if (state.buffered.length > state.bufferedIndex) clearBuffer(stream, state);
    if (sync) {
      // many synchronous writes in a row: one tick calls back all of them
      if (state.afterWriteTickInfo !== null && state.afterWriteTickInfo.cb === cb) {
        state.afterWriteTickInfo.count++;
      } else {
        state.afterWriteTickInfo = { count: 1, cb, stream, state };
        nextTick(afterWriteTick, state.afterWriteTickInfo);
      }
    } else {
      afterWrite(stream, state, 1, cb);
    }
  }
}

function afterWriteTick({ stream, state, count, cb }) {
  state.afterWriteTickInfo = null;
  return afterWrite(stream, state, count, cb);
}

function afterWrite(stream, state, count, cb) {
  const needDrain = !state.ending && !stream.destroyed && state.length === 0 && state.needDrain;
  if (needDrain) {
    state.needDrain = false;
    stream.emit("drain");
  }
  while (count-- > 0) {
    state.pendingcb--;
    cb(null);
  }
  if (state.destroyed) errorBuffer(state);
  finishMaybe(stream, state);
}

// errorBuffer fails the writes still queued, and end's callbacks.
function errorBuffer(state) {
  if (state.writing) return;
  for (let n = state.bufferedIndex; n < state.buffered.length; ++n) {
    const { chunk, callback } = state.buffered[n];
    state.length -= state.objectMode ? 1 : chunk.length;
    callback(state.errored ?? E.destroyed("write"));
  }
  for (const fn of state[kOnFinished].splice(0)) fn(state.errored ?? E.destroyed("end"));
  resetBuffer(state);
}

// clearBuffer writes what is queued: all at once through _writev if the
// stream has one, else one chunk after another.
function clearBuffer(stream, state) {
  if (state.corked || state.bufferProcessing || state.destroyed || !state.constructed) return;
  const { buffered, bufferedIndex, objectMode } = state;
  const count = buffered.length - bufferedIndex;
  if (!count) return;
  let i = bufferedIndex;
  state.bufferProcessing = true;
  if (count > 1 && stream._writev) {
    state.pendingcb -= count - 1;
    const callback = state.allNoop ? nop : (err) => {
      for (let n = i; n < buffered.length; ++n) buffered[n].callback(err);
    };
    const chunks = state.allNoop && i === 0 ? buffered : buffered.slice(i);
    chunks.allBuffers = state.allBuffers;
    doWrite(stream, state, true, state.length, chunks, "", callback);
    resetBuffer(state);
  } else {
    do {
      const { chunk, encoding, callback } = buffered[i];
      buffered[i++] = null;
      doWrite(stream, state, false, objectMode ? 1 : chunk.length, chunk, encoding, callback);
    } while (i < buffered.length && !state.writing);
    if (i === buffered.length) resetBuffer(state);
    else if (i > 256) {
      buffered.splice(0, i);
      state.bufferedIndex = 0;
    } else {
      state.bufferedIndex = i;
    }
  }
  state.bufferProcessing = false;
}

Writable.prototype._write = function (chunk, encoding, cb) {
  if (this._writev) this._writev([{ chunk, encoding }], cb);
  else throw E.notImplemented("_write()");
};
Writable.prototype._writev = null;

Writable.prototype.end = function (chunk, encoding, cb) {
  const state = this._writableState;
  if (typeof chunk === "function") {
    cb = chunk;
    chunk = null;
    encoding = null;
  } else if (typeof encoding === "function") {
    cb = encoding;
    encoding = null;
  }
  let err;
  if (chunk !== null && chunk !== undefined) {
    const ret = writeChunk(this, chunk, encoding);
    if (ret instanceof Error) err = ret;
  }
  if (state.corked) {
    state.corked = 1;
    this.uncork();
  }
  if (err) {
    // the write failed: end's callback gets its error
  } else if (!state.errored && !state.ending) {
    state.ending = true;
    finishMaybe(this, state, true);
    state.ended = true;
  } else if (state.finished) {
    err = E.alreadyFinished("end");
  } else if (state.destroyed) {
    err = E.destroyed("end");
  }
  if (typeof cb === "function") {
    if (err || state.finished) nextTick(cb, err);
    else state[kOnFinished].push(cb);
  }
  return this;
};

function needFinish(state) {
  return state.ending && !state.destroyed && state.constructed && state.length === 0 && !state.errored &&
    state.buffered.length === 0 && !state.finished && !state.writing && !state.errorEmitted && !state.closeEmitted;
}

function callFinal(stream, state) {
  let called = false;
  function onFinish(err) {
    if (called) {
      errorOrDestroy(stream, err ?? E.multipleCallback());
      return;
    }
    called = true;
    state.pendingcb--;
    if (err) {
      for (const fn of state[kOnFinished].splice(0)) fn(err);
      errorOrDestroy(stream, err, state.sync);
    } else if (needFinish(state)) {
      state.prefinished = true;
      stream.emit("prefinish");
      state.pendingcb++;
      nextTick(finish, stream, state);
    }
  }
  state.sync = true;
  state.pendingcb++;
  try {
    stream._final(onFinish);
  } catch (err) {
    onFinish(err);
  }
  state.sync = false;
}

function prefinish(stream, state) {
  if (!state.prefinished && !state.finalCalled) {
    if (typeof stream._final === "function" && !state.destroyed) {
      state.finalCalled = true;
      callFinal(stream, state);
    } else {
      state.prefinished = true;
      stream.emit("prefinish");
    }
  }
}

function finishMaybe(stream, state, sync) {
  if (needFinish(state)) {
    prefinish(stream, state);
    if (state.pendingcb === 0) {
      if (sync) {
        state.pendingcb++;
        nextTick((stream, state) => {
          if (needFinish(state)) finish(stream, state);
          else state.pendingcb--;
        }, stream, state);
      } else if (needFinish(state)) {
        state.pendingcb++;
        finish(stream, state);
      }
    }
  }
}

function finish(stream, state) {
  state.pendingcb--;
  state.finished = true;
  for (const fn of state[kOnFinished].splice(0)) fn(null);
  stream.emit("finish");
  if (state.autoDestroy) {
    // a duplex is destroyed only once its readable side has ended too
    const r = stream._readableState;
    if (!r || (r.autoDestroy && (r.endEmitted || r.readable === false))) stream.destroy();
  }
}

defineGetters(Writable.prototype, {
  closed() { return this._writableState ? this._writableState.closed : false; },
  destroyed: {
    get() { return this._writableState ? this._writableState.destroyed : false; },
    set(v) { if (this._writableState) this._writableState.destroyed = v; },
  },
  writable: {
    get() {
      const w = this._writableState;
      return !!w && w.writable !== false && !w.destroyed && !w.errored && !w.ending && !w.ended;
    },
    set(v) { if (this._writableState) this._writableState.writable = !!v; },
  },
  writableFinished() { return this._writableState ? this._writableState.finished : false; },
  writableObjectMode() { return this._writableState ? this._writableState.objectMode : false; },
  writableBuffer() { return this._writableState && this._writableState.getBuffer(); },
  writableEnded() { return this._writableState ? this._writableState.ending : false; },
  writableNeedDrain() {
    const w = this._writableState;
    return w ? !w.destroyed && !w.ending && w.needDrain : false;
  },
  writableHighWaterMark() { return this._writableState && this._writableState.highWaterMark; },
  writableCorked() { return this._writableState ? this._writableState.corked : 0; },
  writableLength() { return this._writableState && this._writableState.length; },
  errored() { return this._writableState ? this._writableState.errored : null; },
  writableAborted() {
    const w = this._writableState;
    return !!(w.writable !== false && (w.destroyed || w.errored) && !w.finished);
  },
});

Writable.prototype.destroy = function (err, cb) {
  const state = this._writableState;
  // fail the queued writes, after what runs now
  if (!state.destroyed && (state.bufferedIndex < state.buffered.length || state[kOnFinished].length)) nextTick(errorBuffer, state);
  destroy.call(this, err, cb);
  return this;
};
Writable.prototype._undestroy = undestroy;
Writable.prototype._destroy = function (err, cb) { cb(err); };
Writable.prototype[EE.captureRejectionSymbol] = function (err) { this.destroy(err); };

// Duplex: a Readable that is also a Writable.

function Duplex(options) {
  if (!(this instanceof Duplex)) return new Duplex(options);
  Readable.call(this, options);
  Writable.call(this, options);
  if (options) {
    this.allowHalfOpen = options.allowHalfOpen !== false;
    if (options.readable === false) {
      const r = this._readableState;
      r.readable = false;
      r.ended = true;
      r.endEmitted = true;
    }
    if (options.writable === false) {
      const w = this._writableState;
      w.writable = false;
      w.ending = true;
      w.ended = true;
      w.finished = true;
    }
  } else {
    this.allowHalfOpen = true;
  }
}
Object.setPrototypeOf(Duplex.prototype, Readable.prototype);
Object.setPrototypeOf(Duplex, Readable);
// Writable's methods, where Readable has none of the name, and the
// writable-side properties (not writableAborted: Node's Duplex lacks it).
for (const key of Object.keys(Writable.prototype)) {
  if (!Duplex.prototype[key]) Duplex.prototype[key] = Writable.prototype[key];
}
for (const key of ["writable", "writableHighWaterMark", "writableObjectMode", "writableBuffer", "writableLength",
  "writableFinished", "writableCorked", "writableEnded", "writableNeedDrain"]) {
  Object.defineProperty(Duplex.prototype, key, Object.getOwnPropertyDescriptor(Writable.prototype, key));
}
defineGetters(Duplex.prototype, {
  destroyed: {
    get() {
      if (this._readableState === undefined || this._writableState === undefined) return false;
      return this._readableState.destroyed && this._writableState.destroyed;
    },
    set(v) {
      if (this._readableState && this._writableState) {
        this._readableState.destroyed = v;
        this._writableState.destroyed = v;
      }
    },
  },
});

Duplex.from = function (body) {
  if (isNodeStream(body)) return body;
  if (isIterable(body)) return from(Duplex, body, { objectMode: true, writable: false });
  throw errors.unavailable("stream.Duplex.from of " + (typeof body === "function" ? "a function" : typeof body), "pass a stream or an iterable");
};

// Transform: a Duplex whose readable side is what _transform makes of what
// is written.

function Transform(options) {
  if (!(this instanceof Transform)) return new Transform(options);
  // a readable side that holds nothing would never ask for more
  const rhwm = options ? getHighWaterMark(options, "readableHighWaterMark", true, false) : null;
  if (rhwm === 0) {
    options = Object.assign({}, options, { highWaterMark: null, readableHighWaterMark: rhwm, writableHighWaterMark: options.writableHighWaterMark || 0 });
  }
  Duplex.call(this, options);
  this._readableState.sync = false;
  this[kCallback] = null;
  if (options) {
    if (typeof options.transform === "function") this._transform = options.transform;
    if (typeof options.flush === "function") this._flush = options.flush;
  }
  this.on("prefinish", transformPrefinish);
}
Object.setPrototypeOf(Transform.prototype, Duplex.prototype);
Object.setPrototypeOf(Transform, Duplex);

function transformFinal(cb) {
  if (typeof this._flush === "function" && !this.destroyed) {
    this._flush((er, data) => {
      if (er) {
        if (cb) cb(er);
        else this.destroy(er);
        return;
      }
      if (data != null) this.push(data);
      this.push(null);
      if (cb) cb();
    });
  } else {
    this.push(null);
    if (cb) cb();
  }
}

function transformPrefinish() {
  if (this._final !== transformFinal) transformFinal.call(this);
}

Transform.prototype._final = transformFinal;

Transform.prototype._transform = function () {
  throw E.notImplemented("_transform()");
};

Transform.prototype._write = function (chunk, encoding, callback) {
  const r = this._readableState, w = this._writableState;
  const length = r.length;
  this._transform(chunk, encoding, (err, val) => {
    if (err) {
      callback(err);
      return;
    }
    if (val != null) this.push(val);
    // hold the writer back while the readable side is full
    if (w.ended || length === r.length || r.length < r.highWaterMark) callback();
    else this[kCallback] = callback;
  });
};

Transform.prototype._read = function () {
  if (this[kCallback]) {
    const callback = this[kCallback];
    this[kCallback] = null;
    callback();
  }
};

function PassThrough(options) {
  if (!(this instanceof PassThrough)) return new PassThrough(options);
  Transform.call(this, options);
}
Object.setPrototypeOf(PassThrough.prototype, Transform.prototype);
Object.setPrototypeOf(PassThrough, Transform);
PassThrough.prototype._transform = function (chunk, encoding, cb) {
  cb(null, chunk);
};

// finished (end-of-stream): calls back once the stream has ended, finished
// or failed, or closed before it did (ERR_STREAM_PREMATURE_CLOSE).
function eos(stream, options, callback) {
  if (arguments.length === 2) {
    callback = options;
    options = {};
  } else if (options == null) {
    options = {};
  } else {
    validateObject(options, "options");
  }
  validateFunction(callback, "callback");
  validateAbortSignal(options.signal, "options.signal");
  const original = callback;
  let called = false;
  callback = function (...args) {
    if (called) return;
    called = true;
    original.apply(this, args);
  };
  if (!isNodeStream(stream)) throw errors.invalidArgType("stream", "an instance of ReadableStream, WritableStream, or Stream", stream);

  const readable = options.readable ?? isReadableNodeStream(stream);
  const writable = options.writable ?? isWritableNodeStream(stream);
  const wState = stream._writableState, rState = stream._readableState;
  const onlegacyfinish = () => {
    if (!stream.writable) onfinish();
  };
  let emitsClose = willEmitClose(stream) && isReadableNodeStream(stream) === readable && isWritableNodeStream(stream) === writable;
  let writableFinished = isWritableFinished(stream, false);
  const onfinish = () => {
    writableFinished = true;
    if (stream.destroyed) emitsClose = false;
    if (emitsClose && (!stream.readable || readable)) return;
    if (!readable || readableFinished) callback.call(stream);
  };
  let readableFinished = isReadableFinished(stream, false);
  const onend = () => {
    readableFinished = true;
    if (stream.destroyed) emitsClose = false;
    if (emitsClose && (!stream.writable || writable)) return;
    if (!writable || writableFinished) callback.call(stream);
  };
  const onerror = (err) => {
    callback.call(stream, err);
  };
  let closed = isClosed(stream);
  const onclose = () => {
    closed = true;
    const errored = isWritableErrored(stream) || isReadableErrored(stream);
    if (errored && typeof errored !== "boolean") return callback.call(stream, errored);
    if (readable && !readableFinished && isReadableNodeStream(stream, true)) {
      if (!isReadableFinished(stream, false)) return callback.call(stream, E.prematureClose());
    }
    if (writable && !writableFinished) {
      if (!isWritableFinished(stream, false)) return callback.call(stream, E.prematureClose());
    }
    callback.call(stream);
  };
  const onclosed = () => {
    closed = true;
    const errored = isWritableErrored(stream) || isReadableErrored(stream);
    if (errored && typeof errored !== "boolean") return callback.call(stream, errored);
    callback.call(stream);
  };
  const onrequest = () => {
    stream.req.on("finish", onfinish);
  };
  if (isRequest(stream)) {
    stream.on("complete", onfinish);
    if (!emitsClose) stream.on("abort", onclose);
    if (stream.req) onrequest();
    else stream.on("request", onrequest);
  } else if (writable && !wState) {
    stream.on("end", onlegacyfinish);
    stream.on("close", onlegacyfinish);
  }
  if (!emitsClose && typeof stream.aborted === "boolean") stream.on("aborted", onclose);
  stream.on("end", onend);
  stream.on("finish", onfinish);
  if (options.error !== false) stream.on("error", onerror);
  stream.on("close", onclose);

  if (closed) {
    nextTick(onclose);
  } else if ((wState && wState.errorEmitted) || (rState && rState.errorEmitted)) {
    if (!emitsClose) nextTick(onclosed);
  } else if (!readable && (!emitsClose || isReadable(stream)) && (writableFinished || isWritable(stream) === false)) {
    nextTick(onclosed);
  } else if (!writable && (!emitsClose || isWritable(stream)) && (readableFinished || isReadable(stream) === false)) {
    nextTick(onclosed);
  } else if (rState && stream.req && stream.aborted) {
    nextTick(onclosed);
  }

  const cleanup = () => {
    callback = nop;
    stream.removeListener("aborted", onclose);
    stream.removeListener("complete", onfinish);
    stream.removeListener("abort", onclose);
    stream.removeListener("request", onrequest);
    if (stream.req) stream.req.removeListener("finish", onfinish);
    stream.removeListener("end", onlegacyfinish);
    stream.removeListener("close", onlegacyfinish);
    stream.removeListener("finish", onfinish);
    stream.removeListener("end", onend);
    stream.removeListener("error", onerror);
    stream.removeListener("close", onclose);
  };
  if (options.signal && !closed) {
    const signal = options.signal;
    const abort = () => {
      const endCallback = callback;
      cleanup();
      endCallback.call(stream, new errors.AbortError(undefined, { cause: signal.reason }));
    };
    if (signal.aborted) {
      nextTick(abort);
    } else {
      signal.addEventListener("abort", abort, { once: true });
      const inner = callback;
      callback = function (...args) {
        signal.removeEventListener("abort", abort);
        inner.apply(stream, args);
      };
    }
  }
  return cleanup;
}

function finishedPromise(stream, opts) {
  let autoCleanup = false;
  if (opts === null) opts = {};
  if (opts && opts.cleanup) {
    validateBoolean(opts.cleanup, "cleanup");
    autoCleanup = opts.cleanup;
  }
  return new Promise((resolve, reject) => {
    const cleanup = eos(stream, opts, (err) => {
      if (autoCleanup) cleanup();
      if (err) reject(err);
      else resolve();
    });
  });
}
eos.finished = eos;
eos[kPromisify] = finishedPromise;

// addAbortSignal destroys stream with an AbortError when signal aborts.
function addAbortSignal(signal, stream) {
  validateAbortSignal(signal, "signal");
  if (!isNodeStream(stream)) throw errors.invalidArgType("stream", "an instance of ReadableStream, WritableStream, or Stream", stream);
  const onAbort = () => {
    stream.destroy(new errors.AbortError(undefined, { cause: signal.reason }));
  };
  if (signal.aborted) {
    onAbort();
  } else {
    signal.addEventListener("abort", onAbort, { once: true });
    eos(stream, () => signal.removeEventListener("abort", onAbort));
  }
  return stream;
}

// pipeline: streams (and async iterables, and functions of one) piped one
// into the next; every one is destroyed when one fails, and the callback
// gets the first error, once all are done.
function pipeline(...streams) {
  const cb = streams.pop();
  validateFunction(cb, "streams[stream.length - 1]");
  let called = false;
  return pipelineImpl(streams, (...args) => {
    if (called) return;
    called = true;
    cb(...args);
  });
}
pipeline[kPromisify] = pipelinePromise;

function pipelineImpl(streams, callback, opts) {
  if (streams.length === 1 && Array.isArray(streams[0])) streams = streams[0];
  if (streams.length < 2) throw errors.missingArgs("streams");
  const ac = new AbortController();
  const signal = ac.signal;
  const outerSignal = opts && opts.signal;
  const lastStreamCleanup = [];
  validateAbortSignal(outerSignal, "options.signal");
  function abort() {
    finishImpl(new errors.AbortError());
  }
  if (outerSignal) outerSignal.addEventListener("abort", abort, { once: true });

  let error;
  let value;
  const destroys = [];
  let finishCount = 0;
  function finish(err) {
    finishImpl(err, --finishCount === 0);
  }
  function finishImpl(err, final) {
    if (err && (!error || error.code === "ERR_STREAM_PREMATURE_CLOSE")) error = err;
    if (!error && !final) return;
    while (destroys.length) destroys.shift()(error);
    if (outerSignal) outerSignal.removeEventListener("abort", abort);
    ac.abort();
    if (final) {
      if (!error) lastStreamCleanup.forEach((fn) => fn());
      nextTick(callback, error, value);
    }
  }

  let ret;
  for (let i = 0; i < streams.length; i++) {
    const stream = streams[i];
    const reading = i < streams.length - 1;
    const writing = i > 0;
    const end = reading || !opts || opts.end !== false;
    const isLastStream = i === streams.length - 1;
    if (isNodeStream(stream)) {
      if (end) {
        const { destroy, cleanup } = pipelineDestroyer(stream, reading, writing);
        destroys.push(destroy);
        if (isReadable(stream) && isLastStream) lastStreamCleanup.push(cleanup);
      }
      const onError = (err) => {
        if (err && err.name !== "AbortError" && err.code !== "ERR_STREAM_PREMATURE_CLOSE") finish(err);
      };
      stream.on("error", onError);
      if (isReadable(stream) && isLastStream) lastStreamCleanup.push(() => stream.removeListener("error", onError));
    }
    if (i === 0) {
      if (typeof stream === "function") {
        ret = stream({ signal });
        if (!isIterable(ret)) throw invalidReturn("Iterable, AsyncIterable or Stream", "source", ret);
      } else if (isIterable(stream) || isReadableNodeStream(stream)) {
        ret = stream;
      } else {
        ret = Duplex.from(stream);
      }
    } else if (typeof stream === "function") {
      ret = stream(isReadableNodeStream(ret) ? ret : makeAsyncIterable(ret), { signal });
      if (reading) {
        if (!isIterable(ret, true)) throw invalidReturn("AsyncIterable", "transform[" + (i - 1) + "]", ret);
      } else {
        const pt = new PassThrough({ objectMode: true });
        const then = ret && ret.then;
        if (typeof then === "function") {
          finishCount++;
          then.call(ret, (val) => {
            value = val;
            if (val != null) pt.write(val);
            if (end) pt.end();
            nextTick(finish);
          }, (err) => {
            pt.destroy(err);
            nextTick(finish, err);
          });
        } else if (isIterable(ret, true)) {
          finishCount++;
          pumpToNode(ret, pt, finish, { end });
        } else {
          throw invalidReturn("AsyncIterable or Promise", "destination", ret);
        }
        ret = pt;
        const { destroy, cleanup } = pipelineDestroyer(ret, false, true);
        destroys.push(destroy);
        if (isLastStream) lastStreamCleanup.push(cleanup);
      }
    } else if (isNodeStream(stream)) {
      if (isReadableNodeStream(ret)) {
        finishCount += 2;
        const cleanup = pipe(ret, stream, finish, { end });
        if (isReadable(stream) && isLastStream) lastStreamCleanup.push(cleanup);
      } else if (isIterable(ret)) {
        finishCount++;
        pumpToNode(ret, stream, finish, { end });
      } else {
        throw errors.invalidArgType("val", "an instance of Readable, Iterable, AsyncIterable, ReadableStream, or TransformStream", ret);
      }
      ret = stream;
    } else {
      ret = Duplex.from(stream);
    }
  }
  if ((signal && signal.aborted) || (outerSignal && outerSignal.aborted)) nextTick(abort);
  return ret;
}

function invalidReturn(input, name, value) {
  const type = value && value.constructor && value.constructor.name ? "instance of " + value.constructor.name : "type " + typeof value;
  return errors.codedTypeError("ERR_INVALID_RETURN_VALUE", 'Expected ' + input + ' to be returned from the "' + name + '" function but got ' + type + ".");
}

function makeAsyncIterable(val) {
  if (isIterable(val)) return val;
  if (isReadableNodeStream(val)) return val[kAsyncIterator]();
  throw errors.invalidArgType("val", "an instance of Readable, Iterable, or AsyncIterable", val);
}

function pipelineDestroyer(stream, reading, writing) {
  let finished = false;
  stream.on("close", () => { finished = true; });
  const cleanup = eos(stream, { readable: reading, writable: writing }, (err) => { finished = !err; });
  return {
    destroy: (err) => {
      if (finished) return;
      finished = true;
      destroyer(stream, err || E.destroyed("pipe"));
    },
    cleanup,
  };
}

function pipe(src, dst, finish, { end }) {
  let ended = false;
  dst.on("close", () => {
    if (!ended) finish(E.prematureClose());
  });
  src.pipe(dst, { end: false });
  if (end) {
    const endFn = () => {
      ended = true;
      dst.end();
    };
    if (isReadableFinished(src)) nextTick(endFn);
    else src.once("end", endFn);
    eos(src, { readable: true, writable: false }, (err) => {
      const r = src._readableState;
      if (err && err.code === "ERR_STREAM_PREMATURE_CLOSE" && r && r.ended && !r.errored && !r.errorEmitted) {
        // ended, but 'end' not emitted yet: wait for it
        src.once("end", finish).once("error", finish);
      } else {
        finish(err);
      }
    });
  } else {
    finish();
  }
  eos(dst, { readable: false, writable: true }, finish);
  return nop;
}

// pumpToNode writes what an iterable yields into a writable, with its
// backpressure.
async function pumpToNode(iterable, writable, finish, { end }) {
  let error;
  let onresolve = null;
  const resume = (err) => {
    if (err) error = err;
    if (onresolve) {
      const callback = onresolve;
      onresolve = null;
      callback();
    }
  };
  const wait = () => new Promise((resolve, reject) => {
    if (error) {
      reject(error);
    } else {
      onresolve = () => {
        if (error) reject(error);
        else resolve();
      };
    }
  });
  writable.on("drain", resume);
  const cleanup = eos(writable, { readable: false }, resume);
  try {
    if (writable.writableNeedDrain) await wait();
    const it = typeof iterable[kAsyncIterator] === "function" ? iterable[kAsyncIterator]() : iterable[Symbol.iterator]();
    try {
      for (;;) {
        const { value, done } = await it.next();
        if (done) break;
        if (!writable.write(value)) await wait();
      }
    } catch (err) {
      if (typeof it.return === "function") await Promise.resolve(it.return()).catch(nop);
      throw err;
    }
    if (end) {
      writable.end();
      await wait();
    }
    finish();
  } catch (err) {
    finish(error !== err ? aggregateTwoErrors(error, err) : err);
  } finally {
    cleanup();
    writable.off("drain", resume);
  }
}

function pipelinePromise(...streams) {
  return new Promise((resolve, reject) => {
    let signal, end;
    const last = streams[streams.length - 1];
    if (last && typeof last === "object" && !isNodeStream(last) && !isIterable(last)) {
      const options = streams.pop();
      signal = options.signal;
      end = options.end;
    }
    pipelineImpl(streams, (err, value) => {
      if (err) reject(err);
      else resolve(value);
    }, { signal, end });
  });
}

function destroyStream(stream, err) {
  destroyer(stream, err);
}

const promises = { pipeline: pipelinePromise, finished: finishedPromise };

Object.assign(Stream, {
  Stream, Readable, Writable, Duplex, Transform, PassThrough,
  pipeline, finished: eos, addAbortSignal, destroy: destroyStream,
  isReadable, isWritable, isErrored, isDisturbed, getDefaultHighWaterMark, setDefaultHighWaterMark,
  _isUint8Array: (v) => v instanceof Uint8Array,
  _uint8ArrayToBuffer: toBuffer,
});
// for the modules built on streams (fs's): fail a stream as its own
// code would
Object.defineProperty(Stream, Symbol.for("podcode.stream.errorOrDestroy"), { value: errorOrDestroy });
Object.defineProperty(Stream, "promises", { value: promises, enumerable: true, configurable: true });
Object.defineProperty(Stream, "compose", {
  value() { throw errors.unavailable("stream.compose", "pipe the streams with stream.pipeline"); },
  enumerable: true, configurable: true, writable: true,
});

module.exports = Stream;
