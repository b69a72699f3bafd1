// The elicitation scenario, as a user of Podcode's API answers it: podcode
// serve runs in the project (its user's config names the suite's server),
// a session's turn calls the server's tool (the /tool command: no model),
// the server's elicitation/create becomes a permission question with a
// form (the permission.asked event), and the user accepts it as it stands:
// the form's defaults are what the server gets.
//
//   node elicit.mjs <podcode binary> <tool id>
//
// It runs in client.sh's user and project; it exits non-zero when the
// turn fails or no form is asked for, within 40 s.
import { spawn } from 'node:child_process';
import net from 'node:net';

const [podcode, tool] = process.argv.slice(2);
const fail = (msg) => { console.error('elicit.mjs: ' + msg); process.exitCode = 1; };
const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const base = `http://127.0.0.1:${port}`;
const serve = spawn(podcode, ['serve', '--addr', `127.0.0.1:${port}`], { stdio: ['ignore', 'inherit', 'inherit'] });
const abort = new AbortController();
const timer = setTimeout(() => { fail('no answer within 40 s'); abort.abort(); }, 40_000);
const json = async (method, path, body) => {
  const res = await fetch(base + path, { method, signal: abort.signal, headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

try {
  // The server is up, and so is the MCP server it uses.
  for (;;) {
    try {
      const health = await json('GET', '/healthz');
      if (health.mcp?.some((s) => s.state === 'ready')) break;
    } catch (e) {
      if (abort.signal.aborted) throw e;
    }
    await sleep(100);
  }
  const session = await json('POST', '/sessions', {});
  // The user's page: it answers the questions of the session.
  let forms = 0;
  const events = await fetch(base + '/events', { signal: abort.signal });
  const follow = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of events.body) {
      buf += decoder.decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!line.startsWith('data: ')) continue;
        const ev = JSON.parse(line.slice(6));
        const q = ev.properties?.question;
        if (ev.type !== 'permission.asked' || q?.sessionID !== session.id) continue;
        if (q.form) forms++;
        // A form: accepted with no value changed (each field keeps its
        // default); a plain question (the call itself): yes.
        await json('POST', '/permissions/' + q.id, q.form ? { action: 'accept', content: {} } : { allow: true });
      }
    }
  })().catch((e) => { if (!abort.signal.aborted) fail('events: ' + e.message); });
  const turn = await json('POST', `/sessions/${session.id}/messages`, { text: `/tool ${tool} {}` });
  if (turn.error) fail('the turn: ' + turn.error);
  if (forms === 0) fail('no question with a form was asked');
  console.log(JSON.stringify(turn.messages?.at(-1) ?? turn));
} catch (e) {
  fail(e.message);
} finally {
  clearTimeout(timer);
  abort.abort();
  serve.kill('SIGTERM');
}
