// node:url as Node 20's, and the global URL and URLSearchParams: URL
// follows the WHATWG URL Standard (the parser is Go's half, whatwgurl.go)
// with its setters and a searchParams that stays in step with it both
// ways; fileURLToPath and pathToFileURL are POSIX's; urlToHttpOptions,
// domainToASCII and domainToUnicode (UTS #46, by golang.org/x/net/idna,
// whose Unicode version may differ from Node's for the newest
// characters); and the legacy url.parse, url.format and url.resolve.
// URL.createObjectURL is not provided (Podcode has no Blob).
"use strict";

const errors = require("internal/errors");
const { validateObject, validateFunction } = require("internal/validators");

const customInspect = Symbol.for("nodejs.util.inspect.custom");
const lazyInspect = () => require("util").inspect;

// usv is WebIDL's USVString conversion (a symbol throws, as there).
const { toUSVString } = require("internal/usv");
const usv = (v) => toUSVString(`${v}`);

function invalidURL(input, base) {
  const e = errors.codedTypeError("ERR_INVALID_URL", "Invalid URL");
  e.input = input;
  if (base !== undefined) e.base = base;
  return e;
}

// ---- application/x-www-form-urlencoded --------------------------------

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function formEncode(s) {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f) {
      out += s[i];
    } else if (c === 0x20) {
      out += "+";
    } else if (c < 0x80) {
      out += "%" + (c < 16 ? "0" : "") + c.toString(16).toUpperCase();
    } else {
      const end = c >= 0xd800 && c <= 0xdbff ? i + 2 : i + 1;
      for (const b of encoder.encode(s.slice(i, end))) out += "%" + b.toString(16).toUpperCase();
      i = end - 1;
    }
  }
  return out;
}

function formDecode(s) {
  if (s.includes("+")) s = s.replace(/\+/g, " ");
  if (!s.includes("%")) return s;
  const bytes = encoder.encode(s);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  const hex = (b) => (b >= 48 && b <= 57 ? b - 48 : b >= 65 && b <= 70 ? b - 55 : b >= 97 && b <= 102 ? b - 87 : -1);
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 37 && i + 2 < bytes.length && hex(bytes[i + 1]) >= 0 && hex(bytes[i + 2]) >= 0) {
      out[n++] = hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]);
      i += 2;
    } else {
      out[n++] = bytes[i];
    }
  }
  return decoder.decode(out.subarray(0, n));
}

function parseForm(s) {
  const list = [];
  for (const part of s.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    list.push(formDecode(eq === -1 ? part : part.slice(0, eq)), formDecode(eq === -1 ? "" : part.slice(eq + 1)));
  }
  return list;
}

// ---- URLSearchParams --------------------------------------------------

const kList = Symbol("list");
const kURL = Symbol("url");

function checkThis(self) {
  if (self === null || typeof self !== "object" || !(kList in self)) {
    throw errors.codedTypeError("ERR_INVALID_THIS", 'Value of "this" must be of type URLSearchParams');
  }
}

class URLSearchParams {
  constructor(init = undefined) {
    Object.defineProperty(this, kList, { value: [], writable: true });
    Object.defineProperty(this, kURL, { value: null, writable: true });
    if (init === undefined || init === null) return;
    if (typeof init === "object" || typeof init === "function") {
      const method = init[Symbol.iterator];
      if (kList in init && method === URLSearchParams.prototype[Symbol.iterator]) {
        this[kList] = init[kList].slice();
      } else if (method !== undefined && method !== null) {
        if (typeof method !== "function") throw errors.codedTypeError("ERR_ARG_NOT_ITERABLE", "Query pairs must be iterable");
        for (const pair of init) {
          if ((typeof pair !== "object" && typeof pair !== "function") || pair === null || typeof pair[Symbol.iterator] !== "function") {
            throw errors.codedTypeError("ERR_INVALID_TUPLE", "Each query pair must be an iterable [name, value] tuple");
          }
          const kv = [...pair];
          if (kv.length !== 2) throw errors.codedTypeError("ERR_INVALID_TUPLE", "Each query pair must be an iterable [name, value] tuple");
          this[kList].push(usv(kv[0]), usv(kv[1]));
        }
      } else {
        const seen = new Map();
        for (const key of Reflect.ownKeys(init)) {
          const d = Reflect.getOwnPropertyDescriptor(init, key);
          if (d === undefined || !d.enumerable) continue;
          const k = usv(key);
          const v = usv(init[key]);
          if (seen.has(k)) {
            this[kList][seen.get(k)] = v;
          } else {
            seen.set(k, this[kList].length + 1);
            this[kList].push(k, v);
          }
        }
      }
      return;
    }
    let s = usv(init);
    if (s[0] === "?") s = s.slice(1);
    this[kList] = parseForm(s);
  }

