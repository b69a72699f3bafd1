// node:fs and node:fs/promises. Every operation is one call of the Go half
// (node_fs.go) in one of three forms: sync (on the loop, as Node runs its
// sync calls), callback and promise (off the loop, in the runtime's file
// pools). Paths are strings, Buffers or file: URLs, relative to the
// server's directory.
"use strict";

const errors = require("internal/errors");
const { validateFunction } = require("internal/validators");
const pathMod = require("path");

let BufferCtor;
const Buffer_ = () => BufferCtor || (BufferCtor = require("buffer").Buffer);

const constants = Object.freeze({
  F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1,
  COPYFILE_EXCL: 1, COPYFILE_FICLONE: 2, COPYFILE_FICLONE_FORCE: 4,
  O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_NOCTTY: 256, O_TRUNC: 512, O_APPEND: 1024,
  O_DIRECTORY: 65536, O_NOFOLLOW: 131072, O_SYNC: 1052672, O_DSYNC: 4096, O_NONBLOCK: 2048,
  S_IFMT: 61440, S_IFREG: 32768, S_IFDIR: 16384, S_IFCHR: 8192, S_IFBLK: 24576, S_IFIFO: 4096, S_IFLNK: 40960, S_IFSOCK: 49152,
  S_IRWXU: 448, S_IRUSR: 256, S_IWUSR: 128, S_IXUSR: 64, S_IRWXG: 56, S_IRGRP: 32, S_IWGRP: 16, S_IXGRP: 8,
  S_IRWXO: 7, S_IROTH: 4, S_IWOTH: 2, S_IXOTH: 1, UV_FS_O_FILEMAP: 0,
});

// toPath is a path argument as a string: a string, a Buffer or Uint8Array
// (its UTF-8 text), or a file: URL.
function toPath(p, name) {
  if (typeof p === "string") {
    if (p.includes("\u0000")) {
      throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument '" + name + "' must be a string, Uint8Array, or URL without null bytes. Received " + errors.inspectShort(p));
    }
    return p;
  }
  if (p instanceof Uint8Array) return toPath(new TextDecoder().decode(p), name);
  if (p && typeof p === "object" && typeof p.href === "string" && typeof p.protocol === "string") {
    return require("url").fileURLToPath(p);
  }
  throw errors.invalidArgType(name, "string or an instance of Buffer or URL", p);
}

// A descriptor or a path, for the calls that take either.
function toTarget(p, name) {
  if (typeof p === "number") return checkFd(p);
  return toPath(p, name);
}

function checkFd(fd) {
  if (!Number.isInteger(fd)) throw errors.invalidArgType("fd", "number", fd);
  if (fd < 0 || fd > 2147483647) throw errors.outOfRange("fd", ">= 0 && <= 2147483647", fd);
  return fd;
}

function options(o, defaults) {
  if (o === undefined || o === null || typeof o === "function") return defaults;
  if (typeof o === "string") return Object.assign({}, defaults, { encoding: o });
  if (typeof o !== "object") throw errors.invalidArgType("options", "string or an instance of Object", o);
  return Object.assign({}, defaults, o);
}

const ENCODINGS = ["utf8", "utf-8", "ascii", "latin1", "binary", "base64", "base64url", "hex", "ucs2", "ucs-2", "utf16le", "utf-16le", "buffer"];
function checkEncoding(enc) {
  if (!enc) return null;
  const e = String(enc).toLowerCase();
  if (!ENCODINGS.includes(e)) {
    throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'encoding' is invalid encoding. Received " + errors.inspectShort(enc));
  }
  return e === "buffer" ? null : e;
}
const isUtf8 = (e) => e === "utf8" || e === "utf-8";

function modeNum(m, dflt) {
  if (m === undefined || m === null) return dflt;
  if (typeof m === "string") {
    if (!/^[0-7]+$/.test(m)) throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'mode' must be a 32-bit unsigned integer or an octal string. Received " + errors.inspectShort(m));
    return parseInt(m, 8);
  }
  return m >>> 0;
}

function flagStr(f, dflt) {
  if (f === undefined || f === null) return dflt;
  if (typeof f === "number") {
    const acc = f & 3;
    let s = acc === 0 ? "r" : acc === 1 ? "w" : "w+";
    if (f & constants.O_APPEND) s = acc === 2 ? "a+" : "a";
    if (acc === 2 && !(f & constants.O_CREAT)) s = "r+";
    if (f & constants.O_EXCL) s = s[0] + "x" + s.slice(1);
    return s;
  }
  return String(f);
}

