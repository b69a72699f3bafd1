// fs.ReadStream and fs.WriteStream (fs.createReadStream and
// fs.createWriteStream), as Node's: a path or a descriptor (fd, or a
// FileHandle), flags, mode, start and end, encoding, highWaterMark (64 KiB
// for reads), autoClose, emitClose, 'open' and 'ready', bytesRead and
// bytesWritten, pending, close(cb). Every read, write, open and close is
// the callback form of the fs object given (node:fs's own, unless
// options.fs replaces it), so the bounds of node:fs hold: its file pools,
// the descriptors a plugin may hold, and the bytes a write may hold.
//
// How it differs from Node's: there is no writev (node:fs has none here:
// chunks queued meanwhile are written one after another), and the flush
// option and the deprecated open() method are not provided.
"use strict";

const stream = require("stream");
const { Readable, Writable, finished } = stream;
const errorOrDestroy = stream[Symbol.for("podcode.stream.errorOrDestroy")];
const errors = require("internal/errors");
const { validateFunction, validateInteger } = require("internal/validators");

const kFs = Symbol("kFs");
const kIsPerformingIO = Symbol("kIsPerformingIO");
const kIoDone = Symbol("kIoDone");

let BufferCtor;
const Buf = () => BufferCtor || (BufferCtor = require("buffer").Buffer);

function getOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options === "string") return { encoding: options };
  if (typeof options !== "object") {
    throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "options" argument must be one of type string or object.' + errors.received(options));
  }
  return Object.assign({}, options);
}

function checkPath(path) {
  if (typeof path === "string" || path instanceof Uint8Array) return path;
  if (path && typeof path === "object" && typeof path.href === "string" && typeof path.protocol === "string") {
    return require("url").fileURLToPath(path);
  }
  throw errors.invalidArgType("path", "of type string or an instance of Buffer or URL", path);
}

// importFd is options.fd as a number: a FileHandle lends its descriptor.
function importFd(options) {
  let fd = options.fd;
  if (fd !== null && typeof fd === "object" && typeof fd.fd === "number") fd = fd.fd;
  validateInteger(fd, "fd", 0, 2147483647);
  return fd;
}

// openStream opens the file before the first read or write.
function openStream(callback) {
  const stream = this;
  if (typeof stream.fd === "number") {
    callback();
    return;
  }
  stream[kFs].open(stream.path, stream.flags, stream.mode, (er, fd) => {
    if (er) {
      callback(er);
    } else {
      stream.fd = fd;
      callback();
      stream.emit("open", stream.fd);
      stream.emit("ready");
    }
  });
}

function closeStream(stream, err, cb) {
  if (!stream.fd) {
    cb(err);
  } else {
    stream[kFs].close(stream.fd, (er) => { cb(er || err); });
    stream.fd = null;
  }
}

// destroyAfterIO closes the file once the read or write under way is back.
function destroyAfterIO(err, cb) {
  if (this[kIsPerformingIO]) this.once(kIoDone, (er) => closeStream(this, err || er, cb));
  else closeStream(this, err, cb);
}

function useFs(stream, options, needed) {
  stream[kFs] = options.fs || require("fs");
  for (const name of needed) validateFunction(stream[kFs][name], "options.fs." + name);
}

function ReadStream(path, options) {
  if (!(this instanceof ReadStream)) return new ReadStream(path, options);
  options = getOptions(options);
  if (options.highWaterMark === undefined) options.highWaterMark = 64 * 1024;
  useFs(this, options, ["open", "read", "close"]);
  options.autoDestroy = options.autoClose === undefined ? true : options.autoClose;
  if (options.fd == null) {
    this.fd = null;
    this.path = checkPath(path);
    this.flags = options.flags === undefined ? "r" : options.flags;
    this.mode = options.mode === undefined ? 0o666 : options.mode;
  } else {
    this.fd = importFd(options);
  }
  this.start = options.start;
  this.end = options.end === undefined ? Infinity : options.end;
  this.pos = undefined;
  this.bytesRead = 0;
  this[kIsPerformingIO] = false;
  if (this.start !== undefined) {
    validateInteger(this.start, "start", 0);
    this.pos = this.start;
  }
  if (this.end !== Infinity) {
    validateInteger(this.end, "end", 0);
    if (this.start !== undefined && this.start > this.end) {
      throw errors.outOfRange("start", '<= "end" (here: ' + this.end + ")", this.start);
    }
  }
  Readable.call(this, options);
}
Object.setPrototypeOf(ReadStream.prototype, Readable.prototype);
Object.setPrototypeOf(ReadStream, Readable);

