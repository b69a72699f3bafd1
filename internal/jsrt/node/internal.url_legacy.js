// The legacy API of node:url, as Node 20 has it: Url objects made by
// url.parse (protocol, slashes, auth, host, port, hostname, hash, search,
// query, pathname, path, href), url.format of such objects, and
// url.resolve and url.resolveObject, with the same leniency (and the same
// quirks) as Node's, which predate the WHATWG URL Standard.
"use strict";

const errors = require("internal/errors");
const querystring = require("querystring");

const slashedProtocol = new Set(["http", "http:", "https", "https:", "ftp", "ftp:", "gopher", "gopher:", "file", "file:", "ws", "ws:", "wss", "wss:"]);
const hostlessProtocol = new Set(["javascript", "javascript:"]);
const unsafeProtocol = hostlessProtocol;

function Url() {
  this.protocol = null;
  this.slashes = null;
  this.auth = null;
  this.host = null;
  this.port = null;
  this.hostname = null;
  this.hash = null;
  this.search = null;
  this.query = null;
  this.pathname = null;
  this.path = null;
  this.href = null;
}

const isSpace = (c) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 0xa0 || c === 0xfeff;

// autoEscape are the characters parse escapes after the host.
const autoEscape = { "\t": "%09", "\n": "%0A", "\r": "%0D", " ": "%20", '"': "%22", "'": "%27", "<": "%3C", ">": "%3E", "\\": "%5C", "^": "%5E", "`": "%60", "{": "%7B", "|": "%7C", "}": "%7D" };
const autoEscapeRe = /[\t\n\r "'<>\\^`{|}]/g;

// notInHost end the host (as RFC 2396 never allows them there);
// endsHost end it too and start what follows.
const notInHost = new Set([9, 10, 13, 32, 34, 37, 39, 59, 60, 62, 92, 94, 96, 123, 124, 125]);
const endsHost = new Set([35, 47, 63]);
const forbiddenHostChars = /[\0\t\n\r #%/:<>?@[\\\]^|]/;
const forbiddenHostCharsIpv6 = /[\0\t\n\r #%/<>?@\\^|]/;
const isIpv6Hostname = (h) => h.charCodeAt(0) === 91 && h.charCodeAt(h.length - 1) === 93;

Url.prototype.parse = function parse(url, parseQueryString, slashesDenoteHost) {
  if (typeof url !== "string") throw errors.invalidArgType("url", "string", url);
  // trim the ends, and turn backslashes before any query or hash into
  // slashes, as browsers do
  let start = 0;
  let end = url.length;
  while (start < end && isSpace(url.charCodeAt(start))) start++;
  while (end > start && isSpace(url.charCodeAt(end - 1))) end--;
  let rest = "";
  let inQueryOrHash = false;
  let hasHash = false;
  let hasAt = false;
  for (let i = start; i < end; i++) {
    const c = url.charCodeAt(i);
    if (!inQueryOrHash && c === 92) {
      rest += "/";
      continue;
    }
    if (c === 35) hasHash = inQueryOrHash = true;
    else if (c === 63) inQueryOrHash = true;
    else if (c === 64 && !inQueryOrHash) hasAt = true;
    rest += url[i];
  }

  if (!slashesDenoteHost && !hasHash && !hasAt) {
    const simple = /^(\/\/?(?!\/)[^?\s]*)(\?[^\s]*)?$/.exec(rest);
    if (simple) {
      this.path = rest;
      this.href = rest;
      this.pathname = simple[1];
      if (simple[2]) {
        this.search = simple[2];
        this.query = parseQueryString ? querystring.parse(this.search.slice(1)) : this.search.slice(1);
      } else if (parseQueryString) {
        this.search = null;
        this.query = { __proto__: null };
      }
      return this;
    }
  }

  let lowerProto = "";
  const proto = /^[a-z0-9.+-]+:/i.exec(rest);
  if (proto) {
    lowerProto = proto[0].toLowerCase();
    this.protocol = lowerProto;
    rest = rest.slice(proto[0].length);
  }

  let slashes;
  if (slashesDenoteHost || proto || /^\/\/[^@/]+@[^@/]+/.test(rest)) {
    slashes = rest.charCodeAt(0) === 47 && rest.charCodeAt(1) === 47;
    if (slashes && !(proto && hostlessProtocol.has(lowerProto))) {
      rest = rest.slice(2);
      this.slashes = true;
    }
  }

  if (!hostlessProtocol.has(lowerProto) && (slashes || (proto && !slashedProtocol.has(proto[0])))) {
    // the host runs to the first of / ? #, and the auth to the last @
    // before it
    let hostEnd = -1;
    let atSign = -1;
    let nonHost = -1;
    for (let i = 0; i < rest.length && hostEnd === -1; i++) {
      const c = rest.charCodeAt(i);
      if (notInHost.has(c)) {
        if (nonHost === -1) nonHost = i;
      } else if (endsHost.has(c)) {
        if (nonHost === -1) nonHost = i;
        hostEnd = i;
      } else if (c === 64) {
        atSign = i;
        nonHost = -1;
      }
    }
    let from = 0;
    if (atSign !== -1) {
      this.auth = decodeURIComponent(rest.slice(0, atSign));
      from = atSign + 1;
    }
    if (nonHost === -1) {
      this.host = rest.slice(from);
      rest = "";
    } else {
      this.host = rest.slice(from, nonHost);
      rest = rest.slice(nonHost);
    }
    this.parseHost();
    if (typeof this.hostname !== "string") this.hostname = "";
    const hostname = this.hostname;
    const ipv6 = isIpv6Hostname(hostname);
    if (!ipv6) {
      // a host with what may not be in one ends there; the rest is path
      for (let i = 0; i < hostname.length; i++) {
        const c = hostname.charCodeAt(i);
        if (c === 47 || c === 92 || c === 35 || c === 63 || c === 58) {
          this.hostname = hostname.slice(0, i);
          rest = "/" + hostname.slice(i) + rest;
          break;
        }
      }
    }
    this.hostname = this.hostname.length > 255 ? "" : this.hostname.toLowerCase();
    if (this.hostname !== "") {
      if (ipv6) {
        if (forbiddenHostCharsIpv6.test(this.hostname)) throw invalidURL(url);
      } else {
        // Node's conversion ends the name at a NUL, as a C string
        this.hostname = require("url").domainToASCII(this.hostname.split("\0")[0]);
        if (this.hostname === "" || forbiddenHostChars.test(this.hostname)) throw invalidURL(url);
      }
    }
    this.host = (this.hostname || "") + (this.port ? ":" + this.port : "");
    if (ipv6) {
      this.hostname = this.hostname.slice(1, -1);
      if (rest[0] !== "/") rest = "/" + rest;
    }
  }

  if (!unsafeProtocol.has(lowerProto)) rest = rest.replace(autoEscapeRe, (c) => autoEscape[c]);

  let questionIdx = -1;
  let hashIdx = -1;
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charCodeAt(i);
    if (c === 35) {
      this.hash = rest.slice(i);
      hashIdx = i;
      break;
    } else if (c === 63 && questionIdx === -1) {
      questionIdx = i;
    }
  }
  if (questionIdx !== -1) {
    const stop = hashIdx === -1 ? rest.length : hashIdx;
    this.search = rest.slice(questionIdx, stop);
    this.query = rest.slice(questionIdx + 1, stop);
    if (parseQueryString) this.query = querystring.parse(this.query);
  } else if (parseQueryString) {
    this.search = null;
    this.query = { __proto__: null };
  }
  const first = questionIdx !== -1 && (hashIdx === -1 || questionIdx < hashIdx) ? questionIdx : hashIdx;
  if (first === -1) {
    if (rest.length > 0) this.pathname = rest;
  } else if (first > 0) {
    this.pathname = rest.slice(0, first);
  }
  if (slashedProtocol.has(lowerProto) && this.hostname && !this.pathname) this.pathname = "/";
  if (this.pathname || this.search) this.path = (this.pathname || "") + (this.search || "");
  this.href = this.format();
  return this;
};

function invalidURL(input) {
  const e = errors.codedTypeError("ERR_INVALID_URL", "Invalid URL");
  e.input = input;
  return e;
}

Url.prototype.parseHost = function parseHost() {
  let h = this.host;
  const port = /:[0-9]*$/.exec(h);
  if (port) {
    if (port[0] !== ":") this.port = port[0].slice(1);
    h = h.slice(0, h.length - port[0].length);
  }
  if (h) this.hostname = h;
};

// escapeAuth encodes what an auth may not hold as it is.
const escapeAuth = (s) => s.replace(/[^A-Za-z0-9!'()*\-._~:]/gu, (c) => encodeURIComponent(c));

Url.prototype.format = function format() {
  let auth = this.auth || "";
  if (auth) auth = escapeAuth(auth) + "@";
  let protocol = this.protocol || "";
  let pathname = this.pathname || "";
  let hash = this.hash || "";
  let host = "";
  let query = "";
  if (this.host) {
    host = auth + this.host;
  } else if (this.hostname) {
    host = auth + (this.hostname.includes(":") && !isIpv6Hostname(this.hostname) ? "[" + this.hostname + "]" : this.hostname);
    if (this.port) host += ":" + this.port;
  }
  if (this.query !== null && typeof this.query === "object") query = querystring.stringify(this.query);
  let search = this.search || (query && "?" + query) || "";
  if (protocol && protocol.charCodeAt(protocol.length - 1) !== 58) protocol += ":";
  pathname = pathname.replace(/[#?]/g, (c) => (c === "#" ? "%23" : "%3F"));
  if (this.slashes || slashedProtocol.has(protocol)) {
    if (this.slashes || host) {
      if (pathname && pathname.charCodeAt(0) !== 47) pathname = "/" + pathname;
      host = "//" + host;
    } else if (protocol.length >= 4 && protocol.startsWith("file")) {
      host = "//";
    }
  }
  search = search.replace(/#/g, "%23");
  if (hash && hash.charCodeAt(0) !== 35) hash = "#" + hash;
  if (search && search.charCodeAt(0) !== 63) search = "?" + search;
  return protocol + host + pathname + search + hash;
};

Url.prototype.resolve = function resolve(relative) {
  return this.resolveObject(urlParse(relative, false, true)).format();
};

Url.prototype.resolveObject = function resolveObject(relative) {
  if (typeof relative === "string") {
    const rel = new Url();
    rel.parse(relative, false, true);
    relative = rel;
  }
  const result = new Url();
  for (const k of Object.keys(this)) result[k] = this[k];
  result.hash = relative.hash; // whatever else happens
  if (relative.href === "") {
    result.href = result.format();
    return result;
  }
  // //host/path keeps only the protocol
  if (relative.slashes && !relative.protocol) {
    for (const k of Object.keys(relative)) if (k !== "protocol") result[k] = relative[k];
    if (slashedProtocol.has(result.protocol) && result.hostname && !result.pathname) result.path = result.pathname = "/";
    result.href = result.format();
    return result;
  }
  if (relative.protocol && relative.protocol !== result.protocol) {
    // a protocol without slashes is absolute; one with them needs a host
    if (!slashedProtocol.has(relative.protocol)) {
      for (const k of Object.keys(relative)) result[k] = relative[k];
      result.href = result.format();
      return result;
    }
    result.protocol = relative.protocol;
    if (!relative.host && !/^file:?$/.test(relative.protocol) && !hostlessProtocol.has(relative.protocol)) {
      const relPath = (relative.pathname || "").split("/");
      while (relPath.length && !(relative.host = relPath.shift()));
      if (!relative.host) relative.host = "";
      if (!relative.hostname) relative.hostname = "";
      if (relPath[0] !== "") relPath.unshift("");
      if (relPath.length < 2) relPath.unshift("");
      result.pathname = relPath.join("/");
    } else {
      result.pathname = relative.pathname;
    }
    result.search = relative.search;
    result.query = relative.query;
    result.host = relative.host || "";
    result.auth = relative.auth;
    result.hostname = relative.hostname || relative.host;
    result.port = relative.port;
    if (result.pathname || result.search) result.path = (result.pathname || "") + (result.search || "");
    result.slashes = result.slashes || relative.slashes;
    result.href = result.format();
    return result;
  }

  const isSourceAbs = result.pathname && result.pathname.charAt(0) === "/";
  const isRelAbs = relative.host || (relative.pathname && relative.pathname.charAt(0) === "/");
  let mustEndAbs = isRelAbs || isSourceAbs || (result.host && relative.pathname);
  const removeAllDots = mustEndAbs;
  let srcPath = (result.pathname && result.pathname.split("/")) || [];
  const relPath = (relative.pathname && relative.pathname.split("/")) || [];
  const noLeadingSlashes = result.protocol && !slashedProtocol.has(result.protocol);

  // in a URL without slashes (mailto:), ../ may climb into the host: it
  // goes into the path for the dots, and back afterwards
  if (noLeadingSlashes) {
    result.hostname = "";
    result.port = null;
    if (result.host) {
      if (srcPath[0] === "") srcPath[0] = result.host;
      else srcPath.unshift(result.host);
    }
    result.host = "";
    if (relative.protocol) {
      // a reference with the protocol brings its own auth, or none
      result.auth = null;
      relative.hostname = null;
      relative.port = null;
      if (relative.host) {
        if (relPath[0] === "") relPath[0] = relative.host;
        else relPath.unshift(relative.host);
      }
      relative.host = null;
    }
    mustEndAbs = mustEndAbs && (relPath[0] === "" || srcPath[0] === "");
  }

  if (isRelAbs) {
    if (relative.host || relative.host === "") {
      if (result.host !== relative.host) result.auth = null;
      result.host = relative.host;
      result.port = relative.port;
    }
    if (relative.hostname || relative.hostname === "") {
      if (result.hostname !== relative.hostname) result.auth = null;
      result.hostname = relative.hostname;
    }
    result.search = relative.search;
    result.query = relative.query;
    srcPath = relPath;
  } else if (relPath.length) {
    srcPath.pop();
    srcPath = srcPath.concat(relPath);
    result.search = relative.search;
    result.query = relative.query;
  } else if (relative.search !== null && relative.search !== undefined) {
    if (noLeadingSlashes) {
      result.hostname = result.host = srcPath.shift();
      const authInHost = result.host && result.host.indexOf("@") > 0 && result.host.split("@");
      if (authInHost) {
        result.auth = authInHost.shift();
        result.host = result.hostname = authInHost.shift();
      }
    }
    result.search = relative.search;
    result.query = relative.query;
    if (result.pathname !== null || result.search !== null) result.path = (result.pathname ? result.pathname : "") + (result.search ? result.search : "");
    result.href = result.format();
    return result;
  }

  if (!srcPath.length) {
    result.pathname = null;
    result.path = result.search ? "/" + result.search : null;
    result.href = result.format();
    return result;
  }

  // a path ending in . or .. gets a trailing slash; one ending otherwise
  // does not
  let last = srcPath.slice(-1)[0];
  const trailingSlash = ((result.host || relative.host || srcPath.length > 1) && (last === "." || last === "..")) || last === "";
  let up = 0;
  for (let i = srcPath.length - 1; i >= 0; i--) {
    last = srcPath[i];
    if (last === ".") {
      srcPath.splice(i, 1);
    } else if (last === "..") {
      srcPath.splice(i, 1);
      up++;
    } else if (up) {
      srcPath.splice(i, 1);
      up--;
    }
  }
  if (!mustEndAbs && !removeAllDots) while (up--) srcPath.unshift("..");
  if (mustEndAbs && srcPath[0] !== "" && (!srcPath[0] || srcPath[0].charAt(0) !== "/")) srcPath.unshift("");
  if (trailingSlash && srcPath.join("/").slice(-1) !== "/") srcPath.push("");
  const isAbsolute = srcPath[0] === "" || (srcPath[0] && srcPath[0].charAt(0) === "/");
  if (noLeadingSlashes) {
    result.hostname = result.host = isAbsolute ? "" : srcPath.length ? srcPath.shift() : "";
    const authInHost = result.host && result.host.indexOf("@") > 0 ? result.host.split("@") : false;
    if (authInHost) {
      result.auth = authInHost.shift();
      result.host = result.hostname = authInHost.shift();
    }
  }
  mustEndAbs = mustEndAbs || (result.host && srcPath.length);
  if (mustEndAbs && !isAbsolute) srcPath.unshift("");
  if (srcPath.length > 0) {
    result.pathname = srcPath.join("/");
  } else {
    result.pathname = null;
    result.path = null;
  }
  if (result.pathname !== null || result.search !== null) result.path = (result.pathname ? result.pathname : "") + (result.search ? result.search : "");
  result.auth = relative.auth || result.auth;
  result.slashes = result.slashes || relative.slashes;
  result.href = result.format();
  return result;
};

function urlParse(url, parseQueryString, slashesDenoteHost) {
  if (url instanceof Url) return url;
  const u = new Url();
  u.parse(url, parseQueryString, slashesDenoteHost);
  return u;
}

function urlFormat(obj) {
  if (typeof obj === "string") {
    obj = urlParse(obj);
  } else if (typeof obj !== "object" || obj === null) {
    throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "urlObject" argument must be one of type object or string.' + errors.received(obj));
  }
  return Url.prototype.format.call(obj);
}

module.exports = {
  Url,
  parse: urlParse,
  format: urlFormat,
  resolve: (source, relative) => urlParse(source, false, true).resolve(relative),
  resolveObject: (source, relative) => (source ? urlParse(source, false, true).resolveObject(relative) : relative),
};
