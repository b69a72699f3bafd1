// util.MIMEType and util.MIMEParams as Node 20's: the WHATWG MIME
// Sniffing Standard's parsing and serialization of a MIME type, with
// settable type, subtype and parameters.
"use strict";

const errors = require("internal/errors");

const tokenChar = (c) => /[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(c);
const quotedChar = (c) => { const n = c.charCodeAt(0); return n === 9 || (n >= 0x20 && n <= 0x7e) || (n >= 0x80 && n <= 0xff); };
const isSpace = (c) => c === " " || c === "\t" || c === "\n" || c === "\r";

function syntaxError(production, str, at) {
  return errors.codedTypeError("ERR_INVALID_MIME_SYNTAX", "The MIME syntax for a " + production + ' in "' + str + '" is invalid' + (at !== -1 ? " at " + at : ""));
}

// firstBad is the index of s's first character that fails ok, or -1.
function firstBad(s, ok) {
  for (let i = 0; i < s.length; i++) if (!ok(s[i])) return i;
  return -1;
}

function checkToken(production, s) {
  const at = firstBad(s, tokenChar);
  if (s.length === 0 || at !== -1) throw syntaxError(production, s, at);
}

function serializeValue(v) {
  if (v.length > 0 && firstBad(v, tokenChar) === -1) return v;
  return '"' + v.replace(/["\\]/g, "\\$&") + '"';
}

class MIMEParams {
  #map = new Map();
  delete(name) { this.#map.delete(name); }
  get(name) { const v = this.#map.get(`${name}`); return v === undefined ? null : v; }
  has(name) { return this.#map.has(`${name}`); }
  set(name, value) {
    name = `${name}`;
    value = `${value}`;
    checkToken("parameter name", name);
    const at = firstBad(value, quotedChar);
    if (at !== -1) throw syntaxError("parameter value", value, at);
    this.#map.set(name, value);
  }
  entries() { return this.#map.entries(); }
  keys() { return this.#map.keys(); }
  values() { return this.#map.values(); }
  [Symbol.iterator]() { return this.#map.entries(); }
  toString() {
    let out = "";
    for (const [k, v] of this.#map) out += (out ? ";" : "") + k + "=" + serializeValue(v);
    return out;
  }
  toJSON() { return this.toString(); }
}

class MIMEType {
  #type;
  #subtype;
  #params = new MIMEParams();

  constructor(string) {
    const s = `${string}`;
    let i = 0;
    let end = s.length;
    while (i < end && isSpace(s[i])) i++;
    while (end > i && isSpace(s[end - 1])) end--;
    const str = s.slice(i, end);
    const slash = str.indexOf("/");
    const type = slash === -1 ? str : str.slice(0, slash);
    if (type.length === 0 || firstBad(type, tokenChar) !== -1) throw syntaxError("type", s, firstBad(type, tokenChar));
    if (slash === -1) throw syntaxError("type", s, -1);
    let semi = str.indexOf(";", slash + 1);
    if (semi === -1) semi = str.length;
    let subtype = str.slice(slash + 1, semi);
    let subEnd = subtype.length;
    while (subEnd > 0 && isSpace(subtype[subEnd - 1])) subEnd--;
    subtype = subtype.slice(0, subEnd);
    if (subtype.length === 0 || firstBad(subtype, tokenChar) !== -1) throw syntaxError("subtype", s, firstBad(subtype, tokenChar));
    this.#type = type.toLowerCase();
    this.#subtype = subtype.toLowerCase();
    this.#parseParams(str, semi);
  }

  #parseParams(str, at) {
    const params = [];
    let p = at;
    while (p < str.length) {
      p++; // past ;
      while (p < str.length && isSpace(str[p])) p++;
      let nameEnd = p;
      while (nameEnd < str.length && str[nameEnd] !== ";" && str[nameEnd] !== "=") nameEnd++;
      const name = str.slice(p, nameEnd).toLowerCase();
      p = nameEnd;
      if (p >= str.length) break;
      if (str[p] === ";") continue;
      p++; // past =
      if (p >= str.length) break;
      let value = "";
      if (str[p] === '"') {
        p++;
        while (p < str.length) {
          if (str[p] === "\\") {
            p++;
            if (p < str.length) value += str[p++];
            else value += "\\";
          } else if (str[p] === '"') {
            p++;
            break;
          } else {
            value += str[p++];
          }
        }
        while (p < str.length && str[p] !== ";") p++;
      } else {
        let valueEnd = p;
        while (valueEnd < str.length && str[valueEnd] !== ";") valueEnd++;
        value = str.slice(p, valueEnd);
        p = valueEnd;
        let e = value.length;
        while (e > 0 && isSpace(value[e - 1])) e--;
        value = value.slice(0, e);
        if (value === "") continue;
      }
      if (name !== "" && firstBad(name, tokenChar) === -1 && firstBad(value, quotedChar) === -1 && !params.some(([k]) => k === name)) {
        params.push([name, value]);
      }
    }
    for (const [k, v] of params) this.#params.set(k, v);
  }

  get type() { return this.#type; }
  set type(v) { v = `${v}`; checkToken("type", v); this.#type = v.toLowerCase(); }
  get subtype() { return this.#subtype; }
  set subtype(v) { v = `${v}`; checkToken("subtype", v); this.#subtype = v.toLowerCase(); }
  get essence() { return this.#type + "/" + this.#subtype; }
  get params() { return this.#params; }
  toString() {
    const p = this.#params.toString();
    return this.essence + (p ? ";" + p : "");
  }
  toJSON() { return this.toString(); }
}

module.exports = { MIMEType, MIMEParams };
