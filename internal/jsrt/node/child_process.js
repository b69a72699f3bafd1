// node:child_process. Every process goes through the host (Options.Exec):
// the server's guard (permission rules, PreToolUse with the tool name
// plugin_exec) and, where it confines commands, its sandbox; a refusal is
// the call's error. Processes run in a process group of their own, killed
// with the plugin when it stops. Differences from Node, each for a reason
// (docs/plugins.md): the pid is known from the 'spawn' event on (the guard
// answers first), detached processes and other users' ids are not
// available, the sync calls hold the plugin's loop at most one job limit,
// 'inherit' writes to the server's log, and fork and IPC are refused.
"use strict";

const EventEmitter = require("events");
const errors = require("internal/errors");

let BufferCtor;
const Buffer_ = () => BufferCtor || (BufferCtor = require("buffer").Buffer);

function signalNumber(sig) {
  if (sig === undefined || sig === null) return host.signals.SIGTERM;
  if (typeof sig === "number") return sig;
  const n = host.signals[String(sig).toUpperCase()];
  if (n === undefined) throw errors.codedTypeError("ERR_UNKNOWN_SIGNAL", "Unknown signal: " + sig);
  return n;
}

// quote renders an argument as a shell would read it back, for the
// command line the guard and the logs show.
function quote(a) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\\''") + "'";
}

function toCwd(cwd) {
  if (cwd === undefined || cwd === null) return undefined; // the host's default (a tenant's workspace)
  if (typeof cwd === "string") return require("path").resolve(cwd);
  if (cwd && typeof cwd.href === "string") return require("url").fileURLToPath(cwd);
  throw errors.invalidArgType("options.cwd", "string or an instance of URL", cwd);
}

function toEnv(env) {
  const src = env === undefined || env === null ? process.env : env;
  const out = {};
  for (const k of Object.keys(src)) if (src[k] !== undefined) out[k] = String(src[k]);
  return out;
}

function normalizeStdio(stdio) {
  if (stdio === undefined || stdio === null) return ["pipe", "pipe", "pipe"];
  if (typeof stdio === "string") {
    if (!["pipe", "ignore", "inherit", "overlapped"].includes(stdio)) {
      throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'stdio' is invalid. Received " + errors.inspectShort(stdio));
    }
    const m = stdio === "overlapped" ? "pipe" : stdio;
    return [m, m, m];
  }
  if (!Array.isArray(stdio)) throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'stdio' is invalid. Received " + errors.inspectShort(stdio));
  const out = [];
  for (let i = 0; i < 3; i++) {
    const s = stdio[i];
    if (s === undefined || s === null || s === "pipe" || s === "overlapped") out.push("pipe");
    else if (s === "ignore") out.push("ignore");
    else if (s === "inherit" || s === i || (s && typeof s === "object" && s.fd === i)) out.push("inherit");
    else if (s === "ipc") throw errors.unavailable("child_process IPC (stdio 'ipc')", "a plugin's processes have no channel to it");
    else out.push("pipe");
  }
  return out;
}

// normalize turns (file, args, options) into the request the host gets.
function normalize(api, file, args, options) {
  if (typeof file !== "string") throw errors.invalidArgType("file", "string", file);
  if (file.length === 0) throw errors.codedTypeError("ERR_INVALID_ARG_VALUE", "The argument 'file' cannot be empty. Received ''");
  if (args === undefined || args === null) args = [];
  else if (!Array.isArray(args)) {
    if (typeof args === "object") { options = args; args = []; } else throw errors.invalidArgType("args", "object", args);
  }
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object") throw errors.invalidArgType("options", "object", options);
  args = args.map((a) => String(a));
  for (const k of ["uid", "gid"]) {
    if (options[k] !== undefined) throw errors.unavailable(api + " with options." + k, "a plugin's processes run as the server's user");
  }
  let argv = [file, ...args];
  let command = argv.map(quote).join(" ");
  if (options.shell) {
    command = [file, ...args].join(" ");
    const sh = typeof options.shell === "string" ? options.shell : "/bin/sh";
    argv = [sh, "-c", command];
  }
  return {
    req: { api, command, argv, cwd: toCwd(options.cwd), env: toEnv(options.env) },
    options, file, args,
  };
}

