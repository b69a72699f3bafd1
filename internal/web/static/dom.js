// h builds an element: h('p', {class: 'x', onclick: f}, 'text', child).
// Text is always set as text, never parsed as HTML.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// pretty shows a value as indented JSON (a JSON string is parsed first).
export function pretty(v) {
  if (typeof v === 'string') {
    try { v = JSON.parse(v); } catch { return v; }
  }
  return JSON.stringify(v, null, 2);
}

// duration writes microseconds for people.
export function duration(us) {
  us = Number(us) || 0;
  if (us < 1000) return `${us} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(us < 1e4 ? 2 : 1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}
