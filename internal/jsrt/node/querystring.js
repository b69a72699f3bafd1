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

const isHex = (c) => hexValue(c) >= 0;

// parse reads str one character at a time, as Node does, with its
// quirks: a separator of several characters matches only where its
// first character starts a full match (a failed partial match is not
// retried from the next character), empty pairs count toward maxKeys,
// and a part is decoded only when it holds a valid %XX (always with a
// decoder of the caller's, which gets "+" as %20).
function parse(str, sep, eq, options) {
  const obj = Object.create(null);
  if (typeof str !== "string" || str.length === 0) return obj;
  const sepStr = sep ? String(sep) : "&";
  const eqStr = eq ? String(eq) : "=";
  let pairs = 1000;
  if (options && typeof options.maxKeys === "number") pairs = options.maxKeys;
  const decoder = options && typeof options.decodeURIComponent === "function" ? options.decodeURIComponent : qs.unescape;
  const custom = decoder !== unescape;
  const plus = custom ? "%20" : " ";
  const decode = (s) => {
    try {
      return decoder(s);
    } catch (e) {
      return qs.unescape(s, true);
    }
  };
  const add = (key, value, keyEncoded, valueEncoded) => {
    if (key.length > 0 && keyEncoded) key = decode(key);
    if (value.length > 0 && valueEncoded) value = decode(value);
    const cur = obj[key];
    if (cur === undefined) obj[key] = value;
    else if (Array.isArray(cur)) cur.push(value);
    else obj[key] = [cur, value];
  };
  let last = 0;
  let sepIdx = 0;
  let eqIdx = 0;
  let key = "";
  let value = "";
  let keyEncoded = custom;
  let valueEncoded = custom;
  let hexSeen = 0; // 1 after a %, 2 and 3 after its hex digits
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c === sepStr.charCodeAt(sepIdx)) {
      if (++sepIdx < sepStr.length) continue;
      const end = i - sepIdx + 1;
      if (eqIdx < eqStr.length) {
        if (last < end) {
          key += str.slice(last, end);
        } else if (key.length === 0) {
          // an empty pair
          if (--pairs === 0) return obj;
          last = i + 1;
          sepIdx = eqIdx = 0;
          continue;
        }
      } else if (last < end) {
        value += str.slice(last, end);
      }
      add(key, value, keyEncoded, valueEncoded);
      if (--pairs === 0) return obj;
      keyEncoded = valueEncoded = custom;
      key = value = "";
      hexSeen = 0;
      last = i + 1;
      sepIdx = eqIdx = 0;
      continue;
    }
    sepIdx = 0;
    if (eqIdx < eqStr.length) {
      if (c === eqStr.charCodeAt(eqIdx)) {
        if (++eqIdx === eqStr.length) {
          const end = i - eqIdx + 1;
          if (last < end) key += str.slice(last, end);
          hexSeen = 0;
          last = i + 1;
        }
        continue;
      }
      eqIdx = 0;
      if (!keyEncoded) {
        if (c === 37) {
          hexSeen = 1;
          continue;
        } else if (hexSeen > 0) {
          if (isHex(c)) {
            if (++hexSeen === 3) keyEncoded = true;
            continue;
          }
          hexSeen = 0;
        }
      }
      if (c === 43) {
        if (last < i) key += str.slice(last, i);
        key += plus;
        last = i + 1;
        continue;
      }
    }
    if (c === 43) {
      if (last < i) value += str.slice(last, i);
      value += plus;
      last = i + 1;
    } else if (!valueEncoded) {
      if (c === 37) {
        hexSeen = 1;
      } else if (hexSeen > 0) {
        if (isHex(c)) {
          if (++hexSeen === 3) valueEncoded = true;
        } else {
          hexSeen = 0;
        }
      }
    }
  }
  if (last < str.length) {
    if (eqIdx < eqStr.length) key += str.slice(last);
    else if (sepIdx < sepStr.length) value += str.slice(last);
  } else if (eqIdx === 0 && key.length === 0) {
    return obj; // ended on an empty pair
  }
  add(key, value, keyEncoded, valueEncoded);
  return obj;
}

const qs = module.exports = {
  unescapeBuffer, unescape, escape, stringify, encode: stringify, parse, decode: parse,
};