class ChildProcess extends EventEmitter {
  constructor() {
    super();
    this.pid = undefined;
    this.exitCode = null;
    this.signalCode = null;
    this.killed = false;
    this.connected = false;
    this.stdin = null;
    this.stdout = null;
    this.stderr = null;
    this.stdio = [null, null, null];
    this._id = 0;
    this._pendingSignal = 0;
    this._running = true;
  }
  kill(sig) {
    const n = signalNumber(sig === undefined ? "SIGTERM" : sig);
    if (!this._running) return false;
    if (this.pid === undefined) {
      this._pendingSignal = n; // the guard has not answered yet
      this.killed = true;
      return true;
    }
    const ok = host.kill(this._id, n);
    if (ok) this.killed = true;
    return ok;
  }
  ref() { return this; }
  unref() { return this; }
  disconnect() { throw errors.unavailable("ChildProcess.disconnect", "a plugin's processes have no channel to it"); }
  send() { throw errors.unavailable("ChildProcess.send", "a plugin's processes have no channel to it"); }
  [Symbol.dispose || Symbol.for("nodejs.dispose")]() { if (this._running) this.kill(); }
}

function spawn(file, args, options) {
  return spawnWith("child_process.spawn", file, args, options);
}

// spawnWith is spawn, named api in what the guard sees (exec, execFile,
// Bun's $ are spawns too).
function spawnWith(api, file, args, options) {
  const n = normalize(api, file, args, options);
  const stdio = normalizeStdio(n.options.stdio);
  const child = new ChildProcess();
  child.spawnfile = n.req.argv[0];
  child.spawnargs = n.req.argv;
  const stream = require("stream");
  const outputs = [];
  if (stdio[0] === "pipe") {
    child.stdin = new stream.Writable({
      write(chunk, encoding, cb) {
        host.write(child._id, typeof chunk === "string" ? Buffer_().from(chunk, encoding) : chunk, (err) => cb(err || undefined));
      },
      final(cb) { host.endInput(child._id); cb(); },
    });
    child.stdin.on("error", () => {}); // EPIPE once the process ended, as Node's stdin reports it
  }
  for (const fd of [1, 2]) {
    if (stdio[fd] !== "pipe") continue;
    // the process writes on while the plugin reads: a Readable over its
    // high-water mark takes no more chunks until it wants more (read)
    const r = new stream.Readable({
      read() { if (child._id !== undefined) host.readMore(child._id, fd); },
      // a stream the plugin destroyed takes no more, and holds nothing back
      destroy(err, cb) { if (child._id !== undefined) host.readMore(child._id, fd); cb(err); },
    });
    outputs[fd] = r;
    if (fd === 1) child.stdout = r; else child.stderr = r;
  }
  child.stdio = [child.stdin, child.stdout, child.stderr];
  const signal = n.options.signal;
  // An abort kills the process and is an 'error', as in Node.
  const onAbort = () => {
    if (!child._running) return;
    child.kill(n.options.killSignal);
    child.emit("error", new errors.AbortError(undefined, { cause: signal.reason }));
  };
  let timer;
  child._id = host.spawn(n.req, stdio, {
    spawn(pid) {
      child.pid = pid;
      if (child._pendingSignal) host.kill(child._id, child._pendingSignal);
      if (n.options.timeout > 0) timer = setTimeout(() => child.kill(n.options.killSignal), n.options.timeout);
      child.emit("spawn");
    },
    data(fd, ab) {
      const r = outputs[fd];
      if (!r || r.destroyed) return true; // discarded: the process writes on and ends
      return r.push(Buffer_().from(ab));
    },
    error(err) {
      child._running = false;
      if (timer) clearTimeout(timer);
      for (const r of outputs) if (r) r.push(null);
      child.emit("error", err);
      queueMicrotask(() => child.emit("close", -2, null));
    },
    exit(code, sig) {
      child._running = false;
      if (timer) clearTimeout(timer);
      if (signal) signal.removeEventListener("abort", onAbort);
      child.exitCode = code;
      child.signalCode = sig;
      child.emit("exit", code, sig);
      let open = outputs.filter(Boolean).length;
      const close = () => child.emit("close", code, sig);
      if (open === 0) { queueMicrotask(close); return; }
      for (const r of outputs) {
        if (!r) continue;
        r.once("close", () => { if (--open === 0) close(); });
        r.push(null);
        if (r.listenerCount("data") === 0 && !r.readableFlowing) r.resume(); // nobody reads: still close
      }
    },
  });
  if (signal) {
    if (signal.aborted) queueMicrotask(onAbort);
    else signal.addEventListener("abort", onAbort, { once: true });
  }
  return child;
}

