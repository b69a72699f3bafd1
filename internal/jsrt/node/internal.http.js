// The client of node:http and node:https, over the Go half of
// node_http.go: ClientRequest (a Writable), IncomingMessage (a Readable),
// Agent, request and get, with Node 20's options, headers and events
// ('socket', 'finish', 'response', 'timeout', 'abort', 'error', 'close',
// and the response's 'aborted', 'end', 'close', in Node's order).
//
// How it differs from Node's (see node_http.go for the bounds): the socket
// a request gets is a stand-in (setTimeout, setNoDelay, setKeepAlive,
// destroy; no address, no 'connect'); rawHeaders are sorted by name, the
// names in Go's canonical case (Content-Type), as Go's client gives them;
// header names go out in that case too; an Agent is constructible and its
// keepAlive decides the Connection header, but connections are pooled by
// Go, not by it; 1xx responses ('information', 'continue'), upgrades,
// socketPath, createConnection and lookup are not provided.
"use strict";

const { Writable, Readable } = require("stream");
const EE = require("events");
const errors = require("internal/errors");
const { validateFunction, validateNumber } = require("internal/validators");
const processModule = require("process");

const nextTick = (fn, ...args) => processModule.nextTick(fn, ...args);
let BufferCtor;
const Buf = () => BufferCtor || (BufferCtor = require("buffer").Buffer);

const STATUS_CODES = {
  100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints", 200: "OK", 201: "Created", 202: "Accepted",
  203: "Non-Authoritative Information", 204: "No Content", 205: "Reset Content", 206: "Partial Content", 207: "Multi-Status",
  208: "Already Reported", 226: "IM Used", 300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other",
  304: "Not Modified", 305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
  402: "Payment Required", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
  407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required",
  412: "Precondition Failed", 413: "Payload Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
  417: "Expectation Failed", 418: "I'm a Teapot", 421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked",
  424: "Failed Dependency", 425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
  431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons", 500: "Internal Server Error", 501: "Not Implemented",
  502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
  506: "Variant Also Negotiates", 507: "Insufficient Storage", 508: "Loop Detected", 509: "Bandwidth Limit Exceeded",
  510: "Not Extended", 511: "Network Authentication Required",
};

const METHODS = ["ACL", "BIND", "CHECKOUT", "CONNECT", "COPY", "DELETE", "GET", "HEAD", "LINK", "LOCK", "M-SEARCH", "MERGE",
  "MKACTIVITY", "MKCALENDAR", "MKCOL", "MOVE", "NOTIFY", "OPTIONS", "PATCH", "POST", "PROPFIND", "PROPPATCH", "PURGE", "PUT",
  "QUERY", "REBIND", "REPORT", "SEARCH", "SOURCE", "SUBSCRIBE", "TRACE", "UNBIND", "UNLINK", "UNLOCK", "UNSUBSCRIBE"];

const tokenRe = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const badValueChar = /[^\t\x20-\x7e\x80-\xff]/;
const badPathChar = /[^\u0021-\u00ff]/;

function validateHeaderName(name, label) {
  if (typeof name !== "string" || !name || !tokenRe.test(name)) {
    throw errors.codedTypeError("ERR_INVALID_HTTP_TOKEN", (label || "Header name") + ' must be a valid HTTP token ["' + name + '"]');
  }
}

function validateHeaderValue(name, value) {
  if (value === undefined) {
    throw errors.codedTypeError("ERR_HTTP_INVALID_HEADER_VALUE", 'Invalid value "' + value + '" for header "' + name + '"');
  }
  if (badValueChar.test(String(value))) {
    throw errors.codedTypeError("ERR_INVALID_CHAR", 'Invalid character in header content ["' + name + '"]');
  }
}

const unavailable = (api) => errors.unavailable(api,
  "a plugin may not listen on ports of the server's host; talk to the server through Podcode's APIs instead");

// connReset is Node's error for a connection that ended too soon.
function connReset(message) {
  const e = new Error(message);
  e.code = "ECONNRESET";
  return e;
}

