// node:zlib: deflate, zlib and gzip both ways (deflateSync, inflateSync,
// gzipSync, gunzipSync, deflateRawSync, inflateRawSync, unzipSync), their
// callback forms, crc32, the constants, and the streams (createGzip…),
// made on first use from node:stream's Transform. The codecs are Go's
// (node_zlib.go), the options and errors Node's, here.
//
// Differences from Node: the compressed bytes are Go's, not zlib's (any
// zlib reads them); windowBits, memLevel and the strategies but
// Z_HUFFMAN_ONLY are checked but change nothing; what a decompression
// makes is bounded by maxOutputLength and at most half the plugin's
// memory budget (ERR_BUFFER_TOO_LARGE past it, a gzip bomb costing no
// more), a stream's output by that much a write; a corrupt deflate stream
// may be named with another of zlib's messages; Brotli is not provided
// (ERR_PODCODE_UNAVAILABLE); a stream's params() is not provided.
"use strict";

const errors = require("internal/errors");
const { validateFunction, validateInteger } = require("internal/validators");
const { Buffer } = require("buffer");

const kMaxLength = 2 ** 32;

const constants = {
  Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3, Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6,
  Z_NO_COMPRESSION: 0, Z_BEST_SPEED: 1, Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1,
  Z_FILTERED: 1, Z_HUFFMAN_ONLY: 2, Z_RLE: 3, Z_FIXED: 4, Z_DEFAULT_STRATEGY: 0, ZLIB_VERNUM: 4880,
  DEFLATE: 1, INFLATE: 2, GZIP: 3, GUNZIP: 4, DEFLATERAW: 5, INFLATERAW: 6, UNZIP: 7, BROTLI_DECODE: 8, BROTLI_ENCODE: 9,
  Z_MIN_WINDOWBITS: 8, Z_MAX_WINDOWBITS: 15, Z_DEFAULT_WINDOWBITS: 15, Z_MIN_CHUNK: 64, Z_MAX_CHUNK: Infinity, Z_DEFAULT_CHUNK: 16384,
  Z_MIN_MEMLEVEL: 1, Z_MAX_MEMLEVEL: 9, Z_DEFAULT_MEMLEVEL: 8, Z_MIN_LEVEL: -1, Z_MAX_LEVEL: 9, Z_DEFAULT_LEVEL: -1,
  BROTLI_OPERATION_PROCESS: 0, BROTLI_OPERATION_FLUSH: 1, BROTLI_OPERATION_FINISH: 2, BROTLI_OPERATION_EMIT_METADATA: 3,
  BROTLI_PARAM_MODE: 0, BROTLI_MODE_GENERIC: 0, BROTLI_MODE_TEXT: 1, BROTLI_MODE_FONT: 2, BROTLI_DEFAULT_MODE: 0,
  BROTLI_PARAM_QUALITY: 1, BROTLI_MIN_QUALITY: 0, BROTLI_MAX_QUALITY: 11, BROTLI_DEFAULT_QUALITY: 11, BROTLI_PARAM_LGWIN: 2,
  BROTLI_MIN_WINDOW_BITS: 10, BROTLI_MAX_WINDOW_BITS: 24, BROTLI_LARGE_MAX_WINDOW_BITS: 30, BROTLI_DEFAULT_WINDOW: 22,
  BROTLI_PARAM_LGBLOCK: 3, BROTLI_MIN_INPUT_BLOCK_BITS: 16, BROTLI_MAX_INPUT_BLOCK_BITS: 24,
  BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING: 4, BROTLI_PARAM_SIZE_HINT: 5, BROTLI_PARAM_LARGE_WINDOW: 6,
  BROTLI_PARAM_NPOSTFIX: 7, BROTLI_PARAM_NDIRECT: 8, BROTLI_DECODER_RESULT_ERROR: 0, BROTLI_DECODER_RESULT_SUCCESS: 1,
  BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: 2, BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: 3,
  BROTLI_DECODER_PARAM_DISABLE_RING_BUFFER_REALLOCATION: 0, BROTLI_DECODER_PARAM_LARGE_WINDOW: 1,
  BROTLI_DECODER_NO_ERROR: 0, BROTLI_DECODER_SUCCESS: 1, BROTLI_DECODER_NEEDS_MORE_INPUT: 2, BROTLI_DECODER_NEEDS_MORE_OUTPUT: 3,
  BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_NIBBLE: -1, BROTLI_DECODER_ERROR_FORMAT_RESERVED: -2,
  BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_META_NIBBLE: -3, BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_ALPHABET: -4,
  BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_SAME: -5, BROTLI_DECODER_ERROR_FORMAT_CL_SPACE: -6,
  BROTLI_DECODER_ERROR_FORMAT_HUFFMAN_SPACE: -7, BROTLI_DECODER_ERROR_FORMAT_CONTEXT_MAP_REPEAT: -8,
  BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_1: -9, BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_2: -10,
  BROTLI_DECODER_ERROR_FORMAT_TRANSFORM: -11, BROTLI_DECODER_ERROR_FORMAT_DICTIONARY: -12,
  BROTLI_DECODER_ERROR_FORMAT_WINDOW_BITS: -13, BROTLI_DECODER_ERROR_FORMAT_PADDING_1: -14,
  BROTLI_DECODER_ERROR_FORMAT_PADDING_2: -15, BROTLI_DECODER_ERROR_FORMAT_DISTANCE: -16,
  BROTLI_DECODER_ERROR_DICTIONARY_NOT_SET: -19, BROTLI_DECODER_ERROR_INVALID_ARGUMENTS: -20,
  BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES: -21, BROTLI_DECODER_ERROR_ALLOC_TREE_GROUPS: -22,
  BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MAP: -25, BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_1: -26,
  BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_2: -27, BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES: -30,
  BROTLI_DECODER_ERROR_UNREACHABLE: -31,
};

