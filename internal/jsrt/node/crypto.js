// node:crypto: hashes (createHash, hash), HMACs, random values
// (randomBytes, randomFill, randomInt, randomUUID, getRandomValues),
// timingSafeEqual, PBKDF2, scrypt, HKDF, AES ciphers (CBC, CTR, ECB, GCM),
// secret KeyObjects and webcrypto's getRandomValues, randomUUID and
// subtle.digest. The work is Go's (node_crypto.go), the argument checks
// and errors Node's, here.
//
// Differences from Node: Hash, Hmac, Cipheriv and Decipheriv are not
// streams; the digests are OpenSSL's but sm3 and ripemd160; the ciphers
// are AES's CBC, CTR, ECB and GCM modes only; asymmetric keys, signing,
// Diffie-Hellman, primes, X.509 and subtle's methods but digest are not
// provided (they throw ERR_PODCODE_UNAVAILABLE); what randomBytes, the key
// derivations and scrypt's memory take is held to the memory budget.
"use strict";

const errors = require("internal/errors");
const { validateFunction, validateObject, validateString, validateBoolean, validateInteger } = require("internal/validators");
const { Buffer } = require("buffer");
const budget = require("internal/budget");

const kMaxPossibleLength = 2 ** 31 - 1;
const isView = ArrayBuffer.isView;
const isArrayBuffer = (v) => v instanceof ArrayBuffer;