// Agents. Go pools the connections; an Agent holds its options (those of
// TLS for https) and says whether requests ask to keep theirs alive.
class Agent extends EE {
  constructor(options) {
    super();
    this.defaultPort = 80;
    this.protocol = "http:";
    this.options = Object.assign({ __proto__: null }, options);
    if (this.options.noDelay === undefined) this.options.noDelay = true;
    this.options.path = null;
    this.requests = { __proto__: null };
    this.sockets = { __proto__: null };
    this.freeSockets = { __proto__: null };
    this.keepAliveMsecs = this.options.keepAliveMsecs || 1000;
    this.keepAlive = this.options.keepAlive || false;
    this.maxSockets = this.options.maxSockets || Agent.defaultMaxSockets;
    this.maxFreeSockets = this.options.maxFreeSockets || 256;
    this.scheduling = this.options.scheduling || "lifo";
    this.maxTotalSockets = this.options.maxTotalSockets ?? Infinity;
    this.totalSocketCount = 0;
  }
  getName(options = {}) {
    let name = options.host || "localhost";
    name += ":";
    if (options.port) name += options.port;
    name += ":";
    if (options.localAddress) name += options.localAddress;
    if (options.family === 4 || options.family === 6) name += ":" + options.family;
    if (options.socketPath) name += ":" + options.socketPath;
    return name;
  }
  createConnection() {
    throw errors.unavailable("http.Agent.createConnection", "Podcode opens the connections of a plugin's requests itself");
  }
  keepSocketAlive() { return true; }
  reuseSocket() {}
  destroy() {}
}
Agent.defaultMaxSockets = Infinity;

// The socket a request is given: a stand-in, as the connection is Go's.
class Socket extends EE {
  constructor(req, encrypted) {
    super();
    this._req = req;
    this.encrypted = encrypted || undefined;
    this.connecting = false;
    this.readable = true;
    this.writable = true;
    this.destroyed = false;
  }
  setTimeout(ms, cb) {
    this._req.setTimeout(ms);
    if (typeof cb === "function") this.once("timeout", cb);
    return this;
  }
  setNoDelay() { return this; }
  setKeepAlive() { return this; }
  ref() { return this; }
  unref() { return this; }
  address() { return {}; }
  end() { return this; }
  destroy(err) {
    this._req.destroy(err);
    return this;
  }
}

const kOut = Symbol("kOutHeaders");
const kState = Symbol("kState");
const kHost = Symbol("kHost");

// OutgoingMessage: the headers of a message, until they are sent.
class OutgoingMessage extends Writable {
  constructor(options) {
    super(Object.assign({ autoDestroy: false, emitClose: false }, options));
    this[kOut] = { __proto__: null };
    this._headerSent = false;
  }
  get headersSent() { return this._headerSent; }
  setHeader(name, value) {
    if (this._headerSent) throw errors.codedError("ERR_HTTP_HEADERS_SENT", "Cannot set headers after they are sent to the client");
    validateHeaderName(name);
    validateHeaderValue(name, value);
    this[kOut][name.toLowerCase()] = [name, value];
    return this;
  }
  appendHeader(name, value) {
    const key = String(name).toLowerCase();
    const had = this[kOut][key];
    if (!had) return this.setHeader(name, value);
    if (this._headerSent) throw errors.codedError("ERR_HTTP_HEADERS_SENT", "Cannot append headers after they are sent to the client");
    validateHeaderValue(name, value);
    had[1] = [].concat(had[1], value);
    return this;
  }
  getHeader(name) {
    if (typeof name !== "string") throw errors.invalidArgType("name", "string", name);
    const e = this[kOut][name.toLowerCase()];
    return e && e[1];
  }
  getHeaderNames() { return Object.keys(this[kOut]); }
  getRawHeaderNames() { return Object.values(this[kOut]).map((e) => e[0]); }
  getHeaders() {
    const out = { __proto__: null };
    for (const k of Object.keys(this[kOut])) out[k] = this[kOut][k][1];
    return out;
  }
  hasHeader(name) {
    if (typeof name !== "string") throw errors.invalidArgType("name", "string", name);
    return this[kOut][name.toLowerCase()] !== undefined;
  }
  removeHeader(name) {
    if (typeof name !== "string") throw errors.invalidArgType("name", "string", name);
    if (this._headerSent) throw errors.codedError("ERR_HTTP_HEADERS_SENT", "Cannot remove headers after they are sent to the client");
    delete this[kOut][name.toLowerCase()];
  }
  get finished() { return this.writableEnded; }
}

