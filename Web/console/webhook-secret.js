// An endpoint's signing secret, shown once: right after the endpoint is made or its secret rotated.
// The gateway answers it in that one response and never again, so the panel says so plainly, offers a
// copy, and drops the secret from the page when the admin is done with it.
import { el } from '/console/dom.js';

const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });

/** The panel. After a rotation (`rotated`), `overlapUntil` (ISO time, when the gateway says) is when the
 * old secret stops signing. */
export function secretPanel({ secret, rotated = false, overlapUntil, say, done }) {
  const panel = el('section', { class: 'wh-secret', 'data-sb': 'webhook-secret', 'aria-labelledby': 'wh-secret-title' });
  panel.append(el('h4', { id: 'wh-secret-title' }, rotated ? 'New signing secret' : 'Signing secret'));
  const warning = el('p', { id: 'wh-secret-warning', class: 'wh-warning' },
    'Copy it now and store it with your receiver: you will not see this secret again. ' +
    'If it is lost, rotate the secret to get a new one.');
  panel.append(warning);
  // A text area, not an input: the whole secret stays visible at a phone's width, wrapped.
  const input = el('textarea', {
    id: 'wh-secret-value', class: 'wh-secret-value', 'data-sb': 'webhook-secret-value', readonly: '', rows: '2',
    spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'wh-secret-warning',
  });
  input.value = secret;
  input.addEventListener('focus', () => input.select());
  const copy = el('button', { type: 'button', 'data-sb': 'copy-secret' }, 'Copy');
  copy.addEventListener('click', () => copyText(input, say));
  const row = el('div', { class: 'wh-secret-row' });
  row.append(el('label', { for: 'wh-secret-value' }, 'Secret'), input, copy);
  panel.append(row);
  panel.append(el('p', { class: 'muted' }, rotated
    ? `${overlapUntil ? `Until ${when(overlapUntil)}` : 'For a while'} every delivery carries two signatures in its webhook-signature header, ` +
      'one made with the old secret and one with this new one, so your receiver keeps verifying while you ' +
      'switch it over. After that only the new secret signs.'
    : 'Your receiver checks each delivery’s webhook-signature header with it (Standard Webhooks; docs/webhooks.md).'));
  const finished = el('button', { type: 'button', class: 'secondary', 'data-sb': 'secret-done' }, 'I have stored it');
  finished.addEventListener('click', () => {
    input.value = '';
    panel.remove();
    done();
  });
  panel.append(finished);
  panel.focusFirst = () => input.focus(); // read out with its label and the warning
  return panel;
}

/** The clipboard where the browser allows it (a secure origin); otherwise the text is selected to copy by hand. */
async function copyText(input, say) {
  try {
    await navigator.clipboard.writeText(input.value);
    say('Secret copied to the clipboard.');
  } catch {
    input.focus();
    input.select();
    say('This browser did not let the page copy: the secret is selected, press Ctrl+C (⌘C on a Mac).');
  }
}
