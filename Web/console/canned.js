// Canned replies in the composer (docs/protocol.md, "The agent's desk"): typing "/" and a few letters of a
// shortcut offers the workspace's saved answers in a list under the composer ([data-sb=canned]); ↑/↓ move,
// Enter or Tab takes one, Escape closes it. A reply taken fills {{visitor.name}} and {{operator.name}} and
// stays in the composer to be read and sent. "Manage…" saves, edits and deletes them (any operator).
import { el } from '/console/dom.js';

const BASE = '/api/v1/canned-replies';
const STALE_MS = 60_000; // a colleague's new reply shows within a minute, without a request per keystroke
const SHOWN = 8;
const TYPED = /^\/([a-z0-9_-]*)$/; // the whole composer: "/" and the start of a shortcut

/** `body` with its placeholders filled; one the console does not know stays as written. */
export function expand(body, { visitor, operator }) {
  return body.replace(/\{\{\s*(visitor|operator)\.name\s*\}\}/g, (_, who) => (who === 'visitor' ? visitor : operator));
}

/** The replies whose shortcut starts with `typed`, then those that contain it, each set by shortcut. */
export function matching(replies, typed) {
  const starts = replies.filter((reply) => reply.shortcut.startsWith(typed));
  const contains = replies.filter((reply) => !reply.shortcut.startsWith(typed) && reply.shortcut.includes(typed));
  return [...starts, ...contains];
}

export class CannedReplies {
  /** `names()`: `{visitor, operator}` of the open conversation, for the placeholders. */
  constructor({ client, composer, names, flash }) {
    this.client = client;
    this.composer = composer;
    this.names = names;
    this.flash = flash;
    this.replies = null;
    this.loadedAt = 0;
    this.shown = [];
    this.active = 0;
    this.list = el('ul', { 'data-sb': 'canned', id: 'canned-list', role: 'listbox', class: 'canned', 'aria-label': 'Canned replies' });
    this.list.hidden = true;
    composer.closest('form').before(this.list);
    // A textarea is no combobox (aria-expanded is not its to have): it names the list it fills and, while the
    // list is open, the option ↑/↓ chose, which screen readers announce.
    composer.setAttribute('aria-autocomplete', 'list');
    composer.setAttribute('aria-controls', 'canned-list');
    composer.addEventListener('input', () => this.update());
    // Capture: runs before the composer's own Enter (send) while the list is open.
    composer.addEventListener('keydown', (e) => this.key(e), true);
    composer.addEventListener('blur', () => setTimeout(() => this.close(), 150));
  }

  async load({ force = false } = {}) {
    if (!force && this.replies && Date.now() - this.loadedAt < STALE_MS) return this.replies;
    this.loading ??= this.client
      .api(BASE)
      .then((answer) => {
        this.replies = answer.canned_replies;
        this.loadedAt = Date.now();
        return this.replies;
      })
      .finally(() => (this.loading = null));
    return this.loading;
  }

  async update() {
    const typed = this.composer.value.match(TYPED)?.[1];
    if (typed == null) return this.close();
    let replies;
    try {
      replies = await this.load();
    } catch (error) {
      return this.flash('Could not load the canned replies: check the connection and try again.');
    }
    if (this.composer.value.match(TYPED)?.[1] !== typed) return; // typed on meanwhile: that update shows
    this.shown = matching(replies, typed).slice(0, SHOWN);
    this.active = 0;
    this.render(typed);
  }

  render(typed) {
    const options = this.shown.map((reply, index) => {
      const option = el('li', { role: 'option', id: `canned-${index}`, 'data-sb': 'canned-item', 'aria-selected': String(index === this.active) });
      option.append(el('strong', {}, `/${reply.shortcut}`), ' ', el('span', { class: 'muted' }, reply.body));
      option.addEventListener('mousedown', (e) => {
        e.preventDefault(); // the composer keeps the focus
        this.take(index);
      });
      return option;
    });
    if (!options.length) {
      options.push(el('li', { class: 'muted', role: 'presentation' }, this.replies.length ? `No canned reply starts with /${typed}.` : 'No canned replies saved yet.'));
    }
    const manage = el('li', { role: 'presentation', class: 'canned-manage' });
    const button = el('button', { type: 'button', class: 'link' }, 'Manage canned replies…');
    button.addEventListener('mousedown', (e) => e.preventDefault());
    button.addEventListener('click', () => this.manage());
    manage.append(button);
    this.list.replaceChildren(...options, manage);
    this.list.hidden = false;
    this.mark();
  }

  mark() {
    for (const [index, option] of [...this.list.querySelectorAll('[role=option]')].entries()) {
      option.setAttribute('aria-selected', String(index === this.active));
      if (index === this.active) option.scrollIntoView({ block: 'nearest' });
    }
    if (this.shown.length) this.composer.setAttribute('aria-activedescendant', `canned-${this.active}`);
    else this.composer.removeAttribute('aria-activedescendant');
  }

  close() {
    if (this.list.hidden) return;
    this.list.hidden = true;
    this.shown = [];
    this.composer.removeAttribute('aria-activedescendant');
  }

  key(e) {
    if (this.list.hidden || e.isComposing) return;
    const count = this.shown.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!count) return;
      this.active = (this.active + (e.key === 'ArrowDown' ? 1 : count - 1)) % count;
      this.mark();
    } else if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      if (!count) return e.key === 'Enter' && (e.preventDefault(), e.stopImmediatePropagation());
      this.take(this.active);
    } else if (e.key === 'Escape') {
      this.close();
    } else {
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
  }

  /** The reply replaces "/shortcut" in the composer, filled, the caret at its end: read, then sent. */
  take(index) {
    const reply = this.shown[index];
    if (!reply) return;
    this.close();
    this.composer.value = expand(reply.body, this.names());
    this.composer.setSelectionRange(this.composer.value.length, this.composer.value.length);
    this.composer.dispatchEvent(new Event('input')); // the counter and typing see it
    this.composer.focus();
  }

  /** The manager, its code loaded the first time it is opened. */
  async manage() {
    this.close();
    try {
      const { CannedManager } = await import('/console/canned-manager.js');
      this.manager ??= new CannedManager(this);
      this.manager.open();
    } catch (error) {
      this.flash('Could not open the canned replies: check the connection and try again.');
    }
  }
}
