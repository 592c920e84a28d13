// The console's routing side: the operator's own status (set `online` on sign-in unless it chose `away`),
// the team (who is online and connected, each one's load against capacity, live from presence.updated;
// admins change capacities), the queue with its waiting times, and the business hours (admins).
// Docs: docs/clients.md, "The console and routing".
import { el } from '/console/dom.js';
import { BusinessHours } from '/console/hours.js';

const $ = (selector) => document.querySelector(selector);
const STATUS = { online: 'Online', away: 'Away', offline: 'Offline' };
const ORDER = { online: 0, away: 1, offline: 2 };

/** "0:42", "12:05", "1 h 20 min": how long since `iso`, for a queue that ticks every second. */
export function waited(iso, now = Date.now()) {
  const seconds = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 1000));
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export class Team {
  constructor(view) {
    this.view = view;
    this.client = view.client;
    this.operators = new Map(); // id -> the operator's presence, the newest
    this.rows = new Map(); // id -> its <li> in the team list
    this.hours = new BusinessHours(this.client, (text, options) => view.flash(text, options));
  }

  get me() {
    return this.operators.get(this.client.user?.id);
  }

  get admin() {
    return this.client.user?.role === 'admin';
  }

  start() {
    const { client } = this;
    client.addEventListener('presence.list', (e) => this.replace(e.detail.operators));
    client.addEventListener('presence.updated', (e) => this.update(e.detail.operator));
    client.addEventListener('presence', (e) => this.update(e.detail.operator));
    const control = $('[data-sb=presence]');
    control.addEventListener('change', () => this.choose(control.value));
    $('#team-open').addEventListener('click', () => this.show());
    $('#team-back').addEventListener('click', () => this.view.showList());
    // The waiting times tick where they are shown: the queue, and the inbox's rows.
    this.ticker = setInterval(() => this.tick(), 1000);
    this.signIn();
  }

  /** Signing in is coming to work: `online`, unless the operator said it is away (a choice that outlives a reload). */
  async signIn() {
    let operators;
    try {
      operators = await this.client.subscribePresence();
    } catch (error) {
      // A gateway without presence frames: the team as HTTP knows it, without statuses.
      operators = (await this.client.api('/api/v1/operators').catch(() => null))?.operators;
    }
    this.replace(operators ?? []);
    if (this.me?.status !== 'away') await this.choose('online');
  }

  async choose(status) {
    const control = $('[data-sb=presence]');
    try {
      this.update(await this.client.setPresence(status));
    } catch (error) {
      this.view.flash(`Your status did not change: ${this.view.plain(error)}.`);
      control.value = this.me?.status ?? control.dataset.state;
    }
  }

  replace(operators) {
    this.operators = new Map(operators.map((operator) => [operator.id, operator]));
    this.render();
  }

  update(operator) {
    if (!operator?.id) return;
    this.operators.set(operator.id, { ...this.operators.get(operator.id), ...operator });
    this.render();
  }

  /** Online and connected first, then by name: who can take a conversation is at the top. */
  sorted() {
    const rank = (o) => ORDER[o.status] * 2 + (o.connected ? 0 : 1);
    return [...this.operators.values()].sort((a, b) => rank(a) - rank(b) || (a.name || a.id).localeCompare(b.name || b.id));
  }

  render() {
    const me = this.me;
    const control = $('[data-sb=presence]');
    if (me) {
      control.value = me.status;
      control.dataset.state = me.status;
    }
    // Rows are updated in place, never drawn anew: a field an admin is about to click or typing in stays.
    const list = $('[data-sb=operators]');
    const rows = this.sorted().map((operator) => this.row(operator));
    for (const [id, row] of this.rows) {
      if (!this.operators.has(id)) {
        row.remove();
        this.rows.delete(id);
      }
    }
    // Moved only when the order changed (moving a row would take the focus out of its field).
    if (rows.some((row, index) => list.children[index] !== row)) list.replaceChildren(...rows);
    this.summarize();
    this.view.showTransferTargets();
  }

  /** An operator's row, made once and then kept up to date. */
  row(operator) {
    let li = this.rows.get(operator.id);
    const name = operator.name || operator.id;
    if (!li) {
      li = el('li', { 'data-sb': 'operator', 'data-operator-id': operator.id });
      li.who = el('strong');
      li.state = el('span', { class: 'muted' });
      const who = el('div', { class: 'op-who' });
      who.append(li.who, li.state);
      li.meter = el('meter', { min: '0', 'aria-label': `${name}'s load` });
      li.load = el('span');
      const load = el('div', { class: 'load', 'data-sb': 'load' });
      load.append(li.meter, li.load);
      li.append(el('span', { class: 'dot', 'aria-hidden': 'true' }), who, load);
      if (this.admin) li.append(this.capacityField(operator.id, name, li));
      this.rows.set(operator.id, li);
    }
    li.dataset.status = operator.status;
    li.dataset.connected = String(!!operator.connected);
    li.who.textContent = `${name}${operator.id === this.client.user?.id ? ' (you)' : ''}`;
    let state = STATUS[operator.status] ?? operator.status ?? '';
    if (operator.status !== 'offline' && operator.connected === false) state += ' · not connected';
    li.state.textContent = state;
    const active = operator.active_sessions ?? 0;
    const capacity = operator.capacity ?? 0;
    li.meter.max = Math.max(capacity, 1);
    li.meter.value = active;
    li.load.textContent = `${active} / ${capacity}`;
    if (li.capacity && document.activeElement !== li.capacity) li.capacity.value = String(operator.capacity ?? '');
    return li;
  }

  // Admins: an operator's capacity (PATCH /api/v1/operators/{id}); raising it lets routing give it more at once.
  capacityField(operatorID, name, li) {
    const label = el('label', { class: 'capacity' }, 'Capacity ');
    const input = el('input', { type: 'number', min: '0', max: '1000', 'data-sb': 'capacity', 'aria-label': `${name}'s capacity` });
    li.capacity = input;
    input.addEventListener('change', async () => {
      // Emptied: the gateway's default (routing.max_sessions_per_operator) again.
      const capacity = input.value.trim() === '' ? null : Number(input.value);
      if (capacity !== null && (!Number.isInteger(capacity) || capacity < 0)) return;
      try {
        const answer = await this.client.api(`/api/v1/operators/${encodeURIComponent(operatorID)}`, { method: 'PATCH', body: { capacity } });
        input.blur();
        this.update(answer?.operator);
      } catch (error) {
        this.view.flash(`The capacity did not change: ${this.view.plain(error)}.`);
      }
    });
    label.append(input);
    return label;
  }

  /** The sessions waiting for an operator, oldest first (the order routing gives them out). */
  queue() {
    return [...this.view.sessions.values()]
      .filter((session) => session.queued && session.status === 'open' && !session.deleted)
      .sort((a, b) => (a.waiting_since < b.waiting_since ? -1 : a.waiting_since > b.waiting_since ? 1 : 0));
  }

  summarize() {
    const online = [...this.operators.values()].filter((o) => o.status === 'online' && o.connected).length;
    const waiting = this.queue().length;
    $('#team-open').textContent = `Team: ${online} online · ${waiting} waiting`;
  }

  /** A burst of session changes (an inbox page, a busy minute) redraws the queue once. */
  scheduleQueue() {
    if (this.queueTimer) return;
    this.queueTimer = setTimeout(() => {
      this.queueTimer = null;
      this.renderQueue();
    }, 50);
  }

  /** The queue, redrawn when a session changes (the console's upsert schedules it). */
  renderQueue() {
    this.summarize();
    if ($('[data-sb=team]').hidden) return;
    const queue = this.queue();
    $('#queue-empty').hidden = queue.length > 0;
    // Kept and updated in place like the operators' rows: the button about to be clicked stays.
    this.queueItems ??= new Map(); // session id -> its <li>
    const items = queue.map((session, index) => {
      let li = this.queueItems.get(session.id);
      if (!li) this.queueItems.set(session.id, (li = this.queueItem(session)));
      li.place.textContent = `${index + 1}.`;
      li.subject.textContent = session.title;
      Object.assign(li.waiting.dataset, { since: session.waiting_since });
      li.waiting.dateTime = session.waiting_since;
      li.waiting.textContent = waited(session.waiting_since);
      return li;
    });
    for (const [id, li] of this.queueItems) {
      if (items.includes(li)) continue;
      li.remove();
      this.queueItems.delete(id);
    }
    const list = $('[data-sb=queue]');
    if (items.some((li, index) => list.children[index] !== li)) list.replaceChildren(...items);
  }

  queueItem(session) {
    const li = el('li', { 'data-sb': 'queue-item', 'data-session-id': session.id });
    li.place = el('span', { class: 'place' });
    li.subject = el('button', { type: 'button', class: 'link' });
    li.subject.addEventListener('click', () => (location.hash = `#/s/${session.id}`));
    li.waiting = el('time', { 'data-sb': 'waiting' });
    const take = el('button', { type: 'button', 'data-sb': 'take' }, 'Assign to me');
    take.addEventListener('click', () => this.view.act(() => this.client.assign(session.id), session.id));
    li.append(li.place, li.subject, li.waiting, take);
    return li;
  }

  tick() {
    for (const node of document.querySelectorAll('[data-since]')) {
      node.textContent = (node.dataset.prefix ?? '') + waited(node.dataset.since);
    }
  }

  show() {
    this.view.showPane('team');
    this.renderQueue();
    if (this.admin) this.hours.show($('#hours-panel'));
  }
}
