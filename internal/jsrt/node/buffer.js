// node:buffer: Buffer (a Uint8Array with Node's methods), atob, btoa,
// Blob, File, isUtf8, isAscii, transcode and the constants. The encodings
// and the loops over a buffer's bytes are the Go half's (node_buffer.go);
// the argument checks and errors are Node's, here.
//
// Differences from Node: there is no pool, so every Buffer has an
// ArrayBuffer of its own (byteOffset 0, buf.buffer as long as the Buffer
// for what Buffer.from or alloc made) and allocUnsafe's memory is zeroed;
// an allocation past the plugin's memory budget (alloc, concat, a string
// encoded or decoded) is refused with a RangeError before it is made;
// there is no inspect output; Blob has no stream().
"use strict";

const errors = require("internal/errors");
const { validateNumber, validateString, validateInteger } = require("internal/validators");
const budget = require("internal/budget");

const kMaxLength = 2 ** 32;
const kStringMaxLength = 2 ** 29 - 24;
const NativeUint8Array = Uint8Array;
const NativeArrayBuffer = ArrayBuffer;
const u8fill = Uint8Array.prototype.fill;

// The encodings, numbered as the Go half numbers them.
const UTF8 = 0, UCS2 = 1, LATIN1 = 2, ASCII = 3, BASE64 = 4, BASE64URL = 5, HEX = 6;
const encodingNames = {
  "utf8": UTF8, "utf-8": UTF8, "ucs2": UCS2, "ucs-2": UCS2, "utf16le": UCS2, "utf-16le": UCS2,
  "latin1": LATIN1, "binary": LATIN1, "ascii": ASCII, "base64": BASE64, "base64url": BASE64URL, "hex": HEX,
};

// encodingOf is the encoding a name names, whatever its case, or undefined.
function encodingOf(name) {
  const e = encodingNames[name];
  if (e !== undefined) return e;
  const lower = String(name).toLowerCase();
  return Object.prototype.hasOwnProperty.call(encodingNames, lower) ? encodingNames[lower] : undefined;
}

// normalized is encodingOf where null, undefined and "" mean UTF-8.
function normalized(name) {
  if (name === undefined || name === null || name === "") return UTF8;
  if (typeof name !== "string") return undefined;
  return encodingOf(name);
}

const unknownEncoding = (e) => errors.codedTypeError("ERR_UNKNOWN_ENCODING", "Unknown encoding: " + errors.formatS(e));
const outOfBounds = (name) => errors.codedRangeError("ERR_BUFFER_OUT_OF_BOUNDS",
  name ? '"' + name + '" is outside of buffer bounds' : "Attempt to access memory outside buffer bounds");
const isUint8Array = (v) => v instanceof NativeUint8Array;
const isArrayBuffer = (v) => v instanceof NativeArrayBuffer;
const isTypedArray = (v) => ArrayBuffer.isView(v) && !(v instanceof DataView);
const BUFFER_OR_UINT8ARRAY = "an instance of Buffer or Uint8Array";

function validateOffset(v, name, min = 0, max = kMaxLength) {
  if (typeof v !== "number") throw errors.invalidArgType(name, "number", v);
  if (!Number.isInteger(v)) throw errors.outOfRange(name, "an integer", v);
  if (v < min || v > max) throw errors.outOfRange(name, ">= " + min + " && <= " + max, v);
}

function validateSize(size, what) {
  validateNumber(size, "size", 0, kMaxLength);
  budget.check(what, size);
}

// The engine's own Uint8Array: with a memory budget, the global one is a
// wrapper that checks each size (prelude.js) and costs a few
// microseconds a construction; every size this module allocates is
// checked here instead.
const Uint8ArrayBase = Object.getPrototypeOf(Uint8Array).prototype === Uint8Array.prototype ? Object.getPrototypeOf(Uint8Array) : Uint8Array;

// FastBuffer is constructed with (size), (arrayBuffer, byteOffset,
// length) or (a typed array, copied). Plugins reach it too (as
// Buffer[Symbol.species]), so it checks its size as the prelude's
// wrapper would.
class FastBuffer extends Uint8ArrayBase {
  constructor(a, b, c) {
    if (budget.limit > 0) {
      if (typeof a !== "object" || a === null) budget.check("new Buffer", Math.trunc(+a) || 0);
      else if (!(a instanceof NativeArrayBuffer)) budget.check("new Buffer", Math.trunc(+a.length) || 0);
    }
    super(a, b, c);
  }
}

// Buffer(arg, encodingOrOffset, length): the deprecated constructor,
// called with or without new, as Buffer.alloc or Buffer.from.
function Buffer(arg, encodingOrOffset, length) {
  if (typeof arg === "number") {
    if (typeof encodingOrOffset === "string") throw errors.invalidArgType("string", "string", arg);
    return Buffer.alloc(arg);
  }
  return Buffer.from(arg, encodingOrOffset, length);
}
Object.defineProperty(Buffer, "prototype", { value: FastBuffer.prototype, writable: false, enumerable: false, configurable: false });
Object.defineProperty(FastBuffer.prototype, "constructor", { value: Buffer, writable: true, enumerable: false, configurable: true });
Object.setPrototypeOf(Buffer, Uint8Array);
// typed array methods that make a new array (map, filter, subarray) make
// a FastBuffer, which is a Buffer
Object.defineProperty(Buffer, Symbol.species, { get() { return FastBuffer; }, configurable: true });

