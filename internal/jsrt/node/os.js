// node:os: what a plugin may know of the machine. The home folder is the
// runtime's HOME (as Node reads it), the temporary folder its TMPDIR.
"use strict";

const env = () => process.env;

const signals = Object.freeze({
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGIOT: 6, SIGBUS: 7, SIGFPE: 8, SIGKILL: 9,
  SIGUSR1: 10, SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGCHLD: 17, SIGSTKFLT: 16,
  SIGCONT: 18, SIGSTOP: 19, SIGTSTP: 20, SIGTTIN: 21, SIGTTOU: 22, SIGURG: 23, SIGXCPU: 24, SIGXFSZ: 25,
  SIGVTALRM: 26, SIGPROF: 27, SIGWINCH: 28, SIGIO: 29, SIGPOLL: 29, SIGPWR: 30, SIGSYS: 31,
});

function homedir() {
  return env().HOME || host.home;
}

function tmpdir() {
  let t = env().TMPDIR || env().TMP || env().TEMP || "/tmp";
  if (t.length > 1 && t.endsWith("/")) t = t.slice(0, -1);
  return t;
}

function userInfo(options) {
  const u = host.user();
  const enc = options && options.encoding;
  const conv = (s) => enc === "buffer" ? require("buffer").Buffer.from(s) : s;
  return { uid: u.uid, gid: u.gid, username: conv(u.username), homedir: conv(u.homedir), shell: u.shell === null ? null : conv(u.shell) };
}

// networkInterfaces orders each address's keys as Node does.
function networkInterfaces() {
  const out = {};
  for (const [name, list] of Object.entries(host.interfaces())) {
    out[name] = list.map((a) => {
      const e = { address: a.address, netmask: a.netmask, family: a.family, mac: a.mac, internal: a.internal, cidr: a.cidr };
      if (a.family === "IPv6") {
        const { cidr } = e;
        delete e.cidr;
        e.scopeid = a.scopeid;
        e.cidr = cidr;
      }
      return e;
    });
  }
  return out;
}

function cpus() {
  const out = [];
  for (let i = 0; i < host.ncpu; i++) out.push({ model: host.cpuModel, speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } });
  return out;
}

module.exports = {
  EOL: "\n",
  devNull: "/dev/null",
  arch: () => process.arch,
  platform: () => process.platform,
  type: () => host.type,
  release: () => host.release,
  version: () => host.version,
  machine: () => host.machine,
  hostname: () => host.hostname(),
  homedir,
  tmpdir,
  endianness: () => "LE",
  uptime: () => host.uptime(),
  loadavg: () => host.loadavg(),
  totalmem: () => host.totalmem(),
  freemem: () => host.freemem(),
  availableParallelism: () => host.ncpu,
  cpus,
  userInfo,
  networkInterfaces,
  getPriority: () => 0,
  setPriority: () => { throw require("internal/errors").unavailable("os.setPriority"); },
  constants: Object.freeze({ signals, errno: Object.freeze({}), priority: Object.freeze({ PRIORITY_LOW: 19, PRIORITY_BELOW_NORMAL: 10, PRIORITY_NORMAL: 0, PRIORITY_ABOVE_NORMAL: -7, PRIORITY_HIGH: -14, PRIORITY_HIGHEST: -20 }) }),
};
