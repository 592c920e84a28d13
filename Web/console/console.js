// Switchboard operator console: the inbox (live through inbox.subscribe, paged
// over HTTP), one conversation at a time (history over HTTP, then live from
// join), replies with files, assignment, closing, typing and read markers, and
// the workspace's analytics. A thin view over the SDK; every text a person typed
// is set with textContent.
import { Switchboard, charactersOver, linkRuns, newClientMessageId, utf8Bytes } from '/sdk/switchboard.js';
import { el } from '/console/dom.js';
import { ACCEPT, Tray, attachmentList, sendWhenUploaded } from '/widget/attachments.js';
import { Team, waited } from '/console/team.js';
import { CannedReplies } from '/console/canned.js';
import { VisitorPanel } from '/console/visitor.js';
import { Alerts } from '/console/alerts.js';
import { Search } from '/console/search.js';

const $ = (selector) => document.querySelector(selector);
const PAGE = 100; // inbox rows per HTTP page
const WINDOW = 300; // messages kept in the open conversation; older ones are paged back on demand
const LABELS = { connecting: 'Connecting…', open: 'Connected', reconnecting: 'Reconnecting…', offline: 'Offline' };
// Errors in plain words: what the operator can do about them, never the gateway's field names.
const REASONS = {
  too_large: 'it is too long', rate_limited: 'too many messages at once, try again in a moment',
  forbidden: 'you may not do that in this conversation', not_found: 'this conversation no longer exists',
  unavailable: 'the gateway cannot store it right now, try again', overloaded: 'the gateway is busy, try again',
  disconnected: 'the connection was lost, try again', timeout: 'the gateway did not answer, try again',
};
const plain = (error) => REASONS[error?.code] ?? 'something went wrong';
const number = (n) => n?.toLocaleString('en-US');
// The phone layout (console.css): no keyboard hint in the reply box there, where it was cut mid-line.
const NARROW = matchMedia('(max-width: 760px)');
const FILTERS = { active: ['open', 'assigned'], open: ['open'], assigned: ['assigned'], closed: ['closed'], all: [] };

/** Text with its http(s) links as <a> elements: DOM nodes only, never parsed as HTML. */
function linked(node, text) {
  for (const run of linkRuns(text)) {
    node.append(run.url ? el('a', { href: run.url, target: '_blank', rel: 'noopener noreferrer' }, run.url) : run.text);
  }
  return node;
}

function time(iso) {
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

// MARK: sign-in

async function devToken(name) {
  const sub = `op-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'operator'}`;
  const response = await fetch('/dev/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ role: 'operator', name, sub }),
  });
  if (!response.ok) throw new Error(`POST /dev/token answered ${response.status}`);
  return (await response.json()).token;
}

/** A token provider: from the URL fragment (#token=JWT, never sent to the server), or by name. */
async function signIn() {
  const fragment = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fragment) {
    sessionStorage.setItem('switchboard-console:token', fragment);
    history.replaceState(null, '', location.pathname);
  }
  const given = sessionStorage.getItem('switchboard-console:token');
  if (given) return async () => given;
  // Development gateways sign tokens by name (POST /dev/token); others need #token=JWT.
  let name = localStorage.getItem('switchboard-console:name');
  for (;;) {
    if (name) {
      try {
        await devToken(name);
        localStorage.setItem('switchboard-console:name', name);
        break;
      } catch (error) {
        $('#signin-error').textContent = error.message.includes('404')
          ? 'This gateway does not sign development tokens: open /console/#token=JWT with an operator token.'
          : error.message;
      }
    }
    $('#signin').hidden = false;
    $('#signin-name').focus();
    name = await new Promise((resolve) =>
      $('#signin-form').addEventListener(
        'submit',
        (event) => {
          event.preventDefault();
          resolve($('#signin-name').value.trim());
        },
        { once: true },
      ),
    );
  }
  $('#signin').hidden = true;
  return () => devToken(name);
}

// MARK: the console

class Console {
  constructor(client) {
    this.client = client;
    this.sessions = new Map(); // id -> session (the newest version)
    this.rows = new Map(); // id -> <li>
    this.filter = 'active';
    this.mineOnly = false;
    this.cursor = undefined; // undefined: not loaded; null: last page loaded
    this.loading = false;
    this.generation = 0; // a new filter starts a new generation: older pages are dropped
    this.pageFailures = 0;
    this.pageRetry = null;
    this.replies = new Map(); // client_msg_id -> the pending reply's <li>
    this.openId = null;
    this.messages = new Map(); // seq -> <li>, the open conversation's
    this.visitorRead = 0;
    this.read = JSON.parse(localStorage.getItem('switchboard-console:read') || '{}');
    this.team = new Team(this);
    this.visitor = new VisitorPanel(client);
    this.alerts = new Alerts(client);
    this.search = new Search(client, { time, flash: (text) => this.flash(text) });
    // Files for the next reply, uploaded to the open conversation (emptied when another one opens).
    this.tray = new Tray({ client, session: async () => this.openId, changed: ({ focus } = {}) => this.trayChanged(focus) });
  }

  plain(error) {
    return plain(error);
  }