// url's, on first use: a request of options alone needs no url module
const urlToHttpOptions = (url) => require("url").urlToHttpOptions(url);

function parseURL(s) {
  try {
    return new URL(s);
  } catch (e) {
    const err = errors.codedTypeError("ERR_INVALID_URL", "Invalid URL");
    err.input = s;
    throw err;
  }
}

const isURL = (v) => v !== null && typeof v === "object" && typeof v.href === "string" && typeof v.protocol === "string" && typeof v.hostname === "string";

function validateHost(host, name) {
  if (host !== null && host !== undefined && typeof host !== "string") {
    throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "options.' + name + '" property must be of type string or one of undefined or null.' + errors.received(host));
  }
  return host;
}

const noChunkedMethods = new Set(["GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT"]);

class ClientRequest extends OutgoingMessage {
  constructor(input, options, cb, defaults) {
    super();
    defaults = defaults || http.defaults;
    if (typeof input === "string") {
      input = urlToHttpOptions(parseURL(input));
    } else if (isURL(input)) {
      input = urlToHttpOptions(input);
    } else {
      cb = options;
      options = input;
      input = null;
    }
    if (typeof options === "function") {
      cb = options;
      options = input || {};
    } else {
      options = Object.assign(input || {}, options);
    }
    if (options.socketPath) throw errors.unavailable("http.request's socketPath", "a plugin's requests go to TCP addresses only");
    if (typeof options.createConnection === "function") throw errors.unavailable("http.request's createConnection", "Podcode opens the connections itself");

    const defaultAgent = options._defaultAgent || defaults.globalAgent();
    let agent = options.agent;
    if (agent === false) agent = new defaultAgent.constructor();
    else if (agent === null || agent === undefined) agent = defaultAgent;
    this.agent = agent;

    const protocol = options.protocol || defaultAgent.protocol;
    const expected = agent && agent.protocol ? agent.protocol : defaultAgent.protocol;
    if (options.path) {
      if (badPathChar.test(String(options.path))) {
        throw errors.codedTypeError("ERR_UNESCAPED_CHARACTERS", "Request path contains unescaped characters");
      }
    }
    if (protocol !== expected) {
      throw errors.codedTypeError("ERR_INVALID_PROTOCOL", 'Protocol "' + protocol + '" not supported. Expected "' + expected + '"');
    }
    const defaultPort = options.defaultPort || (agent && agent.defaultPort);
    const port = options.port = options.port || defaultPort || 80;
    const host = options.host = validateHost(options.hostname, "hostname") || validateHost(options.host, "host") || "localhost";
    const setHost = options.setHost === undefined || !!options.setHost;

    let method = options.method;
    if (method !== null && method !== undefined && typeof method !== "string") throw errors.invalidArgType("options.method", "string", method);
    if (method) {
      validateHeaderName(method, "Method");
      method = method.toUpperCase();
    } else {
      method = "GET";
    }
    this.method = method;
    this.path = options.path || "/";
    this.host = host;
    this.protocol = protocol;
    this.res = null;
    this.aborted = false;
    this.timeoutCb = null;
    this.upgradeOrConnect = false;
    this.parser = null;
    this.maxHeadersCount = null;
    this.reusedSocket = false;
    this.socket = null;
    this.useChunkedEncodingByDefault = !noChunkedMethods.has(method);
    this.shouldKeepAlive = !!(agent && (agent.keepAlive || Number.isFinite(agent.maxSockets)));
    if (cb) this.once("response", cb);

    if (Array.isArray(options.headers)) {
      const h = options.headers;
      const pairs = Array.isArray(h[0]) ? h : Array.from({ length: h.length >> 1 }, (_, i) => [h[2 * i], h[2 * i + 1]]);
      for (const [k, v] of pairs) this.appendHeader(k, v);
    } else if (options.headers) {
      for (const k of Object.keys(options.headers)) this.setHeader(k, options.headers[k]);
    }
    if (host && !this.getHeader("host") && setHost) {
      let hostHeader = host;
      const colon = hostHeader.indexOf(":");
      if (colon !== -1 && hostHeader.includes(":", colon + 1) && hostHeader[0] !== "[") hostHeader = "[" + hostHeader + "]";
      if (port && +port !== defaultPort) hostHeader += ":" + port;
      this.setHeader("Host", hostHeader);
    }
    if (options.auth && !this.getHeader("Authorization")) {
      this.setHeader("Authorization", "Basic " + Buf().from(String(options.auth)).toString("base64"));
    }

    const urlHost = host.includes(":") && host[0] !== "[" ? "[" + host + "]" : host;
    this[kState] = {
      url: protocol + "//" + urlHost + ":" + port + this.path,
      tls: defaults.tlsOptions(options, agent),
      id: 0, started: false, over: false, socketReady: false, whenSocket: [], endBody: null,
      errorEmitted: false, closeEmitted: false, timeout: 0, timer: null,
    };
    this[kHost] = defaults.host;
    if (options.timeout !== undefined) {
      validateNumber(options.timeout, "timeout", 0);
      this.setTimeout(options.timeout);
    }
    if (options.signal) {
      const signal = options.signal;
      const onAbort = () => this.destroy(new errors.AbortError(undefined, { cause: signal.reason }));
      if (signal.aborted) nextTick(onAbort);
      else {
        signal.addEventListener("abort", onAbort, { once: true });
        this.once("close", () => signal.removeEventListener("abort", onAbort));
      }
    }
    nextTick(() => {
      const st = this[kState];
      st.socketReady = true;
      if (!this.destroyed) {
        this.socket = new Socket(this, protocol === "https:");
        this.emit("socket", this.socket);
      }
      for (const fn of st.whenSocket.splice(0)) fn();
    });
  }

