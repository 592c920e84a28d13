// The form that makes an endpoint or changes one: its URL, the events it gets, a description, and (when
// changing one) whether it is enabled. Checked here for what the page can know (a URL, one event at
// least); the gateway's refusals (a private address, say) come back into the same alert line.
import { el } from '/console/dom.js';
import { explain } from '/console/webhooks-api.js';

/** The event types of docs/protocol.md, "Webhooks", with what each reports. */
export const EVENT_TYPES = [
  ['session.created', 'a conversation starts'],
  ['session.updated', 'a conversation is assigned, queued, closed, renamed or gets a contact'],
  ['session.deleted', 'a conversation is deleted'],
  ['message.created', 'a visitor or an operator writes (private notes excluded)'],
  ['note.created', 'an operator writes a private note'],
];

let forms = 0; // ids unique per form, so that labels and descriptions point at their own fields

/**
 * `endpoint`: the one to change, or undefined for a new one. `save(fields)` sends the fields that
 * changed and rejects with the API's error; `cancel()` leaves the form.
 */
export function endpointForm({ endpoint, save, cancel }) {
  const id = `wh-form-${++forms}`;
  const form = el('form', { class: 'wh-form', 'data-sb': 'webhook-form', novalidate: '' });
  const error = el('p', { id: `${id}-error`, class: 'error', role: 'alert', 'data-sb': 'webhook-error' });

  const url = el('input', {
    id: `${id}-url`, name: 'url', type: 'url', inputmode: 'url', required: '', maxlength: '2048', autocomplete: 'off',
    spellcheck: 'false', placeholder: 'https://example.com/hooks/switchboard', 'aria-describedby': `${id}-url-hint ${id}-error`,
  });
  url.value = endpoint?.url ?? '';
  form.append(
    el('label', { for: url.id }, 'Endpoint URL'),
    url,
    el('p', { id: `${id}-url-hint`, class: 'hint' }, 'The gateway POSTs signed JSON here. Use https in production.'),
  );

  const events = el('fieldset', { class: 'wh-events', 'aria-describedby': `${id}-error` });
  events.append(el('legend', {}, 'Events to send'));
  const chosen = new Set(endpoint?.events ?? []);
  for (const [type, what] of EVENT_TYPES) {
    const box = el('input', { type: 'checkbox', name: 'events', value: type, id: `${id}-${type}` });
    box.checked = chosen.has(type);
    const label = el('label', { for: box.id });
    label.append(el('code', {}, type), el('span', { class: 'muted' }, ` ${what}`));
    const row = el('div', { class: 'wh-check' });
    row.append(box, label);
    events.append(row);
  }
  form.append(events);

  const description = el('input', { id: `${id}-description`, name: 'description', maxlength: '1024', autocomplete: 'off', placeholder: 'e.g. CRM sync' });
  description.value = endpoint?.description ?? '';
  form.append(el('label', { for: description.id }, 'Description (optional)'), description);

  let enabled;
  if (endpoint) {
    enabled = el('input', { type: 'checkbox', name: 'enabled', id: `${id}-enabled`, 'data-sb': 'webhook-enabled' });
    enabled.checked = endpoint.enabled;
    const row = el('div', { class: 'wh-check' });
    row.append(enabled, el('label', { for: enabled.id }, 'Enabled: send deliveries to this endpoint'));
    form.append(row);
  }

  const submit = el('button', { type: 'submit', 'data-sb': 'webhook-save' }, endpoint ? 'Save changes' : 'Add endpoint');
  const back = el('button', { type: 'button', class: 'secondary', 'data-sb': 'webhook-cancel' }, 'Cancel');
  back.addEventListener('click', cancel);
  const buttons = el('div', { class: 'wh-buttons' });
  buttons.append(submit, back);
  form.append(error, buttons);

  const refuse = (text, field) => {
    error.textContent = text;
    if (field === url) url.setAttribute('aria-invalid', 'true');
    field?.focus();
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    url.removeAttribute('aria-invalid');
    const fields = {
      url: url.value.trim(),
      events: [...form.querySelectorAll('input[name=events]:checked')].map((box) => box.value),
      description: description.value.trim(),
    };
    if (!/^https?:\/\/[^/\s]/i.test(fields.url) || !parses(fields.url)) {
      return refuse('Enter the full URL of your receiver, starting with https:// (or http://).', url);
    }
    if (!fields.events.length) return refuse('Choose at least one event to send.', events.querySelector('input'));
    const changed = endpoint ? changes(endpoint, { ...fields, enabled: enabled.checked }) : withoutEmpty(fields);
    if (endpoint && !Object.keys(changed).length) return cancel();
    submit.disabled = true;
    submit.textContent = 'Saving…';
    try {
      await save(changed);
    } catch (problem) {
      // A refused URL (private_target, or the gateway's own check of it) sends the admin back to the URL.
      const aboutURL = problem?.code === 'private_target' || /\burl\b/i.test(problem?.message ?? '');
      refuse(explain(problem), aboutURL ? url : undefined);
    } finally {
      submit.disabled = false;
      submit.textContent = endpoint ? 'Save changes' : 'Add endpoint';
    }
  });
  form.focusFirst = () => url.focus();
  return form;
}

function parses(url) {
  try {
    return Boolean(new URL(url)); // URL.canParse is newer than some browsers admins use
  } catch {
    return false;
  }
}

/** The fields whose values differ from the endpoint's (events compared as sets). */
function changes(endpoint, fields) {
  const changed = {};
  if (fields.url !== endpoint.url) changed.url = fields.url;
  const before = [...(endpoint.events ?? [])].sort().join();
  if ([...fields.events].sort().join() !== before) changed.events = fields.events;
  if (fields.description !== (endpoint.description ?? '')) changed.description = fields.description || null;
  if (fields.enabled !== endpoint.enabled) changed.enabled = fields.enabled;
  return changed;
}

function withoutEmpty(fields) {
  return fields.description ? fields : { url: fields.url, events: fields.events };
}