// data is what writeFile writes: a string (UTF-8, or its encoding turned
// into bytes here) or bytes.
function toData(data, encoding) {
  if (typeof data === "string") {
    const e = checkEncoding(encoding) || "utf8";
    return isUtf8(e) ? data : Buffer_().from(data, e);
  }
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw errors.invalidArgType("data", "string or an instance of Buffer, TypedArray, or DataView", data);
}

// decode turns what the Go half read (an ArrayBuffer, or a string when
// asked for UTF-8) into Node's result for encoding.
function decode(v, encoding) {
  if (typeof v === "string") return v;
  const b = Buffer_().from(v);
  return encoding ? b.toString(encoding) : b;
}

class Stats {
  constructor(f) {
    [this.dev, this.mode, this.nlink, this.uid, this.gid, this.rdev, this.blksize, this.ino, this.size, this.blocks,
      this.atimeMs, this.mtimeMs, this.ctimeMs, this.birthtimeMs] = f;
    this.atime = new Date(this.atimeMs);
    this.mtime = new Date(this.mtimeMs);
    this.ctime = new Date(this.ctimeMs);
    this.birthtime = new Date(this.birthtimeMs);
  }
  isFile() { return (this.mode & constants.S_IFMT) === constants.S_IFREG; }
  isDirectory() { return (this.mode & constants.S_IFMT) === constants.S_IFDIR; }
  isSymbolicLink() { return (this.mode & constants.S_IFMT) === constants.S_IFLNK; }
  isFIFO() { return (this.mode & constants.S_IFMT) === constants.S_IFIFO; }
  isSocket() { return (this.mode & constants.S_IFMT) === constants.S_IFSOCK; }
  isCharacterDevice() { return (this.mode & constants.S_IFMT) === constants.S_IFCHR; }
  isBlockDevice() { return (this.mode & constants.S_IFMT) === constants.S_IFBLK; }
}

class BigIntStats extends Stats {
  constructor(f) {
    super(f);
    for (const k of ["dev", "mode", "nlink", "uid", "gid", "rdev", "blksize", "ino", "size", "blocks"]) this[k] = BigInt(this[k]);
    for (const k of ["atime", "mtime", "ctime", "birthtime"]) {
      this[k + "Ns"] = BigInt(Math.round(this[k + "Ms"] * 1e6));
      this[k + "Ms"] = BigInt(Math.floor(this[k + "Ms"]));
    }
  }
  isFile() { return (Number(this.mode) & constants.S_IFMT) === constants.S_IFREG; }
  isDirectory() { return (Number(this.mode) & constants.S_IFMT) === constants.S_IFDIR; }
  isSymbolicLink() { return (Number(this.mode) & constants.S_IFMT) === constants.S_IFLNK; }
  isFIFO() { return (Number(this.mode) & constants.S_IFMT) === constants.S_IFIFO; }
  isSocket() { return (Number(this.mode) & constants.S_IFMT) === constants.S_IFSOCK; }
  isCharacterDevice() { return (Number(this.mode) & constants.S_IFMT) === constants.S_IFCHR; }
  isBlockDevice() { return (Number(this.mode) & constants.S_IFMT) === constants.S_IFBLK; }
}

// A Dirent's type is the Go half's number (UV_DIRENT_*: 1 file, 2 folder,
// 3 link, 4 FIFO, 5 socket, 6 character device, 7 block device).
const kType = Symbol("type");
class Dirent {
  constructor(name, type, dir) {
    this.name = name;
    this.parentPath = dir;
    this.path = dir;
    this[kType] = type;
  }
  isFile() { return this[kType] === 1; }
  isDirectory() { return this[kType] === 2; }
  isSymbolicLink() { return this[kType] === 3; }
  isFIFO() { return this[kType] === 4; }
  isSocket() { return this[kType] === 5; }
  isCharacterDevice() { return this[kType] === 6; }
  isBlockDevice() { return this[kType] === 7; }
}