  get connection() { return this.socket; }

  // end(data) before any write sends data whole, with its length.
  end(chunk, encoding, cb) {
    if (typeof chunk === "function") {
      cb = chunk;
      chunk = null;
    } else if (typeof encoding === "function") {
      cb = encoding;
      encoding = null;
    }
    const st = this[kState];
    if (chunk !== null && chunk !== undefined && !st.started && !this.writableEnded && this.writableLength === 0 && !this.destroyed) {
      if (typeof chunk === "string") st.endBody = Buf().from(chunk, encoding || "utf8");
      else if (chunk instanceof Uint8Array) st.endBody = chunk;
      else throw errors.invalidArgType("chunk", "of type string or an instance of Buffer or Uint8Array", chunk);
      chunk = null;
    }
    return super.end(chunk, encoding, cb);
  }

  _write(chunk, encoding, cb) {
    if (!startExchange(this, null)) {
      cb();
      return;
    }
    this[kHost].write(this[kState].id, chunk).then(() => {
      touch(this);
      cb();
    }, (e) => {
      // a failed exchange is reported as the request's error already; a
      // write refused (past what a plugin may hold) fails the request
      if (!this[kState].over) this.destroy(e);
      cb();
    });
  }

  _final(cb) {
    whenSocket(this, () => {
      const st = this[kState];
      if (!st.started) startExchange(this, st.endBody || Buf().alloc(0));
      else if (st.id) this[kHost].end(st.id);
      st.endBody = null;
      cb();
    });
  }

  flushHeaders() {
    startExchange(this, null);
  }

  setTimeout(ms, cb) {
    validateNumber(ms, "msecs", 0);
    if (typeof cb === "function") this.once("timeout", cb);
    const st = this[kState];
    st.timeout = ms;
    touch(this);
    return this;
  }

  setNoDelay() {}
  setSocketKeepAlive() {}

  abort() {
    if (this.aborted) return;
    this.aborted = true;
    nextTick(() => this.emit("abort"));
    this.destroy();
  }