// Output kept by exec and execFile, bounded by maxBuffer.
function collect(child, o, done) {
  const max = o.maxBuffer === undefined ? host.maxBuffer : o.maxBuffer;
  const parts = { stdout: [], stderr: [] };
  const len = { stdout: 0, stderr: 0 };
  let overflow = null;
  for (const name of ["stdout", "stderr"]) {
    const s = child[name];
    if (!s) continue;
    s.on("data", (b) => {
      if (overflow) return;
      len[name] += b.length;
      if (len[name] > max) {
        overflow = errors.codedRangeError("ERR_CHILD_PROCESS_STDIO_MAXBUFFER", name + " maxBuffer length exceeded");
        parts[name].push(b.subarray(0, b.length - (len[name] - max)));
        child.kill(o.killSignal);
        return;
      }
      parts[name].push(b);
    });
  }
  const text = (name) => {
    const b = Buffer_().concat(parts[name]);
    const enc = o.encoding === undefined ? "utf8" : o.encoding;
    return enc === "buffer" || enc === null ? b : b.toString(enc);
  };
  child.on("error", (e) => done(e, text("stdout"), text("stderr")));
  child.on("close", (code, sig) => {
    if (code === -2 && sig === null && child.listenerCount("error") && child.pid === undefined) return; // reported by 'error'
    done(overflow, text("stdout"), text("stderr"), code, sig);
  });
}

function commandFailed(cmd, code, sig, stderr, killed) {
  const e = new Error("Command failed: " + cmd + "\n" + (stderr || ""));
  e.code = code;
  e.killed = killed;
  e.signal = sig;
  e.cmd = cmd;
  return e;
}

function execFile(file, args, options, cb) {
  if (typeof args === "function") { cb = args; args = []; options = {}; }
  else if (typeof options === "function") {
    cb = options;
    if (Array.isArray(args) || args === undefined || args === null) options = {}; else { options = args; args = []; }
  }
  const o = Object.assign({}, options || {});
  const child = spawnWith(o._cmd ? "child_process.exec" : "child_process.execFile", file, args, Object.assign({}, o, { stdio: "pipe" }));
  const cmd = [file, ...(Array.isArray(args) ? args : [])].join(" ");
  if (o.timeout > 0) {
    const t = setTimeout(() => child.kill(o.killSignal), o.timeout);
    child.once("close", () => clearTimeout(t));
    child.once("error", () => clearTimeout(t));
  }
  let called = false;
  collect(child, o, (err, stdout, stderr, code, sig) => {
    if (called) return;
    called = true;
    if (!err && (code !== 0 || sig)) err = commandFailed(o._cmd || cmd, code === null ? null : code, sig, stderr, child.killed);
    if (err) { err.stdout = stdout; err.stderr = stderr; }
    if (typeof cb === "function") cb(err || null, stdout, stderr);
  });
  return child;
}

function exec(command, options, cb) {
  if (typeof options === "function") { cb = options; options = {}; }
  const o = Object.assign({}, options || {});
  o.shell = typeof o.shell === "string" ? o.shell : true;
  o._cmd = command;
  return execFile(command, [], o, cb);
}