const statics = {
  from(value, encodingOrOffset, length) {
    if (typeof value === "string") return fromString(value, encodingOrOffset);
    if (typeof value === "object" && value !== null) {
      if (isArrayBuffer(value)) return fromArrayBuffer(value, encodingOrOffset, length);
      const primitive = typeof value.valueOf === "function" ? value.valueOf() : undefined;
      if (primitive !== null && primitive !== undefined && primitive !== value && (typeof primitive === "string" || typeof primitive === "object")) {
        return Buffer.from(primitive, encodingOrOffset, length);
      }
      const b = fromObject(value);
      if (b) return b;
      if (typeof value[Symbol.toPrimitive] === "function") {
        const p = value[Symbol.toPrimitive]("string");
        if (typeof p === "string") return fromString(p, encodingOrOffset);
      }
    }
    throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", "The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object." + errors.received(value));
  },

  copyBytesFrom(view, offset, length) {
    if (!isTypedArray(view)) throw errors.invalidArgType("view", "an instance of TypedArray", view);
    const size = view.BYTES_PER_ELEMENT;
    const count = view.length;
    let start = 0, end = count;
    if (offset !== undefined || length !== undefined) {
      if (offset !== undefined) {
        validateInteger(offset, "offset", 0);
        if (offset >= count) return new FastBuffer();
        start = offset;
      }
      if (length !== undefined) {
        validateInteger(length, "length", 0);
        end = Math.min(start + length, count);
      }
      if (end <= start) return new FastBuffer();
    }
    const src = new NativeUint8Array(view.buffer, view.byteOffset + start * size, (end - start) * size);
    return new FastBuffer(src);
  },

  of(...items) {
    budget.check("Buffer.of", items.length);
    const b = new FastBuffer(items.length);
    for (let i = 0; i < items.length; i++) b[i] = items[i];
    return b;
  },

  alloc(size, fill, encoding) {
    validateSize(size, "Buffer.alloc");
    const b = new FastBuffer(size);
    if (fill !== undefined && fill !== 0 && size > 0) return fillBuffer(b, fill, 0, b.length, encoding);
    return b;
  },

  // allocUnsafe and allocUnsafeSlow: zeroed here too (no pool to reuse)
  allocUnsafe(size) {
    validateSize(size, "Buffer.allocUnsafe");
    return new FastBuffer(size);
  },
  allocUnsafeSlow(size) {
    validateSize(size, "Buffer.allocUnsafeSlow");
    return new FastBuffer(size);
  },

  isBuffer(b) { return b instanceof Buffer; },

  isEncoding(e) { return typeof e === "string" && e.length !== 0 && encodingOf(e) !== undefined; },

  byteLength(string, encoding) {
    if (typeof string !== "string") {
      if (ArrayBuffer.isView(string) || isArrayBuffer(string)) return string.byteLength;
      throw errors.invalidArgType("string", "string or an instance of Buffer or ArrayBuffer", string);
    }
    if (string.length === 0) return 0;
    let e = encoding === undefined || encoding === null ? UTF8 : encodingOf(encoding);
    if (e === undefined) e = UTF8; // as Node: an unknown encoding counts UTF-8
    return host.byteLength(string, e);
  },

  compare(buf1, buf2) {
    if (!isUint8Array(buf1)) throw errors.invalidArgType("buf1", BUFFER_OR_UINT8ARRAY, buf1);
    if (!isUint8Array(buf2)) throw errors.invalidArgType("buf2", BUFFER_OR_UINT8ARRAY, buf2);
    if (buf1 === buf2) return 0;
    return host.compare(buf1, 0, buf1.length, buf2, 0, buf2.length);
  },

  concat(list, length) {
    if (!Array.isArray(list)) throw errors.invalidArgType("list", "an instance of Array", list);
    if (list.length === 0) return new FastBuffer();
    if (length === undefined) {
      length = 0;
      for (let i = 0; i < list.length; i++) if (list[i].length) length += list[i].length;
    } else {
      validateOffset(length, "length");
    }
    validateNumber(length, "size", 0, kMaxLength);
    for (let i = 0; i < list.length; i++) {
      if (!isUint8Array(list[i])) throw errors.invalidArgType("list[" + i + "]", BUFFER_OR_UINT8ARRAY, list[i]);
    }
    return new FastBuffer(host.concat(list, length));
  },
};
for (const [name, fn] of Object.entries(statics)) {
  Object.defineProperty(Buffer, name, { value: fn, writable: true, enumerable: true, configurable: true });
}
Buffer.poolSize = 8192;

function fromString(string, encoding) {
  let e;
  if (typeof encoding !== "string" || encoding.length === 0) {
    if (string.length === 0) return new FastBuffer();
    e = UTF8;
  } else {
    e = encodingOf(encoding);
    if (e === undefined) throw unknownEncoding(encoding);
    if (string.length === 0) return new FastBuffer();
  }
  return new FastBuffer(host.encode(string, e));
}