  destroy(err) {
    const st = this[kState];
    if (this.destroyed || st.over) {
      return this;
    }
    this.destroyed = true; // its writable side: later writes fail
    if (this.res) this.res._dump();
    endExchange(this);
    nextTick(socketClosed, this, err);
    return this;
  }
}

// whenSocket runs fn once 'socket' is emitted, as Node sends nothing before.
function whenSocket(req, fn) {
  const st = req[kState];
  if (st.socketReady) fn();
  else st.whenSocket.push(fn);
}

// startExchange hands the request to Go: whole (body a Buffer) or to be
// streamed (body null). False if it could not start.
function startExchange(req, body) {
  const st = req[kState];
  if (st.started) return st.id !== 0;
  st.started = true;
  req._headerSent = true;
  const headers = [];
  for (const [name, value] of Object.values(req[kOut])) {
    if (Array.isArray(value)) for (const v of value) headers.push([name, String(v)]);
    else headers.push([name, String(value)]);
  }
  if (!req.hasHeader("connection")) headers.push(["Connection", req.shouldKeepAlive ? "keep-alive" : "close"]);
  let id, head;
  try {
    [id, head] = req[kHost].start(st.url, req.method, headers, body, st.tls);
  } catch (e) {
    st.over = true;
    nextTick(() => failRequest(req, e));
    return false;
  }
  st.id = id;
  touch(req);
  head.then((h) => onResponseHead(req, h), (e) => {
    if (st.over) return;
    st.over = true;
    failRequest(req, e);
  });
  return id !== 0;
}

function endExchange(req) {
  const st = req[kState];
  if (st.over) return;
  st.over = true;
  if (st.id) req[kHost].abort(st.id);
  stopTimer(req);
}

function emitRequestError(req, err) {
  const st = req[kState];
  if (st.errorEmitted) return;
  st.errorEmitted = true;
  const w = req._writableState;
  w.errorEmitted = true;
  if (!w.errored) w.errored = err;
  req.emit("error", err);
}

function closeRequest(req) {
  const st = req[kState];
  if (st.closeEmitted) return;
  st.closeEmitted = true;
  stopTimer(req);
  req.destroyed = true;
  req._writableState.closed = true;
  req.emit("close");
}

// failRequest reports an exchange that failed before its response.
function failRequest(req, err) {
  req.destroyed = true;
  stopTimer(req);
  emitRequestError(req, err);
  closeRequest(req);
}

// socketClosed is what Node does when a request's connection closes
// before its exchange ended: the request fails ("socket hang up") if no
// response came, else the response is cut ("aborted").
function socketClosed(req, err) {
  const res = req.res;
  if (res && !res.complete) {
    if (err) emitRequestError(req, err);
    res.destroy(connReset("aborted"));
    closeRequest(req);
  } else if (!res) {
    emitRequestError(req, err || connReset("socket hang up"));
    closeRequest(req);
  } else {
    closeRequest(req);
  }
}

// The request's timeout: 'timeout' after ms without activity.
function touch(req) {
  const st = req[kState];
  if (st.timer) clearTimeout(st.timer);
  st.timer = null;
  if (!st.timeout || st.over || st.closeEmitted) return;
  st.timer = setTimeout(() => {
    st.timer = null;
    if (req.socket) req.socket.emit("timeout");
    req.emit("timeout");
    if (req.res) req.res.emit("timeout");
  }, st.timeout);
}

function stopTimer(req) {
  const st = req[kState];
  if (st.timer) clearTimeout(st.timer);
  st.timer = null;
}

function onResponseHead(req, h) {
  const st = req[kState];
  if (st.over) return;
  touch(req);
  const res = new IncomingMessage(req, h);
  req.res = res;
  if (req.aborted || !req.emit("response", res)) res._dump();
}

// Node keeps the first of these when a response repeats them.
const singleHeaders = new Set(["age", "authorization", "content-length", "content-type", "etag", "expires", "from", "host",
  "if-modified-since", "if-unmodified-since", "last-modified", "location", "max-forwards", "proxy-authorization", "referer",
  "retry-after", "server", "user-agent"]);

