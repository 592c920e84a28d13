// Switchboard visitor widget: one <script> tag adds a launcher button and a chat
// panel (docs/clients.md). Attributes of the script tag: data-gateway (the
// WebSocket URL), data-token-url (POST, same-origin credentials, answers
// {"token": ...}) or window.SwitchboardWidget.getToken(), data-title,
// data-color. Everything renders in a shadow root, so the host page's CSS and
// the widget's cannot reach each other; every text a person typed is set with
// textContent, never parsed as HTML.
(() => {
  const script = document.currentScript;
  if (!script || customElements.get('switchboard-widget')) return;
  const origin = new URL(script.src, location.href);
  const options = {
    gateway: script.dataset.gateway || `${origin.protocol === 'https:' ? 'wss' : 'ws'}://${origin.host}/v1/ws`,
    tokenUrl: script.dataset.tokenUrl,
    title: script.dataset.title || 'Chat with us',
    color: script.dataset.color || '#2456d6',
    sdk: new URL('/sdk/switchboard.js', origin).href,
  };

  const CSS = `
:host{all:initial!important;display:contents!important}
.root{all:initial;font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#18202c;--accent:${options.color}}
:where(.root *){box-sizing:border-box;font:inherit;color:inherit;margin:0;padding:0;border:0;background:none;letter-spacing:normal;text-transform:none;text-align:left}
button{cursor:pointer}
button:focus-visible,textarea:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
.launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;width:58px;height:58px;border-radius:50%;background:var(--accent);color:#fff;display:grid;place-items:center;box-shadow:0 6px 20px rgba(20,30,60,.3);transition:transform .15s}
.launcher:hover{transform:scale(1.06)}
.launcher svg{width:28px;height:28px;fill:#fff}
.badge{position:absolute;top:-4px;right:-4px;min-width:22px;height:22px;padding:0 6px;border-radius:11px;background:#d92d20;color:#fff;font-size:12px;font-weight:700;line-height:22px;text-align:center}
.panel{position:fixed;right:20px;bottom:92px;z-index:2147483000;width:370px;height:min(560px,calc(100vh - 120px));display:flex;flex-direction:column;background:#fff;border-radius:16px;box-shadow:0 12px 40px rgba(20,30,60,.28);overflow:hidden}
[hidden]{display:none!important}
header{display:flex;align-items:center;gap:10px;padding:14px 16px;background:var(--accent);color:#fff}
h2{flex:1;font-size:16px;font-weight:650}
.status{font-size:12px;opacity:.92;display:flex;align-items:center;gap:6px}
.status::before{content:"";width:8px;height:8px;border-radius:50%;background:#f5b700}
.status[data-state=open]::before{background:#3ddc84}
.close{width:32px;height:32px;border-radius:8px;color:#fff;font-size:22px;line-height:1}
.close:hover{background:rgba(255,255,255,.18)}
.banner{padding:8px 16px;background:#fff4d6;color:#6b4e00;font-size:13px}
.log{flex:1;overflow-y:auto;list-style:none;padding:16px 14px;display:flex;flex-direction:column;gap:10px;background:#f6f7fb}
.empty{margin:auto;text-align:center;color:#5b6578;font-size:14px;max-width:240px}
.msg{max-width:82%;align-self:flex-start;display:flex;flex-direction:column;gap:2px}
.msg.mine{align-self:flex-end;align-items:flex-end}
.sender{font-size:12px;color:#5b6578;padding:0 6px}
.body{padding:9px 13px;border-radius:16px 16px 16px 4px;background:#fff;box-shadow:0 1px 2px rgba(20,30,60,.08);white-space:pre-wrap;overflow-wrap:anywhere}
.mine .body{border-radius:16px 16px 4px 16px;background:var(--accent);color:#fff}
.msg[data-state=pending] .body{box-shadow:inset 0 0 0 2px rgba(255,255,255,.55)}
.msg[data-state=failed] .body{background:#fff;color:#18202c;box-shadow:inset 0 0 0 2px #d92d20}
.msg[data-state=failed] .meta{color:#b42318}
.meta{font-size:11px;color:#5b6578;padding:0 6px}
.meta button{margin-left:8px;font-weight:600;text-decoration:underline;color:#1d44a8}
.body a{color:inherit;text-decoration:underline}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.tick{margin-left:4px}
.msg.read .tick{color:var(--accent)}
.note{align-self:center;text-align:center;font-size:12px;color:#4b5466;background:#eceef4;padding:4px 10px;border-radius:10px}
.hint,.counter{padding:6px 14px;font-size:12px;color:#4b5466;background:#fff;border-top:1px solid #e3e6ee}
.counter[data-state=over]{color:#b42318;font-weight:600}
.banner[data-state=available]{background:#eef3ff;color:#1d3f8f}
.typing{padding:4px 18px 8px;font-size:12px;color:#5b6578;background:#f6f7fb}
form{display:flex;gap:8px;padding:10px;border-top:1px solid #e3e6ee;background:#fff}
textarea,input{flex:1;resize:none;max-height:120px;min-height:40px;padding:9px 12px;border:1px solid #cfd5e2;border-radius:12px;background:#fff}
.send{padding:0 16px;border-radius:12px;background:var(--accent);color:#fff;font-weight:600}
.attach{width:40px;border-radius:12px;display:grid;place-items:center;color:#4b5466}
.attach:hover{background:#eef1f6}
.attach svg{width:22px;fill:none;stroke:currentColor;stroke-width:2}
.send:disabled{opacity:.5;cursor:default}
@media (max-width:480px){.panel{inset:0;width:auto;height:auto;border-radius:0}.launcher{right:14px;bottom:14px}.open .launcher{display:none}}
@media (prefers-reduced-motion:reduce){.launcher{transition:none}}`;

  const ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z"/></svg>';
  const CLIP = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M20 11l-8 8a5 5 0 0 1-7-7l9-9a3.5 3.5 0 0 1 5 5l-9 9a2 2 0 0 1-3-3l8-8"/></svg>';
  const LABELS = { connecting: 'Connecting…', open: 'Connected', reconnecting: 'Reconnecting…', offline: 'Offline' };
  const REASONS = { too_large: 'too long', rate_limited: 'too many at once, try again soon', not_found: 'this conversation is gone' };
  const why = (code) => REASONS[code] ?? 'something went wrong';
  const number = (n) => n?.toLocaleString('en-US');

  // "at 9:00 AM", "Thursday 9:00 AM": the next opening in the visitor's own time zone and locale.
  function whenBack(iso) {
    const at = new Date(iso);
    const today = at.toDateString() === new Date().toDateString();
    return (today ? 'at ' : '') + at.toLocaleString([], { weekday: today ? undefined : 'long', hour: 'numeric', minute: '2-digit' });
  }

  async function fetchToken() {
    if (window.SwitchboardWidget?.getToken) return window.SwitchboardWidget.getToken();
    if (!options.tokenUrl) throw new Error('the widget needs data-token-url or window.SwitchboardWidget.getToken');
    const response = await fetch(options.tokenUrl, { method: 'POST', credentials: 'same-origin' });
    if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
    return (await response.json()).token;
  }

  function el(tag, attributes = {}, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text != null) node.textContent = text;
    return node;
  }

  class SwitchboardWidget extends HTMLElement {
    connectedCallback() {
      if (this.shadowRoot) return;
      const shadow = this.attachShadow({ mode: 'open' });
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      shadow.adoptedStyleSheets = [sheet];
      const root = el('div', { class: 'root', role: 'complementary', 'aria-label': options.title });
      const launcher = el('button', {
        class: 'launcher', 'data-sb': 'launcher', 'aria-expanded': 'false', 'aria-controls': 'sb-panel',
        'aria-label': `Open chat: ${options.title}`,
      });
      // a constant, not user input
      launcher.innerHTML = ICON;
      this.badge = el('span', { class: 'badge', hidden: '', 'aria-hidden': 'true' });
      launcher.append(this.badge);
      const panel = el('section', { id: 'sb-panel', class: 'panel', role: 'dialog', 'aria-labelledby': 'sb-title', hidden: '' });
      const header = el('header');
      this.status = el('span', { class: 'status', 'data-sb': 'status', 'data-state': 'connecting', role: 'status' }, LABELS.connecting);
      const close = el('button', { class: 'close', type: 'button', 'aria-label': 'Close chat' }, '×');
      header.append(el('h2', { id: 'sb-title' }, options.title), this.status, close);
      this.avail = el('div', { class: 'banner', 'data-sb': 'availability', role: 'status', hidden: '' });
      this.availLine = el('p');
      this.emailForm = el('form', { 'data-sb': 'offline-email' });
      this.email = el('input', { type: 'email', required: '', autocomplete: 'email', placeholder: 'Your email' });
      this.emailForm.append(this.email, el('button', { class: 'send' }, 'Send'));
      this.left = el('p');
      this.avail.append(this.availLine, this.emailForm, this.left);
      this.banner = el('div', { class: 'banner', role: 'alert', hidden: '' },
        'Reconnecting… Messages you send now are delivered once you are back.');
      // A plain list: one polite region (`live`) says each new message once, the list itself is not live.
      this.log = el('ol', { class: 'log', 'data-sb': 'log', 'aria-label': 'Conversation', tabindex: '0' });
      this.empty = el('li', { class: 'empty' }, 'Hi! Ask us anything, we answer here.');
      this.log.append(this.empty);
      this.live = el('div', { class: 'sr', 'data-sb': 'live', 'aria-live': 'polite' });
      this.typingLine = el('div', { class: 'typing', 'data-sb': 'typing', hidden: '', 'aria-live': 'polite' });
      this.hint = el('p', { class: 'hint', 'data-sb': 'closed-hint', hidden: '' }, 'This conversation was closed. Write again any time.');
      this.counter = el('p', { class: 'counter', id: 'sb-counter', 'data-sb': 'counter', hidden: '' });
      const form = el('form');
      this.composer = el('textarea', {
        'data-sb': 'composer', rows: '1', dir: 'auto', placeholder: 'Type a message…', 'aria-label': 'Message', 'aria-describedby': 'sb-counter',
      });
      this.sendButton = el('button', { class: 'send', 'data-sb': 'send', type: 'submit' }, 'Send');
      // Files: chosen, dropped on the panel or pasted; the code that handles them loads on first use.
      const attach = el('button', { class: 'attach', 'data-sb': 'attach', type: 'button', 'aria-label': 'Attach a file' });
      attach.innerHTML = CLIP;
      this.picker = el('input', { type: 'file', multiple: '', hidden: '', accept: 'image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain' });
      attach.onclick = () => {
        this.picker.click();
        this.files(); // loading while the visitor chooses
      };
      this.picker.onchange = () => this.attach(this.picker.files);
      panel.ondragover = panel.ondrop = (event) => {
        if (!event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        if (event.type === 'drop') this.attach(event.dataTransfer.files);
      };
      this.composer.onpaste = (event) => event.clipboardData.files.length && (event.preventDefault(), this.attach(event.clipboardData.files));
      form.append(attach, this.picker, this.composer, this.sendButton);
      panel.append(header, this.avail, this.banner, this.log, this.typingLine, this.hint, this.counter, form, this.live);
      root.append(panel, launcher);
      shadow.append(root);
      Object.assign(this, { root, launcher, panel, nodes: new Map(), pendingNodes: new Map(), unread: 0, readBy: 0, seen: 0 });

      launcher.addEventListener('click', () => this.toggle(panel.hidden));
      close.addEventListener('click', () => this.toggle(false));
      panel.addEventListener('keydown', (event) => event.key === 'Escape' && this.toggle(false));
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        this.submit();
      });
      this.emailForm.onsubmit = (event) => {
        event.preventDefault();
        this.leaveEmail();
      };
      this.composer.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          this.submit();
        }
      });
      this.composer.addEventListener('input', () => {
        this.count();
        if (this.sessionId) this.client?.typing(this.sessionId, this.composer.value !== '');
      });
      document.addEventListener('visibilitychange', () => this.markRead());
      this.start();
    }

    get storageKey() {
      return `switchboard:${options.gateway}:session`;
    }

    async start() {
      const sdk = await import(options.sdk);
      this.sdk = sdk;
      const client = new sdk.Switchboard({ url: options.gateway, token: fetchToken });
      this.client = client;
      const on = (type, handle) => client.addEventListener(type, (e) => handle(e.detail));
      on('state', (d) => this.showState(d.state));
      on('message', (d) => this.showMessage(d.sessionId, d.message));
      on('typing', (d) => this.showTyping(d));
      on('read', (d) => this.showRead(d));
      on('session', (d) => d.session.id === this.sessionId && this.showSession(d.session));
      on('outbox', (d) => d.error && this.failed(d.entry.clientMsgId, d.error.code));
      on('error', (d) => this.showError(d));
      on('availability', () => this.showAvailability());
      this.showState(client.state);
      // Known before the connection is: a message written meanwhile joins this conversation.
      const stored = localStorage.getItem(this.storageKey);
      if (stored) this.adopt(stored);
      // Messages not yet stored when the page was left: pending ones go again (same id), failed ones wait.
      for (const { id, body, failed, attachments } of this.outbox()) {
        this.showPending(id, body, attachments);
        if (failed) this.failed(id, failed);
        else this.dispatch(id, body);
      }
      if (sessionStorage.getItem(`${this.storageKey}:open`)) this.toggle(true);
      await client.connect();
      // Deleted, or another visitor's: the SDK reports it as an error event (showError).
      if (stored) client.join(stored).then(() => (this.joinedAt ??= performance.now()), () => {});
    }

    // The conversation this widget shows, and what it last saw of it (for the unread badge).
    adopt(sessionId) {
      this.sessionId = sessionId;
      this.seen = Number(localStorage.getItem(`${this.storageKey}:${sessionId}:seen`)) || 0;
    }

    // The outbox of this tab (sessionStorage): [{id, body, failed?}] of messages not stored yet.
    outbox(entries) {
      const key = `${this.storageKey}:outbox`;
      if (entries) sessionStorage.setItem(key, JSON.stringify(entries));
      return entries ?? JSON.parse(sessionStorage.getItem(key) || '[]');
    }

    // Changes (or with no change, forgets) the entry `id`: its other fields, such as its attachments, stay.
    keep(id, change) {
      const entries = this.outbox();
      const old = entries.find((entry) => entry.id === id);
      this.outbox([...entries.filter((entry) => entry !== old), ...(change ? [{ ...old, ...change }] : [])]);
    }

    // The attachment module (attachments.js), loaded on first use: a file chosen, dropped or pasted, or shown.
    files() {
      return (this.filesModule ??= import(new URL('/widget/attachments.js', origin)).then((module) => new module.WidgetFiles(this)));
    }

    // Copied at once: a drop's or a paste's files are gone once its event is over.
    attach(files) {
      const list = [...files];
      this.files().then((module) => module.add(list));
    }

    // Starts afresh with the next message: the old conversation's bubbles go, its notes too.
    forgetSession() {
      localStorage.removeItem(this.storageKey);
      sessionStorage.removeItem(`${this.storageKey}:outbox`);
      this.sessionId = this.sessionReady = this.session = this.contact = null;
      this.showAvailability();
      this.nodes.clear();
      this.pendingNodes.clear();
      this.readBy = 0;
      this.hint.hidden = true;
      this.log.replaceChildren();
    }

    showError({ code, sessionId }) {
      if (sessionId && sessionId === this.sessionId && (code === 'not_found' || code === 'forbidden')) {
        this.forgetSession();
        this.note('This conversation is no longer available. Write to start a new one.');
      } else if (code === 'token') {
        this.status.textContent = 'Cannot sign in';
      }
    }

    toggle(open) {
      this.panel.hidden = !open;
      // On a phone the panel covers the page, the launcher included: its own close button closes it.
      this.root.classList.toggle('open', open);
      this.launcher.setAttribute('aria-expanded', String(open));
      this.labelLauncher(open);
      sessionStorage[open ? 'setItem' : 'removeItem'](`${this.storageKey}:open`, '1');
      if (open) {
        this.unread = 0;
        this.badge.hidden = true;
        this.composer.focus();
        this.scrollDown();
        this.markRead();
      } else {
        this.launcher.focus();
      }
    }

    labelLauncher(open) {
      const unread = !open && this.unread > 0 ? ` (${this.unread} unread)` : '';
      this.launcher.setAttribute('aria-label', `${open ? 'Close' : 'Open'} chat: ${options.title}${unread}`);
    }

    // Shows how close the text is to the gateway's limit; returns the characters over it (0: it fits).
    count() {
      const max = this.client?.limits?.max_body_bytes;
      const text = this.composer.value.trim();
      const used = max ? this.sdk.utf8Bytes(text) : 0;
      const over = used > max ? this.sdk.charactersOver(text, max) : 0;
      this.counter.hidden = !max || used < 0.8 * max;
      this.counter.dataset.state = over ? 'over' : 'near';
      this.counter.textContent = over
        ? `This message is too long: shorten it by ${number(over)} character${over > 1 ? 's' : ''}.`
        : `${number(used)} / ${number(max)}`;
      this.sendButton.disabled = over > 0 || this.creating;
      return over;
    }

    submit() {
      const body = this.composer.value.trim();
      if (!body || !this.client) return;
      // Refused here, not by the gateway: the text stays where the visitor can shorten it.
      if (this.count()) return this.say(this.counter.textContent);
      this.composer.value = '';
      this.count();
      this.composer.focus();
      const id = this.sdk.newClientMessageId();
      this.keep(id, { id, body });
      this.showPending(id, body);
      this.dispatch(id, body);
    }

    async dispatch(id, body) {
      try {
        // Every message written before the conversation exists waits for the one creation.
        if (!this.sessionId) await (this.sessionReady ??= this.createSession(body));
      } catch (error) {
        this.sessionReady = null;
        return this.failed(id, error.code);
      }
      this.client.typing(this.sessionId, false);
      const attachments = this.outbox().find((entry) => entry.id === id)?.attachments;
      this.client.send(this.sessionId, body, { clientMsgId: id, attachments }).catch(() => {});
    }

    async createSession(firstWords) {
      this.creating = true;
      this.count();
      try {
        await this.client.whenOpen();
        // The first words make the conversation's title in the operators' inbox.
        const title = firstWords.length > 60 ? `${firstWords.slice(0, 57)}…` : firstWords;
        const session = await this.client.createSession(title, { context: this.sdk.pageContext() });
        localStorage.setItem(this.storageKey, session.id);
        this.adopt(session.id);
        this.session = session;
        this.joinedAt ??= performance.now();
      } finally {
        this.creating = false;
        this.count();
      }
    }

    showState(state) {
      this.status.dataset.state = state;
      this.status.textContent = LABELS[state] ?? state;
      this.banner.hidden = !(state === 'reconnecting' || state === 'offline') || !this.client?.wasOpen;
      // the limits come with the welcome
      if (state === 'open') this.count();
    }

    hideEmpty() {
      this.empty?.remove();
      this.empty = null;
    }

    bubble(mine, senderName, body) {
      this.hideEmpty();
      const item = el('li', { class: `msg${mine ? ' mine' : ''}`, 'data-sb': 'message' });
      const meta = el('span', { class: 'meta' });
      item.append(el('span', { class: 'sender', 'data-sb': 'sender' }, senderName), this.linked(el('p', { class: 'body', 'data-sb': 'body', dir: 'auto' }), body), meta);
      return { item, meta };
    }

    // Text with its http(s) links as <a> elements: DOM nodes only, never parsed as HTML.
    linked(node, text) {
      for (const run of this.sdk.linkRuns(text)) {
        node.append(run.url ? el('a', { href: run.url, target: '_blank', rel: 'noopener noreferrer' }, run.url) : run.text);
      }
      return node;
    }

    showPending(id, body, attachments) {
      const { item, meta } = this.bubble(true, 'You', body);
      if (attachments) this.files().then((files) => files.show(item, attachments));
      item.dataset.state = 'pending';
      meta.textContent = 'Sending…';
      this.pendingNodes.set(id, item);
      this.log.append(item);
      this.scrollDown();
    }

    showMessage(sessionId, message) {
      if (sessionId !== this.sessionId || this.nodes.has(message.seq)) return;
      const event = message.kind === 'event';
      const mine = !event && message.sender.role === 'visitor';
      let item = mine ? this.pendingNodes.get(message.client_msg_id) : null;
      if (item) {
        this.pendingNodes.delete(message.client_msg_id);
        this.keep(message.client_msg_id);
      } else if (event) {
        this.hideEmpty();
        item = el('li', { class: 'note', 'data-sb': 'event', dir: 'auto' }, message.body);
        const action = message.meta?.action;
        if (action === 'closed' || action === 'reopened') this.hint.hidden = action !== 'closed';
      } else {
        item = this.bubble(mine, mine ? 'You' : message.sender.name || 'Support', message.body).item;
      }
      const files = message.attachments ?? [];
      if (files.length) this.files().then((module) => module.show(item, files));
      item.dataset.seq = String(message.seq);
      // Stored messages in seq order, then what is not stored yet: a bubble that gets its seq moves there.
      this.place(item, message.seq);
      this.nodes.set(message.seq, item);
      if (!event) {
        item.dataset.state = 'sent';
        const meta = item.querySelector('.meta');
        meta.textContent = new Date(message.created_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
        if (mine) meta.append(el('span', { class: 'tick', role: 'img', 'aria-label': 'Delivered' }, '✓'));
      }
      if (mine) this.applyRead(item);
      else {
        const words = [message.body, ...files.map((file) => file.filename)].filter(Boolean).join(', ');
        if (message.seq > this.seen) this.say(event ? message.body : `${message.sender.name || 'Support'}: ${words}`);
        if (!event) this.typingLine.hidden = true;
        // Unread: a reply the visitor has not seen, live or replayed since the last visit.
        if (!event && this.panel.hidden && message.seq > this.seen) {
          this.badge.hidden = false;
          this.badge.textContent = String(++this.unread);
          this.labelLauncher(false);
        }
      }
      this.scrollDown();
      this.markRead();
    }

    place(item, seq) {
      const next = [...this.log.children].find((node) => node !== item && (/pending|failed/.test(node.dataset.state) || Number(node.dataset.seq) > seq));
      this.log.insertBefore(item, next ?? null);
    }

    // The one polite live region: the newest message, said once.
    say(text) {
      this.live.textContent = text;
    }

    failed(id, code) {
      const item = this.pendingNodes.get(id);
      if (!item) return;
      const body = item.querySelector('.body').textContent;
      this.keep(id, { id, body, failed: code || 'error' });
      item.dataset.state = 'failed';
      const meta = item.querySelector('.meta');
      meta.textContent = `Not sent: ${why(code)}.`;
      const retry = el('button', { type: 'button', 'data-sb': 'retry' }, 'Retry');
      const drop = el('button', { type: 'button', 'data-sb': 'delete' }, 'Delete');
      retry.onclick = () => {
        this.keep(id, { failed: null });
        item.dataset.state = 'pending';
        meta.textContent = 'Sending…';
        this.log.append(item);
        this.composer.focus();
        this.dispatch(id, body);
      };
      drop.onclick = () => {
        this.keep(id);
        this.pendingNodes.delete(id);
        item.remove();
        this.composer.focus();
      };
      meta.append(retry, drop);
      this.say(`Not sent: ${body}`);
    }

    showTyping({ sessionId, sender, state }) {
      if (sessionId !== this.sessionId || sender.role === 'visitor') return;
      clearTimeout(this.typingTimer);
      this.typingLine.hidden = !state;
      this.typingLine.textContent = `${sender.name || 'Support'} is typing…`;
      if (state) this.typingTimer = setTimeout(() => (this.typingLine.hidden = true), 6000);
    }

    showRead({ sessionId, reader, seq }) {
      if (sessionId !== this.sessionId || reader.role === 'visitor') return;
      this.readBy = Math.max(this.readBy, seq);
      for (const item of this.nodes.values()) if (item.classList.contains('mine')) this.applyRead(item);
    }

    applyRead(item) {
      if (Number(item.dataset.seq) > this.readBy || item.classList.contains('read')) return;
      item.classList.add('read');
      const tick = item.querySelector('.tick');
      if (tick) {
        tick.textContent = '✓✓';
        tick.setAttribute('aria-label', 'Read');
      }
    }

    // Joined, closed and reopened lines are stored events now (showMessage); the status shows the hint.
    showSession(session) {
      this.session = session;
      this.contact = session.contact?.email ?? this.contact;
      this.showAvailability();
      if (session.deleted) {
        this.forgetSession();
        this.note('This conversation was removed. Write to start a new one.');
      } else this.hint.hidden = session.status !== 'closed';
      // Closed and not rated, in a workspace that asks: the survey (csat.js, loaded only then).
      if (session.status !== 'closed' && this.surveyForm) {
        this.surveyForm.remove();
        this.surveyForm = null;
        this.surveyShown = false;
      }
      if (session.csat_survey && !this.surveyShown) {
        this.surveyShown = true;
        import(new URL('/widget/csat.js', origin)).then((module) => module.survey(this, session.id), () => (this.surveyShown = false));
      }
    }

    // Routing: whether someone answers soon, the visitor's place in line, and while nobody can, an email form.
    showAvailability() {
      const known = this.client?.availability;
      // A closed conversation waits in no line.
      this.avail.hidden = known?.operators_available == null || this.session?.status === 'closed';
      if (this.avail.hidden) return;
      const assigned = this.session?.status === 'assigned';
      const position = !assigned && known.queue_position;
      const away = !assigned && (!known.operators_available || known.open === false);
      this.avail.dataset.state = away ? 'away' : 'available';
      const at = known.open === false && known.opens_at;
      this.availLine.replaceChildren(...(at ? ["We're back ", el('time', { datetime: at }, whenBack(at)), ' (your time)', el('br')] : []),
        position ? `You are number ${position} in line${away ? ". Can't wait? Leave your email:" : ''}`
        : away ? "We're away: leave your email and we'll answer there" : 'We typically reply in a few minutes');
      this.emailForm.hidden = !away || !!this.contact;
      this.left.textContent = this.contact ? `Thanks! We'll answer at ${this.contact}.` : this.problem ?? '';
    }

    async leaveEmail() {
      const email = this.email.value.trim();
      try {
        // An address can be the first thing a visitor leaves: it starts the conversation.
        if (!this.sessionId) await (this.sessionReady ??= this.createSession('Left an email'));
        await this.client.leaveContact(this.sessionId, email);
        this.contact = email;
      } catch (error) {
        if (!this.sessionId) this.sessionReady = null;
        this.problem = `Not saved: ${why(error.code)}.`;
      }
      this.showAvailability();
    }

    note(text) {
      this.hideEmpty();
      this.place(el('li', { class: 'note' }, text), Infinity);
      this.scrollDown();
    }

    markRead() {
      if (!this.sessionId || this.panel.hidden || document.visibilityState === 'hidden') return;
      const seq = this.client?.lastSeq(this.sessionId) ?? 0;
      this.client?.read(this.sessionId, seq);
      if (seq > this.seen) {
        this.seen = seq;
        localStorage.setItem(`${this.storageKey}:${this.sessionId}:seen`, String(seq));
      }
    }

    scrollDown() {
      this.log.scrollTop = this.log.scrollHeight;
    }
  }

  customElements.define('switchboard-widget', SwitchboardWidget);
  const mount = () => document.body.append(document.createElement('switchboard-widget'));
  if (document.body) mount();
  else addEventListener('DOMContentLoaded', mount);
})();
