// An endpoint's delivery log: each attempt's outcome (status, HTTP code, duration, attempts, the next
// retry, the error and the response's first bytes, always as text), newest first, paged with "Load
// more"; Retry per delivery and "Retry every failed delivery since…". While deliveries are pending the
// first page is fetched again every few seconds, and rows are updated in place, so a button about to be
// pressed or a response being read stays where it is.
import { el } from '/console/dom.js';
import { explain } from '/console/webhooks-api.js';

const PAGE = 25;
const POLL_MS = 2000;
const STATUS = { succeeded: 'Succeeded', pending: 'Pending', failed: 'Failed' };

const clock = (iso) => new Date(iso).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** "in 18 s", "in 4 min", "in 2 h 5 min", "now": how long until `iso`. */
export function until(iso, now = Date.now()) {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (seconds <= 0) return 'now';
  if (seconds < 90) return `in ${seconds} s`;
  if (seconds < 5400) return `in ${Math.round(seconds / 60)} min`;
  return `in ${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

/** "2026-11-24T09:30" for a datetime-local input: the local time of `date`, to the minute. */
function localInputValue(date) {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60000);
  return shifted.toISOString().slice(0, 16);
}

export class DeliveryLog {
  /** `say(text)`: the page's polite live region; `alarm(text)`: the console's alert line, for failures.
   * `failingSince` (ISO): where "retry since" starts, when the endpoint has been failing. */
  constructor({ api, endpointID, say, alarm, failingSince }) {
    this.api = api;
    this.endpointID = endpointID;
    this.say = say;
    this.alarm = alarm;
    this.rows = new Map(); // delivery id -> its row (see `row`), updated in place
    this.cursor = undefined; // undefined: nothing loaded; null: the last page is loaded
    this.status = ''; // the deliveries shown: all, or only `failed`, `pending` or `succeeded`
    this.node = this.build(failingSince);
  }

  build(failingSince) {
    const section = el('section', { class: 'wh-log', 'data-sb': 'deliveries', 'aria-labelledby': 'wh-log-title' });
    const head = el('div', { class: 'wh-log-head' });
    const refresh = el('button', { type: 'button', class: 'secondary', 'data-sb': 'deliveries-refresh' }, 'Refresh');
    refresh.addEventListener('click', () => this.refresh({ announce: true }));
    // Only the failures (or what waits) of a busy endpoint, without paging through its successes.
    const filter = el('select', { id: 'wh-log-status', 'data-sb': 'deliveries-status' });
    for (const [value, label] of [['', 'All'], ['failed', 'Failed'], ['pending', 'Pending'], ['succeeded', 'Succeeded']]) {
      filter.append(el('option', { value }, label));
    }
    filter.addEventListener('change', () => {
      this.status = filter.value;
      this.clear();
      this.refresh({ announce: true });
    });
    const tools = el('div', { class: 'wh-log-tools' });
    tools.append(el('label', { for: filter.id }, 'Show'), filter, refresh);
    head.append(el('h4', { id: 'wh-log-title' }, 'Deliveries'), tools);

    // "Retry every failed delivery since…": for an endpoint that is back after an outage.
    const since = el('input', { type: 'datetime-local', id: 'wh-retry-since', 'data-sb': 'retry-since', required: '' });
    since.value = localInputValue(failingSince ? new Date(failingSince) : new Date(Date.now() - 86400000));
    const retryAll = el('button', { type: 'submit', class: 'secondary', 'data-sb': 'retry-failed' }, 'Retry failed');
    const bulk = el('form', { class: 'wh-retry-since' });
    bulk.append(el('label', { for: since.id }, 'Retry every failed delivery since'), since, retryAll);
    bulk.addEventListener('submit', (event) => {
      event.preventDefault();
      this.retryFailedSince(since, retryAll);
    });

    this.empty = el('p', { class: 'muted', 'data-sb': 'deliveries-empty', hidden: '' });
    this.list = el('ol', { class: 'wh-deliveries', 'aria-labelledby': 'wh-log-title' });
    this.more = el('button', { type: 'button', class: 'secondary wh-more', 'data-sb': 'deliveries-more', hidden: '' }, 'Load more');
    this.more.addEventListener('click', () => this.loadMore());
    section.append(head, bulk, this.empty, this.list, this.more);
    return section;
  }

  /** The first page, then the polling while anything is pending. */
  async start() {
    await this.refresh();
  }

  stop() {
    clearTimeout(this.timer);
    this.stopped = true;
  }

  /** The first page again: new deliveries on top, known ones updated in place. A poll (`quiet`) that
   * fails says nothing: the next one tries again, and a gateway in trouble is said by the status line. */
  async refresh({ announce = false, quiet = false } = {}) {
    clearTimeout(this.timer);
    const generation = this.generation;
    let page;
    try {
      page = await this.api.deliveries(this.endpointID, { limit: PAGE, status: this.status });
    } catch (error) {
      if (!this.stopped && !quiet && generation === this.generation) this.alarm(`Could not load the deliveries: ${explain(error)}`);
      return this.poll();
    }
    if (this.stopped || generation !== this.generation) return;
    // More new deliveries than a page since the last look: the page does not reach the rows shown, and what lies
    // between would never be. The log starts again from this page (older ones are a "Load more" away).
    const reaches = !page.nextCursor || page.deliveries.some((delivery) => this.rows.has(String(delivery.id)));
    if (!reaches) this.clear();
    this.dropLeavers(page);
    const fresh = page.deliveries.filter((delivery) => !this.rows.has(String(delivery.id)));
    this.list.prepend(...fresh.map((delivery) => this.row(delivery)));
    for (const delivery of page.deliveries) this.show(delivery);
    if (this.cursor === undefined) this.cursor = page.nextCursor;
    this.shown();
    if (announce) {
      const count = this.rows.size;
      this.say(`${count} ${this.status ? `${this.status} ` : ''}${count === 1 ? 'delivery' : 'deliveries'} shown.`);
    }
    this.poll();
  }

  async loadMore() {
    if (!this.cursor) return;
    this.more.disabled = true;
    const generation = this.generation;
    try {
      const page = await this.api.deliveries(this.endpointID, { cursor: this.cursor, limit: PAGE, status: this.status });
      if (generation !== this.generation) return;
      const older = page.deliveries.filter((delivery) => !this.rows.has(String(delivery.id)));
      this.list.append(...older.map((delivery) => this.row(delivery)));
      for (const delivery of page.deliveries) this.show(delivery);
      this.cursor = page.nextCursor;
      this.shown();
      this.say(`${older.length} older deliveries loaded.`);
      // The keyboard goes on from the first row it had not seen yet.
      this.rows.get(String(older[0]?.id))?.li.focus();
    } catch (error) {
      this.alarm(`Could not load more deliveries: ${explain(error)}`);
    } finally {
      this.more.disabled = false;
    }
  }

  /** Under a status filter a delivery leaves the list when its status changes (a failed one retried): a row the
   * first page should hold, but does not, is gone from it. (Unfiltered, no delivery ever leaves.) */
  dropLeavers(page) {
    const ids = new Set(page.deliveries.map((delivery) => String(delivery.id)));
    const oldest = page.deliveries.reduce((least, delivery) => {
      const id = BigInt(delivery.id);
      return least === null || id < least ? id : least;
    }, null);
    for (const [id, row] of this.rows) {
      const within = !page.nextCursor || (oldest !== null && BigInt(id) >= oldest);
      if (within && !ids.has(id)) {
        row.li.remove();
        this.rows.delete(id);
      }
    }
  }

  /** Empties the log; answers to requests made before are dropped (another filter, a log begun again). */
  clear() {
    this.generation = (this.generation ?? 0) + 1;
    this.list.replaceChildren();
    this.rows.clear();
    this.cursor = undefined;
  }

  shown() {
    this.empty.textContent = this.status ? `No ${this.status} deliveries.` : 'No deliveries yet. Send a test event to see one.';
    this.empty.hidden = this.rows.size > 0;
    this.more.hidden = !this.cursor;
  }

  /** Fetched again in a moment while a delivery is pending on the page (and the page is on screen). */
  poll() {
    clearTimeout(this.timer);
    const pending = [...this.rows.values()].some((row) => row.delivery?.status === 'pending');
    if (this.stopped || !pending) return;
    this.timer = setTimeout(() => {
      if (!this.node.isConnected) return this.stop();
      if (document.visibilityState === 'hidden' || !this.node.checkVisibility()) return this.poll();
      this.refresh({ quiet: true });
    }, POLL_MS);
  }

  /** A delivery's row, made once: its <li> and the parts `show` fills (kept beside the element, not on it:
   * an <li> has properties of its own, `type` and `value`). */
  row(delivery) {
    const li = el('li', { class: 'wh-delivery', 'data-sb': 'delivery', 'data-delivery-id': String(delivery.id), tabindex: '-1' });
    const row = { li };
    const top = el('div', { class: 'wh-delivery-top' });
    row.chip = el('span', { class: 'chip', 'data-sb': 'delivery-status' });
    row.type = el('code', { 'data-sb': 'delivery-event-type' });
    row.time = el('time', { class: 'muted' });
    top.append(row.chip, row.type, row.time);
    const facts = el('dl', { class: 'wh-facts' });
    const fact = (label, hook) => {
      const value = el('dd', { 'data-sb': hook });
      const pair = el('div');
      pair.append(el('dt', {}, label), value);
      facts.append(pair);
      return value;
    };
    row.code = fact('HTTP status', 'delivery-status-code');
    row.duration = fact('Duration', 'delivery-duration');
    row.attempts = fact('Attempts', 'delivery-attempts');
    row.next = fact('Next retry', 'delivery-next-retry');
    row.event = fact('Event id', 'delivery-event-id');
    row.error = el('p', { class: 'wh-error', 'data-sb': 'delivery-error' });
    // The receiver's words, whatever they are: textContent in a <pre>, never parsed as HTML.
    row.response = el('details', { class: 'wh-response' });
    row.head = el('pre', { 'data-sb': 'response-head' });
    row.response.append(el('summary', {}, 'Response, first bytes'), row.head);
    row.retry = el('button', { type: 'button', class: 'secondary', 'data-sb': 'delivery-retry' }, 'Retry now');
    row.retry.addEventListener('click', () => this.retry(row));
    li.append(top, facts, row.error, row.response, row.retry);
    this.rows.set(String(delivery.id), row);
    return li;
  }

  show(delivery) {
    const row = this.rows.get(String(delivery.id));
    if (!row) return;
    row.delivery = delivery;
    row.li.dataset.status = delivery.status;
    row.chip.dataset.status = delivery.status;
    row.chip.textContent = STATUS[delivery.status] ?? delivery.status;
    row.type.textContent = delivery.event_type;
    const at = delivery.last_attempt_at ?? delivery.created_at;
    row.time.dateTime = at;
    row.time.textContent = clock(at);
    row.code.textContent = delivery.status_code == null ? (delivery.attempts ? 'no answer' : '–') : String(delivery.status_code);
    row.duration.textContent = delivery.duration_ms == null ? '–' : `${delivery.duration_ms} ms`;
    row.attempts.textContent = String(delivery.attempts ?? 0);
    const next = delivery.status === 'pending' && delivery.next_attempt_at;
    row.next.parentElement.hidden = !next;
    if (next) row.next.textContent = `${until(delivery.next_attempt_at)} (${clock(delivery.next_attempt_at)})`;
    row.event.textContent = delivery.event_id;
    row.error.textContent = delivery.error ?? '';
    row.error.hidden = !delivery.error;
    const head = delivery.response_head ?? '';
    if (row.head.textContent !== head) row.head.textContent = head;
    row.response.hidden = head === '';
    // A succeeded delivery needs no retry; a pending one may be sent now rather than at its next retry.
    row.retry.hidden = delivery.status === 'succeeded';
    row.retry.setAttribute('aria-label', `Retry the delivery of ${delivery.event_id} now`);
  }

  async retry(row) {
    const { delivery } = row;
    row.retry.disabled = true;
    try {
      const answer = await this.api.retry(this.endpointID, delivery.id);
      this.show(answer ?? { ...delivery, status: 'pending', next_attempt_at: new Date().toISOString() });
      this.say(`Sending ${delivery.event_id} again.`);
      this.poll();
    } catch (error) {
      this.alarm(`Could not retry ${delivery.event_id}: ${explain(error)}`);
    } finally {
      row.retry.disabled = false;
    }
  }

  async retryFailedSince(input, button) {
    const since = new Date(input.value); // a datetime-local value is the browser's local time
    if (Number.isNaN(since.getTime())) {
      this.say('Choose the date and time to retry failed deliveries from.');
      return input.focus();
    }
    button.disabled = true;
    try {
      const count = await this.api.retryFailedSince(this.endpointID, since);
      this.say(count ? `${count} failed ${count === 1 ? 'delivery is' : 'deliveries are'} being sent again.`
        : `No failed deliveries since ${clock(since.toISOString())}.`);
      await this.refresh();
    } catch (error) {
      this.alarm(`Could not retry the failed deliveries: ${explain(error)}`);
    } finally {
      button.disabled = false;
    }
  }
}