// Each operation: how its arguments become the Go half's, and how the Go
// half's result becomes Node's. args(…) returns [op, goArgs, post].
const ops = {
  readFile(p, o) {
    o = options(o, { encoding: null, flag: "r" });
    const enc = checkEncoding(o.encoding);
    return ["readFile", [toTarget(p, "path"), enc !== null && isUtf8(enc), flagStr(o.flag, "r")], (v) => decode(v, enc)];
  },
  writeFile(p, data, o) {
    o = options(o, { encoding: "utf8", mode: 0o666, flag: "w" });
    return ["writeFile", [toTarget(p, "path"), toData(data, o.encoding), flagStr(o.flag, "w"), modeNum(o.mode, 0o666)]];
  },
  appendFile(p, data, o) {
    o = options(o, { encoding: "utf8", mode: 0o666, flag: "a" });
    return ["writeFile", [toTarget(p, "path"), toData(data, o.encoding), flagStr(o.flag, "a"), modeNum(o.mode, 0o666)]];
  },
  stat(p, o) {
    o = options(o, {});
    return ["stat", [toPath(p, "path"), true, o.throwIfNoEntry !== false], (f) => f === undefined ? undefined : o.bigint ? new BigIntStats(f) : new Stats(f)];
  },
  lstat(p, o) {
    o = options(o, {});
    return ["stat", [toPath(p, "path"), false, o.throwIfNoEntry !== false], (f) => f === undefined ? undefined : o.bigint ? new BigIntStats(f) : new Stats(f)];
  },
  fstat(fd, o) {
    o = options(o, {});
    return ["fstat", [checkFd(fd)], (f) => o.bigint ? new BigIntStats(f) : new Stats(f)];
  },
  readdir(p, o) {
    o = options(o, { encoding: "utf8", withFileTypes: false });
    const dir = toPath(p, "path");
    if (o.recursive) return ["readdir", [dir, true], null, (sync) => readdirRecursive(dir, o, sync)];
    return ["readdir", [dir, !!o.withFileTypes], (list) => {
      if (!o.withFileTypes) return o.encoding === "buffer" ? list.map((n) => Buffer_().from(n)) : list;
      const out = [];
      for (let i = 0; i < list.length; i += 2) out.push(new Dirent(list[i], list[i + 1], dir));
      return out;
    }];
  },
  mkdir(p, o) {
    if (typeof o === "number" || typeof o === "string") o = { mode: o };
    o = options(o, { recursive: false, mode: 0o777 });
    return ["mkdir", [toPath(p, "path"), !!o.recursive, modeNum(o.mode, 0o777)]];
  },
  rm(p, o) {
    o = options(o, {});
    return ["rm", [toPath(p, "path"), !!o.recursive, !!o.force], undefined, undefined, (e) => {
      if (e && e.message && e.message.startsWith("Path is a directory")) {
        const err = errors.codedError("ERR_FS_EISDIR", e.message);
        err.errno = 21; err.syscall = "rm"; err.path = toPath(p, "path");
        return err;
      }
      return e;
    }];
  },
  rmdir(p, o) {
    o = options(o, {});
    return ["rmdir", [toPath(p, "path"), !!o.recursive]];
  },
  unlink(p) { return ["unlink", [toPath(p, "path")]]; },
  rename(a, b) { return ["rename", [toPath(a, "oldPath"), toPath(b, "newPath")]]; },
  copyFile(a, b, mode) { return ["copyFile", [toPath(a, "src"), toPath(b, "dest"), mode | 0]]; },
  access(p, mode) { return ["access", [toPath(p, "path"), mode === undefined ? 0 : mode | 0]]; },
  realpath(p, o) {
    o = options(o, { encoding: "utf8" });
    return ["realpath", [toPath(p, "path")], (v) => o.encoding === "buffer" ? Buffer_().from(v) : v];
  },
  readlink(p, o) {
    o = options(o, { encoding: "utf8" });
    return ["readlink", [toPath(p, "path")], (v) => o.encoding === "buffer" ? Buffer_().from(v) : v];
  },
  symlink(target, p) { return ["symlink", [toPath(target, "target"), toPath(p, "path")]]; },
  link(existing, p) { return ["link", [toPath(existing, "existingPath"), toPath(p, "newPath")]]; },
  chmod(p, mode) { return ["chmod", [toPath(p, "path"), modeNum(mode, 0)]]; },
  utimes(p, atime, mtime) { return ["utimes", [toPath(p, "path"), toSeconds(atime), toSeconds(mtime)]]; },
  truncate(p, len) {
    if (typeof p === "number") return ["ftruncate", [checkFd(p), len | 0]];
    return ["truncate", [toPath(p, "path"), len | 0]];
  },
  ftruncate(fd, len) { return ["ftruncate", [checkFd(fd), len | 0]]; },
  mkdtemp(prefix) {
    if (typeof prefix !== "string") throw errors.invalidArgType("prefix", "string", prefix);
    return ["mkdtemp", [prefix]];
  },
  open(p, flags, mode) { return ["open", [toPath(p, "path"), flagStr(flags, "r"), modeNum(mode, 0o666)]]; },
  close(fd) { return ["close", [checkFd(fd)]]; },
  fsync(fd) { return ["fsync", [checkFd(fd)]]; },
  fdatasync(fd) { return ["fsync", [checkFd(fd)]]; },
};

