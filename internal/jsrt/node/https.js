// node:https: http's client (node/internal.http.js) over TLS, with the TLS
// options of the request or of its agent: ca, cert and key,
// rejectUnauthorized, servername. A server is refused (createServer,
// Server): a plugin may not listen on ports of the server's host. Other
// TLS options (ciphers, secureProtocol, pfx, checkServerIdentity…) are
// ignored: Go's defaults apply.
"use strict";

const client = require("internal/http");

class Agent extends client.Agent {
  constructor(options) {
    super(options);
    this.defaultPort = 443;
    this.protocol = "https:";
  }
  getName(options = {}) {
    let name = super.getName(options);
    for (const k of ["ca", "cert", "clientCertEngine", "ciphers", "key", "pfx", "rejectUnauthorized", "servername", "minVersion",
      "maxVersion", "secureProtocol", "crl", "honorCipherOrder", "ecdhCurve", "dhparam", "secureOptions", "sessionIdContext",
      "sigalgs", "privateKeyIdentifier", "privateKeyEngine"]) {
      name += ":";
      const v = options[k];
      if (k === "rejectUnauthorized" || k === "secureOptions" ? v !== undefined : k === "servername" ? v && v !== options.host : v) name += v;
    }
    return name;
  }
}

// pem is a certificate or key option as text: a string, a Buffer, or a
// list of them.
function pem(v) {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map(pem).join("\n");
  return typeof v === "string" ? v : String(require("buffer").Buffer.from(v));
}

let globalAgent = new Agent({ keepAlive: true, scheduling: "lifo", timeout: 5000 });

const defaults = {
  host: client.defaults.host,
  globalAgent: () => globalAgent,
  tlsOptions(options, agent) {
    const o = Object.assign({}, agent && agent.options, options);
    return {
      insecure: o.rejectUnauthorized === false,
      ca: pem(o.ca), cert: pem(o.cert), key: pem(o.key),
      servername: o.servername === undefined ? undefined : String(o.servername),
    };
  },
};

const request = client.makeRequest(defaults);

const https = {
  Agent,
  Server() { throw client.unavailable("https.Server"); },
  createServer() { throw client.unavailable("https.createServer"); },
  request,
  get: client.makeGet(request),
};
Object.defineProperty(https, "globalAgent", {
  get() { return globalAgent; },
  set(agent) { globalAgent = agent; },
  enumerable: true, configurable: true,
});

module.exports = https;
