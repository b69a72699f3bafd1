// The page: the token, the views (sessions, a session's chat and
// timeline, plugins) and the live event stream.

import { api, token, follow, APIError } from './api.js';
import { h, pretty } from './dom.js';
import * as timeline from './timeline.js';
import * as usage from './usage.js';
import { askForm } from './form.js';

const $ = (id) => document.getElementById(id);

const state = {
  session: null,      // the open session
  messages: [],       // its messages, by seq
  streaming: null,    // the <li> of the answer being streamed
  busy: false,
  settled: null,      // while busy: the user message of the last turn known to have finished
  stop: null,         // stops the event stream
  commands: [],       // the slash commands (GET /commands)
  progress: new Map(), // callID → the running call's latest tool.call.progress
};

// ---- token ---------------------------------------------------------------

async function start() {
  try {
    await api('GET', '/healthz');
  } catch (e) {
    if (e instanceof APIError && e.status === 401) return askToken(token.get() ? 'That token was refused.' : '');
    $('token-error').textContent = e.message;
    return askToken(e.message);
  }
  $('login').hidden = true;
  $('app').hidden = false;
  $('forget').hidden = !token.get();
  if (state.stop) state.stop();
  state.stop = follow(onEvent, onStreamState);
  await refreshSessions();
  route();
  await refreshCommands();
}

// The slash commands (GET /commands): an MCP server's prompts come and go
// with it, so they are read again after each turn.
async function refreshCommands() {
  try { state.commands = await api('GET', '/commands'); } catch (e) { report(e); }
}

function askToken(message) {
  $('app').hidden = true;
  $('login').hidden = false;
  $('token-error').textContent = message || '';
  $('token').focus();
}

$('token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  token.set($('token').value.trim());
  $('token').value = '';
  start();
});

$('forget').addEventListener('click', () => {
  token.clear();
  if (state.stop) state.stop();
  state.stop = null;
  onStreamState('offline');
  askToken('');
});

function onStreamState(s) {
  const live = $('live');
  live.textContent = s === 'live' ? 'live' : s;
  live.classList.toggle('on', s === 'live');
  if (s === 'unauthorized') askToken('The token was refused.');
}

// ---- routing -------------------------------------------------------------

window.addEventListener('hashchange', route);

