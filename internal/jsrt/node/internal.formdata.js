// FormData, the web's, as the global npm packages look for (an SDK that
// tests `body instanceof FormData` on every request): entries of names and
// string or Blob values, in order. fetch does not send it (bodies are text
// or bytes): a plugin that posts a form gets fetch's TypeError.
"use strict";

const kEntries = Symbol("entries");

function value(v, filename) {
  if (v !== null && typeof v === "object" && typeof v.arrayBuffer === "function" && typeof v.size === "number") {
    if (filename !== undefined || v.name === undefined) {
      const { File } = require("buffer");
      if (typeof File === "function") return new File([v], filename === undefined ? "blob" : String(filename), { type: v.type });
    }
    return v;
  }
  return String(v);
}

class FormData {
  constructor(form) {
    if (form !== undefined) throw new TypeError("FormData: a form element is not supported outside a browser");
    this[kEntries] = [];
  }
  append(name, v, filename) { this[kEntries].push([String(name), value(v, filename)]); }
  set(name, v, filename) {
    name = String(name);
    const e = this[kEntries];
    const i = e.findIndex(([n]) => n === name);
    const entry = [name, value(v, filename)];
    if (i < 0) { e.push(entry); return; }
    e[i] = entry;
    for (let j = e.length - 1; j > i; j--) if (e[j][0] === name) e.splice(j, 1);
  }
  get(name) { const f = this[kEntries].find(([n]) => n === String(name)); return f ? f[1] : null; }
  getAll(name) { return this[kEntries].filter(([n]) => n === String(name)).map(([, v]) => v); }
  has(name) { return this[kEntries].some(([n]) => n === String(name)); }
  delete(name) { this[kEntries] = this[kEntries].filter(([n]) => n !== String(name)); }
  forEach(fn, thisArg) { for (const [n, v] of this[kEntries]) fn.call(thisArg, v, n, this); }
  *entries() { for (const [n, v] of this[kEntries]) yield [n, v]; }
  *keys() { for (const [n] of this[kEntries]) yield n; }
  *values() { for (const [, v] of this[kEntries]) yield v; }
  [Symbol.iterator]() { return this.entries(); }
  get [Symbol.toStringTag]() { return "FormData"; }
}

module.exports = { FormData };