function toSeconds(t) {
  if (t instanceof Date) return t.getTime() / 1000;
  if (typeof t === "string" && t !== "" && !Number.isNaN(Number(t))) return Number(t);
  if (typeof t === "number") return t;
  throw errors.invalidArgType("time", "number or an instance of Date", t);
}

// readdirRecursive lists a folder and everything under it, as Node's
// recursive readdir: names relative to dir, each folder's entries after it.
function readdirRecursive(dir, o, sync) {
  const out = [];
  const walk = (rel) => {
    const list = sync ? host.sync("readdir", rel ? pathMod.join(dir, rel) : dir, true) : null;
    const step = (list) => {
      const subdirs = [];
      for (let i = 0; i < list.length; i += 2) {
        const name = rel ? pathMod.join(rel, list[i]) : list[i];
        out.push(o.withFileTypes ? new Dirent(list[i], list[i + 1], rel ? pathMod.join(dir, rel) : dir) : name);
        if (list[i + 1] === 2) subdirs.push(name);
      }
      return subdirs;
    };
    if (sync) {
      for (const d of step(list)) walk(d);
      return undefined;
    }
    return host.async("readdir", rel ? pathMod.join(dir, rel) : dir, true).then((l) => {
      let chain = Promise.resolve();
      for (const d of step(l)) chain = chain.then(() => walk(d));
      return chain;
    });
  };
  if (sync) {
    walk("");
    return out;
  }
  return walk("").then(() => out);
}

function runSync(name, args) {
  const [op, goArgs, post, custom, mapErr] = ops[name](...args);
  if (custom) return custom(true);
  try {
    const v = host.sync(op, ...goArgs);
    return post ? post(v) : v;
  } catch (e) {
    throw mapErr ? mapErr(e) : e;
  }
}

function runAsync(name, args) {
  let prepared;
  try {
    prepared = ops[name](...args);
  } catch (e) {
    return Promise.reject(e);
  }
  const [op, goArgs, post, custom, mapErr] = prepared;
  if (custom) return custom(false);
  const p = host.async(op, ...goArgs);
  return p.then(post || ((v) => v), mapErr ? (e) => { throw mapErr(e); } : undefined);
}

const fs = { constants, Stats, Dirent };
const promises = { constants };

for (const name of Object.keys(ops)) {
  fs[name + "Sync"] = function (...args) { return runSync(name, args); };
  promises[name] = function (...args) { return runAsync(name, args); };
  fs[name] = function (...args) {
    const cb = args.pop();
    validateFunction(cb, "cb");
    runAsync(name, args).then((v) => cb(null, v), (e) => cb(e));
  };
}

// existsSync never throws; exists is the deprecated callback form with a
// boolean.
fs.existsSync = function existsSync(p) {
  try {
    return host.sync("exists", toPath(p, "path"));
  } catch (e) {
    return false;
  }
};
fs.exists = function exists(p, cb) {
  validateFunction(cb, "cb");
  let path;
  try { path = toPath(p, "path"); } catch (e) { queueMicrotask(() => cb(false)); return; }
  host.async("exists", path).then((v) => cb(v), () => cb(false));
};
fs.realpathSync.native = fs.realpathSync;
fs.realpath.native = fs.realpath;