  #update() {
    const u = this[kURL];
    if (u === null) return;
    const s = this.toString();
    host.setQuery(u[kHandle], s === "" ? null : s);
  }

  get size() {
    checkThis(this);
    return this[kList].length / 2;
  }

  append(name, value) {
    checkThis(this);
    if (arguments.length < 2) throw errors.missingArgs("name", "value");
    this[kList].push(usv(name), usv(value));
    this.#update();
  }

  delete(name, value = undefined) {
    checkThis(this);
    if (arguments.length < 1) throw errors.missingArgs("name");
    const list = this[kList];
    name = usv(name);
    const only = value !== undefined ? usv(value) : undefined;
    for (let i = 0; i < list.length;) {
      if (list[i] === name && (only === undefined || list[i + 1] === only)) list.splice(i, 2);
      else i += 2;
    }
    this.#update();
  }

  get(name) {
    checkThis(this);
    if (arguments.length < 1) throw errors.missingArgs("name");
    const list = this[kList];
    name = usv(name);
    for (let i = 0; i < list.length; i += 2) if (list[i] === name) return list[i + 1];
    return null;
  }

  getAll(name) {
    checkThis(this);
    if (arguments.length < 1) throw errors.missingArgs("name");
    const list = this[kList];
    const out = [];
    name = usv(name);
    for (let i = 0; i < list.length; i += 2) if (list[i] === name) out.push(list[i + 1]);
    return out;
  }

  has(name, value = undefined) {
    checkThis(this);
    if (arguments.length < 1) throw errors.missingArgs("name");
    const list = this[kList];
    name = usv(name);
    const only = value !== undefined ? usv(value) : undefined;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === name && (only === undefined || list[i + 1] === only)) return true;
    }
    return false;
  }

  set(name, value) {
    checkThis(this);
    if (arguments.length < 2) throw errors.missingArgs("name", "value");
    const list = this[kList];
    name = usv(name);
    value = usv(value);
    let found = false;
    for (let i = 0; i < list.length;) {
      if (list[i] !== name) {
        i += 2;
      } else if (!found) {
        list[i + 1] = value;
        found = true;
        i += 2;
      } else {
        list.splice(i, 2);
      }
    }
    if (!found) list.push(name, value);
    this.#update();
  }

  sort() {
    checkThis(this);
    const list = this[kList];
    const pairs = [];
    for (let i = 0; i < list.length; i += 2) pairs.push([list[i], list[i + 1]]);
    // stable, by UTF-16 code units
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this[kList] = pairs.flat();
    this.#update();
  }

  forEach(callback, thisArg = undefined) {
    checkThis(this);
    validateFunction(callback, "callback");
    const list = this[kList];
    for (let i = 0; i < list.length; i += 2) {
      callback.call(thisArg, list[i + 1], list[i], this);
      if (list !== this[kList]) break;
    }
  }

  entries() { checkThis(this); return new ParamsIterator(this, "key+value"); }
  keys() { checkThis(this); return new ParamsIterator(this, "key"); }
  values() { checkThis(this); return new ParamsIterator(this, "value"); }

  toString() {
    checkThis(this);
    const list = this[kList];
    let out = "";
    for (let i = 0; i < list.length; i += 2) {
      if (i) out += "&";
      out += formEncode(list[i]) + "=" + formEncode(list[i + 1]);
    }
    return out;
  }

  [customInspect](depth, options) {
    if (typeof depth === "number" && depth < 0) return options.stylize("[Object]", "special");
    const inspect = lazyInspect();
    const inner = { ...options };
    if (depth !== null) inner.depth = depth - 1;
    const list = this[kList];
    const out = [];
    for (let i = 0; i < list.length; i += 2) out.push(inspect(list[i], inner) + " => " + inspect(list[i + 1], inner));
    const name = this.constructor.name;
    const width = out.reduce((n, s) => n + s.length + 2, -2);
    if (width > options.breakLength) return name + " {\n  " + out.join(",\n  ") + " }";
    return out.length ? name + " { " + out.join(", ") + " }" : name + " {}";
  }
}
Object.defineProperty(URLSearchParams.prototype, Symbol.iterator, { value: URLSearchParams.prototype.entries, writable: true, configurable: true });
Object.defineProperty(URLSearchParams.prototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });

