// What the model calls used and cost, written for people. A usage is the
// API's: input (every token the model read, cached ones included), of
// which cacheRead and cacheWrite were read from and written to the prompt
// cache; output, of which reasoning was thinking; cost in US dollars, 0 or
// absent when the model's prices are not known.

// tokens writes a count of tokens: 678, 12.3k, 1.2M.
export function tokens(n) {
  n = Number(n) || 0;
  if (n < 1000) return String(n);
  if (n < 999950) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

// money writes a cost in US dollars: $0.0123, $4.56.
export function money(c) {
  c = Number(c) || 0;
  if (c >= 1) return `$${c.toFixed(2)}`;
  if (c >= 0.0001) return `$${c.toFixed(4)}`;
  return c > 0 ? '< $0.0001' : '$0';
}

// used says whether u counts anything.
export function used(u) {
  return Boolean(u && (u.input || u.output || u.cost));
}

// sum adds usages up, field by field.
export function sum(list) {
  const out = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
  for (const u of list) {
    if (!u) continue;
    for (const k of Object.keys(out)) out[k] += Number(u[k]) || 0;
  }
  return out;
}

// line is the short form: "12.3k in · 10.0k cached · 678 out · $0.0123"
// (the cached part when the cache served any, the price when it is known).
export function line(u) {
  u = u || {};
  const parts = [`${tokens(u.input)} in`];
  if (u.cacheRead > 0) parts.push(`${tokens(u.cacheRead)} cached`);
  parts.push(`${tokens(u.output)} out`);
  if (u.cost > 0) parts.push(money(u.cost));
  return parts.join(' · ');
}

// exact is the long form, every count in full (a tooltip, the details).
export function exact(u) {
  u = u || {};
  const n = (x) => (Number(x) || 0).toLocaleString('en');
  return `${n(u.input)} tokens in (${n(u.cacheRead)} read from the prompt cache, ${n(u.cacheWrite)} written to it), ` +
    `${n(u.output)} out (${n(u.reasoning)} reasoning); ` +
    (u.cost > 0 ? `$${Number(u.cost).toFixed(6)}` : 'price not known');
}

// counted says whether a message's usage counts in its turn's and its
// session's totals: every model call's does, one that failed or was cut
// short too (it was paid for, and the server adds it to the session).
export function counted(m) {
  return m.role === 'assistant' && used(m.usage);
}