function fromArrayBuffer(ab, byteOffset, length) {
  if (byteOffset === undefined) {
    byteOffset = 0;
  } else {
    byteOffset = +byteOffset;
    if (Number.isNaN(byteOffset)) byteOffset = 0;
  }
  const max = ab.byteLength - byteOffset;
  if (max < 0) throw outOfBounds("offset");
  if (length === undefined) {
    length = max;
  } else {
    length = +length;
    if (length > 0) {
      if (length > max) throw outOfBounds("length");
    } else {
      length = 0;
    }
  }
  return new FastBuffer(ab, byteOffset, length);
}

function fromArrayLike(a) {
  if (a.length <= 0) return new FastBuffer();
  if (isUint8Array(a)) return new FastBuffer(a); // a copy, by the typed array's own constructor
  budget.check("Buffer.from", a.length);
  const b = new FastBuffer(a.length);
  for (let i = 0; i < b.length; i++) b[i] = a[i];
  return b;
}

function fromObject(o) {
  if (o.length !== undefined || isArrayBuffer(o.buffer)) {
    if (typeof o.length !== "number") return new FastBuffer();
    return fromArrayLike(o);
  }
  if (o.type === "Buffer" && Array.isArray(o.data)) return fromArrayLike(o.data);
  return undefined;
}

// fillBuffer is Node's fill, shared by buf.fill and Buffer.alloc.
function fillBuffer(buf, value, offset, end, encoding) {
  let e = UTF8;
  if (typeof value === "string") {
    if (offset === undefined || typeof offset === "string") {
      encoding = offset;
      offset = 0;
      end = buf.length;
    } else if (typeof end === "string") {
      encoding = end;
      end = buf.length;
    }
    e = normalized(encoding);
    if (e === undefined) {
      validateString(encoding, "encoding");
      throw unknownEncoding(encoding);
    }
    if (value.length === 0) {
      value = 0;
    } else if (value.length === 1 && (e === LATIN1 || (e === UTF8 && value.charCodeAt(0) < 128))) {
      value = value.charCodeAt(0);
    }
  }
  if (offset === undefined) {
    offset = 0;
    end = buf.length;
  } else {
    validateOffset(offset, "offset");
    if (end === undefined) end = buf.length;
    else validateOffset(end, "end", 0, buf.length);
    if (offset >= end) return buf;
  }
  if (typeof value === "number") {
    u8fill.call(buf, value, offset, end);
  } else if (typeof value === "string" || ArrayBuffer.isView(value)) {
    const v = typeof value === "string" || isUint8Array(value) ? value : new NativeUint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (host.fill(buf, v, e, offset, end) < 0) {
      if (typeof value === "string") throw errors.invalidArgValue("value", value);
      throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'value' is invalid. Received " + (value instanceof Buffer ? "<Buffer >" : value.constructor.name + "(0) []"));
    }
  } else {
    u8fill.call(buf, (value >>> 0) & 255, offset, end);
  }
  return buf;
}

// adjustOffset clamps a slice's start or end as Node does: negative
// counts from the end, NaN is 0, past the end is the end.
function adjustOffset(offset, length) {
  offset = Math.trunc(offset);
  if (offset === 0) return 0;
  if (offset < 0) {
    offset += length;
    return offset > 0 ? offset : 0;
  }
  if (offset < length) return offset;
  return Number.isNaN(offset) ? 0 : length;
}

// search is indexOf and lastIndexOf.
function search(buf, value, byteOffset, encoding, forward) {
  if (typeof byteOffset === "string") {
    encoding = byteOffset;
    byteOffset = undefined;
  } else if (byteOffset > 0x7fffffff) {
    byteOffset = 0x7fffffff;
  } else if (byteOffset < -0x80000000) {
    byteOffset = -0x80000000;
  }
  byteOffset = +byteOffset;
  if (Number.isNaN(byteOffset)) byteOffset = forward ? 0 : buf.length;
  if (typeof value === "number") return host.indexOf(buf, value >>> 0, LATIN1, byteOffset, forward);
  const e = encoding === undefined ? UTF8 : encodingOf(encoding);
  if (typeof value === "string") {
    if (e === undefined) throw unknownEncoding(encoding);
    return host.indexOf(buf, value, e, byteOffset, forward);
  }
  if (isUint8Array(value)) return host.indexOf(buf, value, e === undefined ? UTF8 : e, byteOffset, forward);
  throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "value" argument must be one of type number or string or an instance of Buffer or Uint8Array.' + errors.received(value));
}

// Reading and writing numbers. Offsets are checked as Node checks them:
// a number, an integer, the bytes within the buffer.
function boundsError(value, length, type) {
  if (Math.floor(value) !== value) {
    if (typeof value !== "number") throw errors.invalidArgType(type || "offset", "number", value);
    throw errors.outOfRange(type || "offset", "an integer", value);
  }
  if (length < 0) throw outOfBounds();
  throw errors.outOfRange(type || "offset", ">= " + (type ? 1 : 0) + " and <= " + length, value);
}

// checkBounds checks an offset of size bytes as Node does: by the bytes
// at both ends, undefined when the offset is not an integer index within
// the buffer (cheaper here than reading the length).
function checkBounds(buf, offset, size) {
  if (typeof offset !== "number") throw errors.invalidArgType("offset", "number", offset);
  if (buf[offset] === undefined || buf[offset + size - 1] === undefined) boundsError(offset, buf.length - size);
}