class ParamsIterator {
  #params;
  #kind;
  #index = 0;
  constructor(params, kind) {
    this.#params = params;
    this.#kind = kind;
  }
  next() {
    const list = this.#params[kList];
    if (this.#index >= list.length) return { value: undefined, done: true };
    const i = this.#index;
    this.#index += 2;
    const value = this.#kind === "key" ? list[i] : this.#kind === "value" ? list[i + 1] : [list[i], list[i + 1]];
    return { value, done: false };
  }
  [Symbol.iterator]() { return this; }
  [customInspect](depth, options) {
    const inspect = lazyInspect();
    const inner = { ...options, depth: depth === null ? null : depth - 1 };
    const list = this.#params[kList];
    const out = [];
    for (let i = this.#index; i < list.length; i += 2) {
      const v = this.#kind === "key" ? list[i] : this.#kind === "value" ? list[i + 1] : [list[i], list[i + 1]];
      out.push(inspect(v, inner));
    }
    const name = "URLSearchParams Iterator";
    const width = out.reduce((n, s) => n + s.length + 2, -2);
    if (out.length === 0) return name + " {  }";
    if (width > options.breakLength) return name + " {\n  " + out.join(",\n  ") + " }";
    return name + " { " + out.join(", ") + " }";
  }
}
Object.defineProperty(ParamsIterator.prototype, Symbol.toStringTag, { value: "URLSearchParams Iterator", configurable: true });

// ---- URL ----------------------------------------------------------------

const kHandle = Symbol("handle");
const kParams = Symbol("params");
const parts = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash", "query"];
const at = Object.fromEntries(parts.map((p, i) => [p, i]));

function isURLThis(self) {
  if (self === null || typeof self !== "object" || !(kHandle in self)) {
    throw errors.codedTypeError("ERR_INVALID_THIS", 'Value of "this" must be of type URL');
  }
}

class URL {
  constructor(input, base = undefined) {
    if (arguments.length === 0) throw errors.missingArgs("url");
    input = usv(input);
    if (base !== undefined) base = usv(base);
    const h = host.parse(input, base);
    if (h === null) throw invalidURL(input, base);
    Object.defineProperty(this, kHandle, { value: h, writable: true });
    Object.defineProperty(this, kParams, { value: null, writable: true });
  }

  static canParse(input, base = undefined) {
    if (arguments.length === 0) throw errors.missingArgs("url");
    input = usv(input);
    if (base !== undefined) base = usv(base);
    return host.parse(input, base) !== null;
  }

  static createObjectURL() { throw errors.unavailable("URL.createObjectURL", "there is no Blob"); }
  static revokeObjectURL() { throw errors.unavailable("URL.revokeObjectURL", "there is no Blob"); }

  #part(name) {
    isURLThis(this);
    return host.parts(this[kHandle])[at[name]];
  }

