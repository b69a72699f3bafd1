// The API client: the token (kept in this tab's sessionStorage, sent as a
// Bearer header, never in a URL) and the event stream.

const KEY = 'podcode.token';

export const token = {
  get: () => sessionStorage.getItem(KEY) || '',
  set: (v) => sessionStorage.setItem(KEY, v),
  clear: () => sessionStorage.removeItem(KEY),
};

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function headers(extra) {
  const h = { ...extra };
  const t = token.get();
  if (t) h.Authorization = 'Bearer ' + t;
  return h;
}

// api calls the API and returns its JSON answer (null for 204); an error
// answer throws an APIError with the server's message.
export async function api(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }), cache: 'no-store' };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  if (res.status === 204) return null;
  let data = null;
  try { data = await res.json(); } catch { /* not JSON: the status says enough */ }
  if (!res.ok) throw new APIError(res.status, (data && data.error) || `${method} ${path}: HTTP ${res.status}`);
  return data;
}

// parseFrames takes the complete Server-Sent Event frames off the front
// of buf and returns them with what is left.
export function parseFrames(buf) {
  const frames = [];
  buf = buf.replace(/\r\n?/g, '\n');
  let end;
  while ((end = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, end);
    buf = buf.slice(end + 2);
    const f = { id: '', event: 'message', data: [] };
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'id') f.id = value;
      else if (field === 'event') f.event = value;
      else if (field === 'data') f.data.push(value);
    }
    if (f.data.length) frames.push({ id: f.id, type: f.event, data: f.data.join('\n') });
  }
  return { frames, rest: buf };
}

// follow reads /events with fetch() streaming (EventSource cannot send the
// Authorization header) and reconnects with Last-Event-ID after a break,
// so nothing is missed. onEvent(type, event) gets each event (the bus's
// JSON); onState gets "live", "reconnecting" or "unauthorized". It returns
// a function that stops it.
export function follow(onEvent, onState) {
  let last = '';
  let stopped = false;
  let ctrl = null;
  let delay = 500;
  (async () => {
    while (!stopped) {
      ctrl = new AbortController();
      try {
        const extra = { Accept: 'text/event-stream' };
        if (last) extra['Last-Event-ID'] = last;
        const res = await fetch('/events', { headers: headers(extra), signal: ctrl.signal, cache: 'no-store' });
        if (res.status === 401) { onState('unauthorized'); return; }
        if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
        onState('live');
        delay = 500;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const { frames, rest } = parseFrames(buf + value);
          buf = rest;
          for (const f of frames) {
            if (f.id) last = f.id;
            let ev;
            try { ev = JSON.parse(f.data); } catch { continue; }
            try { onEvent(f.type, ev); } catch (e) { console.error('event', f.type, e); }
          }
        }
      } catch (e) {
        if (stopped) return;
        console.warn('events:', e.message);
      }
      if (stopped) return;
      onState('reconnecting');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 10000);
    }
  })();
  return () => { stopped = true; if (ctrl) ctrl.abort(); };
}