// bytes is a view or ArrayBuffer as a Uint8Array over the same memory,
// which the Go half reads.
function bytes(v) {
  if (v instanceof Uint8Array) return v;
  if (isArrayBuffer(v)) return new Uint8Array(v);
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

// asBuffer wraps what the Go half made.
const asBuffer = (ab) => Buffer.from(ab);

const validateInt32 = (v, name, min = -(2 ** 31)) => validateInteger(v, name, min, 2 ** 31 - 1);
const validateUint32 = (v, name) => validateInteger(v, name, 0, 2 ** 32 - 1);

// textBytes is a string in an encoding (UTF-8 when it names none Node
// knows), checked as Node checks it: hex of an odd length is refused.
function textBytes(data, encoding) {
  if (typeof encoding === "string" && encoding.toLowerCase() === "hex" && data.length % 2 !== 0) {
    throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'encoding' is invalid for data of length " + data.length + ". Received " + errors.inspectShort(encoding));
  }
  return Buffer.from(data, Buffer.isEncoding(encoding) ? encoding : "utf8");
}

// dataBytes is the data of update: a string or a view.
function dataBytes(data, encoding, name = "data") {
  if (typeof data === "string") return textBytes(data, encoding);
  if (!isView(data)) throw errors.invalidArgType(name, "string or an instance of Buffer, TypedArray, or DataView", data);
  return bytes(data);
}

// arrayBufferOrView is a password, salt, iv: a string, an ArrayBuffer or
// a view.
function arrayBufferOrView(v, name, encoding) {
  if (isArrayBuffer(v)) return new Uint8Array(v);
  if (typeof v === "string") return Buffer.from(v, Buffer.isEncoding(encoding) ? encoding : "utf8");
  if (!isView(v)) throw errors.invalidArgType(name, "string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView", v);
  return bytes(v);
}

// output is a result as Node returns it: a string in an encoding, else
// the Buffer.
function output(buf, encoding) {
  if (!Buffer.isEncoding(encoding)) return buf; // none, 'buffer' or one Node does not know
  return buf.toString(encoding);
}

const finalized = () => errors.codedError("ERR_CRYPTO_HASH_FINALIZED", "Digest already called");
const invalidDigest = (d) => errors.codedTypeError("ERR_CRYPTO_INVALID_DIGEST", "Invalid digest: " + d);
const invalidState = (op) => errors.codedError("ERR_CRYPTO_INVALID_STATE", op ? "Invalid state for operation " + op : "Invalid state");

// opensslError is an error as Node reports OpenSSL's.
function opensslError(message, code, library, reason) {
  const e = new Error(message);
  e.library = library;
  e.reason = reason;
  e.code = code;
  return e;
}

// Secret keys.
const kKey = Symbol("key");
class KeyObject {
  constructor(type, key) {
    if (type !== "secret") throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'type' is invalid. Received " + errors.inspectShort(type));
    Object.defineProperty(this, kKey, { value: key });
  }
  get type() { return "secret"; }
  get symmetricKeySize() { return this[kKey].length; }
  export(options) {
    if (options !== undefined) validateObject(options, "options");
    const b = Buffer.from(this[kKey]);
    if (options && options.format === "jwk") return { kty: "oct", k: b.toString("base64url") };
    return b;
  }
  equals(other) {
    if (!(other instanceof KeyObject)) throw errors.invalidArgType("otherKeyObject", "an instance of KeyObject", other);
    return other[kKey].length === this[kKey].length && host.timingSafeEqual(this[kKey], other[kKey]);
  }
}
class SecretKeyObject extends KeyObject {}

function createSecretKey(key, encoding) {
  if (typeof key !== "string" && !isArrayBuffer(key) && !isView(key)) {
    throw errors.invalidArgType("key", "an instance of ArrayBuffer, Buffer, TypedArray, or DataView", key);
  }
  return new SecretKeyObject("secret", Buffer.from(arrayBufferOrView(key, "key", encoding)));
}

// secretKey is a key argument of createHmac and the ciphers.
function secretKey(key, encoding) {
  if (key instanceof KeyObject) return key[kKey];
  if (typeof key === "string" || isArrayBuffer(key) || isView(key)) return arrayBufferOrView(key, "key", encoding);
  throw errors.invalidArgType("key", "string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey", key);
}

// Hashes.
class Hash {
  #handle;
  #done = false;
  constructor(algorithm, options) {
    const outputLength = options !== null && typeof options === "object" ? options.outputLength : undefined;
    if (outputLength !== undefined) validateUint32(outputLength, "options.outputLength");
    if (algorithm instanceof Hash) {
      if (algorithm.#done) throw finalized();
      this.#handle = host.hashCopy(algorithm.#handle, outputLength === undefined ? -1 : outputLength);
      return;
    }
    validateString(algorithm, "algorithm");
    const name = host.hashName(algorithm);
    if (name === "") throw new Error("Digest method not supported");
    if (outputLength !== undefined && !name.startsWith("shake")) {
      const size = host.hashDigest(host.hashNew(name, undefined, -1)).byteLength;
      if (outputLength !== size) {
        throw opensslError("error:030000B2:digital envelope routines::not XOF or invalid length", "ERR_OSSL_EVP_NOT_XOF_OR_INVALID_LENGTH", "digital envelope routines", "not XOF or invalid length");
      }
    }
    this.#handle = host.hashNew(name, undefined, outputLength === undefined ? -1 : outputLength);
  }
  update(data, encoding) {
    if (this.#done) throw finalized();
    host.hashUpdate(this.#handle, dataBytes(data, encoding));
    return this;
  }
  digest(encoding) {
    if (this.#done) throw finalized();
    this.#done = true;
    return output(asBuffer(host.hashDigest(this.#handle)), encoding);
  }
  copy(options) {
    if (this.#done) throw finalized();
    return new Hash(this, options);
  }
}

class Hmac {
  #handle;
  #done = false;
  constructor(algorithm, key, options) {
    validateString(algorithm, "hmac");
    const encoding = options !== null && typeof options === "object" ? options.encoding : undefined;
    const k = secretKey(key, encoding);
    const name = host.hashName(algorithm);
    if (name === "" || name.startsWith("shake")) throw invalidDigest(algorithm);
    this.#handle = host.hashNew(name, k, -1);
  }
  update(data, encoding) {
    if (this.#done) throw finalized();
    host.hashUpdate(this.#handle, dataBytes(data, encoding));
    return this;
  }
  digest(encoding) {
    if (this.#done) {
      // Node's Hmac returns nothing the second time
      const empty = Buffer.alloc(0);
      return !encoding || encoding === "buffer" ? empty : empty.toString(encoding);
    }
    this.#done = true;
    return output(asBuffer(host.hashDigest(this.#handle)), encoding);
  }
}

function hash(algorithm, input, outputEncoding = "hex") {
  validateString(algorithm, "algorithm");
  if (typeof input !== "string" && !isView(input)) throw errors.invalidArgType("input", "string or an instance of Buffer, TypedArray, or DataView", input);
  let enc = outputEncoding;
  if (enc !== "hex") {
    validateString(enc, "outputEncoding");
    if (enc.toLowerCase() === "buffer") enc = "buffer";
    else if (!Buffer.isEncoding(enc)) throw errors.invalidArgValue("outputEncoding", enc);
  }
  const name = host.hashName(algorithm);
  if (name === "") throw new Error("Digest method " + algorithm + " is not supported");
  const h = host.hashNew(name, undefined, -1);
  host.hashUpdate(h, typeof input === "string" ? Buffer.from(input) : bytes(input));
  return output(asBuffer(host.hashDigest(h)), enc);
}

// Random values.
function assertOffset(offset, elementSize, length) {
  if (typeof offset !== "number") throw errors.invalidArgType("offset", "number", offset);
  offset *= elementSize;
  const max = Math.min(length, kMaxPossibleLength);
  if (Number.isNaN(offset) || offset > max || offset < 0) throw errors.outOfRange("offset", ">= 0 && <= " + max, offset);
  return offset >>> 0;
}

function assertSize(size, elementSize, offset, length) {
  if (typeof size !== "number") throw errors.invalidArgType("size", "number", size);
  size *= elementSize;
  if (Number.isNaN(size) || size > kMaxPossibleLength || size < 0) throw errors.outOfRange("size", ">= 0 && <= " + kMaxPossibleLength, size);
  if (size + offset > length) throw errors.outOfRange("size + offset", "<= " + length, size + offset);
  return size >>> 0;
}

// later runs a callback after the current job, as Node's thread pool
// calls back later.
const later = (fn) => { Promise.resolve().then(fn); };

function randomBytes(size, callback) {
  size = assertSize(size, 1, 0, Infinity);
  if (callback !== undefined) validateFunction(callback, "callback");
  budget.check("randomBytes", size);
  const b = Buffer.alloc(size);
  host.randomFill(b);
  if (callback === undefined) return b;
  later(() => callback(null, b));
  return undefined;
}

function fillArgs(buf, offset, size) {
  if (!isArrayBuffer(buf) && !isView(buf)) throw errors.invalidArgType("buf", "an instance of ArrayBuffer or ArrayBufferView", buf);
  const elementSize = buf.BYTES_PER_ELEMENT || 1;
  offset = assertOffset(offset, elementSize, buf.byteLength);
  size = size === undefined ? buf.byteLength - offset : assertSize(size, elementSize, offset, buf.byteLength);
  const view = isArrayBuffer(buf) ? new Uint8Array(buf, offset, size) : new Uint8Array(buf.buffer, buf.byteOffset + offset, size);
  return view;
}

function randomFillSync(buf, offset = 0, size) {
  host.randomFill(fillArgs(buf, offset, size));
  return buf;
}

function randomFill(buf, offset, size, callback) {
  if (!isArrayBuffer(buf) && !isView(buf)) throw errors.invalidArgType("buf", "an instance of ArrayBuffer or ArrayBufferView", buf);
  if (typeof offset === "function") {
    callback = offset;
    offset = 0;
    size = undefined;
  } else if (typeof size === "function") {
    callback = size;
    size = undefined;
  }
  validateFunction(callback, "callback");
  const view = fillArgs(buf, offset, size);
  host.randomFill(view);
  later(() => callback(null, buf));
}

const RAND_MAX = 0xffffffffffff;

function randomInt(min, max, callback) {
  const minNotSpecified = max === undefined || typeof max === "function";
  if (minNotSpecified) {
    callback = max;
    max = min;
    min = 0;
  }
  if (callback !== undefined) validateFunction(callback, "callback");
  if (!Number.isSafeInteger(min)) throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "min" argument must be a safe integer.' + errors.received(min));
  if (!Number.isSafeInteger(max)) throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "max" argument must be a safe integer.' + errors.received(max));
  if (max <= min) throw errors.outOfRange("max", 'greater than the value of "min" (' + min + ")", max);
  const range = max - min;
  if (!(range <= RAND_MAX)) throw errors.outOfRange(minNotSpecified ? "max" : "max - min", "<= " + RAND_MAX, range);
  const n = min + host.randomInt(range);
  if (callback === undefined) return n;
  later(() => callback(undefined, n));
  return undefined;
}

function randomUUID(options) {
  if (options !== undefined) validateObject(options, "options");
  const { disableEntropyCache = false } = options || {};
  validateBoolean(disableEntropyCache, "options.disableEntropyCache");
  return host.randomUUID();
}

function timingSafeEqual(buf1, buf2) {
  const check = (v, name) => {
    if (!isArrayBuffer(v) && !isView(v)) {
      throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "' + name + '" argument must be an instance of ArrayBuffer, Buffer, TypedArray, or DataView.');
    }
  };
  check(buf1, "buf1");
  check(buf2, "buf2");
  if (buf1.byteLength !== buf2.byteLength) throw errors.codedRangeError("ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH", "Input buffers must have the same byte length");
  return host.timingSafeEqual(bytes(buf1), bytes(buf2));
}

// Key derivation.
function pbkdf2Check(password, salt, iterations, keylen, digest) {
  password = arrayBufferOrView(password, "password");
  salt = arrayBufferOrView(salt, "salt");
  validateInt32(iterations, "iterations", 1);
  validateInt32(keylen, "keylen", 0);
  validateString(digest, "digest");
  const name = host.hashName(digest);
  if (name === "" || name.startsWith("shake")) throw invalidDigest(digest);
  return [password, salt, iterations, keylen, name];
}

function pbkdf2Sync(password, salt, iterations, keylen, digest) {
  return asBuffer(host.pbkdf2(...pbkdf2Check(password, salt, iterations, keylen, digest), false));
}

function pbkdf2(password, salt, iterations, keylen, digest, callback) {
  if (typeof digest === "function") {
    callback = digest;
    digest = undefined;
  }
  const args = pbkdf2Check(password, salt, iterations, keylen, digest);
  validateFunction(callback, "callback");
  host.pbkdf2(...args, true).then((ab) => callback(null, asBuffer(ab)), (e) => callback(e));
}

const scryptDefaults = { N: 16384, r: 8, p: 1, maxmem: 32 << 20 };

function scryptCheck(password, salt, keylen, options) {
  password = arrayBufferOrView(password, "password");
  salt = arrayBufferOrView(salt, "salt");
  validateInt32(keylen, "keylen", 0);
  let { N, r, p, maxmem } = scryptDefaults;
  if (options) {
    const invalid = () => errors.codedError("ERR_CRYPTO_SCRYPT_INVALID_PARAMETER", "Invalid scrypt parameter");
    const pick = (name, alias, value) => {
      let v = value;
      if (options[name] !== undefined) {
        v = options[name];
        validateUint32(v, name);
      }
      if (options[alias] !== undefined) {
        if (options[name] !== undefined) throw invalid();
        v = options[alias];
        validateUint32(v, alias);
      }
      return v;
    };
    N = pick("N", "cost", N);
    r = pick("r", "blockSize", r);
    p = pick("p", "parallelization", p);
    if (options.maxmem !== undefined) {
      maxmem = options.maxmem;
      validateInteger(maxmem, "maxmem", 0);
    }
    if (N === 0) N = scryptDefaults.N;
    if (r === 0) r = scryptDefaults.r;
    if (p === 0) p = scryptDefaults.p;
    if (maxmem === 0) maxmem = scryptDefaults.maxmem;
  }
  // the memory scrypt takes, as OpenSSL counts it
  const memory = 128 * r * (N + 2) + 128 * r * p;
  const powerOfTwo = N > 1 && (N & (N - 1)) === 0 && N <= 2 ** 31;
  if (!powerOfTwo || memory > maxmem || (16 * r < 64 && N >= 2 ** (16 * r)) || p > ((2 ** 30 - 1) * 32) / (128 * r)) {
    throw errors.codedRangeError("ERR_CRYPTO_INVALID_SCRYPT_PARAMS", "Invalid scrypt params: error:030000AC:digital envelope routines::memory limit exceeded");
  }
  budget.check("scrypt", memory);
  return [password, salt, keylen, N, r, p];
}

function scryptSync(password, salt, keylen, options) {
  return asBuffer(host.scrypt(...scryptCheck(password, salt, keylen, options), false));
}

function scrypt(password, salt, keylen, options, callback) {
  if (typeof options === "function") {
    callback = options;
    options = undefined;
  }
  const args = scryptCheck(password, salt, keylen, options);
  validateFunction(callback, "callback");
  host.scrypt(...args, true).then((ab) => callback(null, asBuffer(ab)), (e) => callback(e));
}

function hkdfCheck(digest, ikm, salt, info, keylen) {
  validateString(digest, "digest");
  if (!(ikm instanceof KeyObject) && typeof ikm !== "string" && !isArrayBuffer(ikm) && !isView(ikm)) {
    throw errors.invalidArgType("ikm", "string or an instance of SecretKeyObject, ArrayBuffer, TypedArray, DataView, or Buffer", ikm);
  }
  const key = ikm instanceof KeyObject ? ikm[kKey] : arrayBufferOrView(ikm, "ikm");
  salt = arrayBufferOrView(salt, "salt");
  info = arrayBufferOrView(info, "info");
  validateInteger(keylen, "length", 0, 2 ** 32);
  if (info.byteLength > 1024) throw errors.outOfRange("info", "must not contain more than 1024 bytes", info.byteLength);
  const name = host.hashName(digest);
  if (name === "" || name.startsWith("shake")) throw invalidDigest(digest);
  if (keylen > 255 * host.hashDigest(host.hashNew(name, undefined, -1)).byteLength) throw errors.codedRangeError("ERR_CRYPTO_INVALID_KEYLEN", "Invalid key length");
  return [name, key, salt, info, keylen];
}

// hkdf is HMAC's extract and expand (RFC 5869), over the hash handles.
function hkdfDerive(name, key, salt, info, keylen) {
  const mac = (k, ...parts) => {
    const h = host.hashNew(name, k, -1);
    for (const p of parts) host.hashUpdate(h, p);
    return new Uint8Array(host.hashDigest(h));
  };
  const size = mac(new Uint8Array(0)).length;
  const prk = mac(salt.byteLength ? salt : new Uint8Array(size), key);
  const out = new Uint8Array(keylen);
  let t = new Uint8Array(0);
  for (let i = 1, at = 0; at < keylen; i++) {
    t = mac(prk, t, info, new Uint8Array([i]));
    out.set(t.subarray(0, Math.min(t.length, keylen - at)), at);
    at += t.length;
  }
  return out.buffer;
}

function hkdfSync(digest, ikm, salt, info, keylen) {
  return hkdfDerive(...hkdfCheck(digest, ikm, salt, info, keylen));
}

function hkdf(digest, ikm, salt, info, keylen, callback) {
  const args = hkdfCheck(digest, ikm, salt, info, keylen);
  validateFunction(callback, "callback");
  const key = hkdfDerive(...args);
  later(() => callback(null, key));
}

// Ciphers.
const tagLengths = [4, 8, 12, 13, 14, 15, 16];
const kGetAuthTag = Symbol("getAuthTag");
const kSetAuthTag = Symbol("setAuthTag");
const invalidTag = (n) => errors.codedTypeError("ERR_CRYPTO_INVALID_AUTH_TAG", "Invalid authentication tag length: " + n);

class CipherBase {
  #handle;
  #mode;
  #decrypt;
  #done = false;
  #decoder;
  #tagLength;
  #tagSet = false;
  #hasTag = false;
  constructor(cipher, key, iv, options, decrypt) {
    validateString(cipher, "cipher");
    const encoding = options !== null && typeof options === "object" ? options.encoding : undefined;
    const k = secretKey(key, encoding);
    const v = iv === null ? null : arrayBufferOrView(iv, "iv");
    const tagLength = options !== null && typeof options === "object" ? options.authTagLength : undefined;
    if (tagLength !== undefined) validateUint32(tagLength, "options.authTagLength");
    const problem = host.cipherCheck(cipher, k.byteLength, v === null ? -1 : v.byteLength);
    if (problem === "cipher") throw errors.codedError("ERR_CRYPTO_UNKNOWN_CIPHER", "Unknown cipher");
    if (problem === "key") throw errors.codedRangeError("ERR_CRYPTO_INVALID_KEYLEN", "Invalid key length");
    if (problem === "iv" || (v === null && host.cipherMode(cipher) !== "ecb")) throw errors.codedTypeError("ERR_CRYPTO_INVALID_IV", "Invalid initialization vector");
    this.#mode = host.cipherMode(cipher);
    if (this.#mode === "gcm" && tagLength !== undefined && !tagLengths.includes(tagLength)) throw invalidTag(tagLength);
    this.#tagLength = tagLength;
    this.#decrypt = decrypt;
    this.#handle = host.cipherNew(cipher, k, v === null || v.byteLength === 0 ? null : v, decrypt);
  }

  update(data, inputEncoding, outputEncoding) {
    const b = dataBytes(data, inputEncoding);
    if (this.#done) throw new Error("Trying to add data in unsupported state");
    return this.#out(asBuffer(host.cipherUpdate(this.#handle, b)), outputEncoding, false);
  }

  final(outputEncoding) {
    if (this.#done) throw invalidState();
    this.#done = true;
    const r = host.cipherFinal(this.#handle);
    if (r === "bad decrypt") throw opensslError("error:1C800064:Provider routines::bad decrypt", "ERR_OSSL_BAD_DECRYPT", "Provider routines", "bad decrypt");
    if (r === "wrong final block length") {
      throw opensslError("error:1C80006B:Provider routines::wrong final block length", "ERR_OSSL_WRONG_FINAL_BLOCK_LENGTH", "Provider routines", "wrong final block length");
    }
    if (r === "unable to authenticate") throw new Error("Unsupported state or unable to authenticate data");
    if (this.#mode === "gcm" && !this.#decrypt) this.#hasTag = true;
    return this.#out(asBuffer(r), outputEncoding, true);
  }

  // #out is update's or final's result in outputEncoding: a string
  // decoder keeps a character (a base64 group) split between calls whole.
  #out(buf, encoding, end) {
    if (!encoding || encoding === "buffer") return buf;
    if (!this.#decoder) this.#decoder = new (require("string_decoder").StringDecoder)(encoding);
    else if (this.#decoder.encoding !== new (require("string_decoder").StringDecoder)(encoding).encoding) {
      throw errors.codedError("ERR_INTERNAL_ASSERTION", "Cannot change encoding");
    }
    return end ? this.#decoder.end(buf) : this.#decoder.write(buf);
  }

  setAutoPadding(ap = true) {
    if (this.#done) throw invalidState("setAutoPadding");
    host.cipherSetPadding(this.#handle, !!ap);
    return this;
  }

  setAAD(aadbuf, options) {
    if (options !== undefined) validateObject(options, "options");
    const b = arrayBufferOrView(aadbuf, "aadbuf", options && options.encoding);
    if (this.#done || this.#mode !== "gcm" || !host.cipherSetAAD(this.#handle, b)) throw invalidState("setAAD");
    return this;
  }

  // for Cipheriv
  [kGetAuthTag]() {
    if (!this.#hasTag) throw invalidState("getAuthTag");
    return asBuffer(host.cipherGetAuthTag(this.#handle, this.#tagLength === undefined ? 16 : this.#tagLength));
  }

  // for Decipheriv
  [kSetAuthTag](tagbuf, encoding) {
    const b = arrayBufferOrView(tagbuf, "buffer", encoding);
    if (this.#done || this.#mode !== "gcm" || this.#tagSet) throw invalidState("setAuthTag");
    if (!tagLengths.includes(b.byteLength) || (this.#tagLength !== undefined && b.byteLength !== this.#tagLength)) throw invalidTag(b.byteLength);
    this.#tagSet = true;
    host.cipherSetAuthTag(this.#handle, b);
    return this;
  }
}

class Cipheriv extends CipherBase {
  constructor(cipher, key, iv, options) { super(cipher, key, iv, options, false); }
  getAuthTag() { return this[kGetAuthTag](); }
}

class Decipheriv extends CipherBase {
  constructor(cipher, key, iv, options) { super(cipher, key, iv, options, true); }
  setAuthTag(tagbuf, encoding) { return this[kSetAuthTag](tagbuf, encoding); }
}

// webcrypto: getRandomValues, randomUUID and subtle.digest.
const domException = (message, name) => new (require("internal/domexception").DOMException)(message, name);
const invalidThis = (type) => errors.codedTypeError("ERR_INVALID_THIS", 'Value of "this" must be of type ' + type);
const integerArrays = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"];
const typedArrayName = (v) => (isView(v) && !(v instanceof DataView) ? Object.prototype.toString.call(v).slice(8, -1) : "");

function getRandomValues(data) {
  if (!integerArrays.includes(typedArrayName(data))) throw domException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
  if (data.byteLength > 65536) throw domException("The requested length exceeds 65,536 bytes", "QuotaExceededError");
  host.randomFill(bytes(data));
  return data;
}

const subtleDigests = { "sha-1": "sha1", "sha-256": "sha256", "sha-384": "sha384", "sha-512": "sha512" };

class SubtleCrypto {
  constructor() { throw errors.codedTypeError("ERR_ILLEGAL_CONSTRUCTOR", "Illegal constructor"); }
  async digest(algorithm, data) {
    if (this !== subtle) throw invalidThis("SubtleCrypto");
    if (arguments.length < 2) {
      throw errors.codedTypeError("ERR_MISSING_ARGS", "Failed to execute 'digest' on 'SubtleCrypto': 2 arguments required, but only " + arguments.length + " present.");
    }
    let name = algorithm;
    if (algorithm !== null && typeof algorithm === "object") {
      if (algorithm.name === undefined) {
        throw errors.codedTypeError("ERR_MISSING_OPTION", "Failed to normalize algorithm: passed algorithm can not be converted to 'Algorithm' because 'name' is required in 'Algorithm'.");
      }
      name = algorithm.name;
    }
    const alg = subtleDigests[String(name).toLowerCase()];
    if (alg === undefined) throw domException("Unrecognized algorithm name", "NotSupportedError");
    if (!isArrayBuffer(data) && !isView(data)) {
      throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", "Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.");
    }
    const h = host.hashNew(alg, undefined, -1);
    host.hashUpdate(h, bytes(data));
    return host.hashDigest(h);
  }
}
for (const m of ["encrypt", "decrypt", "sign", "verify", "generateKey", "deriveKey", "deriveBits", "importKey", "exportKey", "wrapKey", "unwrapKey"]) {
  Object.defineProperty(SubtleCrypto.prototype, m, {
    value: { async [m]() { throw errors.unavailable("crypto.subtle." + m, "only subtle.digest is provided"); } }[m],
    writable: true, configurable: true, enumerable: true,
  });
}
Object.defineProperty(SubtleCrypto.prototype, Symbol.toStringTag, { value: "SubtleCrypto", configurable: true });
const subtle = Object.create(SubtleCrypto.prototype);

class Crypto {
  constructor() { throw errors.codedTypeError("ERR_ILLEGAL_CONSTRUCTOR", "Illegal constructor"); }
  get subtle() {
    if (this !== webcrypto) throw invalidThis("Crypto");
    return subtle;
  }
  getRandomValues(data) {
    if (this !== webcrypto) throw invalidThis("Crypto");
    return getRandomValues(data);
  }
  randomUUID() {
    if (this !== webcrypto) throw invalidThis("Crypto");
    return host.randomUUID();
  }
}
Object.defineProperty(Crypto.prototype, Symbol.toStringTag, { value: "Crypto", configurable: true });
const webcrypto = Object.create(Crypto.prototype);

const unavailable = (name, why) => function () { throw errors.unavailable("crypto." + name, why); };

module.exports = {
  createHash: (algorithm, options) => new Hash(algorithm, options),
  createHmac: (hmac, key, options) => new Hmac(hmac, key, options),
  hash, Hash, Hmac,
  getHashes: () => host.hashes.slice(),
  getCiphers: () => host.ciphers.slice(),
  getCurves: () => [],
  getFips: () => 0,
  randomBytes, pseudoRandomBytes: randomBytes, rng: randomBytes, prng: randomBytes,
  randomFill, randomFillSync, randomInt, randomUUID,
  getRandomValues: (data) => getRandomValues(data),
  timingSafeEqual,
  pbkdf2, pbkdf2Sync, scrypt, scryptSync, hkdf, hkdfSync,
  createCipheriv: (cipher, key, iv, options) => new Cipheriv(cipher, key, iv, options),
  createDecipheriv: (cipher, key, iv, options) => new Decipheriv(cipher, key, iv, options),
  Cipheriv, Decipheriv,
  createSecretKey, KeyObject,
  webcrypto, subtle,
  constants: {},
};
for (const name of ["createCipher", "createDecipher", "createSign", "createVerify", "sign", "verify", "generateKeyPair", "generateKeyPairSync", "generateKey", "generateKeySync",
  "createPublicKey", "createPrivateKey", "publicEncrypt", "privateDecrypt", "privateEncrypt", "publicDecrypt", "createDiffieHellman",
  "getDiffieHellman", "createDiffieHellmanGroup", "createECDH", "diffieHellman", "generatePrime", "generatePrimeSync", "checkPrime",
  "checkPrimeSync", "setEngine", "setFips", "secureHeapUsed", "getCipherInfo", "X509Certificate", "Certificate"]) {
  module.exports[name] = unavailable(name, "Podcode provides hashes, HMACs, random values, key derivation and AES only");
}