  #set(name, value) {
    isURLThis(this);
    host.set(this[kHandle], name, usv(value));
    if (name === "search" || name === "href") this.#syncParams();
  }

  #syncParams() {
    const p = this[kParams];
    if (p !== null) {
      const q = host.parts(this[kHandle])[at.query];
      p[kList] = q === null ? [] : parseForm(q);
    }
  }

  toString() { return this.#part("href"); }
  get href() { return this.#part("href"); }
  set href(v) {
    isURLThis(this);
    v = usv(v);
    const h = host.parse(v, undefined);
    if (h === null) throw invalidURL(v);
    this[kHandle] = h;
    this.#syncParams();
  }
  get origin() { return this.#part("origin"); }
  get protocol() { return this.#part("protocol"); }
  set protocol(v) { this.#set("protocol", v); }
  get username() { return this.#part("username"); }
  set username(v) { this.#set("username", v); }
  get password() { return this.#part("password"); }
  set password(v) { this.#set("password", v); }
  get host() { return this.#part("host"); }
  set host(v) { this.#set("host", v); }
  get hostname() { return this.#part("hostname"); }
  set hostname(v) { this.#set("hostname", v); }
  get port() { return this.#part("port"); }
  set port(v) { this.#set("port", v); }
  get pathname() { return this.#part("pathname"); }
  set pathname(v) { this.#set("pathname", v); }
  get search() { return this.#part("search"); }
  set search(v) { this.#set("search", v); }
  get searchParams() {
    isURLThis(this);
    if (this[kParams] === null) {
      const p = new URLSearchParams(this.#part("query") || "");
      p[kURL] = this;
      this[kParams] = p;
    }
    return this[kParams];
  }
  get hash() { return this.#part("hash"); }
  set hash(v) { this.#set("hash", v); }
  toJSON() { return this.#part("href"); }

  [customInspect](depth, options) {
    if (typeof depth === "number" && depth < 0) return this;
    const obj = {};
    for (const k of ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "searchParams", "hash"]) obj[k] = this[k];
    return this.constructor.name + " " + lazyInspect()(obj, options);
  }
}
for (const k of ["toString", "href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "searchParams", "hash", "toJSON"]) {
  const d = Object.getOwnPropertyDescriptor(URL.prototype, k);
  d.enumerable = true;
  Object.defineProperty(URL.prototype, k, d);
}
Object.defineProperty(URL.prototype, Symbol.toStringTag, { value: "URL", configurable: true });

// isURL is Node's test of a WHATWG URL, which a legacy Url is not.
const isURL = (v) => Boolean(v && v.href && v.protocol && v.auth === undefined && v.path === undefined);

// ---- files --------------------------------------------------------------

function fileURLToPath(path) {
  if (typeof path === "string") path = new URL(path);
  else if (!isURL(path)) throw errors.invalidArgType("path", "string or an instance of URL", path);
  if (path.protocol !== "file:") throw errors.codedTypeError("ERR_INVALID_URL_SCHEME", "The URL must be of scheme file");
  if (path.hostname !== "") throw errors.codedTypeError("ERR_INVALID_FILE_URL_HOST", 'File URL host must be "localhost" or empty on ' + process.platform);
  const pathname = path.pathname;
  if (/%2f/i.test(pathname)) throw errors.codedTypeError("ERR_INVALID_FILE_URL_PATH", "File URL path must not include encoded / characters");
  return decodeURIComponent(pathname);
}

function pathToFileURL(filepath) {
  const path = require("path");
  let resolved = path.resolve(filepath);
  if (filepath.charCodeAt(filepath.length - 1) === 47 && resolved[resolved.length - 1] !== "/") resolved += "/";
  // what the pathname setter would not encode, or would take as a separator
  resolved = resolved.replace(/%/g, "%25").replace(/\\/g, "%5C").replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/\t/g, "%09");
  const u = new URL("file://");
  u.pathname = resolved;
  return u;
}

function urlToHttpOptions(url) {
  const options = {
    __proto__: null,
    ...url,
    protocol: url.protocol,
    hostname: typeof url.hostname === "string" && url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
    hash: url.hash,
    search: url.search,
    pathname: url.pathname,
    path: (url.pathname || "") + (url.search || ""),
    href: url.href,
  };
  if (url.port !== "") options.port = Number(url.port);
  if (url.username || url.password) options.auth = decodeURIComponent(url.username) + ":" + decodeURIComponent(url.password);
  return options;
}

function domainToASCII(domain) {
  if (arguments.length < 1) throw errors.missingArgs("domain");
  return host.domainToASCII(`${domain}`);
}

function domainToUnicode(domain) {
  if (arguments.length < 1) throw errors.missingArgs("domain");
  return host.domainToUnicode(`${domain}`);
}

// the legacy API is in a file of its own
const legacy = require("internal/url_legacy");

function format(urlObject, options) {
  if (isURL(urlObject) && typeof urlObject !== "string") {
    let fragment = true, unicode = false, search = true, auth = true;
    if (options) {
      validateObject(options, "options");
      if (options.fragment != null) fragment = Boolean(options.fragment);
      if (options.unicode != null) unicode = Boolean(options.unicode);
      if (options.search != null) search = Boolean(options.search);
      if (options.auth != null) auth = Boolean(options.auth);
    }
    const u = new URL(urlObject.href);
    if (!fragment) u.hash = "";
    if (!search) u.search = "";
    if (!auth) {
      u.username = "";
      u.password = "";
    }
    let href = u.href;
    if (unicode && u.hostname !== "") {
      const uni = domainToUnicode(u.hostname);
      if (uni !== "") {
        const i = href.indexOf(u.hostname, u.protocol.length);
        href = href.slice(0, i) + uni + href.slice(i + u.hostname.length);
      }
    }
    return href;
  }
  return legacy.format(urlObject);
}

module.exports = {
  Url: legacy.Url, parse: legacy.parse, resolve: legacy.resolve, resolveObject: legacy.resolveObject, format,
  URL, URLSearchParams, domainToASCII, domainToUnicode, pathToFileURL, fileURLToPath, urlToHttpOptions,
};