function route() {
  const hash = location.hash || '#/';
  const m = hash.match(/^#\/s\/([^/]+)$/);
  const plugins = hash === '#/plugins';
  current($('nav-sessions'), !plugins);
  current($('nav-plugins'), plugins);
  show(hash === '#/plugins' ? 'plugins' : m ? 'session' : 'empty');
  if (hash === '#/plugins') loadPlugins();
  else if (m) openSession(decodeURIComponent(m[1]));
  else { state.session = null; markCurrent(); }
}

function current(el, on) {
  if (on) el.setAttribute('aria-current', 'page');
  else el.removeAttribute('aria-current');
}

function show(view) {
  for (const v of ['empty', 'session', 'plugins']) $('view-' + v).hidden = v !== view;
}

// ---- sessions ------------------------------------------------------------

async function refreshSessions() {
  let list;
  try { list = await api('GET', '/sessions'); } catch (e) { return report(e); }
  list = list || [];
  list.sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
  $('session-list').replaceChildren(...list.map((s) => h('li', {},
    h('a', { href: '#/s/' + encodeURIComponent(s.id), 'data-id': s.id },
      s.title || s.id, h('small', {}, `${s.status} · ${new Date(s.createdAt).toLocaleString()}`),
      usage.used(s.usage) ? h('small', { class: 'usage', title: usage.exact(s.usage) }, usage.line(s.usage)) : null))));
  markCurrent();
}

function markCurrent() {
  for (const a of $('session-list').querySelectorAll('a')) {
    if (state.session && a.dataset.id === state.session.id) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

$('new-session').addEventListener('submit', async (e) => {
  e.preventDefault();
  const title = $('new-title').value.trim();
  try {
    const s = await api('POST', '/sessions', title ? { title } : {});
    $('new-title').value = '';
    await refreshSessions();
    location.hash = '#/s/' + encodeURIComponent(s.id);
    $('prompt').focus();
  } catch (err) { report(err); }
});

async function openSession(id) {
  if (!state.session || state.session.id !== id) $('questions').replaceChildren();
  try {
    const [s, msgs] = await Promise.all([api('GET', '/sessions/' + encodeURIComponent(id)),
      api('GET', `/sessions/${encodeURIComponent(id)}/messages`)]);
    state.session = s;
    state.messages = msgs || [];
  } catch (e) {
    state.session = null;
    show('empty');
    return report(e);
  }
  state.streaming = null;
  $('session-title').textContent = state.session.title || state.session.id;
  $('session-meta').textContent = `${state.session.id} · ${state.session.model} · ${state.session.status}`;
  showSessionUsage(state.session.usage);
  const running = state.session.status === 'running';
  setBusy(running);
  // The last turn of a running session is the one running.
  if (running) state.settled = lastUser(1);
  markCurrent();
  renderMessages();
}

// showSessionUsage writes the session's totals (the sum over its model
// calls, from the API) in its header.
function showSessionUsage(u) {
  const el = $('session-usage');
  el.hidden = !usage.used(u);
  el.textContent = usage.used(u) ? `Session total: ${usage.line(u)}` : '';
  el.title = usage.used(u) ? usage.exact(u) : '';
}

// ---- chat ----------------------------------------------------------------

// lastUser is the id of the last user message listed (skip: of the one
// that many before it), or null.
function lastUser(skip = 0) {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    if (state.messages[i].role === 'user' && skip-- === 0) return state.messages[i].id;
  }
  return null;
}

// renderMessages lists the messages, and after each turn that finished
// (a user message and what came after it, up to the next user message)
// what its model calls used and cost, summed from its assistant messages.
function renderMessages() {
  const items = [];
  let turn = null;
  const close = (last) => {
    if (!turn || !turn.usages.length) return;
    if (last && state.busy && turn.id !== state.settled) return; // still running
    const u = usage.sum(turn.usages);
    items.push(h('li', { class: 'turn-usage', 'data-turn': turn.id, title: `This turn: ${usage.exact(u)}` }, usage.line(u)));
  };
  for (const m of state.messages) {
    if (m.role === 'user') {
      close(false);
      turn = { id: m.id, usages: [] };
    }
    items.push(messageItem(m));
    if (turn && usage.counted(m)) turn.usages.push(m.usage);
  }
  close(true);
  $('messages').replaceChildren(...items);
  if (state.streaming) $('messages').append(state.streaming);
  timeline.render($('timeline'), state.messages);
}

function messageItem(m) {
  const cls = ['msg', m.role];
  if (m.status === 'error' || (m.result && m.result.isError)) cls.push('failed');
  const parts = [h('span', { class: 'who' }, m.role === 'tool' ? `tool result · ${m.result ? m.result.tool : ''}` : m.role)];
  if (m.text) parts.push(h('p', {}, m.text));
  for (const c of m.toolCalls || []) {
    parts.push(h('div', { class: 'toolcall', 'data-call': c.id }, h('strong', {}, `calls ${c.tool}`), h('pre', { 'aria-label': `arguments of ${c.tool}` }, pretty(c.args)),
      progressLine(c.id)));
  }
  const changed = timeline.rewritten(m);
  if (changed) {
    parts.push(h('div', { class: 'toolcall rewritten' }, h('strong', {}, `ran with the arguments ${changed.by.join(', ')} changed them to`),
      h('pre', { 'aria-label': `arguments ${m.result ? m.result.tool : ''} ran with` }, pretty(changed.args))));
  }
  if (m.result) {
    if (m.result.title) parts.push(h('p', {}, m.result.title));
    parts.push(h('pre', { 'aria-label': `result of ${m.result.tool}` }, m.result.output));
  }
  if (m.error) parts.push(h('p', { class: 'error' }, m.error));
  if (m.status && m.status !== 'complete') parts.push(h('p', { class: 'meta' }, m.status));
  return h('li', { class: cls.join(' '), 'data-role': m.role, 'data-id': m.id }, ...parts);
}

// progressLine is what a running call said of its progress
// (tool.call.progress), shown under the call until its result comes.
function progressLine(callID) {
  const p = state.progress.get(callID);
  if (!p) return null;
  const done = p.total ? ` of ${p.total}` : '';
  const bar = p.total ? h('progress', { max: p.total, value: p.progress }) : null;
  return h('p', { class: 'progress meta', role: 'status' }, bar, ` ${p.progress}${done}`, p.message ? ` · ${p.message}` : '');
}

function showProgress(p) {
  state.progress.set(p.callID, p);
  const el = [...$('messages').querySelectorAll('.toolcall')].find((x) => x.dataset.call === p.callID);
  if (!el) return;
  const old = el.querySelector('.progress');
  const line = progressLine(p.callID);
  if (old) old.replaceWith(line);
  else el.append(line);
}

function upsert(m) {
  const i = state.messages.findIndex((x) => x.id === m.id);
  if (i >= 0) state.messages[i] = m;
  else state.messages.push(m);
  state.messages.sort((a, b) => a.seq - b.seq);
  if (m.role === 'assistant') state.streaming = null;
  renderMessages();
}

function setBusy(b) {
  // A turn starts: the turns listed so far have finished.
  if (b && !state.busy) state.settled = lastUser();
  state.busy = b;
  $('cancel').disabled = !b;
  $('send').disabled = b;
}

$('prompt-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const text = $('prompt').value;
  if (!text.trim() || !state.session) return;
  $('prompt-error').textContent = '';
  setBusy(true);
  try {
    await api('POST', `/sessions/${encodeURIComponent(state.session.id)}/messages`, { text, async: true });
    $('prompt').value = '';
    showCommands();
  } catch (err) {
    setBusy(false);
    $('prompt-error').textContent = err.message;
  }
});

// While the prompt is "/<name>", the slash commands of that name's start
// are listed; choosing one writes "/<name> " for its arguments.
function showCommands() {
  const m = /^\/([^\s]*)$/.exec($('prompt').value);
  const list = m ? (state.commands || []).filter((c) => c.name.startsWith(m[1])) : [];
  $('commands').hidden = !list.length;
  $('commands').replaceChildren(...list.map((c) => h('li', {},
    h('button', { type: 'button', class: 'command', onclick: () => {
      $('prompt').value = '/' + c.name + ' ';
      showCommands();
      $('prompt').focus();
    } }, h('code', {}, '/' + c.name), c.argumentHint ? ' ' + c.argumentHint : ''),
    h('small', {}, ` ${c.description}`, c.source !== 'project' && c.source !== 'user' ? ` (${c.source})` : ''))));
}
$('prompt').addEventListener('input', showCommands);

// Ctrl+Enter (or Cmd+Enter) sends.
$('prompt').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) $('prompt-form').requestSubmit();
});