function readUnsigned(buf, offset, size, littleEndian) {
  checkBounds(buf, offset, size);
  let v = 0;
  if (littleEndian) for (let i = size - 1; i >= 0; i--) v = v * 256 + buf[offset + i];
  else for (let i = 0; i < size; i++) v = v * 256 + buf[offset + i];
  return v;
}

function readSigned(buf, offset, size, littleEndian) {
  const v = readUnsigned(buf, offset, size, littleEndian);
  const top = 2 ** (8 * size - 1);
  return v >= top ? v - 2 * top : v;
}

// The common sizes, unrolled: a loop costs more than the reads in this
// engine.
function read8(buf, offset) {
  if (typeof offset !== "number") throw errors.invalidArgType("offset", "number", offset);
  const v = buf[offset];
  if (v === undefined) boundsError(offset, buf.length - 1);
  return v;
}
function read16(buf, offset, littleEndian) {
  if (typeof offset !== "number") throw errors.invalidArgType("offset", "number", offset);
  const a = buf[offset], b = buf[offset + 1];
  if (a === undefined || b === undefined) boundsError(offset, buf.length - 2);
  return littleEndian ? a + b * 256 : a * 256 + b;
}
function read32(buf, offset, littleEndian) {
  if (typeof offset !== "number") throw errors.invalidArgType("offset", "number", offset);
  const a = buf[offset], d = buf[offset + 3];
  if (a === undefined || d === undefined) boundsError(offset, buf.length - 4);
  const b = buf[offset + 1], c = buf[offset + 2];
  return littleEndian ? a + b * 0x100 + c * 0x10000 + d * 0x1000000 : a * 0x1000000 + b * 0x10000 + c * 0x100 + d;
}

// rangeError is ERR_OUT_OF_RANGE for a value to write; bigints are shown
// as Node shows them (1_000n).
function valueOutOfRange(range, value) {
  if (typeof value !== "bigint") return errors.outOfRange("value", range, value);
  let s = String(value);
  if (value > 2n ** 32n || value < -(2n ** 32n)) s = errors.addNumericalSeparator(s);
  return errors.codedRangeError("ERR_OUT_OF_RANGE", 'The value of "value" is out of range. It must be ' + range + ". Received " + s + "n");
}

function checkInt(value, min, max, size) {
  if (value > max || value < min) {
    const n = typeof min === "bigint" ? "n" : "";
    let range;
    if (size > 4) {
      const bits = size * 8;
      range = min === 0 || min === 0n ? ">= 0" + n + " and < 2" + n + " ** " + bits + n : ">= -(2" + n + " ** " + (bits - 1) + n + ") and < 2" + n + " ** " + (bits - 1) + n;
    } else {
      range = ">= " + min + n + " and <= " + max + n;
    }
    throw valueOutOfRange(range, value);
  }
}

// putInt writes value (checked) as size bytes: the low 32 bits as
// ToUint32 takes them, the bits above from value / 2 ** 32, as Node.
function putInt(buf, value, offset, size, littleEndian) {
  const step = littleEndian ? 1 : -1;
  let at = littleEndian ? offset : offset + size - 1;
  let lo = value >>> 0;
  for (let i = 0; i < size && i < 4; i++, at += step) {
    buf[at] = lo & 255;
    lo >>>= 8;
  }
  if (size > 4) {
    let hi = Math.floor(value * 2 ** -32) >>> 0;
    for (let i = 4; i < size; i++, at += step) {
      buf[at] = hi & 255;
      hi >>>= 8;
    }
  }
  return offset + size;
}

const intMin = (size, signed) => (signed ? -(2 ** (8 * size - 1)) : 0);
const intMax = (size, signed) => (signed ? 2 ** (8 * size - 1) - 1 : 2 ** (8 * size) - 1);

function writeInt(buf, value, offset, size, littleEndian, signed) {
  value = +value;
  // one byte: the offset's type is checked before the value
  if (size === 1 && typeof offset !== "number") throw errors.invalidArgType("offset", "number", offset);
  if (value > intMax(size, signed) || value < intMin(size, signed)) checkInt(value, intMin(size, signed), intMax(size, signed), size);
  checkBounds(buf, offset, size);
  if (size === 1) {
    buf[offset] = value;
    return offset + 1;
  }
  if (size === 2) {
    buf[littleEndian ? offset : offset + 1] = value;
    buf[littleEndian ? offset + 1 : offset] = value >>> 8;
    return offset + 2;
  }
  if (size === 4) {
    if (littleEndian) {
      buf[offset] = value;
      buf[offset + 1] = value >>> 8;
      buf[offset + 2] = value >>> 16;
      buf[offset + 3] = value >>> 24;
    } else {
      buf[offset + 3] = value;
      buf[offset + 2] = value >>> 8;
      buf[offset + 1] = value >>> 16;
      buf[offset] = value >>> 24;
    }
    return offset + 4;
  }
  return putInt(buf, value, offset, size, littleEndian);
}

const byteLengthError = (byteLength) => boundsError(byteLength, 6, "byteLength");
const validByteLength = (n) => n === 1 || n === 2 || n === 3 || n === 4 || n === 5 || n === 6;