const codes = {
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3, Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6,
};
for (const [k, v] of Object.entries(codes)) codes[v] = k;
Object.freeze(codes);

const { DEFLATE, INFLATE, GZIP, GUNZIP, DEFLATERAW, INFLATERAW, UNZIP, Z_FULL_FLUSH } = constants;
const isView = ArrayBuffer.isView;
const isArrayBuffer = (v) => v instanceof ArrayBuffer;
const bytes = (v) => (v instanceof Uint8Array ? v : isArrayBuffer(v) ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));

// A number option as Node checks it: undefined and NaN are the default,
// anything else a finite number within [lower, upper].
function rangeOr(v, name, lower, upper, dflt) {
  if (v === undefined || Number.isNaN(v)) return dflt;
  if (typeof v !== "number") throw errors.invalidArgType(name, "number", v);
  if (!Number.isFinite(v)) throw errors.outOfRange(name, "a finite number", v);
  if (v < lower || v > upper) throw errors.outOfRange(name, ">= " + lower + (upper === Infinity ? "" : " and <= " + upper), v);
  return v;
}

// options reads Node's options of an engine of mode, in Node's order.
function options(opts, mode) {
  const o = { level: -1, strategy: 0, dictionary: null, maxOutputLength: kMaxLength, finishFlush: 4, flush: 0, info: false };
  if (!opts) return o;
  if (!((mode === INFLATE || mode === GUNZIP || mode === UNZIP) && opts.windowBits === 0)) {
    rangeOr(opts.windowBits, "options.windowBits", 8, 15, 15);
  }
  o.level = rangeOr(opts.level, "options.level", -1, 9, -1);
  rangeOr(opts.memLevel, "options.memLevel", 1, 9, 8);
  o.strategy = rangeOr(opts.strategy, "options.strategy", 0, 4, 0);
  const dict = opts.dictionary;
  if (dict !== undefined) {
    if (!isView(dict) && !isArrayBuffer(dict)) {
      throw errors.invalidArgType("options.dictionary", "an instance of Buffer, TypedArray, DataView, or ArrayBuffer", dict);
    }
    o.dictionary = bytes(dict);
  }
  rangeOr(opts.chunkSize, "options.chunkSize", 64, Infinity, 16384);
  o.flush = rangeOr(opts.flush, "options.flush", 0, 5, 0);
  o.finishFlush = rangeOr(opts.finishFlush, "options.finishFlush", 0, 5, 4);
  o.maxOutputLength = rangeOr(opts.maxOutputLength, "options.maxOutputLength", 1, kMaxLength, kMaxLength);
  o.info = !!opts.info;
  return o;
}