  start() {
    const { client } = this;
    this.showPlaceholder();
    NARROW.addEventListener('change', () => this.showPlaceholder());
    client.addEventListener('session', (e) => this.upsert(e.detail.session));
    client.addEventListener('message', (e) => this.showMessage(e.detail.sessionId, e.detail.message));
    client.addEventListener('typing', (e) => this.showTyping(e.detail));
    client.addEventListener('read', (e) => this.showRead(e.detail));
    client.addEventListener('ack', (e) => this.acked(e.detail));
    for (const tab of document.querySelectorAll('[data-filter]')) {
      tab.addEventListener('click', () => this.setFilter(tab.dataset.filter));
    }
    $('.filters').addEventListener('keydown', (e) => this.moveFilter(e));
    $('#mine').addEventListener('change', (e) => {
      this.mineOnly = e.target.checked;
      this.reload();
    });
    $('[data-sb=inbox]').addEventListener('scroll', () => this.loadPageIfNearEnd());
    $('#composer-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.reply();
    });
    const composer = $('[data-sb=composer]');
    // "/" and a shortcut: its keys (Enter takes a reply while the list is open) come before sending.
    this.canned = new CannedReplies({ client, composer, names: () => this.placeholderNames(), flash: (text) => this.flash(text) });
    composer.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.reply();
      }
    });
    composer.addEventListener('input', () => this.openId && !this.noteMode && client.typing(this.openId, composer.value !== ''));
    $('[data-sb=note-toggle]').addEventListener('click', () => this.setNoteMode(!this.noteMode));
    composer.addEventListener('keydown', (e) => {
      // Alt+N, by the key's place (Option+N types a character on a Mac); Ctrl+Shift+N is the browser's.
      if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyN') {
        e.preventDefault();
        this.setNoteMode(!this.noteMode);
      }
    });
    composer.addEventListener('input', () => this.count());
    this.startFiles(composer);
    $('[data-sb=assign]').addEventListener('click', () => this.assignToMe());
    $('[data-sb=close]').addEventListener('click', () => this.act(() => client.closeSession(this.openId)));
    $('[data-sb=reopen]').addEventListener('click', () => this.patch({ status: 'open' }));
    $('[data-sb=unassign]').addEventListener('click', () => this.patch({ assigned_operator: null }));
    const assignTo = $('[data-sb=assign-to]');
    // A transfer (or an assignment by hand) to a named operator: session.assign with its id.
    assignTo.addEventListener('change', () => {
      const id = assignTo.value;
      assignTo.value = '';
      if (id) this.act(() => client.assign(this.openId, id));
    });
    $('[data-sb=back]').addEventListener('click', () => (location.hash = ''));
    $('#analytics-back').addEventListener('click', () => this.showList());
    $('[data-sb=signout]').addEventListener('click', () => this.signOut());
    $('#earlier').addEventListener('click', () => this.loadEarlier());
    $('#analytics-open').addEventListener('click', () => this.showAnalytics());
    $('#analytics-days').addEventListener('change', () => this.showAnalytics());
    // Webhooks are the workspace's admins' (the API answers others 403): the way in is theirs alone.
    $('[data-sb=webhooks-open]').hidden = !this.isAdmin;
    $('[data-sb=webhooks-open]').addEventListener('click', () => (location.hash = '#/webhooks'));
    $('#webhooks-back').addEventListener('click', () => (location.hash = ''));
    document.addEventListener('visibilitychange', () => this.markRead());
    addEventListener('hashchange', () => this.route());
    $('#me').textContent = `Signed in as ${client.user?.name || client.user?.id}`;
    this.team.start();
    this.alerts.start();
    this.search.start();
    client.subscribeInbox().catch((error) => this.flash(`Could not follow the inbox: ${plain(error)}.`));
    this.reload();
    this.route();
  }

  showState(state) {
    const status = $('[data-sb=status]');
    status.dataset.state = state;
    status.textContent = LABELS[state] ?? state;
    $('#banner').hidden = state === 'open' || !this.client.wasOpen;
    if (state === 'open' && this.wasDown) this.reload(); // catch up on what changed meanwhile
    this.wasDown = state !== 'open';
    if (state === 'open') this.count(); // the limits come with the welcome
  }

  /** Files: the paperclip (a hidden file input), dropped on the conversation, pasted into the composer. */
  startFiles(composer) {
    const input = $('#attach-input');
    input.accept = ACCEPT;
    $('#composer-form').before(this.tray.node);
    $('[data-sb=attach]').addEventListener('click', () => input.click());
    input.addEventListener('change', () => {
      this.tray.add([...input.files]);
      input.value = ''; // the same file can be chosen again
    });
    composer.addEventListener('paste', (e) => {
      if (!e.clipboardData.files.length) return;
      e.preventDefault();
      this.tray.add([...e.clipboardData.files]);
    });
    const conversation = $('[data-sb=conversation]');
    const dragging = (e) => e.dataTransfer.types.includes('Files');
    conversation.addEventListener('dragover', (e) => {
      if (!dragging(e)) return;
      e.preventDefault();
      conversation.classList.add('dropping');
    });
    conversation.addEventListener('dragleave', (e) => {
      if (!conversation.contains(e.relatedTarget)) conversation.classList.remove('dropping');
    });
    conversation.addEventListener('drop', (e) => {
      conversation.classList.remove('dropping');
      if (!dragging(e)) return;
      e.preventDefault();
      this.tray.add([...e.dataTransfer.files]);
    });
  }

  trayChanged(focus) {
    this.showPlaceholder();
    if (focus) $('[data-sb=composer]').focus();
  }

  showPlaceholder() {
    const what = this.noteMode
      ? 'Write a private note: only your team sees it'
      : this.tray.items.length ? 'Add a caption' : 'Write a reply';
    const keys = NARROW.matches ? '' : ' (Enter sends, Shift+Enter for a new line)';
    $('[data-sb=composer]').placeholder = `${what}…${keys}`;
  }

  /** Forgets the token and the name, closes the connection, and asks who is there again. */
  signOut() {
    sessionStorage.removeItem('switchboard-console:token');
    localStorage.removeItem('switchboard-console:name');
    this.client.close();
    location.replace(location.pathname);
  }

  /** What a canned reply's {{visitor.name}} and {{operator.name}} become in the open conversation. */
  placeholderNames() {
    const session = this.sessions.get(this.openId);
    return {
      visitor: this.visitorName || session?.contact?.name || 'there',
      operator: this.client.user?.name || this.client.user?.id || '',
    };
  }

  /** Note mode: what the composer sends is a private note, which the visitor never receives. */
  setNoteMode(on) {
    this.noteMode = on;
    const toggle = $('[data-sb=note-toggle]');
    toggle.setAttribute('aria-pressed', String(on));
    $('#composer-form').classList.toggle('note', on);
    const composer = $('[data-sb=composer]');
    composer.setAttribute('aria-label', on ? 'Private note' : 'Reply');
    this.showPlaceholder();
    if (on && this.openId) this.client.typing(this.openId, false);
    composer.focus();
  }

  /** The one polite live region: the newest message, said once (the log itself is not live). */
  say(text) {
    $('#live').textContent = text;
  }

  /** Shows how close the reply is to the gateway's limit; returns the characters over it (0: it fits). */
  count() {
    const composer = $('[data-sb=composer]');
    const counter = $('#counter');
    const max = this.client.limits?.max_body_bytes;
    const text = composer.value.trim();
    const used = max ? utf8Bytes(text) : 0;
    const over = used > max ? charactersOver(text, max) : 0;
    counter.hidden = !max || used < 0.8 * max;
    counter.dataset.state = over ? 'over' : 'near';
    counter.textContent = over
      ? `This reply is too long: shorten it by ${number(over)} character${over > 1 ? 's' : ''}.`
      : `${number(used)} / ${number(max)}`;
    $('[data-sb=send]').disabled = over > 0;
    return over;
  }

  /** The team, for "Assign to…" / "Transfer to…": the others, who can take it first, live from presence. */
  showTransferTargets() {
    // Options are kept and updated in place (presence changes all day): one being chosen stays.
    const select = $('[data-sb=assign-to]');
    this.transferOptions ??= new Map(); // operator id -> its <option>
    const others = this.team.sorted().filter((operator) => operator.id !== this.client.user?.id);
    const options = others.map((operator) => {
      let option = this.transferOptions.get(operator.id);
      if (!option) this.transferOptions.set(operator.id, (option = el('option', { value: operator.id })));
      const name = operator.name || operator.id;
      if (option.textContent !== name) option.textContent = name;
      const load = operator.capacity != null ? `, ${operator.active_sessions ?? 0}/${operator.capacity}` : '';
      option.title = operator.status ? `${operator.status}${operator.connected === false ? ', not connected' : ''}${load}` : '';
      return option;
    });
    for (const [id, option] of this.transferOptions) {
      if (others.some((operator) => operator.id === id)) continue;
      option.remove();
      this.transferOptions.delete(id);
    }
    const first = select.options[0] ?? el('option', { value: '' }, 'Assign to…');
    const moved = options.some((option, index) => select.options[index + 1] !== option);
    if (moved && document.activeElement !== select) select.replaceChildren(first, ...options);
    this.hasOperators = options.length > 0;
    const session = this.sessions.get(this.openId);
    if (session) this.showHeader(session);
  }

  /** One pane at a time beside the list: a conversation, the team, the analytics or the webhooks (or the
   * placeholder). Leaving a pane that has an address (#/s/<id>, #/webhooks) leaves its address too. */
  showPane(name) {
    for (const pane of ['conversation', 'team', 'analytics', 'webhooks']) $(`[data-sb=${pane}]`).hidden = pane !== name;
    $('#placeholder').hidden = name !== 'placeholder';
    $('#app').dataset.view = name === 'placeholder' ? 'list' : 'conversation';
    if (name !== 'conversation' && this.openId) {
      this.client.leave(this.openId);
      this.openId = null;
      this.visitor.clear();
    }
    const own = { conversation: '#/s/', webhooks: '#/webhooks' }[name];
    if (location.hash.startsWith('#/') && !(own && location.hash.startsWith(own))) location.hash = '';
  }

  get isAdmin() {
    return this.client.user?.role === 'admin';
  }

  /** The webhooks page (#/webhooks...), its code loaded the first time it is opened (webhooks.js). */
  async showWebhooks(route) {
    if (!this.isAdmin) {
      this.flash('Webhooks are managed by the workspace’s admins.');
      location.hash = '';
      return;
    }
    this.showPane('webhooks');
    this.webhooksPage ??= import('/console/webhooks.js').then((module) => new module.WebhooksPage(this));
    let page;
    try {
      page = await this.webhooksPage;
    } catch (error) {
      this.webhooksPage = null; // tried again on the next visit
      return this.flash('Could not load the webhooks page: check the connection and try again.');
    }
    if (location.hash.startsWith('#/webhooks')) page.show(route);
  }

  /** Back to the list from the team, the analytics or the webhooks. */
  showList() {
    this.showPane('placeholder');
  }

  /** "Assign to me"; a conversation another operator holds is taken over only once confirmed. */
  assignToMe() {
    const id = this.openId;
    const session = this.sessions.get(id);
    const holder = session?.assigned_operator;
    if (!holder || holder.id === this.client.user?.id || session.status === 'closed') {
      return this.act(() => this.client.assign(id));
    }
    const dialog = $('[data-sb=takeover]');
    $('#takeover-text').textContent =
      `${holder.name || holder.id} is handling “${session.title}”. Take it over? They will be told.`;
    dialog.returnValue = '';
    dialog.onclose = () => dialog.returnValue === 'confirm' && id === this.openId && this.act(() => this.client.assign(id));
    dialog.showModal();
    $('[data-sb=takeover-cancel]').focus();
  }

  /** PATCH /api/v1/sessions/{id}: reopen, unassign, assign to a named operator. */
  patch(fields) {
    const id = this.openId;
    return this.act(async () => (await this.client.api(`/api/v1/sessions/${id}`, { method: 'PATCH', body: fields })).session);
  }

  /** A message for the operator that goes away by itself; the reconnect banner stays its own. News
   * (`tone` `info`) is not painted as a failure. */
  flash(text, { tone = 'error' } = {}) {
    const notice = $('#notice');
    notice.dataset.tone = tone;
    notice.textContent = text;
    notice.hidden = false;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => (notice.hidden = true), 8000);
  }

  // MARK: inbox

  setFilter(filter) {
    this.filter = filter;
    for (const tab of document.querySelectorAll('[data-filter]')) {
      const selected = tab.dataset.filter === filter;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1; // one tab stop for the row; arrows move within it
    }
    this.reload();
  }

  /** The filter tabs by keyboard, as a tab list is: arrows, Home and End select and focus. */
  moveFilter(event) {
    const tabs = [...document.querySelectorAll('[data-filter]')];
    const at = tabs.findIndex((tab) => tab.dataset.filter === this.filter);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const tab = tabs[(to + tabs.length) % tabs.length];
    this.setFilter(tab.dataset.filter);
    tab.focus();
  }

  matches(session) {
    if (session.deleted) return false;
    const statuses = FILTERS[this.filter];
    if (statuses.length && !statuses.includes(session.status)) return false;
    return !this.mineOnly || session.assigned_operator?.id === this.client.user?.id;
  }

  reload() {
    this.generation++;
    this.cursor = undefined;
    this.loading = false;
    clearTimeout(this.pageRetry);
    this.pageRetry = null;
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    this.loadPage();
  }

  async loadPage() {
    if (this.loading || this.cursor === null || this.pageRetry) return;
    const generation = this.generation;
    this.loading = true;
    const statuses = FILTERS[this.filter].join(',');
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (statuses) query.set('status', statuses);
    if (this.mineOnly) query.set('assigned', 'me');
    if (this.cursor) query.set('cursor', this.cursor);
    let page;
    try {
      page = await this.client.api(`/api/v1/admin/live-chat/conversations?${query}`);
    } catch (error) {
      if (generation !== this.generation) return; // a page of a filter no longer shown
      this.loading = false;
      this.flash(`Could not load the inbox: ${plain(error)}.`);
      // Tried again after a growing wait, not at once: every open console would hammer a gateway in trouble.
      const wait = Math.min(30000, 1000 * 2 ** this.pageFailures++) * (0.5 + Math.random() / 2);
      this.pageRetry = setTimeout(() => {
        this.pageRetry = null;
        this.loadPage();
      }, wait);
      return;
    }
    if (generation !== this.generation) return;
    for (const session of page.sessions) {
      // The gateway's read position (this operator's, from any browser) or this browser's, whichever is further.
      if (session.read_seq > (this.read[session.id] ?? 0)) this.read[session.id] = session.read_seq;
      this.upsert(session, { append: true });
    }
    this.cursor = page.next_cursor ?? null;
    this.loading = false;
    this.pageFailures = 0;
    $('#inbox-empty').hidden = this.rows.size > 0;
    // A scroll that came while this page loaded, or a list too short to scroll, asks for the next one.
    requestAnimationFrame(() => this.loadPageIfNearEnd());
  }

  loadPageIfNearEnd() {
    const list = $('[data-sb=inbox]');
    if (list.scrollTop + list.clientHeight > list.scrollHeight - 200) this.loadPage();
  }

  /** A session's newest state: its row updated (or added, moved up, removed), its header too. */
  upsert(session, { append = false } = {}) {
    const known = this.sessions.get(session.id);
    if (known && (known.version ?? 0) > (session.version ?? 0)) return;
    // A session first heard of live is news too; a change this operator just made (act) is not.
    if (!append && this.acting !== session.id) {
      this.alerts.changed(known ?? {}, session, { open: session.id === this.openId });
    }
    session = { ...known, ...session };
    this.sessions.set(session.id, session);
    const me = this.client.user?.id;
    // Taken over (or unassigned) by someone else: the operator who had it is told, not left guessing.
    if (!append && known?.assigned_operator?.id === me && session.assigned_operator?.id !== me
        && !session.deleted && session.status !== 'closed' && this.acting !== session.id) {
      const holder = session.assigned_operator;
      this.flash(holder
        ? `${holder.name || holder.id} took over “${session.title}”`
        : `“${session.title}” is no longer assigned to you`, { tone: 'info' });
    }
    if (session.id === this.openId) this.showHeader(session);
    this.team.scheduleQueue();
    const existing = this.rows.get(session.id);
    if (!this.matches(session)) {
      existing?.remove();
      this.rows.delete(session.id);
      return;
    }
    const row = this.renderRow(session, existing);
    const list = $('[data-sb=inbox]');
    if (!existing) {
      this.rows.set(session.id, row);
      // Pages arrive in inbox order; live changes are the newest activity and go on top.
      if (append) list.append(row);
      else list.prepend(row);
    } else if (!append && known && known.updated_at !== session.updated_at) {
      list.prepend(row);
    }
    $('#inbox-empty').hidden = true;
  }

  renderRow(session, row) {
    row ??= el('li', { 'data-sb': 'inbox-item', role: 'option', tabindex: '0' });
    row.dataset.sessionId = session.id;
    row.dataset.status = session.status;
    row.setAttribute('aria-selected', String(session.id === this.openId));
    // Unread while someone's newest message is; a system line alone (joined, closed) is not news to read.
    const read = this.read[session.id] ?? 0;
    const newest = session.last_message?.seq ?? 0;
    const unread = newest > read ? newest - read : 0;
    const who = session.assigned_operator ? session.assigned_operator.name || session.assigned_operator.id : 'unassigned';
    const preview = session.last_message ? session.last_message.body || 'Sent a file' : 'No messages yet';
    row.dir = 'auto';
    const queued = session.queued && session.status === 'open' && session.waiting_since;
    const meta = el('div', { class: 'row-meta' }, `${queued ? 'queued' : session.status} · ${who}`);
    // The queue's waiting time ticks in the row (team.js), so the oldest wait is seen at a glance.
    if (queued) meta.append(' · ', el('time', { 'data-since': session.waiting_since, 'data-prefix': 'waiting ', class: 'waiting' }, `waiting ${waited(session.waiting_since)}`));
    if (session.contact?.email) meta.append(' · ', el('span', { class: 'contact', 'data-sb': 'row-contact' }, session.contact.email));
    row.dataset.queued = String(!!queued);
    row.replaceChildren(el('div', { class: 'row-top' }), el('div', { class: 'row-preview' }, preview), meta);
    const top = row.firstChild;
    top.append(el('span', { class: 'row-title' }, session.title), el('time', {}, time(session.updated_at)));
    if (unread > 0 && session.id !== this.openId) top.append(el('span', { class: 'unread', 'data-sb': 'unread', 'aria-label': `${unread} unread` }, String(unread)));
    this.totalUnread();
    if (!row.onclick) {
      row.onclick = () => (location.hash = `#/s/${session.id}`);
      row.onkeydown = (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        row.onclick();
      };
    }
    return row;
  }

  /** The unread total over the conversations listed (the open one excepted), in the tab's title. */
  totalUnread() {
    clearTimeout(this.totalTimer);
    // Once per burst of row updates, not once per row.
    this.totalTimer = setTimeout(() => {
      let total = 0;
      for (const id of this.rows.keys()) {
        if (id === this.openId) continue;
        const newest = this.sessions.get(id)?.last_message?.seq ?? 0;
        total += Math.max(0, newest - (this.read[id] ?? 0));
      }
      this.alerts.showTotal(total);
    }, 50);
  }

  route() {
    // #/s/<session>, or #/s/<session>/<seq>: the conversation opened at that message (a search result).
    const match = location.hash.match(/^#\/s\/([0-9a-f-]{36})(?:\/([1-9][0-9]{0,15}))?$/i);
    const webhooks = location.hash.match(/^#\/webhooks(?:\/([^/]+))?\/?$/);
    if (match) this.openConversation(match[1], match[2] ? Number(match[2]) : null);
    else if (webhooks) this.showWebhooks(decodeURIComponent(webhooks[1] ?? ''));
    else if (this.openId) this.closeConversation();
    else if (!$('[data-sb=webhooks]').hidden) {
      this.showList();
      $('[data-sb=webhooks-open]').focus(); // back where the admin came in
    }
  }

  /** Back to the list (on a phone, the list and the conversation are two screens). */
  closeConversation() {
    this.showPane('placeholder');
    for (const row of this.rows.values()) row.setAttribute('aria-selected', 'false');
    $(`[data-sb=inbox-item]`)?.focus();
  }

  // MARK: conversation

  async openConversation(id, atSeq = null) {
    // Already open with the message shown: only the scroll moves.
    if (this.openId === id && atSeq != null && this.messages.has(atSeq)) return this.reveal(atSeq);
    if (this.openId && this.openId !== id) this.client.leave(this.openId);
    this.openId = id;
    this.totalUnread();
    this.messages.clear();
    this.replies.clear();
    this.tray.clear();
    this.visitorRead = 0;
    this.visitorName = null;
    $('#log').replaceChildren();
    this.showPane('conversation');
    // A conversation outside the list (a search result, a link): headed by the session as stored.
    this.visitor.show(id, () => this.openId === id, (stored) => {
      if (this.sessions.has(id)) return;
      this.sessions.set(id, stored);
      this.showHeader(stored);
    });
    $('[data-sb=typing]').hidden = true;
    for (const [rowId, row] of this.rows) row.setAttribute('aria-selected', String(rowId === id));
    let session = this.sessions.get(id);
    const lastSeq = session?.last_seq ?? 0;
    if (session) this.showHeader(session);
    else this.showHeader({ id, title: 'Conversation', status: '', created_at: null });
    // History over HTTP (the newest window), then live from the last message shown. Without the
    // history the join alone fills the window (its replay, paged by the SDK when truncated).
    // At a message: from a little before it; the join then brings everything after the page.
    let since = atSeq != null ? Math.max(0, atSeq - 20) : Math.max(0, lastSeq - 50);
    try {
      const page = await this.client.history(id, { afterSeq: since, limit: 100 });
      if (this.openId !== id) return;
      for (const message of page.messages) this.showMessage(id, message, { quiet: true });
      $('#earlier').hidden = (page.messages[0]?.seq ?? 1) <= 1;
      since = page.messages.at(-1)?.seq ?? lastSeq;
    } catch (error) {
      if (this.openId !== id) return;
      this.flash(`Could not load the history: ${plain(error)}.`);
    }
    try {
      await this.client.join(id, { sinceSeq: since });
    } catch (error) {
      if (this.openId === id) this.flash(`Could not open the conversation: ${plain(error)}.`);
    }
    if (this.openId !== id) return;
    session = this.sessions.get(id);
    if (session) this.showHeader(session);
    if (atSeq != null) this.reveal(atSeq);
    else $('[data-sb=composer]').focus();
    this.markRead();
  }

  /** Scrolls to a message, marks it found and focuses it (a screen reader reads it); absent, says so. */
  reveal(seq) {
    for (const found of document.querySelectorAll('#log .found')) found.classList.remove('found');
    const item = this.messages.get(seq);
    if (!item) {
      this.flash('That message is no longer in this conversation.', { tone: 'info' });
      return;
    }
    item.classList.add('found');
    item.tabIndex = -1;
    item.scrollIntoView({ block: 'center' });
    item.focus({ preventScroll: true });
  }

  showHeader(session) {
    $('#conv-title').textContent = session.title;
    $('#conv-meta').textContent =
      `${this.visitorName || session.visitor_id || 'visitor'}` +
      (session.created_at ? ` · opened ${time(session.created_at)}` : '') +
      (session.assigned_operator ? ` · assigned to ${session.assigned_operator.name || session.assigned_operator.id}` : '');
    // The address a visitor left while nobody could answer: where to write once it has gone.
    // The visitor's rating of a closed conversation.
    const rated = $('[data-sb=csat-result]');
    rated.hidden = !session.csat;
    if (session.csat) rated.textContent = `Rated ${'★'.repeat(session.csat.rating)}${'☆'.repeat(5 - session.csat.rating)} (${session.csat.rating}/5)${session.csat.comment ? `: “${session.csat.comment}”` : ''}`;
    const contact = $('[data-sb=contact]');
    const email = session.contact?.email;
    contact.hidden = !email;
    if (email) contact.replaceChildren('Answer by email: ', el('a', { href: `mailto:${email}` }, email));
    const chip = $('#conv-status');
    chip.textContent = session.queued && session.status === 'open' ? 'queued' : session.status;
    chip.dataset.status = session.status;
    // Waiting for an operator: how long, ticking (team.js).
    const waiting = $('#conv-waiting');
    waiting.hidden = !(session.queued && session.status === 'open' && session.waiting_since);
    if (!waiting.hidden) {
      Object.assign(waiting.dataset, { since: session.waiting_since, prefix: 'waiting ' });
      waiting.textContent = `waiting ${waited(session.waiting_since)}`;
    }
    const closed = session.status === 'closed';
    $('[data-sb=assign]').disabled = session.assigned_operator?.id === this.client.user?.id;
    $('[data-sb=close]').disabled = closed;
    $('[data-sb=reopen]').hidden = !closed;
    $('[data-sb=unassign]').hidden = closed || !session.assigned_operator;
    const assignTo = $('[data-sb=assign-to]');
    assignTo.hidden = closed || !this.hasOperators;
    assignTo.options[0].textContent = session.assigned_operator ? 'Transfer to…' : 'Assign to…';
  }

  messageNode(message) {
    if (message.kind === 'event') {
      const line = el('li', { class: 'event', 'data-sb': 'event', dir: 'auto' }, message.body);
      line.dataset.seq = String(message.seq);
      return line;
    }
    const mine = message.sender.id === this.client.user?.id;
    // A private note: apart in colour and label; the visitor never receives it.
    const note = message.kind === 'note';
    const item = el('li', { class: `msg${mine ? ' mine' : ''} ${message.sender.role}${note ? ' note' : ''}`, 'data-sb': note ? 'note' : 'message' });
    item.dataset.seq = String(message.seq);
    item.dataset.state = 'sent';
    const name = (mine ? 'You' : message.sender.name || message.sender.id) + (note ? ' · Private note' : '');
    const meta = el('span', { class: 'meta' }, time(message.created_at));
    if (mine && !note) meta.append(el('span', { class: 'tick' }, message.seq <= this.visitorRead ? ' · Seen' : ''));
    item.append(el('span', { class: 'sender', 'data-sb': 'sender' }, name), linked(el('p', { class: 'body', 'data-sb': 'body', dir: 'auto' }), message.body), meta);
    if (message.attachments?.length) item.querySelector('.body').after(attachmentList(message.attachments));
    return item;
  }

  showMessage(sessionId, message, { quiet = false } = {}) {
    if (sessionId !== this.openId || this.messages.has(message.seq)) return;
    const event = message.kind === 'event';
    if (!event && message.sender.role === 'visitor' && message.sender.name && !this.visitorName) {
      this.visitorName = message.sender.name;
      const session = this.sessions.get(sessionId);
      if (session) this.showHeader(session);
    }
    const log = $('#log');
    // Read before the message is added: an operator reading further up is not pulled down, nor trimmed.
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
    const mine = !event && message.sender.id === this.client.user?.id;
    const pending = mine ? this.replies.get(message.client_msg_id) : null;
    const item = this.messageNode(message);
    if (pending) {
      pending.remove();
      this.replies.delete(message.client_msg_id);
    }
    // Stored messages and events in seq order, then the replies not stored yet (pending, failed).
    const next = [...log.children].find((node) => /pending|failed/.test(node.dataset.state) || Number(node.dataset.seq) > message.seq);
    log.insertBefore(item, next ?? null);
    this.messages.set(message.seq, item);
    const words = [message.body, ...(message.attachments ?? []).map((file) => file.filename)].filter(Boolean).join(', ');
    if (!mine && !quiet) this.say(event ? message.body : `${message.sender.name || message.sender.role}: ${words}`);
    if (!event && message.sender.role === 'visitor') $('[data-sb=typing]').hidden = true;
    // A window, not everything: the oldest leave the page and stay pageable. Earlier messages
    // loaded by hand stay while the operator reads them, up to three windows.
    while (this.messages.size > (atBottom ? WINDOW : 3 * WINDOW)) {
      const oldest = Math.min(...this.messages.keys());
      this.messages.get(oldest).remove();
      this.messages.delete(oldest);
      $('#earlier').hidden = false;
    }
    if (atBottom || mine) log.scrollTop = log.scrollHeight;
    this.markRead();
  }

  async loadEarlier() {
    const id = this.openId;
    const first = Math.min(...this.messages.keys());
    if (!Number.isFinite(first) || first <= 1) return;
    const page = await this.client.history(id, { afterSeq: Math.max(0, first - 51), limit: 50 });
    if (this.openId !== id) return;
    const log = $('#log');
    const anchor = log.firstChild;
    for (const message of page.messages) {
      if (message.seq >= first || this.messages.has(message.seq)) continue;
      const item = this.messageNode(message);
      log.insertBefore(item, anchor);
      this.messages.set(message.seq, item);
    }
    $('#earlier').hidden = (page.messages[0]?.seq ?? 1) <= 1;
  }

  reply() {
    const composer = $('[data-sb=composer]');
    const body = composer.value.trim();
    if ((!body && !this.tray.items.length) || !this.openId) return;
    // Refused here, not by the gateway: the text stays in the composer to be shortened.
    if (this.count()) return this.say($('#counter').textContent);
    composer.value = '';
    this.count();
    this.client.typing(this.openId, false);
    const id = newClientMessageId();
    const kind = this.noteMode ? 'note' : 'text';
    const note = kind === 'note';
    const item = el('li', { class: `msg mine${note ? ' note' : ''}`, 'data-sb': note ? 'note' : 'message', 'data-client-id': id });
    item.append(
      el('span', { class: 'sender', 'data-sb': 'sender' }, note ? 'You · Private note' : 'You'),
      linked(el('p', { class: 'body', 'data-sb': 'body', dir: 'auto' }), body),
      el('span', { class: 'meta' }),
    );
    this.replies.set(id, item);
    const uploads = this.tray.take();
    if (uploads.length) this.sendWithFiles(this.openId, id, body, item, uploads, kind);
    else this.transmit(this.openId, id, body, item, undefined, kind);
  }

  /** A reply with files: pending with their progress until they are uploaded, then sent as any reply. */
  sendWithFiles(sessionId, id, body, item, uploads, kind) {
    const meta = item.querySelector('.meta');
    this.pend(item);
    sendWhenUploaded(uploads, item, {
      send: (attachments) => {
        if (this.replies.get(id) === item) this.transmit(sessionId, id, body, item, attachments, kind);
        // Another conversation is open now: the reply still goes (the SDK's outbox), shown when it is back.
        else this.client.send(sessionId, body, { kind, clientMsgId: id, attachments }).catch(() => {});
      },
      failed: (reason) => new Promise((resolve) => {
        item.dataset.state = 'failed';
        meta.textContent = `Not sent: ${reason}`;
        const retry = el('button', { type: 'button', class: 'link', 'data-sb': 'retry' }, 'Retry');
        const drop = el('button', { type: 'button', class: 'link', 'data-sb': 'delete' }, 'Delete');
        retry.onclick = () => {
          this.pend(item);
          resolve(true);
        };
        drop.onclick = () => resolve(false);
        meta.append(' ', retry, ' ', drop);
        if (this.replies.get(id) === item) this.say(`Not sent: ${reason}`);
      }),
      removed: () => {
        this.replies.delete(id);
        item.remove();
        $('[data-sb=composer]').focus();
      },
    });
  }

  /** A reply shown as pending, last in the conversation. */
  pend(item) {
    item.dataset.state = 'pending';
    item.querySelector('.meta').textContent = 'Sending…';
    $('#log').append(item);
    $('#log').scrollTop = $('#log').scrollHeight;
  }

  /** A reply goes (again): pending and last until stored; refused, a failed bubble with Retry and Delete. */
  transmit(sessionId, id, body, item, attachments, kind = 'text') {
    const meta = item.querySelector('.meta');
    this.pend(item);
    this.client.send(sessionId, body, { kind, clientMsgId: id, attachments }).catch((error) => {
      if (this.replies.get(id) !== item) return;
      item.dataset.state = 'failed';
      meta.textContent = `Not sent: ${plain(error)}.`;
      const retry = el('button', { type: 'button', class: 'link', 'data-sb': 'retry' }, 'Retry');
      const drop = el('button', { type: 'button', class: 'link', 'data-sb': 'delete' }, 'Delete');
      retry.onclick = () => this.openId === sessionId && this.transmit(sessionId, id, body, item, attachments, kind);
      drop.onclick = () => {
        this.replies.delete(id);
        item.remove();
        $('[data-sb=composer]').focus();
      };
      meta.append(' ', retry, ' ', drop);
    });
  }

  acked({ clientMsgId, seq }) {
    const pending = this.replies.get(clientMsgId);
    if (pending && !this.messages.has(seq)) pending.dataset.seq = String(seq);
  }

  async act(action, id = this.openId) {
    // A change this operator makes is not news to them (see upsert's take-over notice), for a second:
    // forgotten then even if they have left the conversation meanwhile (on a phone, back to the list).
    this.acting = id;
    try {
      this.upsert(await action());
    } catch (error) {
      this.flash(`That did not work: ${plain(error)}.`);
    } finally {
      setTimeout(() => this.acting === id && (this.acting = null), 1000);
    }
  }

  showTyping({ sessionId, sender, state }) {
    if (sessionId !== this.openId || sender.id === this.client.user?.id) return;
    const line = $('[data-sb=typing]');
    clearTimeout(this.typingTimer);
    line.textContent = `${sender.name || sender.role} is typing…`;
    line.hidden = !state;
    if (state) this.typingTimer = setTimeout(() => (line.hidden = true), 6000);
  }

  showRead({ sessionId, reader, seq }) {
    if (sessionId !== this.openId || reader.role !== 'visitor') return;
    this.visitorRead = Math.max(this.visitorRead, seq);
    for (const [messageSeq, item] of this.messages) {
      const tick = item.querySelector('.tick');
      if (tick && messageSeq <= this.visitorRead) tick.textContent = ' · Seen';
    }
  }

  markRead() {
    const id = this.openId;
    if (!id || document.visibilityState === 'hidden') return;
    const seq = this.client.lastSeq(id);
    if (seq > 0) this.client.read(id, seq);
    if ((this.read[id] ?? 0) < seq) {
      this.read[id] = seq;
      const ids = Object.keys(this.read);
      if (ids.length > 2000) delete this.read[ids[0]];
      localStorage.setItem('switchboard-console:read', JSON.stringify(this.read));
      const session = this.sessions.get(id);
      if (session && this.rows.has(id)) this.renderRow(session, this.rows.get(id));
    }
  }

  // MARK: analytics

  async showAnalytics() {
    this.showPane('analytics');
    const days = Number($('#analytics-days').value);
    const to = new Date();
    const from = new Date(to.getTime() - days * 86400000);
    try {
      const figures = await this.client.api(
        `/api/v1/admin/live-chat/analytics?from=${from.toISOString()}&to=${to.toISOString()}`,
      );
      this.renderAnalytics(figures);
    } catch (error) {
      this.flash(`Could not load the analytics: ${plain(error)}.`);
    }
  }

  renderAnalytics(figures) {
    const seconds = (value) => (value == null ? '–' : value < 90 ? `${Math.round(value)} s` : `${(value / 60).toFixed(1)} min`);
    const cards = [
      ['Conversations opened', figures.sessions_opened],
      ['Conversations closed', figures.sessions_closed],
      ['First response, median', seconds(figures.first_response_seconds.median)],
      ['First response, 90th percentile', seconds(figures.first_response_seconds.p90)],
      // Routing's: from a visitor's first message to an operator, and conversations closed with no reply.
      ...(figures.wait_seconds ? [
        ['Wait for an operator, median', seconds(figures.wait_seconds.median)],
        ['Wait for an operator, 90th percentile', seconds(figures.wait_seconds.p90)],
        ['Closed without a reply', figures.unanswered],
      ] : []),
      // Satisfaction: the mean of the ratings given, and how many closed conversations got one.
      ...(figures.csat ? [
        ['Satisfaction, mean of 5', figures.csat.mean == null ? '–' : figures.csat.mean.toFixed(1)],
        ['Rated', `${figures.csat.answered}${figures.csat.share_answered == null ? '' : ` (${Math.round(figures.csat.share_answered * 100)} %)`}`],
      ] : []),
    ];
    $('#figures').replaceChildren(
      ...cards.map(([label, value]) => {
        const card = el('div', { class: 'figure' });
        card.append(el('strong', {}, String(value)), el('span', {}, label));
        return card;
      }),
    );
    const roles = Object.entries(figures.messages_by_role);
    const max = Math.max(1, ...roles.map(([, n]) => n));
    const svg = $('#chart');
    const ns = 'http://www.w3.org/2000/svg';
    const width = 480;
    const bar = 34;
    svg.setAttribute('viewBox', `0 0 ${width} ${Math.max(1, roles.length) * (bar + 14) + 10}`);
    svg.replaceChildren();
    roles.forEach(([role, count], index) => {
      const y = 10 + index * (bar + 14);
      const label = document.createElementNS(ns, 'text');
      label.setAttribute('x', '0');
      label.setAttribute('y', String(y + bar / 2 + 5));
      label.textContent = role;
      const rect = document.createElementNS(ns, 'rect');
      rect.setAttribute('x', '90');
      rect.setAttribute('y', String(y));
      rect.setAttribute('height', String(bar));
      rect.setAttribute('width', String(Math.max(2, ((width - 170) * count) / max)));
      rect.setAttribute('class', `bar ${role}`);
      const value = document.createElementNS(ns, 'text');
      value.setAttribute('x', String(96 + ((width - 170) * count) / max));
      value.setAttribute('y', String(y + bar / 2 + 5));
      value.textContent = String(count);
      svg.append(label, rect, value);
    });
  }
}

const token = await signIn();
const client = new Switchboard({ url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/ws`, token });
$('#app').hidden = false;
const view = new Console(client);
view.showState(client.state);
client.addEventListener('state', (e) => view.showState(e.detail.state));
// A token that cannot be had, or is refused, would otherwise look like a connection that never comes.
client.addEventListener('error', (e) => e.detail.code === 'token' && view.flash(`Cannot sign in: ${e.detail.message}`));
client
  .connect()
  .then(() => view.start())
  .catch((error) => view.flash(error.message));
window.switchboardConsole = view; // for the browser tests and the curious
