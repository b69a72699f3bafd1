// node:process, also the global process: the runtime's environment
// (Options.Env) and directory, and what a plugin may know of the server's
// process. Its stdout and stderr write to the server's log, as console
// does. What would act on the server's process is refused: exit, chdir,
// kill of another process, setuid… (a plugin cannot stop the server).
"use strict";

const EventEmitter = require("events");
const { unavailable } = require("internal/errors");

const process = new EventEmitter();
const hr = host.hrtime;

function hrtime(prev) {
  const [s, ns] = hr();
  if (!prev) return [s, ns];
  let ds = s - prev[0];
  let dns = ns - prev[1];
  if (dns < 0) { ds -= 1; dns += 1e9; }
  return [ds, dns];
}
hrtime.bigint = () => {
  const [s, ns] = hr();
  return BigInt(s) * 1000000000n + BigInt(ns);
};

// logStream is a Writable of the process's (stdout, stderr) that writes
// whole lines to the log at level; made on first use.
function logStream(fd, level) {
  const { Writable } = require("stream");
  let pending = "";
  const flush = () => {
    if (pending) { host.log(level, pending); pending = ""; }
  };
  const stream = new Writable({
    decodeStrings: false,
    write(chunk, encoding, cb) {
      let s = pending + (typeof chunk === "string" ? chunk : require("buffer").Buffer.from(chunk).toString());
      const nl = s.lastIndexOf("\n");
      if (nl >= 0) {
        host.log(level, s.slice(0, nl));
        s = s.slice(nl + 1);
      }
      pending = s;
      if (pending.length > 16384) flush();
      cb();
    },
    final(cb) { flush(); cb(); },
  });
  Object.assign(stream, {
    fd, isTTY: false, columns: 80, rows: 24,
    getColorDepth() { return 1; }, hasColors() { return false; },
    getWindowSize() { return [80, 24]; }, cursorTo() { return true; }, clearLine() { return true; },
  });
  return stream;
}

function lazyStream(name, make) {
  let s;
  Object.defineProperty(process, name, {
    get() { return s || (s = make()); },
    set(v) { s = v; },
    enumerable: true, configurable: true,
  });
}

const refused = (name, why) => () => { throw unavailable("process." + name, why); };

Object.assign(process, {
  title: "podcode",
  version: "v20.0.0",
  versions: { node: "20.0.0", podcode: host.podcode },
  release: { name: "node" },
  arch: host.arch,
  platform: host.platform,
  pid: host.pid,
  ppid: host.ppid,
  argv: ["node", "podcode"],
  argv0: "node",
  execArgv: [],
  execPath: "",
  env: host.env,
  exitCode: undefined,
  config: { variables: {} },
  features: {},
  stdin: { fd: 0, isTTY: false, on() { return this; }, once() { return this; }, resume() {}, pause() {}, setEncoding() {} },
  cwd: () => host.cwd,
  hrtime,
  uptime: host.uptime,
  memoryUsage: Object.assign(() => host.memoryUsage(), { rss: () => host.memoryUsage().rss }),
  cpuUsage: () => ({ user: 0, system: 0 }),
  resourceUsage: () => ({}),
  umask: () => 0o22,
  getuid: () => host.uid,
  getgid: () => host.gid,
  geteuid: () => host.euid,
  getegid: () => host.egid,
  getgroups: () => [host.gid],
  nextTick(fn, ...args) {
    if (typeof fn !== "function") throw require("internal/errors").invalidArgType("callback", "function", fn);
    queueMicrotask(() => fn(...args));
  },
  emitWarning(warning, type) {
    const text = typeof warning === "string" ? warning : warning && warning.message;
    const name = typeof type === "string" ? type : (type && type.type) || (warning && warning.name) || "Warning";
    host.log("warn", "(node) " + name + ": " + text);
  },
  binding: refused("binding"),
  exit: refused("exit", "a plugin cannot stop the server; throw an error instead"),
  abort: refused("abort", "a plugin cannot stop the server"),
  reallyExit: refused("reallyExit", "a plugin cannot stop the server"),
  chdir: refused("chdir", "the server's directory is shared by every plugin; pass cwd to the call instead"),
  kill: refused("kill", "a plugin signals only the processes it started (child.kill())"),
  dlopen: refused("dlopen"),
  setuid: refused("setuid"), setgid: refused("setgid"), seteuid: refused("seteuid"), setegid: refused("setegid"),
  setgroups: refused("setgroups"),
});

lazyStream("stdout", () => logStream(1, "info"));
lazyStream("stderr", () => logStream(2, "warn"));

module.exports = process;