// limit is the most output one operation makes: maxOutputLength, within
// half the memory budget.
const limit = (o) => Math.min(o.maxOutputLength, host.maxOutput);

// result turns what the Go half returned into Node's: the Buffer, or
// zlib's error, or ERR_BUFFER_TOO_LARGE.
function result(r, o) {
  if (isArrayBuffer(r)) return Buffer.from(r);
  if (r.length === 1) throw errors.codedRangeError("ERR_BUFFER_TOO_LARGE", "Cannot create a Buffer larger than " + r[0] + " bytes");
  const e = new Error(r[0]);
  e.errno = r[1];
  e.code = codes[r[1]];
  throw e;
}

const withInfo = (buf, o) => (o.info ? { buffer: buf, engine: null } : buf);

function syncInput(buffer) {
  if (typeof buffer === "string") return Buffer.from(buffer);
  if (isView(buffer) || isArrayBuffer(buffer)) return bytes(buffer);
  throw errors.invalidArgType("buffer", "string or an instance of Buffer, TypedArray, DataView, or ArrayBuffer", buffer);
}

function processSync(mode, buffer, opts) {
  const o = options(opts, mode);
  const input = syncInput(buffer);
  const r = host.process(mode, input, o.level, o.strategy, o.dictionary, limit(o), o.finishFlush, false);
  return withInfo(result(r, o), o);
}

function processAsync(mode, buffer, opts, callback) {
  if (typeof opts === "function") {
    callback = opts;
    opts = {};
  }
  const o = options(opts, mode);
  validateFunction(callback, "callback");
  let input;
  if (typeof buffer === "string") input = Buffer.from(buffer);
  else if (isView(buffer) || isArrayBuffer(buffer)) input = bytes(buffer);
  else throw errors.invalidArgType("chunk", "string or an instance of Buffer, TypedArray, or DataView", buffer);
  host.process(mode, input, o.level, o.strategy, o.dictionary, limit(o), o.finishFlush, true).then((r) => {
    let out;
    try {
      out = withInfo(result(r, o), o);
    } catch (e) {
      callback(e);
      return;
    }
    callback(null, out);
  }, (e) => callback(e));
}

function crc32(data, value = 0) {
  if (typeof data !== "string" && !isView(data)) throw errors.invalidArgType("data", "string or an instance of Buffer, TypedArray, or DataView", data);
  validateInteger(value, "value", 0, 2 ** 32 - 1);
  return host.crc32(typeof data === "string" ? Buffer.from(data) : bytes(data), value);
}