// The promise forms util.promisify makes of exec and execFile: {stdout,
// stderr}, or a rejection that carries them too.
const custom = Symbol.for("nodejs.util.promisify.custom");
for (const fn of [exec, execFile]) {
  Object.defineProperty(fn, custom, {
    value: (...a) => new Promise((resolve, reject) => {
      fn(...a, (err, stdout, stderr) => err ? reject(err) : resolve({ stdout, stderr }));
    }),
    enumerable: false,
  });
}

function spawnSync(file, args, options) {
  const n = normalize("child_process.spawnSync", file, args, options);
  return runSync(n, n.options.stdio);
}

function runSync(n, stdioOpt) {
  const o = n.options;
  const stdio = normalizeStdio(stdioOpt);
  let input = o.input;
  if (typeof input === "string") input = Buffer_().from(input, o.encoding && o.encoding !== "buffer" ? o.encoding : "utf8");
  const res = host.spawnSync(n.req, stdio, input, o.timeout > 0 ? o.timeout : 0, o.maxBuffer === undefined ? 0 : o.maxBuffer, signalNumber(o.killSignal));
  const enc = o.encoding && o.encoding !== "buffer" ? o.encoding : null;
  const conv = (ab) => {
    if (ab === undefined) return null;
    const b = Buffer_().from(ab);
    return enc ? b.toString(enc) : b;
  };
  const out = { pid: res.pid || 0, output: [null, conv(res.stdout), conv(res.stderr)], stdout: conv(res.stdout), stderr: conv(res.stderr), status: res.status, signal: res.signal };
  if (res.error) {
    const e = res.error;
    if (typeof e.message === "string" && e.message.startsWith("spawn ")) e.message = "spawnSync " + e.message.slice(6);
    if (typeof e.syscall === "string" && e.syscall.startsWith("spawn ")) e.syscall = "spawnSync " + e.syscall.slice(6);
    out.error = e;
  }
  return out;
}

function checkSync(res, cmd, stdioGiven) {
  // execSync's stderr goes to the parent's stderr unless stdio says
  // otherwise: here, the server's log
  if (!stdioGiven && res.stderr && res.stderr.length) process.stderr.write(res.stderr);
  if (res.error) {
    res.error.status = res.status;
    res.error.signal = res.signal;
    res.error.output = res.output;
    res.error.pid = res.pid;
    res.error.stdout = res.stdout;
    res.error.stderr = res.stderr;
    throw res.error;
  }
  if (res.status !== 0) {
    const stderr = res.stderr ? res.stderr.toString() : "";
    const e = new Error("Command failed: " + cmd + (stderr ? "\n" + stderr : ""));
    Object.assign(e, { status: res.status, signal: res.signal, output: res.output, pid: res.pid, stdout: res.stdout, stderr: res.stderr });
    throw e;
  }
  return res.stdout;
}

function execSync(command, options) {
  const o = Object.assign({}, options || {});
  o.shell = typeof o.shell === "string" ? o.shell : true;
  const n = normalize("child_process.execSync", command, [], o);
  const stdio = o.stdio === undefined ? ["pipe", "pipe", "pipe"] : o.stdio;
  return checkSync(runSync(n, stdio), command, o.stdio !== undefined);
}

function execFileSync(file, args, options) {
  const n = normalize("child_process.execFileSync", file, args, options);
  const o = n.options;
  const stdio = o.stdio === undefined ? ["pipe", "pipe", "pipe"] : o.stdio;
  return checkSync(runSync(n, stdio), [file, ...n.args].join(" "), o.stdio !== undefined);
}

function fork() {
  throw errors.unavailable("child_process.fork", "a plugin's processes run programs, not Node modules with a channel to the plugin");
}

module.exports = { ChildProcess, spawn, spawnSync, exec, execSync, execFile, execFileSync, fork };
Object.defineProperty(module.exports, "_spawn", { value: spawnWith, enumerable: false });