$('cancel').addEventListener('click', async () => {
  if (!state.session) return;
  try { await api('POST', `/sessions/${encodeURIComponent(state.session.id)}/cancel`); } catch (e) { report(e); }
});

// ---- permission questions --------------------------------------------------

function askPermission(q) {
  if (document.getElementById('q-' + q.id)) return;
  if (q.form) {
    askForm($('questions'), q, (body) => api('POST', '/permissions/' + encodeURIComponent(q.id), body), () => $('prompt').focus());
    return;
  }
  const box = h('div', { class: 'question', id: 'q-' + q.id, role: 'group', 'aria-labelledby': 'qt-' + q.id, 'data-session': q.sessionID },
    h('p', { id: 'qt-' + q.id }, h('strong', {}, `Allow ${q.tool}?`), q.reason ? ` (${q.reason})` : ''),
    h('pre', { 'aria-label': `arguments of ${q.tool}` }, pretty(q.args)));
  const answer = async (allow) => {
    for (const b of box.querySelectorAll('button')) b.disabled = true;
    try {
      await api('POST', '/permissions/' + encodeURIComponent(q.id), { allow });
      box.remove();
      $('prompt').focus();
    } catch (e) {
      box.append(h('p', { class: 'error', role: 'alert' }, e.message));
    }
  };
  box.append(h('div', { class: 'actions' },
    h('button', { type: 'button', class: 'allow', onclick: () => answer(true) }, 'Allow'),
    h('button', { type: 'button', class: 'danger deny', onclick: () => answer(false) }, 'Deny')));
  $('questions').append(box);
  box.querySelector('button').focus();
}

// ---- events ---------------------------------------------------------------

function here(p) { return state.session && p && p.sessionID === state.session.id; }