// Descriptors: read and write move bytes between a descriptor and a
// buffer, as Node's do.
function readArgs(fd, buffer, offsetOrOptions, length, position) {
  checkFd(fd);
  let offset = offsetOrOptions;
  if (offsetOrOptions !== null && typeof offsetOrOptions === "object") {
    ({ offset = 0, length = buffer.byteLength - offset, position = null } = offsetOrOptions);
  }
  if (offset === undefined) offset = 0;
  if (length === undefined) length = buffer.byteLength - offset;
  if (position === undefined || position === null || typeof position !== "number" && typeof position !== "bigint") position = -1;
  if (offset < 0 || offset > buffer.byteLength) throw errors.outOfRange("offset", ">= 0 && <= " + buffer.byteLength, offset);
  if (length < 0 || offset + length > buffer.byteLength) throw errors.outOfRange("length", ">= 0 && <= " + (buffer.byteLength - offset), length);
  return { offset, length, position: Number(position) };
}

function copyInto(buffer, offset, ab) {
  const src = new Uint8Array(ab);
  new Uint8Array(buffer.buffer, buffer.byteOffset + offset, src.length).set(src);
  return src.length;
}

fs.readSync = function readSync(fd, buffer, offset, length, position) {
  const a = readArgs(fd, buffer, offset, length, position);
  return copyInto(buffer, a.offset, host.sync("read", fd, a.length, a.position));
};
fs.read = function read(fd, buffer, offset, length, position, cb) {
  cb = [buffer, offset, length, position, cb].reverse().find((f) => typeof f === "function");
  if (typeof buffer === "function" || buffer === undefined) buffer = Buffer_().alloc(16384);
  if (typeof offset === "function") offset = undefined;
  if (typeof length === "function") length = undefined;
  if (typeof position === "function") position = undefined;
  let a;
  try { a = readArgs(fd, buffer, offset, length, position); } catch (e) { queueMicrotask(() => cb(e)); return; }
  host.async("read", fd, a.length, a.position).then((ab) => cb(null, copyInto(buffer, a.offset, ab), buffer), (e) => cb(e));
};

function writeArgs(buffer, offset, length, position) {
  if (typeof buffer === "string") {
    // write(fd, string, position, encoding)
    const enc = typeof length === "string" ? length : "utf8";
    return { data: toData(buffer, enc), position: typeof offset === "number" ? offset : -1 };
  }
  if (offset !== null && typeof offset === "object") ({ offset = 0, length, position = null } = offset);
  offset = offset === undefined || offset === null ? 0 : offset;
  length = length === undefined || length === null ? buffer.byteLength - offset : length;
  const view = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length);
  return { data: view, position: typeof position === "number" ? position : -1 };
}

fs.writeSync = function writeSync(fd, buffer, offset, length, position) {
  checkFd(fd);
  const a = writeArgs(buffer, offset, length, position);
  return host.sync("write", fd, a.data, a.position);
};
fs.write = function write(fd, buffer, ...rest) {
  const cb = rest.pop();
  validateFunction(cb, "cb");
  let a;
  try { checkFd(fd); a = writeArgs(buffer, ...rest); } catch (e) { queueMicrotask(() => cb(e)); return; }
  host.async("write", fd, a.data, a.position).then((n) => cb(null, n, buffer), (e) => cb(e));
};

// cp copies a file or, with recursive, a folder, as Node's fs.cp.
function cpSync(src, dest, o) {
  o = options(o, {});
  src = toPath(src, "src");
  dest = toPath(dest, "dest");
  const st = fs.statSync(src);
  if (st.isDirectory()) {
    if (!o.recursive) {
      const e = errors.codedError("ERR_FS_EISDIR", "Recursive option is required to copy a directory: " + src);
      e.syscall = "cp"; e.path = src;
      throw e;
    }
    fs.mkdirSync(dest, { recursive: true });
    for (const name of fs.readdirSync(src)) cpSync(pathMod.join(src, name), pathMod.join(dest, name), o);
    return;
  }
  if (o.force === false && fs.existsSync(dest)) {
    if (o.errorOnExist) {
      const e = errors.codedError("ERR_FS_CP_EEXIST", "Target already exists: cp returned EEXIST (" + dest + " already exists)");
      throw e;
    }
    return;
  }
  fs.copyFileSync(src, dest);
}
fs.cpSync = cpSync;
promises.cp = (src, dest, o) => new Promise((resolve, reject) => { try { cpSync(src, dest, o); resolve(); } catch (e) { reject(e); } });
fs.cp = function cp(src, dest, o, cb) {
  if (typeof o === "function") { cb = o; o = undefined; }
  validateFunction(cb, "cb");
  promises.cp(src, dest, o).then(() => cb(null), (e) => cb(e));
};

