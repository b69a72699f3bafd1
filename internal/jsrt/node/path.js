// node:path, POSIX only (Podcode runs on Linux and macOS): the same
// algorithms as Node's path.posix, written from its documentation. resolve
// starts from the server's directory (process.cwd()).
"use strict";

const { validateString } = require("internal/validators");

// normalizeParts resolves "." and ".." in path (no leading or trailing
// slash handling): above the root they are dropped when absolute, kept
// when relative.
function normalizeParts(path, absolute) {
  const out = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(part);
  }
  return out.join("/");
}

function normalize(path) {
  validateString(path, "path");
  if (path === "") return ".";
  const absolute = path.charCodeAt(0) === 47;
  const trailing = path.charCodeAt(path.length - 1) === 47;
  let p = normalizeParts(path, absolute);
  if (p === "" && !absolute) p = ".";
  if (p !== "" && trailing) p += "/";
  return absolute ? "/" + p : p;
}

function join(...parts) {
  let joined;
  for (const p of parts) {
    validateString(p, "path");
    if (p.length > 0) joined = joined === undefined ? p : joined + "/" + p;
  }
  return joined === undefined ? "." : normalize(joined);
}

function resolve(...parts) {
  let resolved = "";
  let absolute = false;
  for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
    const p = i >= 0 ? parts[i] : process.cwd();
    validateString(p, "paths[" + i + "]");
    if (p.length === 0) continue;
    resolved = p + "/" + resolved;
    absolute = p.charCodeAt(0) === 47;
  }
  const out = normalizeParts(resolved, absolute);
  if (absolute) return "/" + out;
  return out.length > 0 ? out : ".";
}

function isAbsolute(path) {
  validateString(path, "path");
  return path.length > 0 && path.charCodeAt(0) === 47;
}

function relative(from, to) {
  validateString(from, "from");
  validateString(to, "to");
  if (from === to) return "";
  from = resolve(from);
  to = resolve(to);
  if (from === to) return "";
  const f = from === "/" ? [] : from.slice(1).split("/");
  const t = to === "/" ? [] : to.slice(1).split("/");
  let i = 0;
  while (i < f.length && i < t.length && f[i] === t[i]) i++;
  return [...f.slice(i).map(() => ".."), ...t.slice(i)].join("/");
}

function dirname(path) {
  validateString(path, "path");
  if (path.length === 0) return ".";
  const absolute = path.charCodeAt(0) === 47;
  let end = -1;
  let matched = true;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path.charCodeAt(i) === 47) {
      if (!matched) { end = i; break; }
    } else {
      matched = false;
    }
  }
  if (end === -1) return absolute ? "/" : ".";
  if (absolute && end === 1) return "//";
  return path.slice(0, end);
}

function basename(path, suffix) {
  if (suffix !== undefined) validateString(suffix, "suffix");
  validateString(path, "path");
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  if (end === 0) return "";
  const start = path.lastIndexOf("/", end - 1) + 1;
  let base = path.slice(start, end);
  if (suffix !== undefined && suffix.length > 0 && base !== suffix && base.endsWith(suffix)) {
    base = base.slice(0, base.length - suffix.length);
  }
  return base;
}

// scanLast finds, in path from index start on, the last part's bounds
// and its extension's dot, as Node's extname and parse do (a name of dots
// alone, or a leading dot, is not an extension).
function scanLast(path, start) {
  let startDot = -1, startPart = 0, end = -1, matchedSlash = true, preDotState = 0;
  for (let i = path.length - 1; i >= start; i--) {
    const code = path.charCodeAt(i);
    if (code === 47) {
      if (!matchedSlash) { startPart = i + 1; break; }
      continue;
    }
    if (end === -1) { matchedSlash = false; end = i + 1; }
    if (code === 46) {
      if (startDot === -1) startDot = i;
      else if (preDotState !== 1) preDotState = 1;
    } else if (startDot !== -1) {
      preDotState = -1;
    }
  }
  const noExt = startDot === -1 || end === -1 || preDotState === 0 ||
    (preDotState === 1 && startDot === end - 1 && startDot === startPart + 1);
  return { startDot, startPart, end, noExt };
}

function extname(path) {
  validateString(path, "path");
  const s = scanLast(path, 0);
  return s.noExt ? "" : path.slice(s.startDot, s.end);
}

function parse(path) {
  validateString(path, "path");
  const out = { root: "", dir: "", base: "", ext: "", name: "" };
  if (path.length === 0) return out;
  const absolute = path.charCodeAt(0) === 47;
  if (absolute) out.root = "/";
  const s = scanLast(path, absolute ? 1 : 0);
  if (s.end !== -1) {
    const start = s.startPart === 0 && absolute ? 1 : s.startPart;
    if (s.noExt) {
      out.base = out.name = path.slice(start, s.end);
    } else {
      out.name = path.slice(start, s.startDot);
      out.base = path.slice(start, s.end);
      out.ext = path.slice(s.startDot, s.end);
    }
  }
  if (s.startPart > 0) out.dir = path.slice(0, s.startPart - 1);
  else if (absolute) out.dir = "/";
  return out;
}

function format(obj) {
  if (obj === null || typeof obj !== "object") {
    throw require("internal/errors").invalidArgType("pathObject", "object", obj);
  }
  const dir = obj.dir || obj.root;
  const base = obj.base || (obj.name || "") + (obj.ext ? (obj.ext[0] === "." ? "" : ".") + obj.ext : "");
  if (!dir) return base;
  return dir === obj.root ? dir + base : dir + "/" + base;
}

function toNamespacedPath(path) {
  return path;
}

const posix = {
  sep: "/", delimiter: ":",
  normalize, join, resolve, isAbsolute, relative, dirname, basename, extname, parse, format, toNamespacedPath,
};
posix.posix = posix;
module.exports = posix;
