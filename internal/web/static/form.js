// An MCP server's form (elicitation): the question's form, its fields as
// inputs filled with their defaults, answered with POST /permissions/{id}
// {action, content}. The server checks the values against the form (a
// value that does not fit answers 400, shown here; the question stays).

import { h } from './dom.js';

const formats = { email: 'email', uri: 'url', date: 'date' };

// fieldInput is the input of one field and how to read its value
// (undefined: left out, so that the server's default applies).
function fieldInput(qid, f) {
  const id = `q-${qid}-${f.name}`;
  const has = f.default !== undefined && f.default !== null;
  const label = h('label', { for: id }, f.title || f.name, f.required ? ' *' : '');
  const help = f.description ? h('small', { id: id + '-help' }, f.description) : null;
  const described = help ? id + '-help' : undefined;
  let input, read;
  if (f.type === 'boolean') {
    input = h('input', { type: 'checkbox', id, name: f.name, checked: has && f.default === true, 'aria-describedby': described });
    const box = h('div', { class: 'field check' }, input, label, help);
    box.read = () => (input.checked || has || f.required ? input.checked : undefined);
    return box;
  }
  if (f.type === 'array') {
    const chosen = new Set(has ? f.default : []);
    const boxes = (f.options || []).map((o, i) => h('label', { class: 'choice' },
      h('input', { type: 'checkbox', id: `${id}-${i}`, value: o.value, checked: chosen.has(o.value) }), ' ', o.title || o.value));
    const set = h('fieldset', { class: 'field', 'aria-describedby': described }, h('legend', {}, f.title || f.name, f.required ? ' *' : ''), help, ...boxes);
    set.read = () => {
      const values = [...set.querySelectorAll('input:checked')].map((b) => b.value);
      return values.length || has || f.required ? values : undefined;
    };
    return set;
  }
  if (f.options && f.options.length) {
    const opts = f.options.map((o) => h('option', { value: o.value, selected: has && f.default === o.value }, o.title || o.value));
    if (!has) opts.unshift(h('option', { value: '' }, f.required ? 'choose…' : '(none)'));
    input = h('select', { id, name: f.name, required: f.required, 'aria-describedby': described }, ...opts);
    read = () => (input.value === '' ? undefined : input.value);
  } else if (f.type === 'number' || f.type === 'integer') {
    input = h('input', { type: 'number', id, name: f.name, step: f.type === 'integer' ? 1 : 'any', min: f.minimum, max: f.maximum,
      required: f.required, value: has ? f.default : undefined, 'aria-describedby': described });
    read = () => (input.value === '' ? undefined : Number(input.value));
  } else {
    input = h('input', { type: formats[f.format] || 'text', id, name: f.name, minlength: f.minLength, maxlength: f.maxLength,
      placeholder: f.format === 'date-time' ? '2025-01-31T09:30:00Z' : undefined,
      required: f.required, value: has ? f.default : undefined, 'aria-describedby': described });
    read = () => (input.value === '' ? undefined : input.value);
  }
  const box = h('div', { class: 'field' }, label, input, help);
  box.read = read;
  return box;
}

// askForm shows question q's form in container; send(body) posts the
// answer; done() runs once it was taken.
export function askForm(container, q, send, done) {
  const f = q.form;
  const fields = (f.fields || []).map((x) => fieldInput(q.id, x));
  const error = h('p', { class: 'error', role: 'alert' });
  const answer = async (action) => {
    for (const b of box.querySelectorAll('button')) b.disabled = true;
    const body = { action };
    if (action === 'accept') {
      body.content = {};
      (f.fields || []).forEach((x, i) => {
        const v = fields[i].read();
        if (v !== undefined) body.content[x.name] = v;
      });
    }
    try {
      await send(body);
      box.remove();
      done();
    } catch (e) {
      error.textContent = e.message;
      for (const b of box.querySelectorAll('button')) b.disabled = false;
    }
  };
  const box = h('form', { class: 'question form', id: 'q-' + q.id, 'aria-labelledby': 'qt-' + q.id, 'data-session': q.sessionID,
    onsubmit: (e) => { e.preventDefault(); answer('accept'); } },
  h('p', { id: 'qt-' + q.id }, h('strong', {}, `${f.plugin ? "The plugin" : "The MCP server"} ${f.server} asks`), q.tool ? ` (during ${q.tool})` : ''),
  h('p', { class: 'message' }, f.message),
  ...fields,
  error,
  h('div', { class: 'actions' },
    h('button', { type: 'submit', class: 'allow' }, 'Send'),
    h('button', { type: 'button', class: 'danger deny', onclick: () => answer('decline') }, 'Decline'),
    h('button', { type: 'button', class: 'secondary', onclick: () => answer('cancel') }, 'Dismiss')));
  container.append(box);
  (box.querySelector('input, select') || box.querySelector('button')).focus();
}