function headerObjects(raw) {
  const headers = {};
  const distinct = {};
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i].toLowerCase(), v = raw[i + 1];
    (distinct[k] || (distinct[k] = [])).push(v);
    if (k === "set-cookie") (headers[k] || (headers[k] = [])).push(v);
    else if (headers[k] === undefined) headers[k] = v;
    else if (singleHeaders.has(k)) continue;
    else headers[k] += (k === "cookie" ? "; " : ", ") + v;
  }
  return [headers, distinct];
}

const kReading = Symbol("kReading");

class IncomingMessage extends Readable {
  constructor(req, h) {
    super();
    this.req = req;
    this.socket = req.socket;
    this.httpVersionMajor = h.major;
    this.httpVersionMinor = h.minor;
    this.httpVersion = h.major + "." + h.minor;
    this.complete = false;
    this.aborted = false;
    this.upgrade = false;
    this.url = "";
    this.method = null;
    this.statusCode = h.status;
    this.statusMessage = h.statusText;
    this.rawHeaders = h.headers || [];
    [this.headers, this.headersDistinct] = headerObjects(this.rawHeaders);
    this.rawTrailers = [];
    this.trailers = {};
    this.trailersDistinct = {};
    this._dumped = false;
    this[kReading] = false;
    // the request closes after the response's end, before the response
    this.on("end", () => nextTick(closeRequest, req));
  }

  get connection() { return this.socket; }

  _read() {
    if (this[kReading]) return;
    this[kReading] = true;
    const req = this.req;
    req[kHost].read(req[kState].id).then((v) => {
      this[kReading] = false;
      if (this.destroyed) return;
      touch(req);
      if (v instanceof ArrayBuffer) {
        this.push(Buf().from(v));
        return;
      }
      req[kState].over = true;
      stopTimer(req);
      this.complete = true;
      this.rawTrailers = v;
      [this.trailers, this.trailersDistinct] = headerObjects(v);
      this.push(null);
    }, (e) => {
      this[kReading] = false;
      if (this.destroyed) return;
      endExchange(req);
      // a connection that failed is the request's error; one that ended
      // too soon only cuts the response
      if (!(e.code === "ECONNRESET" && e.message === "aborted")) emitRequestError(req, e);
      socketClosed(req);
    });
  }

  _destroy(err, cb) {
    if (!this.readableEnded || !this.complete) {
      this.aborted = true;
      this.emit("aborted");
    }
    const req = this.req;
    const live = this.aborted && !req[kState].over;
    if (live) endExchange(req);
    nextTick(() => {
      cb(this.listenerCount("error") === 0 ? undefined : err);
      // destroyed by the plugin: the request closes after the response
      if (live) nextTick(closeRequest, req);
    });
  }

  _dump() {
    if (!this._dumped) {
      this._dumped = true;
      this.removeAllListeners("data");
      this.resume();
    }
  }

  setTimeout(ms, cb) {
    if (typeof cb === "function") this.on("timeout", cb);
    this.req.setTimeout(ms);
    return this;
  }
}

// The defaults of http (https gives its own): the agent, and no TLS.
const http = {
  defaults: {
    host,
    globalAgent: () => module.exports.globalAgent,
    tlsOptions: () => undefined,
  },
};

function makeRequest(defaults) {
  return function request(url, options, cb) {
    return new ClientRequest(url, options, cb, defaults);
  };
}

function makeGet(request) {
  return function get(url, options, cb) {
    const req = request(url, options, cb);
    req.end();
    return req;
  };
}

function Server() {
  throw unavailable("http.Server");
}

function ServerResponse() {
  throw unavailable("http.ServerResponse");
}

const request = makeRequest(http.defaults);

module.exports = {
  Agent, ClientRequest, IncomingMessage, OutgoingMessage, Server, ServerResponse, Socket,
  METHODS, STATUS_CODES, validateHeaderName, validateHeaderValue, unavailable,
  makeRequest, makeGet, request, get: makeGet(request), defaults: http.defaults,
  globalAgent: new Agent({ keepAlive: true, scheduling: "lifo", timeout: 5000 }),
};