// opendir: a Dir over readdir's entries.
class Dir {
  constructor(path, entries) { this.path = path; this._entries = entries; this._closed = false; }
  readSync() { return this._entries.shift() || null; }
  read(cb) {
    const p = Promise.resolve(this._entries.shift() || null);
    if (typeof cb === "function") { p.then((d) => cb(null, d)); return undefined; }
    return p;
  }
  closeSync() { this._closed = true; }
  close(cb) { this._closed = true; if (typeof cb === "function") { queueMicrotask(() => cb(null)); return undefined; } return Promise.resolve(); }
  [Symbol.asyncIterator]() {
    const entries = this._entries;
    return { next: () => Promise.resolve(entries.length ? { value: entries.shift(), done: false } : { value: undefined, done: true }), [Symbol.asyncIterator]() { return this; } };
  }
  [Symbol.iterator]() { return this._entries[Symbol.iterator](); }
}
fs.Dir = Dir;
fs.opendirSync = (p) => new Dir(toPath(p, "path"), fs.readdirSync(p, { withFileTypes: true }));
promises.opendir = (p) => promises.readdir(p, { withFileTypes: true }).then((e) => new Dir(toPath(p, "path"), e));
fs.opendir = (p, o, cb) => {
  if (typeof o === "function") cb = o;
  promises.opendir(p).then((d) => cb(null, d), (e) => cb(e));
};

// FileHandle: fs/promises' descriptor. fs/promises has no close or fstat
// of its own; the handle's methods are those calls.
const fd = {
  close: (n) => runAsync("close", [n]), fstat: (n, o) => runAsync("fstat", [n, o]),
  ftruncate: (n, len) => runAsync("ftruncate", [n, len]), fsync: (n) => runAsync("fsync", [n]),
};
for (const name of ["close", "fstat", "ftruncate", "fsync", "fdatasync"]) delete promises[name];

class FileHandle {
  constructor(n) { this.fd = n; }
  async read(buffer, offset, length, position) {
    if (buffer === undefined || buffer === null || !ArrayBuffer.isView(buffer)) {
      const o = buffer || {};
      buffer = o.buffer || Buffer_().alloc(16384);
      ({ offset = 0, length = buffer.byteLength - offset, position = null } = o);
    }
    const a = readArgs(this.fd, buffer, offset, length, position);
    const ab = await host.async("read", this.fd, a.length, a.position);
    return { bytesRead: copyInto(buffer, a.offset, ab), buffer };
  }
  async write(buffer, ...rest) {
    const a = writeArgs(buffer, ...rest);
    const n = await host.async("write", this.fd, a.data, a.position);
    return { bytesWritten: n, buffer };
  }
  readFile(o) { return promises.readFile(this.fd, o); }
  writeFile(data, o) { return promises.writeFile(this.fd, data, o); }
  appendFile(data, o) { return promises.writeFile(this.fd, data, o); }
  stat(o) { return fd.fstat(this.fd, o); }
  truncate(len) { return fd.ftruncate(this.fd, len); }
  sync() { return fd.fsync(this.fd); }
  datasync() { return fd.fsync(this.fd); }
  close() { const n = this.fd; this.fd = -1; return n < 0 ? Promise.resolve() : fd.close(n); }
}
promises.open = (p, flags, mode) => runAsync("open", [p, flags, mode]).then((n) => new FileHandle(n));
promises.FileHandle = FileHandle;

// Streams, made on first use (node/internal.fs.streams.js).
fs.createReadStream = (p, o) => new (require("internal/fs/streams").ReadStream)(p, o, fs);
fs.createWriteStream = (p, o) => new (require("internal/fs/streams").WriteStream)(p, o, fs);
Object.defineProperty(fs, "ReadStream", { get: () => require("internal/fs/streams").ReadStream, enumerable: true });
Object.defineProperty(fs, "WriteStream", { get: () => require("internal/fs/streams").WriteStream, enumerable: true });

// What Podcode does not provide: watching asks the kernel for a stream of
// events per file that a plugin could hold open without bound.
for (const name of ["watch", "watchFile", "unwatchFile"]) {
  fs[name] = () => { throw errors.unavailable("fs." + name, "poll with fs.stat on a timer instead"); };
}
promises.watch = () => { throw errors.unavailable("fs.promises.watch", "poll with fs.stat on a timer instead"); };

fs.promises = promises;
fs.F_OK = 0; fs.R_OK = 4; fs.W_OK = 2; fs.X_OK = 1;
module.exports = fs;