Object.defineProperty(ReadStream.prototype, "autoClose", {
  get() { return this._readableState.autoDestroy; },
  set(v) { this._readableState.autoDestroy = v; },
  configurable: true,
});
Object.defineProperty(ReadStream.prototype, "pending", {
  get() { return this.fd === null; },
  configurable: true,
});

ReadStream.prototype._construct = openStream;

ReadStream.prototype._read = function (n) {
  n = this.pos !== undefined ? Math.min(this.end - this.pos + 1, n) : Math.min(this.end - this.bytesRead + 1, n);
  if (n <= 0) {
    this.push(null);
    return;
  }
  const buf = Buf().allocUnsafe(n);
  this[kIsPerformingIO] = true;
  this[kFs].read(this.fd, buf, 0, n, this.pos, (er, bytesRead) => {
    this[kIsPerformingIO] = false;
    if (this.destroyed) {
      // destroyed meanwhile: the file closes now
      this.emit(kIoDone, er);
      return;
    }
    if (er) {
      errorOrDestroy(this, er);
    } else if (bytesRead > 0) {
      if (this.pos !== undefined) this.pos += bytesRead;
      this.bytesRead += bytesRead;
      // a short read keeps only what it read, not the whole buffer
      this.push(bytesRead === buf.length ? buf : Buf().from(buf.subarray(0, bytesRead)));
    } else {
      this.push(null);
    }
  });
};

ReadStream.prototype._destroy = destroyAfterIO;

ReadStream.prototype.close = function (cb) {
  if (typeof cb === "function") finished(this, cb);
  this.destroy();
};

function WriteStream(path, options) {
  if (!(this instanceof WriteStream)) return new WriteStream(path, options);
  options = getOptions(options);
  options.decodeStrings = true;
  useFs(this, options, ["open", "write", "close"]);
  options.autoDestroy = options.autoClose === undefined ? true : options.autoClose;
  if (options.fd == null) {
    this.fd = null;
    this.path = checkPath(path);
    this.flags = options.flags === undefined ? "w" : options.flags;
    this.mode = options.mode === undefined ? 0o666 : options.mode;
  } else {
    this.fd = importFd(options);
  }
  this.start = options.start;
  this.pos = undefined;
  this.bytesWritten = 0;
  this[kIsPerformingIO] = false;
  if (this.start !== undefined) {
    validateInteger(this.start, "start", 0);
    this.pos = this.start;
  }
  Writable.call(this, options);
  if (options.encoding) this.setDefaultEncoding(options.encoding);
}
Object.setPrototypeOf(WriteStream.prototype, Writable.prototype);
Object.setPrototypeOf(WriteStream, Writable);

Object.defineProperty(WriteStream.prototype, "autoClose", {
  get() { return this._writableState.autoDestroy; },
  set(v) { this._writableState.autoDestroy = v; },
  configurable: true,
});
Object.defineProperty(WriteStream.prototype, "pending", {
  get() { return this.fd === null; },
  configurable: true,
});

WriteStream.prototype._construct = openStream;

// writeAll writes data whole: a short write writes the rest after it.
function writeAll(data, size, pos, cb, retries) {
  this[kFs].write(this.fd, data, 0, size, pos, (er, bytesWritten) => {
    if (er && er.code === "EAGAIN") {
      er = null;
      bytesWritten = 0;
    }
    if (this.destroyed || er) {
      cb(er || errors.codedError("ERR_STREAM_DESTROYED", "Cannot call write after a stream was destroyed"));
      return;
    }
    this.bytesWritten += bytesWritten;
    retries = bytesWritten ? 0 : (retries || 0) + 1;
    size -= bytesWritten;
    if (pos !== undefined) pos += bytesWritten;
    if (retries > 5) cb(new Error("writeAll failed"));
    else if (size) writeAll.call(this, data.subarray(bytesWritten), size, pos, cb, retries);
    else cb();
  });
}

WriteStream.prototype._write = function (data, encoding, cb) {
  this[kIsPerformingIO] = true;
  writeAll.call(this, data, data.length, this.pos, (er) => {
    this[kIsPerformingIO] = false;
    if (this.destroyed) {
      cb(er);
      this.emit(kIoDone, er);
      return;
    }
    cb(er);
  });
  if (this.pos !== undefined) this.pos += data.length;
};

WriteStream.prototype._destroy = destroyAfterIO;

WriteStream.prototype.close = function (cb) {
  if (cb) {
    if (this.closed) {
      require("process").nextTick(cb);
      return;
    }
    this.on("close", cb);
  }
  // without autoClose, 'finish' is when to close
  if (!this.autoClose) this.on("finish", this.destroy);
  this.end();
};
WriteStream.prototype.destroySoon = WriteStream.prototype.end;

module.exports = { ReadStream, WriteStream };
