// The canned replies' manager (a dialog): the workspace's replies, each editable and deletable, and a form
// that saves a new one or the one being edited. Loaded the first time "Manage canned replies…" is chosen.
import { el } from '/console/dom.js';

const BASE = '/api/v1/canned-replies';
const REASONS = {
  conflict: 'another canned reply has that shortcut',
  bad_request: null, // the gateway's message names the field
  forbidden: 'you may not change the canned replies',
  not_found: 'it was deleted meanwhile',
};

export class CannedManager {
  constructor(canned) {
    this.canned = canned;
    this.client = canned.client;
    this.editing = null;
    this.dialog = el('dialog', { 'data-sb': 'canned-manager', class: 'card canned-manager', 'aria-labelledby': 'canned-title' });
    const title = el('h2', { id: 'canned-title' }, 'Canned replies');
    const hint = el('p', { class: 'muted' }, 'Type / and a shortcut in a reply to use one. {{visitor.name}} and {{operator.name}} are filled in.');
    this.items = el('ul', { class: 'canned-items' });
    this.form = el('form', { class: 'canned-form' });
    this.shortcut = el('input', { name: 'shortcut', required: '', maxlength: '32', pattern: '[a-z0-9][a-z0-9_\\-]*', autocomplete: 'off', 'aria-describedby': 'canned-shortcut-hint' });
    this.body = el('textarea', { name: 'body', required: '', rows: '4', dir: 'auto' });
    this.error = el('p', { class: 'error', role: 'alert' });
    this.save = el('button', { type: 'submit' }, 'Save');
    const cancel = el('button', { type: 'button', class: 'secondary' }, 'New');
    const done = el('button', { type: 'button', class: 'secondary' }, 'Done');
    const shortcutLabel = el('label', {}, 'Shortcut ');
    shortcutLabel.append(this.shortcut);
    const bodyLabel = el('label', {}, 'Reply ');
    bodyLabel.append(this.body);
    this.form.append(
      shortcutLabel,
      el('small', { id: 'canned-shortcut-hint', class: 'muted' }, 'lower-case letters, digits, - and _'),
      bodyLabel, this.error, el('div', { class: 'actions' }));
    this.form.querySelector('.actions').append(this.save, cancel, done);
    this.dialog.append(title, hint, this.items, this.form);
    document.body.append(this.dialog);
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    cancel.addEventListener('click', () => this.edit(null));
    done.addEventListener('click', () => this.dialog.close());
    this.dialog.addEventListener('close', () => this.canned.composer.focus());
  }

  async open() {
    this.edit(null);
    this.dialog.showModal();
    await this.refresh();
    this.shortcut.focus();
  }

  async refresh() {
    let replies;
    try {
      replies = await this.canned.load({ force: true });
    } catch (error) {
      return this.fail(error);
    }
    this.items.replaceChildren(
      ...replies.map((reply) => {
        const item = el('li', { 'data-sb': 'canned-entry' });
        const edit = el('button', { type: 'button', class: 'link' }, 'Edit');
        const remove = el('button', { type: 'button', class: 'link' }, 'Delete');
        edit.setAttribute('aria-label', `Edit /${reply.shortcut}`);
        remove.setAttribute('aria-label', `Delete /${reply.shortcut}`);
        edit.addEventListener('click', () => this.edit(reply));
        remove.addEventListener('click', () => this.remove(reply));
        item.append(el('strong', {}, `/${reply.shortcut}`), ' ', el('span', { class: 'muted' }, reply.body), ' ', edit, ' ', remove);
        return item;
      }),
    );
    if (!replies.length) this.items.replaceChildren(el('li', { class: 'muted' }, 'None yet: save the first below.'));
  }

  edit(reply) {
    this.editing = reply;
    this.shortcut.value = reply?.shortcut ?? '';
    this.body.value = reply?.body ?? '';
    this.save.textContent = reply ? `Save /${reply.shortcut}` : 'Save';
    this.error.textContent = '';
    this.shortcut.focus();
  }

  async submit() {
    const fields = { shortcut: this.shortcut.value.trim(), body: this.body.value };
    this.save.disabled = true;
    try {
      const path = this.editing ? `${BASE}/${encodeURIComponent(this.editing.id)}` : BASE;
      await this.client.api(path, { method: this.editing ? 'PATCH' : 'POST', body: fields });
      this.edit(null);
      await this.refresh();
    } catch (error) {
      this.fail(error);
    } finally {
      this.save.disabled = false;
    }
  }

  async remove(reply) {
    try {
      await this.client.api(`${BASE}/${encodeURIComponent(reply.id)}`, { method: 'DELETE' });
    } catch (error) {
      if (error.code !== 'not_found') return this.fail(error);
    }
    if (this.editing?.id === reply.id) this.edit(null);
    await this.refresh();
  }

  fail(error) {
    const reason = REASONS[error?.code] ?? error?.message ?? 'something went wrong';
    this.error.textContent = `Not saved: ${reason}.`;
  }
}
