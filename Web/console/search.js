// Message search (GET /api/v1/search): a box above the inbox. While it holds words, the sidebar lists
// the messages found, newest first, in place of the conversations; a result is a link to its
// conversation at that message (#/s/<session>/<seq>), which the console opens scrolled to it.
import { el } from '/console/dom.js';

const PAGE = 20;
const DEBOUNCE_MS = 250;
const MIN_CHARACTERS = 2; // while typing; Enter searches for anything

export class Search {
  /** `time(iso)` formats a result's time as the inbox does; `flash(text)` reports a failure. */
  constructor(client, { time, flash }) {
    this.client = client;
    this.time = time;
    this.flash = flash;
    this.generation = 0; // a newer query's answers win: older ones are dropped
    this.cursor = null;
    this.query = '';
    this.timer = null;
  }

  start() {
    this.box = document.querySelector('[data-sb=search]');
    this.panel = document.querySelector('[data-sb=search-results]');
    this.list = this.panel.querySelector('ul');
    this.status = this.panel.querySelector('[data-sb=search-status]');
    this.more = this.panel.querySelector('[data-sb=search-more]');
    this.box.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.run(this.box.value, { now: true });
    });
    this.box.addEventListener('input', () => this.run(this.box.value));
    this.box.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.box.value) {
        event.preventDefault();
        this.box.value = '';
        this.run('');
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        this.list.querySelector('a')?.focus();
      }
    });
    this.list.addEventListener('keydown', (event) => this.move(event));
    this.more.addEventListener('click', () => this.fetch({ append: true }));
  }

  /** Searches for `text` (after a pause while typing, at once with `now`); blank text shows the inbox again. */
  run(text, { now = false } = {}) {
    clearTimeout(this.timer);
    const query = text.trim();
    if (!query) {
      this.generation += 1;
      this.show(false);
      return;
    }
    if (!now && [...query].length < MIN_CHARACTERS) return;
    if (now) this.fetchFresh(query);
    else this.timer = setTimeout(() => this.fetchFresh(query), DEBOUNCE_MS);
  }

  fetchFresh(query) {
    this.query = query;
    this.cursor = null;
    this.fetch({ append: false });
  }

  async fetch({ append }) {
    const generation = ++this.generation;
    this.show(true);
    this.more.hidden = true;
    this.status.textContent = 'Searching…';
    const cursor = append && this.cursor ? `&cursor=${encodeURIComponent(this.cursor)}` : '';
    try {
      const page = await this.client.api(`/api/v1/search?q=${encodeURIComponent(this.query)}&limit=${PAGE}${cursor}`);
      if (generation !== this.generation) return;
      if (!append) this.list.replaceChildren();
      for (const result of page.results) this.list.append(this.row(result));
      this.cursor = page.next_cursor;
      this.more.hidden = !page.next_cursor;
      const count = this.list.children.length;
      this.status.textContent = count
        ? `${count}${page.next_cursor ? '+' : ''} message${count === 1 ? '' : 's'} found for “${this.query}”`
        : `No messages found for “${this.query}”.`;
    } catch (error) {
      if (generation !== this.generation) return;
      this.status.textContent = `Search failed: ${error.message}`;
      this.flash(`Search failed: ${error.message}`);
    }
  }

  /** One message found: its conversation, who wrote it and when, and the words around the match, marked. */
  row({ message, session, snippet }) {
    const note = message.kind === 'note';
    const link = el('a', { href: `#/s/${session.id}/${message.seq}`, 'data-sb': 'search-result', class: note ? 'note' : '' });
    const who = `${message.sender.name || message.sender.id}${note ? ' · Private note' : ''}`;
    const head = el('span', { class: 'result-head' });
    head.append(el('span', { class: 'title' }, session.title), el('span', { class: 'time' }, this.time(message.created_at)));
    const text = el('p', { class: 'snippet', dir: 'auto' });
    // Runs of plain text; the matched words become <mark> elements, their text set as text.
    for (const run of snippet) text.append(run.match ? el('mark', {}, run.text) : run.text);
    link.append(head, el('span', { class: 'who' }, who), text);
    const item = el('li');
    item.append(link);
    return item;
  }

  /** Arrow keys walk the results; Arrow Up from the first goes back to the box. */
  move(event) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const links = [...this.list.querySelectorAll('a')];
    const index = links.indexOf(document.activeElement);
    if (index < 0) return;
    event.preventDefault();
    const next = event.key === 'ArrowDown' ? links[index + 1] : links[index - 1];
    (next ?? (event.key === 'ArrowUp' ? this.box : links[index])).focus();
  }

  /** The results in place of the inbox's filters and list, or the inbox back. */
  show(searching) {
    this.panel.hidden = !searching;
    this.panel.closest('.sidebar').toggleAttribute('data-searching', searching);
    if (!searching) {
      this.list.replaceChildren();
      this.status.textContent = '';
      this.more.hidden = true;
    }
  }
}
