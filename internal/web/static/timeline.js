// The turn timeline: for each model call and each tool call, the hooks
// that ran around it (the message's "hooks", in the order they ran) as a
// waterfall. Each bar starts at the run's startUs, counted from the start
// of the call (see place); the gaps between bars are the time outside the
// hooks, such as the tool's own execute or a wait for a permission answer.

import { h, pretty, duration } from './dom.js';
import * as usage from './usage.js';

// Outcomes that mean a hook failed (pipeline steps and lifecycle handlers).
const FAILED = new Set(['threw', 'error', 'panic', 'timed_out', 'canceled', 'invalid', 'rejected']);

export function failed(run) {
  return FAILED.has(run.outcome) || Boolean(run.error);
}

function flag(run) {
  if (run.outcome === 'timed_out') return 'timed out';
  if (failed(run)) return 'failed';
  return '';
}

// title names what a message's hooks ran around.
function title(m, n) {
  if (m.role === 'assistant') {
    const calls = (m.toolCalls || []).map((c) => c.tool);
    return `Model call ${n}` + (calls.length ? ` → ${calls.join(', ')}` : '');
  }
  if (m.role === 'tool') return `Tool call: ${m.result ? m.result.tool : '?'}`;
  if (m.role === 'user') return 'Prompt';
  return m.role;
}

// rewritten is, for a tool result whose call a tool.execute.before hook
// changed, the arguments the tool ran with (the last change's output) and
// the plugins that changed them; null when none did. A change recorded
// only in part (cut at 4 KiB) gives its text.
export function rewritten(m) {
  if (m.role !== 'tool') return null;
  const changes = (m.hooks || []).filter((r) => r.hook === 'tool.execute.before' && r.outcome === 'changed' && r.output);
  if (!changes.length) return null;
  const last = changes[changes.length - 1];
  let args = last.output;
  try { args = JSON.parse(last.output).args; } catch { /* cut: shown as recorded */ }
  return { args, by: [...new Set(changes.map((r) => r.source))] };
}

// context is what the API keeps of the call a message's hooks ran around:
// its input and its output, redacted as everywhere (shown for a lifecycle
// handler, whose own payload the API does not keep).
function context(m, byCall) {
  if (m.role === 'tool' && m.result) {
    const call = byCall.get(m.result.callID);
    const out = [['Call input (arguments, as the model gave them)', call ? pretty(call.args) : '(not in this session)']];
    const changed = rewritten(m);
    if (changed) out.push([`Call input (as the tool ran it: changed by tool.execute.before of ${changed.by.join(', ')})`, pretty(changed.args)]);
    out.push(['Call output (result)', m.result.output + (m.result.isError ? '\n(error)' : '')]);
    return out;
  }
  if (m.role === 'assistant') {
    const out = [['Model output (text)', m.text || '(none)']];
    if (m.toolCalls && m.toolCalls.length) out.push(['Tool calls', pretty(m.toolCalls)]);
    out.push(['Model', m.model || '(not recorded)']);
    if (m.usage) {
      out.push(['Usage (tokens)', pretty(m.usage)]);
      out.push(['Cost (US dollars)', m.usage.cost > 0 ? `$${Number(m.usage.cost).toFixed(6)}` : 'not known: no prices for this model']);
    }
    return out;
  }
  if (m.role === 'user') return [['Prompt', m.text || '']];
  return [];
}

// io is what a pipeline step received and returned, as the API recorded
// it (redacted, and cut when long).
function io(run) {
  const none = run.outcome === 'unchanged' ? '(nothing: the value went on unchanged)' : '(nothing: its contribution was dropped)';
  return [['Input (what this step received)', run.input ? pretty(run.input) : '(not recorded)'],
    ['Output (what this step returned)', run.output ? pretty(run.output) : none]];
}

// place returns where each run's bar starts, in µs after the start of the
// call: its startUs. The runs of a dispatch that came later and counts
// from its own start (such as AgentStop after a model call: its startUs is
// before the end of the run listed before it) are placed after all that
// came before; a run stored without startUs where the one before it ended.
export function place(runs) {
  let base = 0;
  let end = 0;
  let prev = null;
  return runs.map((r) => {
    const dur = Math.max(r.durationUs, 0);
    let at = end;
    if (typeof r.startUs === 'number') {
      if (prev && typeof prev.startUs === 'number' &&
          (r.startUs < prev.startUs || (r.hook !== prev.hook && base + r.startUs < prev.at + prev.dur))) base = end;
      at = base + Math.max(r.startUs, 0);
    }
    prev = { startUs: r.startUs, at, dur };
    end = Math.max(end, at + dur);
    return at;
  });
}