// Floats go through a scratch array, in the machine's byte order.
const f32 = new Float32Array(1);
const f64 = new Float64Array(1);
const f32b = new NativeUint8Array(f32.buffer);
const f64b = new NativeUint8Array(f64.buffer);
const machineLE = new NativeUint8Array(new Uint16Array([1]).buffer)[0] === 1;

function readFloat(buf, offset, size, littleEndian) {
  checkBounds(buf, offset, size);
  const bytes = size === 4 ? f32b : f64b;
  const same = littleEndian === machineLE;
  for (let i = 0; i < size; i++) bytes[same ? i : size - 1 - i] = buf[offset + i];
  const v = size === 4 ? f32[0] : f64[0];
  // the engine reads a negative zero from a typed array as 0
  if (v === 0 && buf[offset + (littleEndian ? size - 1 : 0)] & 0x80) return -0;
  return v;
}

function writeFloat(buf, value, offset, size, littleEndian) {
  value = +value;
  checkBounds(buf, offset, size);
  const bytes = size === 4 ? f32b : f64b;
  if (size === 4) f32[0] = value;
  else f64[0] = value;
  const same = littleEndian === machineLE;
  for (let i = 0; i < size; i++) buf[offset + i] = bytes[same ? i : size - 1 - i];
  return offset + size;
}

function readBig(buf, offset, littleEndian, signed) {
  checkBounds(buf, offset, 8);
  let v = 0n;
  for (let i = 0; i < 8; i++) v = (v << 8n) | BigInt(buf[offset + (littleEndian ? 7 - i : i)]);
  return signed ? BigInt.asIntN(64, v) : v;
}

function writeBig(buf, value, offset, littleEndian, signed) {
  const min = signed ? -(2n ** 63n) : 0n;
  const max = signed ? 2n ** 63n - 1n : 2n ** 64n - 1n;
  checkInt(value, min, max, 8);
  checkBounds(buf, offset, 8);
  let v = BigInt.asUintN(64, value & 0xffffffffffffffffn);
  for (let i = 0; i < 8; i++) {
    buf[offset + (littleEndian ? i : 7 - i)] = Number(v & 0xffn);
    v >>= 8n;
  }
  return offset + 8;
}

