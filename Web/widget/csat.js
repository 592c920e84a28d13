// The satisfaction survey ([data-sb=csat]), shown once a conversation is closed and its workspace asks: five
// choices ([data-sb=csat-rating], data-value 1 to 5) in a radio group, an optional comment, and Send. Loaded on
// first use, so that pages whose conversations never close never load it. Every text is set as text.
const LABELS = ['Very poor', 'Poor', 'Okay', 'Good', 'Excellent'];
const MAX_COMMENT_BYTES = 1000;
const CSS = `.csat{display:grid;gap:6px;padding:10px 14px;background:#f6f7fb;border-top:1px solid #e3e6ee;font-size:13px}
.csat-title{margin:0;font-weight:600}.csat-choices{display:flex;gap:4px}
.csat-choices button{font-size:22px;line-height:1;background:none;border:0;color:#b7bdc9;cursor:pointer;padding:2px 4px}
.csat-choices button.on{color:#e5a100}.csat-choices button:focus-visible{outline:2px solid #2456d6;border-radius:4px}
.csat textarea{font:inherit;padding:6px 8px;border:1px solid #cfd5e2;border-radius:8px;resize:vertical}
.csat .send{justify-self:start;padding:6px 18px;height:auto}.csat-status{margin:0;color:#b42318}.csat-status:empty{display:none}`;

export function survey(widget, sessionId) {
  const el = (tag, attributes = {}, text) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text != null) node.textContent = text;
    return node;
  };
  const form = el('form', { 'data-sb': 'csat', class: 'csat', 'aria-labelledby': 'sb-csat-title' });
  const title = el('p', { id: 'sb-csat-title', class: 'csat-title' }, 'How did we do?');
  const group = el('div', { role: 'radiogroup', 'aria-labelledby': 'sb-csat-title', class: 'csat-choices' });
  let rating = 0;
  const choices = LABELS.map((label, index) => {
    const value = index + 1;
    const choice = el('button', {
      type: 'button', role: 'radio', 'aria-checked': 'false', 'data-sb': 'csat-rating', 'data-value': String(value),
      'aria-label': `${value} of 5: ${label}`, title: label, tabindex: index === 0 ? '0' : '-1',
    }, '★');
    choice.addEventListener('click', () => choose(value));
    return choice;
  });
  const choose = (value) => {
    rating = value;
    for (const [index, choice] of choices.entries()) {
      choice.setAttribute('aria-checked', String(index + 1 === value));
      choice.classList.toggle('on', index < value);
      choice.tabIndex = index + 1 === value ? 0 : -1;
    }
    send.disabled = false;
  };
  // Arrow keys move the choice, as in any radio group.
  group.addEventListener('keydown', (e) => {
    const step = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[e.key];
    if (!step) return;
    e.preventDefault();
    const next = Math.min(5, Math.max(1, (rating || 0) + step));
    choose(next);
    choices[next - 1].focus();
  });
  group.append(...choices);
  const comment = el('textarea', { rows: '2', 'aria-label': 'A comment (optional)', placeholder: 'Anything to add? (optional)', maxlength: String(MAX_COMMENT_BYTES) });
  const send = el('button', { type: 'submit', class: 'send' }, 'Send');
  send.disabled = true;
  const status = el('p', { class: 'csat-status', role: 'status' });
  form.append(title, group, comment, send, status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = comment.value.trim();
    if (new TextEncoder().encode(text).length > MAX_COMMENT_BYTES) {
      status.textContent = 'The comment is too long: please shorten it.';
      return;
    }
    send.disabled = true;
    try {
      await widget.client.rate(sessionId, rating, text || undefined);
      form.replaceChildren(el('p', { class: 'csat-title' }, 'Thank you for your rating!'));
    } catch (error) {
      send.disabled = false;
      status.textContent = error?.code === 'bad_request' && /rated already/.test(error.message)
        ? 'You rated this conversation already. Thank you!'
        : 'Your rating could not be sent. Please try again.';
    }
  });
  // Styled from here (a constructed sheet, as the widget's: the page's CSP allows no inline style), so the
  // widget's own styles stay within its size budget.
  if (!widget.csatSheet) {
    widget.csatSheet = new CSSStyleSheet();
    widget.csatSheet.replaceSync(CSS);
    widget.shadowRoot.adoptedStyleSheets = [...widget.shadowRoot.adoptedStyleSheets, widget.csatSheet];
  }
  widget.hint.after(form);
  widget.surveyForm = form;
  return form;
}