// Streams, made on first use: node:stream is required only then.
let classes;
function streamClasses() {
  if (classes) return classes;
  const { Transform } = require("stream");
  const empty = new Uint8Array(0);

  class ZlibBase extends Transform {
    #mode;
    #options;
    #handle;
    constructor(opts, mode) {
      const o = options(opts, mode);
      super(Object.assign({}, opts && typeof opts === "object" ? opts : {}, { encoding: null, objectMode: false, writableObjectMode: false }));
      this.#mode = mode;
      this.#options = o;
      this.#handle = host.streamNew(mode, undefined, o.level, o.strategy, o.dictionary, host.maxOutput, o.finishFlush);
      this.bytesWritten = 0;
    }
    get _handle() { return this.#handle; }
    // #run writes chunk (flushing as kind says, ending if end) and pushes
    // what came out; an error is returned, not thrown.
    #run(chunk, kind, end) {
      let out;
      try {
        out = result(host.streamWrite(this.#handle, chunk, kind, end), this.#options);
      } catch (e) {
        return e;
      }
      if (out.length > 0) this.push(out);
      return null;
    }
    _transform(chunk, encoding, cb) {
      const b = typeof chunk === "string" ? Buffer.from(chunk, encoding) : bytes(chunk);
      this.bytesWritten += b.length;
      cb(this.#run(b, this.#options.flush, false));
    }
    _flush(cb) { cb(this.#run(empty, 0, true)); }
    _destroy(err, cb) {
      host.streamClose(this.#handle);
      cb(err);
    }
    flush(kind, callback) {
      if (typeof kind === "function" || kind === undefined) {
        callback = kind;
        kind = Z_FULL_FLUSH;
      }
      const e = this.#run(empty, kind, false);
      if (e) this.destroy(e);
      if (typeof callback === "function") Promise.resolve().then(() => callback(e || undefined));
    }
    params() { throw errors.unavailable("zlib params()", "create a stream with the level and strategy wanted"); }
    reset() {
      host.streamClose(this.#handle);
      const o = this.#options;
      this.#handle = host.streamNew(this.#mode, undefined, o.level, o.strategy, o.dictionary, host.maxOutput, o.finishFlush);
    }
    close(callback) {
      if (typeof callback === "function") this.once("close", callback);
      this.destroy();
    }
  }
  // callable with or without new, as Node's
  const make = (name, mode) => {
    const C = { [name]: class extends ZlibBase { constructor(opts) { super(opts, mode); } } }[name];
    const W = function (opts) { return new C(opts); };
    Object.defineProperty(W, "name", { value: name });
    W.prototype = C.prototype;
    return W;
  };
  classes = {
    Deflate: make("Deflate", DEFLATE), Inflate: make("Inflate", INFLATE), Gzip: make("Gzip", GZIP), Gunzip: make("Gunzip", GUNZIP),
    DeflateRaw: make("DeflateRaw", DEFLATERAW), InflateRaw: make("InflateRaw", INFLATERAW), Unzip: make("Unzip", UNZIP),
  };
  return classes;
}

const syncForm = (mode) => (buffer, opts) => processSync(mode, buffer, opts);
const callbackForm = (mode) => (buffer, opts, callback) => processAsync(mode, buffer, opts, callback);
const noBrotli = (name) => function () {
  throw errors.unavailable("zlib." + name, "Podcode has no Brotli codec; use gzip or deflate");
};
const streamClass = (name) => ({ get: () => streamClasses()[name], enumerable: true, configurable: true });

// in Node's order
const zlib = { crc32 };
for (const name of ["Deflate", "Inflate", "Gzip", "Gunzip", "DeflateRaw", "InflateRaw", "Unzip"]) Object.defineProperty(zlib, name, streamClass(name));
Object.assign(zlib, {
  BrotliCompress: noBrotli("BrotliCompress"), BrotliDecompress: noBrotli("BrotliDecompress"),
  deflate: callbackForm(DEFLATE), deflateSync: syncForm(DEFLATE), gzip: callbackForm(GZIP), gzipSync: syncForm(GZIP),
  deflateRaw: callbackForm(DEFLATERAW), deflateRawSync: syncForm(DEFLATERAW), unzip: callbackForm(UNZIP), unzipSync: syncForm(UNZIP),
  inflate: callbackForm(INFLATE), inflateSync: syncForm(INFLATE), gunzip: callbackForm(GUNZIP), gunzipSync: syncForm(GUNZIP),
  inflateRaw: callbackForm(INFLATERAW), inflateRawSync: syncForm(INFLATERAW),
  brotliCompress: noBrotli("brotliCompress"), brotliCompressSync: noBrotli("brotliCompressSync"),
  brotliDecompress: noBrotli("brotliDecompress"), brotliDecompressSync: noBrotli("brotliDecompressSync"),
});
for (const name of ["Deflate", "Inflate", "DeflateRaw", "InflateRaw", "Gzip", "Gunzip", "Unzip"]) {
  zlib["create" + name] = (opts) => new (streamClasses()[name])(opts);
}
Object.assign(zlib, { createBrotliCompress: noBrotli("createBrotliCompress"), createBrotliDecompress: noBrotli("createBrotliDecompress"), constants, codes });
// Node's legacy names of the constants, on the module itself
for (const [k, v] of Object.entries(constants)) {
  if (k.startsWith("Z_") || /^(ZLIB_VERNUM|DEFLATE|INFLATE|GZIP|GUNZIP|DEFLATERAW|INFLATERAW|UNZIP)$/.test(k)) {
    Object.defineProperty(zlib, k, { value: v, enumerable: false, writable: false, configurable: false });
  }
}
module.exports = zlib;