function step(run, i, start, scale, m, byCall) {
  const id = `step-${m.id}-${i}`;
  const bad = flag(run);
  const detail = h('div', { class: 'detail', id, hidden: true, role: 'region', 'aria-label': `${run.hook} by ${run.source}: details` },
    h('dl', {},
      ...[['kind', run.kind], ['hook', run.hook], [run.kind === 'pipeline' ? 'plugin' : 'source', run.source],
        ['layer', run.layer], ['outcome', run.outcome], ['decision', run.decision], ['reason', run.message], ['error', run.error],
        ['starts', `${duration(start)} after the call's start`], ['duration', duration(run.durationUs)]]
        .filter(([, v]) => v !== undefined && v !== '')
        .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    run.kind === 'pipeline'
      ? io(run).flatMap(([label, text]) => [h('h5', {}, label), h('pre', { class: 'io' }, text)])
      : [h('p', { class: 'note' }, 'The API records what a lifecycle handler decided and why, not the payload it was given; below is the call it ran around.'),
        ...context(m, byCall).flatMap(([label, text]) => [h('h5', {}, label), h('pre', {}, text)])]);
  const bar = h('span', { class: 'bar' });
  bar.style.left = `${(start / scale) * 100}%`;
  bar.style.width = `${(Math.max(run.durationUs, 0) / scale) * 100}%`;
  bar.dataset.start = String(start);
  const button = h('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': id,
    onclick: () => {
      const open = button.getAttribute('aria-expanded') !== 'true';
      button.setAttribute('aria-expanded', String(open));
      detail.hidden = !open;
    } },
  h('span', { class: 'name' }, run.hook, h('small', {}, `${run.source} · ${run.decision ? `${run.outcome}: ${run.decision}` : run.outcome}`),
    bad ? h('small', { class: 'flag' }, `⚠ ${bad}`) : null),
  h('span', { class: 'track', 'aria-hidden': 'true' }, bar),
  h('span', { class: 'dur' }, duration(run.durationUs)));
  return h('li', { class: `step ${run.kind}${bad ? ' failed' : ''}`, 'data-hook': run.hook, 'data-source': run.source, 'data-outcome': run.outcome }, button, detail);
}

// callUsage is a model call's line: the model that answered, its tokens
// and, when the model's prices are known, its cost.
function callUsage(m) {
  const parts = [m.model || 'model not recorded'];
  if (m.usage) parts.push(usage.line(m.usage));
  if (m.usage && !(m.usage.cost > 0)) parts.push('price not known');
  return h('p', { class: 'usage', title: m.usage ? usage.exact(m.usage) : null }, parts.join(' · '));
}

// render replaces list's items with one per message that had hooks (or
// is a model or tool call), in the session's order.
export function render(list, messages) {
  const byCall = new Map();
  for (const m of messages) for (const c of m.toolCalls || []) byCall.set(c.id, c);
  const items = [];
  let n = 0;
  for (const m of messages) {
    if (m.role === 'assistant') n++;
    const runs = m.hooks || [];
    if (!runs.length && m.role !== 'assistant' && m.role !== 'tool') continue;
    const total = runs.reduce((s, r) => s + Math.max(r.durationUs, 0), 0);
    const starts = place(runs);
    const scale = Math.max(1, ...runs.map((r, i) => starts[i] + Math.max(r.durationUs, 0)));
    const steps = runs.map((r, i) => step(r, i, starts[i], scale, m, byCall));
    const head = h('h4', {}, title(m, n), ' ', h('span', { class: 'total' }, runs.length ? `${runs.length} hook${runs.length === 1 ? '' : 's'}, ${duration(total)}` : 'no hooks ran'));
    items.push(h('li', { class: `call ${m.role}`, 'data-message': m.id }, head,
      m.role === 'assistant' ? callUsage(m) : null,
      runs.length ? h('ol', { class: 'steps' }, steps) : null));
  }
  list.replaceChildren(...items);
}