const proto = {
  toString(encoding, start, end) {
    if (encoding === undefined && start === undefined && end === undefined) return host.decode(this, UTF8, 0, -1);
    const len = this.length;
    if (start <= 0) start = 0;
    else if (start >= len) return "";
    else start = Math.trunc(start) || 0;
    if (end === undefined || end > len) end = len;
    else end = Math.trunc(end) || 0;
    if (end <= start) return "";
    if (encoding === undefined) return host.decode(this, UTF8, start, end);
    const e = encodingOf(encoding);
    if (e === undefined) throw unknownEncoding(encoding);
    return host.decode(this, e, start, end);
  },

  write(string, offset, length, encoding) {
    if (offset === undefined) {
      offset = 0;
      length = this.length;
    } else if (length === undefined && typeof offset === "string") {
      encoding = offset;
      length = this.length;
      offset = 0;
    } else {
      validateOffset(offset, "offset", 0, this.length);
      const remaining = this.length - offset;
      if (length === undefined) {
        length = remaining;
      } else if (typeof length === "string") {
        encoding = length;
        length = remaining;
      } else {
        validateOffset(length, "length", 0, this.length);
        if (length > remaining) length = remaining;
      }
    }
    let e = UTF8;
    if (encoding && encoding !== "utf8") {
      e = encodingOf(encoding);
      if (e === undefined) throw unknownEncoding(encoding);
    }
    if (typeof string !== "string") throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", "argument must be a string");
    return host.write(this, string, e, offset, length);
  },

  toJSON() {
    return { type: "Buffer", data: this.length > 0 ? Array.from(this) : [] };
  },

  equals(other) {
    if (!isUint8Array(other)) throw errors.invalidArgType("otherBuffer", BUFFER_OR_UINT8ARRAY, other);
    if (this === other) return true;
    if (this.byteLength !== other.byteLength) return false;
    return this.byteLength === 0 || host.compare(this, 0, this.length, other, 0, other.length) === 0;
  },

  compare(target, targetStart, targetEnd, sourceStart, sourceEnd) {
    if (!isUint8Array(target)) throw errors.invalidArgType("target", BUFFER_OR_UINT8ARRAY, target);
    if (targetStart === undefined && targetEnd === undefined && sourceStart === undefined && sourceEnd === undefined) {
      return host.compare(this, 0, this.length, target, 0, target.length);
    }
    if (targetStart === undefined) targetStart = 0;
    else validateOffset(targetStart, "targetStart");
    if (targetEnd === undefined) targetEnd = target.length;
    else validateOffset(targetEnd, "targetEnd", 0, target.length);
    if (sourceStart === undefined) sourceStart = 0;
    else validateOffset(sourceStart, "sourceStart");
    if (sourceEnd === undefined) sourceEnd = this.length;
    else validateOffset(sourceEnd, "sourceEnd", 0, this.length);
    if (sourceStart >= sourceEnd) return targetStart >= targetEnd ? 0 : -1;
    if (targetStart >= targetEnd) return 1;
    return host.compare(this, sourceStart, sourceEnd, target, targetStart, targetEnd);
  },

  copy(target, targetStart, sourceStart, sourceEnd) {
    if (!isUint8Array(this)) throw errors.invalidArgType("source", BUFFER_OR_UINT8ARRAY, this);
    if (!isUint8Array(target)) throw errors.invalidArgType("target", BUFFER_OR_UINT8ARRAY, target);
    const toInt = (n) => {
      n = +n;
      if (!Number.isNaN(n) && n >= Number.MIN_SAFE_INTEGER && n <= Number.MAX_SAFE_INTEGER) return n % 1 === 0 ? n : Math.floor(n);
      return 0;
    };
    if (targetStart === undefined) {
      targetStart = 0;
    } else {
      targetStart = toInt(targetStart);
      if (targetStart < 0) throw errors.outOfRange("targetStart", ">= 0", targetStart);
    }
    if (sourceStart === undefined) {
      sourceStart = 0;
    } else {
      sourceStart = toInt(sourceStart);
      if (sourceStart < 0 || sourceStart > this.length) throw errors.outOfRange("sourceStart", ">= 0 && <= " + this.length, sourceStart);
    }
    if (sourceEnd === undefined) {
      sourceEnd = this.length;
    } else {
      sourceEnd = toInt(sourceEnd);
      if (sourceEnd < 0) throw errors.outOfRange("sourceEnd", ">= 0", sourceEnd);
    }
    if (targetStart >= target.length || sourceStart >= sourceEnd) return 0;
    sourceEnd = Math.min(sourceEnd, this.length, sourceStart + target.length - targetStart);
    return host.copy(this, sourceStart, sourceEnd, target, targetStart);
  },

  slice(start, end) {
    const len = this.length;
    start = adjustOffset(start, len);
    end = end !== undefined ? adjustOffset(end, len) : len;
    return new FastBuffer(this.buffer, this.byteOffset + start, end > start ? end - start : 0);
  },

  indexOf(value, byteOffset, encoding) { return search(this, value, byteOffset, encoding, true); },
  lastIndexOf(value, byteOffset, encoding) { return search(this, value, byteOffset, encoding, false); },
  includes(value, byteOffset, encoding) { return this.indexOf(value, byteOffset, encoding) !== -1; },

  fill(value, offset, end, encoding) { return fillBuffer(this, value, offset, end, encoding); },

  swap16() { return swap(this, 2); },
  swap32() { return swap(this, 4); },
  swap64() { return swap(this, 8); },

  readUInt8(offset = 0) { return read8(this, offset); },
  readUInt16LE(offset = 0) { return read16(this, offset, true); },
  readUInt16BE(offset = 0) { return read16(this, offset, false); },
  readUInt32LE(offset = 0) { return read32(this, offset, true); },
  readUInt32BE(offset = 0) { return read32(this, offset, false); },
  readInt8(offset = 0) { const v = read8(this, offset); return v > 127 ? v - 256 : v; },
  readInt16LE(offset = 0) { const v = read16(this, offset, true); return v > 32767 ? v - 65536 : v; },
  readInt16BE(offset = 0) { const v = read16(this, offset, false); return v > 32767 ? v - 65536 : v; },
  readInt32LE(offset = 0) { return read32(this, offset, true) | 0; },
  readInt32BE(offset = 0) { return read32(this, offset, false) | 0; },
  readUIntLE(offset, byteLength) {
    if (offset === undefined) throw errors.invalidArgType("offset", "number", offset);
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return readUnsigned(this, offset, byteLength, true);
  },
  readUIntBE(offset, byteLength) {
    if (offset === undefined) throw errors.invalidArgType("offset", "number", offset);
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return readUnsigned(this, offset, byteLength, false);
  },
  readIntLE(offset, byteLength) {
    if (offset === undefined) throw errors.invalidArgType("offset", "number", offset);
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return readSigned(this, offset, byteLength, true);
  },
  readIntBE(offset, byteLength) {
    if (offset === undefined) throw errors.invalidArgType("offset", "number", offset);
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return readSigned(this, offset, byteLength, false);
  },
  readFloatLE(offset = 0) { return readFloat(this, offset, 4, true); },
  readFloatBE(offset = 0) { return readFloat(this, offset, 4, false); },
  readDoubleLE(offset = 0) { return readFloat(this, offset, 8, true); },
  readDoubleBE(offset = 0) { return readFloat(this, offset, 8, false); },
  readBigUInt64LE(offset = 0) { return readBig(this, offset, true, false); },
  readBigUInt64BE(offset = 0) { return readBig(this, offset, false, false); },
  readBigInt64LE(offset = 0) { return readBig(this, offset, true, true); },
  readBigInt64BE(offset = 0) { return readBig(this, offset, false, true); },

  writeUInt8(value, offset = 0) { return writeInt(this, value, offset, 1, true, false); },
  writeUInt16LE(value, offset = 0) { return writeInt(this, value, offset, 2, true, false); },
  writeUInt16BE(value, offset = 0) { return writeInt(this, value, offset, 2, false, false); },
  writeUInt32LE(value, offset = 0) { return writeInt(this, value, offset, 4, true, false); },
  writeUInt32BE(value, offset = 0) { return writeInt(this, value, offset, 4, false, false); },
  writeInt8(value, offset = 0) { return writeInt(this, value, offset, 1, true, true); },
  writeInt16LE(value, offset = 0) { return writeInt(this, value, offset, 2, true, true); },
  writeInt16BE(value, offset = 0) { return writeInt(this, value, offset, 2, false, true); },
  writeInt32LE(value, offset = 0) { return writeInt(this, value, offset, 4, true, true); },
  writeInt32BE(value, offset = 0) { return writeInt(this, value, offset, 4, false, true); },
  writeUIntLE(value, offset, byteLength) {
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return writeInt(this, value, offset, byteLength, true, false);
  },
  writeUIntBE(value, offset, byteLength) {
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return writeInt(this, value, offset, byteLength, false, false);
  },
  writeIntLE(value, offset, byteLength) {
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return writeInt(this, value, offset, byteLength, true, true);
  },
  writeIntBE(value, offset, byteLength) {
    if (!validByteLength(byteLength)) byteLengthError(byteLength);
    return writeInt(this, value, offset, byteLength, false, true);
  },
  writeFloatLE(value, offset = 0) { return writeFloat(this, value, offset, 4, true); },
  writeFloatBE(value, offset = 0) { return writeFloat(this, value, offset, 4, false); },
  writeDoubleLE(value, offset = 0) { return writeFloat(this, value, offset, 8, true); },
  writeDoubleBE(value, offset = 0) { return writeFloat(this, value, offset, 8, false); },
  writeBigUInt64LE(value, offset = 0) { return writeBig(this, value, offset, true, false); },
  writeBigUInt64BE(value, offset = 0) { return writeBig(this, value, offset, false, false); },
  writeBigInt64LE(value, offset = 0) { return writeBig(this, value, offset, true, true); },
  writeBigInt64BE(value, offset = 0) { return writeBig(this, value, offset, false, true); },
};
proto.subarray = proto.slice;
proto.toLocaleString = proto.toString;
for (const name of Object.keys(proto)) {
  if (name.includes("UInt")) proto[name.replace("UInt", "Uint")] = proto[name];
}
// Node's per-encoding methods (buf.utf8Slice, buf.hexWrite…), which some
// packages call directly.
for (const [name, e] of [["utf8", UTF8], ["ucs2", UCS2], ["latin1", LATIN1], ["ascii", ASCII], ["base64", BASE64], ["base64url", BASE64URL], ["hex", HEX]]) {
  proto[name + "Slice"] = function (start = 0, end = this.length) {
    start = Math.trunc(start) || 0;
    end = Math.trunc(end) || 0;
    if (start < 0 || end > this.length || start > end) throw errors.codedRangeError("ERR_OUT_OF_RANGE", "Index out of range");
    return host.decode(this, e, start, end);
  };
  proto[name + "Write"] = function (string, offset = 0, length = this.length - offset) {
    if (typeof string !== "string") throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", "argument must be a string");
    offset = Math.trunc(offset) || 0;
    length = Math.trunc(length) || 0;
    if (offset < 0 || offset > this.length) throw errors.codedRangeError("ERR_BUFFER_OUT_OF_BOUNDS", '"offset" is outside of buffer bounds');
    return host.write(this, string, e, offset, Math.max(0, Math.min(length, this.length - offset)));
  };
}
for (const [name, fn] of Object.entries(proto)) {
  Object.defineProperty(FastBuffer.prototype, name, { value: fn, writable: true, enumerable: true, configurable: true });
}
// parent and offset: Node's deprecated names for buffer and byteOffset
Object.defineProperty(FastBuffer.prototype, "parent", {
  get() { return this instanceof Buffer ? this.buffer : undefined; }, enumerable: true, configurable: true,
});
Object.defineProperty(FastBuffer.prototype, "offset", {
  get() { return this instanceof Buffer ? this.byteOffset : undefined; }, enumerable: true, configurable: true,
});

