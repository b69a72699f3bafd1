// node:querystring as Node 20's: parse/decode (sep and eq of any length,
// maxKeys 1000 by default, "+" as a space, malformed escapes kept as they
// are, a decodeURIComponent option), stringify/encode (arrays repeated,
// escaped as querystring.escape does), escape, unescape and
// unescapeBuffer. unescapeBuffer returns a Buffer where node:buffer is
// available, else a Uint8Array.
"use strict";

const errors = require("internal/errors");

// unreserved are the characters escape leaves as they are.
const unreserved = new Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!'()*");
const hex = (b) => "%" + (b < 16 ? "0" : "") + b.toString(16).toUpperCase();

function escape(str) {
  if (typeof str !== "string") str = typeof str === "object" ? String(str) : str + "";
  let out = "";
  let last = 0;
  for (let i = 0; i < str.length; i++) {
    const ch = str[i];
    if (unreserved.has(ch)) continue;
    const at = i;
    let c = str.charCodeAt(i);
    let enc;
    if (c < 0x80) {
      enc = hex(c);
    } else if (c < 0x800) {
      enc = hex(0xc0 | (c >> 6)) + hex(0x80 | (c & 0x3f));
    } else if (c < 0xd800 || c >= 0xe000) {
      enc = hex(0xe0 | (c >> 12)) + hex(0x80 | ((c >> 6) & 0x3f)) + hex(0x80 | (c & 0x3f));
    } else {
      const d = i + 1 < str.length ? str.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || d < 0xdc00 || d > 0xdfff) throw errors.coded(URIError, "ERR_INVALID_URI", "URI malformed");
      i++;
      c = 0x10000 + (((c & 0x3ff) << 10) | (d & 0x3ff));
      enc = hex(0xf0 | (c >> 18)) + hex(0x80 | ((c >> 12) & 0x3f)) + hex(0x80 | ((c >> 6) & 0x3f)) + hex(0x80 | (c & 0x3f));
    }
    out += str.slice(last, at) + enc;
    last = i + 1;
  }
  return last === 0 ? str : out + str.slice(last);
}

const hexValue = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);

// unescapeBytes decodes %XX (and "+" when decodeSpaces) into bytes,
// keeping a "%" not followed by two hex digits; s's other characters go
// as their low byte, as in Node.
function unescapeBytes(s, decodeSpaces) {
  s = String(s);
  const out = new Uint8Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 43 && decodeSpaces) {
      out[n++] = 32;
    } else if (c === 37 && i + 2 < s.length && hexValue(s.charCodeAt(i + 1)) >= 0 && hexValue(s.charCodeAt(i + 2)) >= 0) {
      out[n++] = hexValue(s.charCodeAt(i + 1)) * 16 + hexValue(s.charCodeAt(i + 2));
      i += 2;
    } else {
      out[n++] = c & 0xff;
    }
  }
  return out.subarray(0, n);
}

function unescapeBuffer(s, decodeSpaces) {
  const bytes = unescapeBytes(s, decodeSpaces);
  let Buffer;
  try { Buffer = require("buffer").Buffer; } catch (e) { return bytes; }
  return Buffer.from(bytes);
}

function unescape(s, decodeSpaces) {
  try {
    return decodeURIComponent(s);
  } catch (e) {
    return new TextDecoder().decode(unescapeBytes(s, decodeSpaces));
  }
}

function stringifyPrimitive(v) {
  if (typeof v === "string") return v;
  if (typeof v === "number" && isFinite(v)) return "" + v;
  if (typeof v === "bigint") return "" + v;
  if (typeof v === "boolean") return v ? "true" : "false";
  return "";
}

function stringify(obj, sep, eq, options) {
  sep = sep || "&";
  eq = eq || "=";
  let encode = qs.escape;
  if (options && typeof options.encodeURIComponent === "function") encode = options.encodeURIComponent;
  const convert = encode === escape
    ? (v) => {
      if (typeof v === "string") return v.length ? encode(v) : "";
      if (typeof v === "number" && isFinite(v)) return Math.abs(v) < 1e21 ? "" + v : encode("" + v);
      return stringifyPrimitive(v);
    }
    : (v) => encode(stringifyPrimitive(v));
  if (obj === null || typeof obj !== "object") return "";
  let fields = "";
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const ks = convert(k) + eq;
    if (Array.isArray(v)) {
      if (v.length === 0) continue;
      if (fields) fields += sep;
      for (let j = 0; j < v.length; j++) {
        if (j) fields += sep;
        fields += ks + convert(v[j]);
      }
    } else {
      if (fields) fields += sep;
      fields += ks + convert(v);
    }
  }
  return fields;
}

function parse(str, sep, eq, options) {
  const obj = Object.create(null);
  if (typeof str !== "string" || str.length === 0) return obj;
  sep = sep ? String(sep) : "&";
  eq = eq ? String(eq) : "=";
  let maxKeys = 1000;
  if (options && typeof options.maxKeys === "number") maxKeys = options.maxKeys > 0 ? options.maxKeys : Infinity;
  const decoder = options && typeof options.decodeURIComponent === "function" ? options.decodeURIComponent : qs.unescape;
  const custom = decoder !== unescape;
  // a part is decoded when it holds an escape or a "+" (always with a
  // decoder of the caller's); "+" goes to the decoder as %20
  const decode = (s) => {
    if (!custom && !s.includes("%") && !s.includes("+")) return s;
    s = s.replace(/\+/g, "%20");
    try {
      return decoder(s);
    } catch (e) {
      return qs.unescape(s, true);
    }
  };
  let added = 0;
  let start = 0;
  while (start <= str.length && added < maxKeys) {
    let end = str.indexOf(sep, start);
    if (end === -1) end = str.length;
    const pair = str.slice(start, end);
    start = end + sep.length;
    if (pair.length === 0) continue;
    const at = pair.indexOf(eq);
    const key = decode(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? "" : decode(pair.slice(at + eq.length));
    if (key in obj) {
      const cur = obj[key];
      if (Array.isArray(cur)) cur.push(value);
      else obj[key] = [cur, value];
    } else {
      obj[key] = value;
    }
    added++;
  }
  return obj;
}

const qs = module.exports = {
  unescapeBuffer, unescape, escape, stringify, encode: stringify, parse, decode: parse,
};