function onEvent(type, ev) {
  const p = ev.properties || {};
  switch (type) {
    case 'session.created':
    case 'session.deleted':
      refreshSessions();
      break;
    case 'turn.started':
      if (here(p)) setBusy(true);
      break;
    case 'turn.refused': // a post that never started; a running turn goes on
      if (here(p)) $('prompt-error').textContent = p.error || 'the prompt was refused';
      break;
    case 'turn.finished':
      if (here(p)) {
        setBusy(false);
        for (const q of $('questions').querySelectorAll('.question')) q.remove();
        if (p.error) $('prompt-error').textContent = p.error;
        state.streaming = null;
        openSession(state.session.id);
      }
      refreshSessions();
      refreshCommands();
      break;
    case 'message.delta':
      if (here(p)) {
        if (!state.streaming) {
          state.streaming = h('li', { class: 'msg assistant streaming', 'data-role': 'assistant' }, h('span', { class: 'who' }, 'assistant'), h('p', {}));
          $('messages').append(state.streaming);
        }
        state.streaming.querySelector('p').append(p.text || '');
      }
      break;
    case 'message.stored':
      if (here(p) && p.message) upsert(p.message);
      break;
    case 'permission.asked':
      if (p.question && here(p.question)) askPermission(p.question);
      break;
    case 'tool.call.progress':
      if (here(p)) showProgress(p);
      break;
    case 'tool.call.finished':
      if (state.progress.delete(p.callID)) {
        const old = [...$('messages').querySelectorAll('.progress')].find((x) => x.closest('.toolcall').dataset.call === p.callID);
        if (old) old.remove();
      }
      break;
    case 'events.missed':
      // Events were lost: reload what is shown.
      refreshSessions();
      if (state.session) openSession(state.session.id);
      break;
    case 'plugin.loaded':
      if (!$('view-plugins').hidden) loadPlugins();
      break;
  }
}

// ---- plugins ---------------------------------------------------------------

async function loadPlugins() {
  let pl, tools, health;
  try {
    [pl, tools, health] = await Promise.all([api('GET', '/plugins'), api('GET', '/tools'), api('GET', '/healthz')]);
  } catch (e) { return report(e); }
  const bySource = new Map();
  for (const t of tools || []) {
    if (!bySource.has(t.source)) bySource.set(t.source, []);
    bySource.get(t.source).push(t.id);
  }
  const tags = (xs) => xs && xs.length ? h('ul', { class: 'tags' }, xs.map((x) => h('li', {}, x))) : 'none';
  const out = [];
  out.push(h('h3', {}, `Loaded plugins (${pl.plugins.length}, in pipeline order)`));
  if (!pl.plugins.length) out.push(h('p', {}, 'No plugins are loaded.'));
  for (const p of pl.plugins) {
    out.push(h('article', { class: 'plugin', 'aria-label': `plugin ${p.id}` }, h('h4', {}, p.id),
      h('dl', {}, h('dt', {}, 'status'), h('dd', { class: p.status === 'running' ? '' : 'warn' }, p.status),
        h('dt', {}, 'source'), h('dd', {}, p.source), h('dt', {}, 'path'), h('dd', {}, p.path),
        h('dt', {}, 'hooks'), h('dd', {}, tags(p.hooks)), h('dt', {}, 'tools'), h('dd', {}, tags(bySource.get(p.id))))));
  }
  out.push(h('h3', {}, 'Load warnings'));
  out.push(pl.warnings && pl.warnings.length ? h('ul', {}, pl.warnings.map((w) => h('li', { class: 'warn' }, w))) : h('p', {}, 'None.'));
  out.push(h('h3', {}, 'Project code that does not run (trust)'));
  const skipped = pl.skipped || [];
  out.push(skipped.length ? h('ul', {}, skipped.map((s) => h('li', {}, h('strong', {}, `${s.kind} ${s.name}`), `: ${s.state}, ${s.effect}. ${s.meaning}`)))
    : h('p', {}, 'Nothing: all project code runs.'));
  out.push(h('h3', {}, 'MCP servers'));
  const mcp = (health && health.mcp) || [];
  out.push(mcp.length ? h('ul', {}, mcp.map((s) => h('li', {}, h('strong', {}, s.name), ` (${s.transport}, ${s.origin}): ${s.state}`,
    s.error ? h('span', { class: 'warn' }, ` — ${s.error}`) : '', ` · tools: ${(s.tools || []).join(', ') || 'none'}`)))
    : h('p', {}, 'None configured.'));
  $('plugins').replaceChildren(...out);
}

function report(e) {
  console.error(e);
  if (e instanceof APIError && e.status === 401) return askToken('The token was refused.');
  if (!$('view-session').hidden) $('prompt-error').textContent = e.message;
  else if (!$('view-plugins').hidden) $('plugins').replaceChildren(h('p', { class: 'error', role: 'alert' }, e.message));
  else $('sessions-error').textContent = e.message;
}

start();