function swap(buf, size) {
  if (buf.length % size !== 0) {
    throw errors.codedRangeError("ERR_INVALID_BUFFER_SIZE", "Buffer size must be a multiple of " + size * 8 + "-bits");
  }
  host.swap(buf, size);
  return buf;
}

function SlowBuffer(size) {
  validateSize(size, "SlowBuffer");
  return new FastBuffer(size);
}
Object.setPrototypeOf(SlowBuffer.prototype, Uint8Array.prototype);
Object.setPrototypeOf(SlowBuffer, Uint8Array);

// atob and btoa, as the web defines them (forgiving base64), with its
// DOMException.
const domException = (message, name) => new (require("internal/domexception").DOMException)(message, name);
const isAsciiWhitespace = (c) => c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;
const isBase64Char = (c) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;

function atob(input) {
  if (arguments.length === 0) throw errors.missingArgs("input");
  input = `${input}`;
  let chars = 0, equals = 0;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (isAsciiWhitespace(c)) continue;
    chars++;
    if (c === 0x3d) {
      equals++;
      if (equals > 2) throw domException("Invalid character", "InvalidCharacterError");
    } else if (!isBase64Char(c) || equals) {
      throw domException("Invalid character", "InvalidCharacterError");
    }
  }
  let rest = chars % 4;
  if (rest === 0) rest = (chars - equals) % 4;
  else if (equals) throw domException("Invalid character", "InvalidCharacterError");
  if (rest === 1) throw domException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
  const b = new FastBuffer(host.encode(input, BASE64));
  return host.decode(b, LATIN1, 0, b.length);
}

