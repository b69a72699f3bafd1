// Bun's APIs that published opencode plugins use: the module "bun" and the
// global Bun, with $ (Bun's shell), file, write, Glob, env, sleep and
// which. $ runs its script with bash through child_process's path (the
// guard, tool name plugin_exec, api "$"; the sandbox where commands are
// confined), with interpolated values quoted as Bun quotes them: a string
// is one literal word, an array one word per element, {raw} unquoted.
// What differs from Bun (docs/plugins.md): the script is bash's, so a
// command that is not found exits 127 with bash's message, ${VAR} is
// expanded, and Bun's own builtins are bash's or the system's; JavaScript
// objects (buffers, responses) cannot be redirection targets.
"use strict";

const errors = require("internal/errors");
const pathMod = require("path");
const fs = require("fs");

let BufferCtor;
const Buffer_ = () => BufferCtor || (BufferCtor = require("buffer").Buffer);

// Bun's characters that make $.escape quote a string.
const SPECIAL = new Set("~[]#;\n*{,}`$=()0123456789|><&'\" \\\b");

function escape(s) {
  if (arguments.length < 1) throw new Error("shell escape expected at least 1 argument");
  s = String(s);
  for (const c of s) {
    if (SPECIAL.has(c)) return '"' + s.replace(/[$`"\\]/g, (m) => "\\" + m) + '"';
  }
  return s;
}

// bashWord is s as one literal word of bash; a leading ~ (alone or before
// a slash) stays the home folder, as Bun expands it.
function bashWord(s) {
  if (s.includes("\u0000")) {
    throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The shell argument must be a string without null bytes. Received " + JSON.stringify(s));
  }
  const q = (t) => (t === "" ? "''" : /^[A-Za-z0-9_@%+=:,./-]+$/.test(t) ? t : "'" + t.replace(/'/g, "'\\''") + "'");
  if (s === "~") return "~";
  if (s.startsWith("~/")) return "~/" + (s.length > 2 ? q(s.slice(2)) : "");
  return q(s);
}

function interpolate(v) {
  if (Array.isArray(v)) return v.map(interpolate).join(" ");
  if (v !== null && typeof v === "object") {
    if (Object.prototype.hasOwnProperty.call(v, "raw") && v.raw) return String(v.raw);
    if (v instanceof BunFile) return bashWord(v.name);
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer || typeof v.then === "function" || typeof v.arrayBuffer === "function") {
      throw errors.unavailable("$ with " + (typeof v.then === "function" ? "a promise" : "a JavaScript object") + " interpolated", "Podcode's $ runs its script with bash; pass text");
    }
    if (typeof v.toString === "function" && v.toString !== Object.prototype.toString) return bashWord(String(v));
    throw new Error("Invalid JS object used in shell: " + Object.prototype.toString.call(v) + ", you might need to call `.toString()` on it");
  }
  return bashWord(String(v));
}

class ShellError extends Error {
  constructor() {
    super("");
    this.name = "ShellError";
  }
  initialize(out, code) {
    this.message = "Failed with exit code " + code;
    this.exitCode = code;
    this.stdout = out.stdout;
    this.stderr = out.stderr;
    Object.defineProperty(this, "info", { value: { exitCode: code, stdout: out.stdout, stderr: out.stderr }, enumerable: false });
  }
  text(enc) { return this.stdout.toString(enc); }
  json() { return JSON.parse(this.stdout.toString()); }
  arrayBuffer() { return this.stdout.buffer.slice(this.stdout.byteOffset, this.stdout.byteOffset + this.stdout.byteLength); }
  bytes() { return new Uint8Array(this.arrayBuffer()); }
}

class ShellOutput {
  constructor(stdout, stderr, exitCode) {
    this.stdout = stdout;
    this.stderr = stderr;
    this.exitCode = exitCode;
  }
  text(enc) { return this.stdout.toString(enc); }
  json() { return JSON.parse(this.stdout.toString()); }
  arrayBuffer() { return this.stdout.buffer.slice(this.stdout.byteOffset, this.stdout.byteOffset + this.stdout.byteLength); }
  bytes() { return new Uint8Array(this.arrayBuffer()); }
}

// ShellPromise is lazy, as Bun's: nothing runs until it is awaited (then)
// or run.
class ShellPromise {
  constructor(script, shell) {
    this._script = script;
    this._cwd = shell._cwd;
    this._env = shell._env;
    this._throws = shell._throws;
    this._quiet = false;
    this._promise = null;
    this._error = new ShellError(); // its stack is where $ was called, as Bun's
  }
  _check() { if (this._promise) throw new Error("Shell is already running"); }
  cwd(dir) { this._check(); this._cwd = dir; return this; }
  env(env) { this._check(); this._env = env === undefined ? undefined : Object.assign({}, env); return this; }
  quiet(q) { this._quiet = q === undefined ? true : !!q; return this; }
  nothrow() { this._throws = false; return this; }
  throws(b) { this._throws = !!b; return this; }
  run() {
    if (!this._promise) this._promise = this._start();
    return this;
  }
  _start() {
    const cp = require("child_process");
    return new Promise((resolve, reject) => {
      const options = { cwd: this._cwd || undefined, stdio: "pipe", _api: "$" };
      if (this._env !== undefined) options.env = this._env;
      const child = cp._spawn("$", "bash", ["-c", this._script], options);
      const out = [], err = [];
      child.stdout.on("data", (b) => { out.push(b); if (!this._quiet) process.stdout.write(b); });
      child.stderr.on("data", (b) => { err.push(b); if (!this._quiet) process.stderr.write(b); });
      child.on("error", reject);
      child.on("close", (code, sig) => {
        const exitCode = code === null ? 128 + (require("os").constants.signals[sig] || 0) : code;
        const res = new ShellOutput(Buffer_().concat(out), Buffer_().concat(err), exitCode);
        if (this._throws && exitCode !== 0) {
          this._error.initialize(res, exitCode);
          reject(this._error);
        } else {
          resolve(res);
        }
      });
      child.stdin.end();
    });
  }
  then(onFulfilled, onRejected) { this.run(); return this._promise.then(onFulfilled, onRejected); }
  catch(onRejected) { return this.then(undefined, onRejected); }
  finally(fn) { this.run(); return this._promise.finally(fn); }
  text(enc) { this.quiet(); return this.then((o) => o.text(enc)); }
  json() { this.quiet(); return this.then((o) => o.json()); }
  arrayBuffer() { this.quiet(); return this.then((o) => o.arrayBuffer()); }
  bytes() { this.quiet(); return this.then((o) => o.bytes()); }
  blob() { this.quiet(); return this.then((o) => new (require("buffer").Blob)([o.stdout])); }
  lines() {
    this.quiet();
    let list = null;
    const p = this.then((o) => { list = o.stdout.toString().split("\n"); });
    return {
      next: () => p.then(() => (list.length ? { value: list.shift(), done: false } : { value: undefined, done: true })),
      return: () => Promise.resolve({ value: undefined, done: true }),
      [Symbol.asyncIterator]() { return this; },
    };
  }
  get [Symbol.toStringTag]() { return "ShellPromise"; }
}

// makeShell is a $ with its own defaults (new $.Shell()).
function makeShell() {
  const shell = { _cwd: undefined, _env: undefined, _throws: true };
  const $ = function (strings, ...values) {
    if (!strings || strings.raw === undefined) throw new Error("Please use '$' as a tagged template function: $`cmd arg1 arg2`");
    let script = strings.raw[0];
    for (let i = 0; i < values.length; i++) script += interpolate(values[i]) + strings.raw[i + 1];
    if (/(^|[^&|>])&(?![&>])\s*($|[;\n)])/.test(script)) throw new Error('Background commands "&" are not supported yet.');
    return new ShellPromise(script, shell);
  };
  $.cwd = (dir) => {
    if (dir !== undefined && typeof dir !== "string") throw new TypeError("cwd must be a string or undefined");
    shell._cwd = dir === undefined || dir === "" || dir === "." || dir === "./" ? undefined : dir;
    return $;
  };
  $.env = (env) => {
    if (env !== undefined && (!env || typeof env !== "object")) throw new TypeError("env must be an object or undefined");
    shell._env = env === undefined ? undefined : Object.assign({}, env);
    return $;
  };
  $.nothrow = () => { shell._throws = false; return $; };
  $.throws = (b) => { shell._throws = !!b; return $; };
  $.escape = escape;
  $.braces = braces;
  $.Shell = function Shell() { return makeShell(); };
  $.ShellPromise = ShellPromise;
  $.ShellError = ShellError;
  return $;
}

// braces is bash's brace expansion of pattern.
function braces(pattern) {
  const open = pattern.indexOf("{");
  if (open < 0) return [pattern];
  let depth = 0;
  const commas = [];
  let close = -1;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "{") depth++;
    else if (c === "}") { if (--depth === 0) { close = i; break; } }
    else if (c === "," && depth === 1) commas.push(i);
  }
  if (close < 0 || commas.length === 0) {
    const rest = close < 0 ? [pattern.slice(open + 1)] : braces(pattern.slice(open + 1));
    return rest.map((r) => pattern.slice(0, open + 1) + r);
  }
  const pre = pattern.slice(0, open), post = pattern.slice(close + 1);
  const parts = [];
  let start = open + 1;
  for (const c of [...commas, close]) { parts.push(pattern.slice(start, c)); start = c + 1; }
  const out = [];
  for (const p of parts) for (const e of braces(pre + p + post)) out.push(e);
  return out;
}

// BunFile: a lazy reference to a file (Bun.file).
const MIME = { ".txt": "text/plain;charset=utf-8", ".md": "text/markdown;charset=utf-8", ".json": "application/json;charset=utf-8",
  ".js": "text/javascript;charset=utf-8", ".ts": "text/javascript;charset=utf-8", ".html": "text/html;charset=utf-8",
  ".css": "text/css;charset=utf-8", ".png": "image/png", ".jpg": "image/jpeg", ".svg": "image/svg+xml" };
class BunFile {
  constructor(path, options) {
    this.name = typeof path === "string" ? path : String(path);
    this.type = (options && options.type) || MIME[pathMod.extname(this.name).toLowerCase()] || "application/octet-stream";
  }
  get size() { const s = fs.statSync(this.name, { throwIfNoEntry: false }); return s ? s.size : 0; }
  get lastModified() { const s = fs.statSync(this.name, { throwIfNoEntry: false }); return s ? s.mtimeMs : 0; }
  text() { return fs.promises.readFile(this.name, "utf8"); }
  json() { return this.text().then((t) => JSON.parse(t)); }
  bytes() { return fs.promises.readFile(this.name).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)); }
  arrayBuffer() { return fs.promises.readFile(this.name).then((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)); }
  exists() { return fs.promises.access(this.name).then(() => true, () => false); }
  write(data) { return write(this, data); }
  delete() { return fs.promises.rm(this.name); }
  unlink() { return fs.promises.rm(this.name); }
  slice() { throw errors.unavailable("BunFile.slice"); }
  stream() { return require("stream").Readable.toWeb ? require("stream").Readable.toWeb(fs.createReadStream(this.name)) : fs.createReadStream(this.name); }
  writer() { throw errors.unavailable("BunFile.writer", "use Bun.write or fs.createWriteStream"); }
}

function file(path, options) {
  if (typeof path === "number") throw errors.unavailable("Bun.file of a descriptor");
  if (path && typeof path === "object" && typeof path.href === "string") path = require("url").fileURLToPath(path);
  return new BunFile(path, options);
}

// write writes data (text, bytes, a BunFile, a Response) to dest (a path or
// a BunFile) and resolves with the bytes written.
async function write(dest, data) {
  const target = dest instanceof BunFile ? dest.name : dest;
  let bytes;
  if (data instanceof BunFile) bytes = await fs.promises.readFile(data.name);
  else if (data && typeof data.arrayBuffer === "function" && !ArrayBuffer.isView(data)) bytes = Buffer_().from(await data.arrayBuffer());
  else if (typeof data === "string") bytes = Buffer_().from(data);
  else if (data instanceof ArrayBuffer) bytes = Buffer_().from(data);
  else if (ArrayBuffer.isView(data)) bytes = Buffer_().from(data.buffer, data.byteOffset, data.byteLength);
  else bytes = Buffer_().from(String(data));
  await fs.promises.mkdir(pathMod.dirname(pathMod.resolve(target)), { recursive: true });
  await fs.promises.writeFile(target, bytes);
  return bytes.length;
}

// Glob matches paths against a pattern (*, **, ?, [..], {a,b}).
class Glob {
  constructor(pattern) {
    if (typeof pattern !== "string") throw errors.invalidArgType("pattern", "string", pattern);
    if (!host.globValid(pattern)) throw new Error("Invalid glob pattern: " + pattern);
    this.pattern = pattern;
  }
  match(path) { return host.globMatch(this.pattern, String(path)); }
  scan(options) {
    if (typeof options === "string") options = { cwd: options };
    const o = options || {};
    const cwd = o.cwd === undefined ? process.cwd() : String(o.cwd);
    const onlyFiles = o.onlyFiles === undefined ? true : !!o.onlyFiles;
    const absolute = !!o.absolute;
    const p = host.globScan(cwd, this.pattern, onlyFiles, !!o.dot, o.followSymlinks === undefined ? false : !!o.followSymlinks)
      .then((list) => list.map((rel) => (absolute ? pathMod.resolve(cwd, rel) : rel)));
    let list = null;
    return {
      next: () => p.then((l) => { if (!list) list = l.slice(); return list.length ? { value: list.shift(), done: false } : { value: undefined, done: true }; }),
      return: () => Promise.resolve({ value: undefined, done: true }),
      [Symbol.asyncIterator]() { return this; },
    };
  }
  scanSync() { throw errors.unavailable("Glob.scanSync", "use for await (… of glob.scan())"); }
}

function which(cmd, options) {
  return host.which(String(cmd), (options && options.PATH) || process.env.PATH || "", (options && options.cwd) || process.cwd());
}

const $ = makeShell();
const Bun = {
  $, file, write, Glob, which, escapeHTML: (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms instanceof Date ? ms - Date.now() : ms)),
  get env() { return process.env; },
  get argv() { return process.argv; },
  get main() { return ""; },
  version: "1.3.14",
  revision: "podcode",
  nanoseconds: () => Number(process.hrtime.bigint()),
  spawn() { throw errors.unavailable("Bun.spawn", "use child_process.spawn or $"); },
  spawnSync() { throw errors.unavailable("Bun.spawnSync", "use child_process.spawnSync or $"); },
  serve() { throw errors.unavailable("Bun.serve", "a plugin may not listen on the server's ports"); },
};
Bun.default = Bun;
module.exports = Bun;