function btoa(input) {
  if (arguments.length === 0) throw errors.missingArgs("input");
  input = `${input}`;
  for (let i = 0; i < input.length; i++) {
    if (input.charCodeAt(i) > 0xff) throw domException("Invalid character", "InvalidCharacterError");
  }
  const b = new FastBuffer(host.encode(input, LATIN1));
  return host.decode(b, BASE64, 0, b.length);
}

function isUtf8(input) {
  if (isTypedArray(input) || isArrayBuffer(input)) return host.isUtf8(input);
  throw errors.invalidArgType("input", "an instance of ArrayBuffer, Buffer, or TypedArray", input);
}

function isAscii(input) {
  if (isTypedArray(input) || isArrayBuffer(input)) return host.isAscii(input);
  throw errors.invalidArgType("input", "an instance of ArrayBuffer, Buffer, or TypedArray", input);
}

// transcode re-encodes between the encodings of text (UTF-8, UTF-16LE,
// Latin-1, ASCII); a character the target cannot hold becomes '?'.
function transcode(source, fromEncoding, toEncoding) {
  if (!isUint8Array(source)) throw errors.invalidArgType("source", BUFFER_OR_UINT8ARRAY, source);
  if (source.length === 0) return Buffer.alloc(0);
  const text = [UTF8, UCS2, LATIN1, ASCII];
  const from = normalized(fromEncoding), to = normalized(toEncoding);
  if (!text.includes(from) || !text.includes(to)) {
    const e = new Error("Unable to transcode Buffer [U_ILLEGAL_ARGUMENT_ERROR]");
    e.code = "U_ILLEGAL_ARGUMENT_ERROR";
    e.errno = 1;
    throw e;
  }
  if (from === to) return Buffer.from(source);
  let s = host.decode(source, from, 0, source.length);
  if (to === ASCII) s = s.replace(/[^\u0000-\u007f]/gu, "?");
  else if (to === LATIN1) s = s.replace(/[^\u0000-\u00ff]/gu, "?");
  return new FastBuffer(host.encode(s, to));
}

// Blob and File: bytes held whole, read back as text or an ArrayBuffer.
class Blob {
  #bytes;
  #type;
  constructor(sources = [], options) {
    if (sources === null || typeof sources !== "object" || typeof sources[Symbol.iterator] !== "function") {
      throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "sources" argument must be a sequence.' + errors.received(sources));
    }
    if (options !== undefined && (options === null || typeof options !== "object")) throw errors.invalidArgType("options", "object", options);
    const parts = [];
    let size = 0;
    for (const p of sources) {
      const b = Blob.#part(p);
      parts.push(b);
      size += b.length;
    }
    this.#bytes = parts.length === 1 ? parts[0] : new NativeUint8Array(host.concat(parts, size));
    const type = options && options.type !== undefined ? `${options.type}` : "";
    this.#type = /[^\u0020-\u007e]/.test(type) ? "" : type.toLowerCase();
  }
  // a part's bytes, copied: a later change to the source does not reach the blob
  static #part(p) {
    if (p instanceof Blob) return p.#bytes;
    if (isArrayBuffer(p)) return new NativeUint8Array(p.slice(0));
    if (ArrayBuffer.isView(p)) return new NativeUint8Array(p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength));
    return new NativeUint8Array(host.encode(`${p}`, UTF8));
  }
  get size() { return this.#bytes.length; }
  get type() { return this.#type; }
  slice(start = 0, end = this.size, contentType = "") {
    const size = this.size;
    const rel = (v) => (v < 0 ? Math.max(size + v, 0) : Math.min(v, size));
    const s = rel(Math.trunc(start) || 0), e = rel(Math.trunc(end) || 0);
    return new Blob([this.#bytes.subarray(s, Math.max(s, e))], { type: contentType });
  }
  text() { return Promise.resolve(host.decode(this.#bytes, UTF8, 0, this.#bytes.length)); }
  arrayBuffer() {
    const b = this.#bytes;
    return Promise.resolve(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  }
  bytes() { return this.arrayBuffer().then((ab) => new NativeUint8Array(ab)); }
  stream() { throw errors.unavailable("Blob.prototype.stream", "read it with text() or arrayBuffer()"); }
}
Object.defineProperty(Blob.prototype, Symbol.toStringTag, { value: "Blob", configurable: true });

class File extends Blob {
  constructor(fileBits, fileName, options) {
    if (arguments.length < 2) throw errors.missingArgs("fileBits", "fileName");
    super(fileBits, options);
    this.name = `${fileName}`;
    this.lastModified = options && options.lastModified !== undefined ? Number(options.lastModified) : Date.now();
  }
}
Object.defineProperty(File.prototype, Symbol.toStringTag, { value: "File", configurable: true });

module.exports = {
  Buffer, SlowBuffer, transcode, isUtf8, isAscii, kMaxLength, kStringMaxLength, btoa, atob,
  constants: { MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: kStringMaxLength },
  INSPECT_MAX_BYTES: 50, Blob, resolveObjectURL: () => undefined, File,
};
