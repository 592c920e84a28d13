// Switchboard browser SDK (ES module, no dependencies). Types: switchboard.d.ts;
// guide: docs/clients.md. It owns what every integrator would otherwise get
// wrong: reconnecting with jittered back-off, resuming every session by seq so
// each message reaches the app once and in order, an outbox that re-sends
// unacknowledged messages with their client_msg_id, and token refresh.

/** Connection states, in the order a connection usually meets them. */
export const STATES = ['connecting', 'open', 'reconnecting', 'offline'];

// The gateway's answers that say nothing was done and a later try may succeed.
const RETRYABLE = new Set(['overloaded', 'unavailable']);
// No answer at all: the request may or may not have been carried out.
const UNANSWERED = ['disconnected', 'timeout'];
// The ref of a `read` (then its session's id): the gateway answers it only with a refusal.
const READ_REF = 'read:';
// Answers after which a session is not joined again.
const REFUSED = new Set(['forbidden', 'not_found', 'bad_request']);
const REQUEST_TIMEOUT_MS = 15000;
const closedError = () => new SwitchboardError('closed', 'the client was closed');
const HISTORY_PAGE = 1000;

/** An error answered by the gateway (`code` as in the protocol) or raised by the SDK. */
export class SwitchboardError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'SwitchboardError';
    this.code = code;
  }
}

/** A random id for client_msg_id: unique per message, kept across re-sends. */
export function newClientMessageId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Full-jitter exponential back-off: a random wait up to min(max, min * 2^attempt). */
export function backoff(attempt, min, max) {
  return Math.random() * Math.min(max, min * 2 ** Math.min(attempt, 16));
}

/** The seconds-since-epoch expiry of a JWT, or Infinity when it cannot be read. */
export function tokenExpiry(token) {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part)).exp ?? Infinity;
  } catch {
    return Infinity;
  }
}

/** UTF-8 bytes of `text`: what the gateway's `max_body_bytes` counts. */
export function utf8Bytes(text) {
  return new TextEncoder().encode(text).length;
}

/** This page as a session's `context` (docs/protocol.md, "The agent's desk"): control characters made spaces and
 * each value cut to 2 KiB by whole characters, as the gateway takes it. */
export function pageContext() {
  const cut = (text) => {
    let value = String(text ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
    value = value.toWellFormed?.() ?? value; // a lone surrogate is no JSON the gateway takes
    while (utf8Bytes(value) > 2048) value = [...value].slice(0, -64).join('');
    return value || undefined;
  };
  return {
    page_url: cut(location.href),
    page_title: cut(document.title),
    referrer: cut(document.referrer),
    locale: cut(navigator.language),
    time_zone: cut(Intl.DateTimeFormat().resolvedOptions().timeZone),
    user_agent: cut(navigator.userAgent),
  };
}

/** How many characters to take off the end of `text` for it to fit in `maxBytes` UTF-8 bytes (0: it fits). */
export function charactersOver(text, maxBytes) {
  let over = utf8Bytes(text) - maxBytes;
  let count = 0;
  for (const character of [...text].reverse()) {
    if (over <= 0) break;
    over -= utf8Bytes(character);
    count++;
  }
  return count;
}

/**
 * `text` as runs of plain text and http(s) links, `[{ text } | { url }]`, for building DOM nodes
 * (never HTML): only http and https become links, and trailing punctuation stays text.
 */
export function linkRuns(text) {
  const runs = [];
  let at = 0;
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/gi)) {
    const url = match[0].replace(/[.,;:!?)\]'"]+$/, '');
    if (match.index > at) runs.push({ text: text.slice(at, match.index) });
    runs.push({ url });
    at = match.index + url.length;
  }
  if (at < text.length) runs.push({ text: text.slice(at) });
  return runs;
}

export class Switchboard extends EventTarget {
  // The options (url, token, apiUrl, minDelayMs, maxDelayMs, typingIntervalMs): SwitchboardOptions in switchboard.d.ts.
  constructor(options) {
    super();
    if (!options?.url || typeof options.token !== 'function') {
      throw new TypeError('Switchboard needs { url, token: async () => string }');
    }
    this.url = options.url;
    this.apiUrl = options.apiUrl ?? options.url.replace(/^ws/, 'http').replace(/\/v1\/ws.*$/, '');
    this.tokenProvider = options.token;
    this.minDelay = options.minDelayMs ?? 500;
    this.maxDelay = options.maxDelayMs ?? 30000;
    this.typingInterval = options.typingIntervalMs ?? 3000;
    /** @type {'connecting'|'open'|'reconnecting'|'offline'} */
    this.state = 'offline';
    this.user = null;
    this.workspaceId = null;
    this.heartbeatSeconds = 25;
    // The gateway's `welcome.limits` (`max_body_bytes`: a message body's most UTF-8 bytes), null before it.
    this.limits = null;
    this.ws = null;
    this.token = null;
    this.attempt = 0;
    this.wasOpen = false;
    this.closed = true;
    this.nextRef = 1;
    // ref -> { resolve, reject, timer }
    this.requests = new Map();
    // id -> { lastSeq, joined, buffer, fetching }
    this.sessions = new Map();
    // session id -> newest version seen
    this.versions = new Map();
    // client_msg_id -> entry
    this.outbox = new Map();
    this.inboxWanted = false;
    // Routing's latest word to a visitor: the `availability` frame (the welcome's operators_available before one).
    this.availability = null;
    // session id -> { sent, at, timer }
    this.typingState = new Map();
    this.readSent = new Map();
    // Refused reads sent again in a row, per session (their waits grow).
    this.readRetries = new Map();
    this.reconnectTimer = null;
    this.onOnline = () => this.state === 'offline' && !this.closed && this.reconnectNow();
    this.onOffline = () => this.ws?.close();
  }

  // MARK: connection

  /** Connects, and keeps reconnecting until `close()`. Resolves at the first `welcome`. */
  connect() {
    if (!this.closed) return this.ready;
    this.closed = false;
    // a browser's; absent in workers and Node
    globalThis.addEventListener?.('online', this.onOnline);
    globalThis.addEventListener?.('offline', this.onOffline);
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.open();
    return this.ready;
  }

  /** Closes for good: unsent messages stay in the outbox (for a later `connect()`); waiters reject with `closed`. */
  close() {
    this.closed = true;
    globalThis.removeEventListener?.('online', this.onOnline);
    globalThis.removeEventListener?.('offline', this.onOffline);
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.heartbeat);
    const ws = this.ws;
    if (ws) this.closedBy(ws, { code: 1000 });
    ws?.close(1000);
    this.rejectReady?.(closedError());
    this.resolveReady = this.rejectReady = null;
    this.setState('offline');
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit('state', { state });
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  async open() {
    if (this.closed) return;
    this.setState(this.wasOpen ? 'reconnecting' : 'connecting');
    if (typeof navigator !== 'undefined' && navigator.onLine === false) {
      this.setState('offline');
      return;
    }
    try {
      // A token about to expire is refreshed before it is refused.
      if (!this.token || tokenExpiry(this.token) * 1000 < Date.now() + 30000) this.token = await this.tokenProvider();
    } catch (error) {
      this.emit('error', { code: 'token', message: `the token provider failed: ${error?.message ?? error}` });
      return this.retry();
    }
    if (this.closed) return;
    const ws = new WebSocket(this.url, 'switchboard.v1');
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', token: this.token }));
    ws.onmessage = (event) => this.receive(ws, event.data);
    ws.onclose = (event) => this.closedBy(ws, event);
  }

  // Reconnects after a jittered delay (so thousands of clients do not return at once).
  retry() {
    if (this.closed) return;
    const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
    this.setState(offline ? 'offline' : this.wasOpen ? 'reconnecting' : 'connecting');
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.open(), backoff(this.attempt++, this.minDelay, this.maxDelay));
  }

  // The browser is back online: try at once instead of waiting out the back-off.
  reconnectNow() {
    clearTimeout(this.reconnectTimer);
    this.open();
  }

  closedBy(ws, event) {
    if (ws !== this.ws) return;
    this.ws = null;
    clearTimeout(this.heartbeat);
    clearTimeout(this.stableTimer);
    const lost = this.closed
      ? closedError()
      : new SwitchboardError('disconnected', 'the connection was lost');
    for (const { reject, timer } of this.requests.values()) {
      clearTimeout(timer);
      reject(lost);
    }
    this.requests.clear();
    for (const session of this.sessions.values()) session.joined = false;
    for (const entry of this.outbox.values()) entry.ref = null;
    // 4001: no valid token; the next attempt asks the provider for a new one.
    if (event.code === 4001) this.token = null;
    if (this.closed) return;
    this.retry();
  }

  // Detects a dead connection (browsers hide WebSocket pings): a pong is due after every ping.
  armHeartbeat(ws) {
    clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => {
      if (ws !== this.ws) return;
      this.request({ type: 'ping' }).then(
        () => this.armHeartbeat(ws),
        () => {
          // A dead TCP connection can take minutes to report its close: treat it as closed now.
          this.closedBy(ws, { code: 1006 });
          ws.close();
        },
      );
    }, this.heartbeatSeconds * 1000);
  }

  receive(ws, text) {
    if (ws !== this.ws) return;
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    const pending = frame.ref != null && this.requests.get(frame.ref);
    if (pending) {
      this.requests.delete(frame.ref);
      clearTimeout(pending.timer);
      if (frame.type === 'error') pending.reject(new SwitchboardError(frame.code, frame.message));
      else pending.resolve(frame);
    }
    switch (frame.type) {
      case 'welcome':
        return this.welcomed(ws, frame);
      case 'message':
        return this.onMessage(frame);
      case 'typing':
        return this.emit('typing', { sessionId: frame.session_id, sender: frame.sender, state: frame.state });
      case 'read':
        // Our own position stored: a refused one's waits start over.
        if (frame.reader?.id === this.user?.id) this.readRetries.delete(frame.session_id);
        return this.emit('read', { sessionId: frame.session_id, reader: frame.reader, seq: frame.seq });
      case 'session.updated':
      case 'session':
        return this.onSession(frame.session);
      case 'availability':
        return this.emit('availability', (this.availability = frame));
      // an operator's own (`presence`), every operator's (`presence.list`), one that changed (`presence.updated`)
      case 'presence':
      case 'presence.list':
      case 'presence.updated':
        return this.emit(frame.type, frame);
      case 'error':
        if (frame.ref?.startsWith(READ_REF) && this.readRefused(frame.ref.slice(READ_REF.length), frame.code)) return;
        if (!pending) this.emit('error', { code: frame.code, message: frame.message, ref: frame.ref });
        if (frame.code === 'unauthorized') this.token = null;
    }
  }

  async welcomed(ws, frame) {
    this.user = frame.user;
    this.workspaceId = frame.workspace_id;
    this.heartbeatSeconds = frame.heartbeat_s || 25;
    this.limits = frame.limits ?? this.limits;
    const available = frame.operators_available;
    if (available != null) this.emit('availability', (this.availability = { ...this.availability, operators_available: available }));
    this.wasOpen = true;
    this.setState('open');
    this.armHeartbeat(ws);
    this.resolveReady?.();
    this.resolveReady = this.rejectReady = null;
    // A connection that lasts resets the back-off; one that drops at once keeps it growing.
    this.stableTimer = setTimeout(() => ws === this.ws && (this.attempt = 0), 10000);
    if (this.inboxWanted) this.subscribeInbox().catch(() => {});
    if (this.presenceWanted) this.subscribePresence().catch(() => {});
    // refusals are reported as events
    for (const id of this.sessions.keys()) this.rejoin(id).catch(() => {});
  }

  // Sends a frame with a fresh ref; resolves with its answer, rejects with a SwitchboardError.
  request(frame) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.state !== 'open') return reject(new SwitchboardError('disconnected', 'not connected'));
      const ref = `r${this.nextRef++}`;
      const timer = setTimeout(() => {
        this.requests.delete(ref);
        reject(new SwitchboardError('timeout', `no answer to ${frame.type}`));
      }, REQUEST_TIMEOUT_MS);
      this.requests.set(ref, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ ...frame, ref }));
    });
  }

  // `request`, repeated with jittered back-off while the gateway answers overloaded or
  // unavailable. After no answer (`repeatUnanswered`: a lost connection, a time-out) only what
  // is safe to do twice is repeated, since the first try may have been carried out.
  async retrying(frame, { repeatUnanswered = UNANSWERED, tries = 6 } = {}) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request(frame);
      } catch (error) {
        const again = RETRYABLE.has(error.code) || repeatUnanswered.includes(error.code);
        if (!again || attempt + 1 >= tries || this.closed) throw error;
        if (error.code !== 'disconnected') await this.pause(backoff(attempt + 1, this.minDelay, this.maxDelay));
        await this.whenOpen();
      }
    }
  }

  pause(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Resolves once the connection is open (at once if it is); rejects with `closed` after `close()`. */
  whenOpen() {
    if (this.state === 'open') return Promise.resolve();
    if (this.closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      const changed = () => {
        if (this.state !== 'open' && !this.closed) return;
        this.removeEventListener('state', changed);
        if (this.closed) reject(closedError());
        else resolve();
      };
      this.addEventListener('state', changed);
    });
  }

  // MARK: sessions

  /** Opens a new session (visitors); the connection is joined to it. `context`: what the operators see of the
   * visitor's page (`pageContext()`). */
  async createSession(title, { context } = {}) {
    // Not repeated when unanswered: a second try could open a second session.
    const frame = await this.retrying(
      { type: 'session.create', ...(title ? { title } : {}), ...(context ? { context } : {}) },
      { repeatUnanswered: [] },
    );
    this.sessions.set(frame.session.id, { lastSeq: frame.session.last_seq, joined: true, buffer: null });
    return frame.session;
  }

  /** Joins a session: each message after `sinceSeq` (default 0) comes as a `message` event, once, in order. */
  async join(sessionId, { sinceSeq = 0 } = {}) {
    const known = this.sessions.get(sessionId);
    if (known) known.leaving = false;
    else this.sessions.set(sessionId, { lastSeq: sinceSeq, joined: false, buffer: null });
    return this.rejoin(sessionId);
  }

  async rejoin(sessionId) {
    const session = this.sessions.get(sessionId);
    if (!session || this.state !== 'open') return;
    // Messages that arrive before `joined` is handled wait, so a truncated replay can be filled first.
    session.buffer = [];
    let frame;
    try {
      // A join lost with its connection is not repeated here: every reconnect joins again.
      frame = await this.retrying(
        { type: 'join', session_id: sessionId, since_seq: session.lastSeq },
        { repeatUnanswered: ['timeout'] },
      );
    } catch (error) {
      if (REFUSED.has(error.code) && this.sessions.get(sessionId) === session) {
        // Deleted, or not this user's: nothing more can be sent to it, and the app is told.
        this.forget(sessionId, error);
        this.emit('error', { code: error.code, message: error.message, sessionId });
      }
      session.buffer = null;
      throw error;
    }
    if (this.sessions.get(sessionId) !== session) return frame;
    // The replay follows `joined` on the socket and waits in the buffer while the gap is paged.
    const complete = frame.truncated ? await this.fillGap(sessionId, session) : true;
    // A complete replay may skip seqs (a visitor's private notes): what it brings, up to the joined's
    // last_seq, is all there is. Its frames may still be on their way (a promise settles between them).
    if (complete) session.covered = Math.max(session.covered ?? 0, frame.last_seq ?? 0);
    const buffered = session.buffer ?? [];
    session.buffer = null;
    session.joined = true;
    for (const message of buffered) if (!this.deliver(sessionId, session, message, complete)) break;
    if (session.joined) this.flushOutbox(sessionId);
    return frame;
  }

  // Pages history over HTTP from the last delivered seq up to what the socket replays; false if it gave up.
  async fillGap(sessionId, session) {
    for (let tries = 0; tries < 5; tries++) {
      try {
        for (;;) {
          const page = await this.api(
            `/api/v1/sessions/${sessionId}/messages?after_seq=${session.lastSeq}&limit=${HISTORY_PAGE}`,
          );
          // History rows have no session_id: they get one, so every `message` event looks alike.
          for (const message of page.messages) {
            this.deliver(sessionId, session, { session_id: sessionId, ...message }, true);
          }
          const first = session.buffer?.[0]?.seq;
          if (page.next_after_seq == null || (first != null && session.lastSeq >= first - 1)) return true;
        }
      } catch (error) {
        await this.pause(backoff(tries + 1, this.minDelay, this.maxDelay));
      }
    }
    // What follows the gap is not delivered (deliver() stops at it) and the join is tried again later.
    this.emit('error', { code: 'history', message: `could not page the history of ${sessionId}` });
    return false;
  }

  onMessage(frame) {
    const session = this.sessions.get(frame.session_id);
    if (!session) return;
    if (session.buffer) session.buffer.push(frame);
    else if (session.joined) this.deliver(frame.session_id, session, frame);
    // Not joined (a gap waits for its join): the join's replay brings this message again.
  }

  // Hands one message to the app, unless seen before; returns false at a gap (nothing after it is delivered).
  // `complete`: from the history, or a complete join's replay (`covered`: up to its last_seq, and the message
  // right after it), which have every message this user may read: a skipped seq is one it may not (a private
  // note, for a visitor) or a deleted message, not a gap.
  deliver(sessionId, session, message, complete = false) {
    // replayed twice, or already paged
    if (message.seq <= session.lastSeq) return true;
    if (message.seq > session.lastSeq + 1 && !complete && message.seq > (session.covered ?? 0) + 1) {
      // A gap: nothing after it reaches the app until the join from the last delivered seq fills it.
      if (session.joined) {
        session.joined = false;
        setTimeout(() => this.rejoin(sessionId).catch(() => {}), backoff(this.attempt, this.minDelay, this.maxDelay));
      }
      return false;
    }
    session.lastSeq = message.seq;
    this.absolute(message.attachments);
    const entry = this.outbox.get(message.client_msg_id);
    if (entry && entry.sessionId === sessionId && message.sender?.id === this.user?.id) this.settle(entry, message);
    this.emit('message', { sessionId, message });
    return true;
  }

  /** Stops receiving a session, once its messages still in the outbox are stored. */
  async leave(sessionId) {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    if (this.pending(sessionId).length > 0) {
      session.leaving = true;
      return;
    }
    this.forget(sessionId);
    if (this.state === 'open') await this.request({ type: 'leave', session_id: sessionId }).catch(() => {});
  }

  // Drops a session's state; with `error`, its unsent messages are refused with it.
  forget(sessionId, error) {
    this.sessions.delete(sessionId);
    this.typingState.delete(sessionId);
    this.readSent.delete(sessionId);
    this.readRetries.delete(sessionId);
    if (!error) return;
    for (const entry of this.pending(sessionId)) {
      this.outbox.delete(entry.clientMsgId);
      this.emit('outbox', { sessionId, entry, error });
      entry.reject(error);
    }
  }

  /** The last seq delivered for a session (0 when none). */
  lastSeq(sessionId) {
    return this.sessions.get(sessionId)?.lastSeq ?? 0;
  }

  onSession(session, { emit = true } = {}) {
    if (!session) return;
    const known = this.versions.get(session.id) ?? 0;
    // A client never applies an older state over a newer one (the protocol's "Message semantics").
    if ((session.version ?? 0) < known) return;
    // re-inserted last: the oldest-touched entry goes first
    this.versions.delete(session.id);
    this.versions.set(session.id, session.version ?? 0);
    if (this.versions.size > 20000) this.versions.delete(this.versions.keys().next().value);
    if (emit) this.emit('session', { session });
  }

  // MARK: outbox

  /**
   * Sends a message; resolves with its `ack` once stored. Unacknowledged, it goes again (same client_msg_id).
   * `attachments`: uploaded attachments (or their ids) of this session; `body` may then be empty.
   */
  send(sessionId, body, { kind = 'text', clientMsgId = newClientMessageId(), attachments } = {}) {
    return new Promise((resolve, reject) => {
      const entry = {
        sessionId, body, kind, clientMsgId, resolve, reject, ref: null, attempt: 0, attachments: attachments?.map((a) => a.id ?? a),
      };
      this.outbox.set(clientMsgId, entry);
      this.emit('outbox', { sessionId, entry });
      this.transmit(entry);
    });
  }

  /** Messages not yet acknowledged, oldest first. */
  pending(sessionId) {
    return [...this.outbox.values()].filter((entry) => !sessionId || entry.sessionId === sessionId);
  }

  transmit(entry) {
    const session = this.sessions.get(entry.sessionId);
    // sent when joined again
    if (this.state !== 'open' || !session?.joined || entry.ref) return;
    const frame = {
      type: 'send', session_id: entry.sessionId, client_msg_id: entry.clientMsgId, body: entry.body, kind: entry.kind,
      ...(entry.attachments?.length && { attachments: entry.attachments }),
    };
    // in flight
    entry.ref = true;
    this.request(frame).then(
      (ack) => this.settle(entry, ack),
      (error) => {
        entry.ref = null;
        // A send is idempotent (its client_msg_id): kept until answered, whatever happened to the connection.
        if (!RETRYABLE.has(error.code) && !UNANSWERED.includes(error.code)) {
          this.outbox.delete(entry.clientMsgId);
          this.emit('outbox', { sessionId: entry.sessionId, entry, error });
          return entry.reject(error);
        }
        // A lost connection re-sends it after the rejoin; a busy gateway or a time-out, after a jittered wait.
        if (error.code !== 'disconnected') {
          setTimeout(() => this.transmit(entry), backoff(++entry.attempt, this.minDelay, this.maxDelay));
        }
      },
    );
  }

  settle(entry, ack) {
    if (!this.outbox.delete(entry.clientMsgId)) return;
    if (this.sessions.get(entry.sessionId)?.leaving && this.pending(entry.sessionId).length === 0) {
      this.sessions.get(entry.sessionId).leaving = false;
      queueMicrotask(() => this.leave(entry.sessionId));
    }
    this.emit('ack', { sessionId: entry.sessionId, clientMsgId: entry.clientMsgId, seq: ack.seq, ack });
    entry.resolve(ack);
  }

  flushOutbox(sessionId) {
    for (const entry of this.outbox.values()) if (entry.sessionId === sessionId) this.transmit(entry);
  }

  // MARK: typing, read, inbox, operator commands

  /** Tells the others whether this user is typing: throttled, and `false` after 5 s of silence. */
  typing(sessionId, isTyping = true) {
    const now = Date.now();
    const state = this.typingState.get(sessionId) ?? { sent: false, at: 0, timer: null };
    this.typingState.set(sessionId, state);
    clearTimeout(state.timer);
    if (isTyping) state.timer = setTimeout(() => this.typing(sessionId, false), 5000);
    if (isTyping === state.sent && (!isTyping || now - state.at < this.typingInterval)) return;
    if (this.state !== 'open' || !this.sessions.get(sessionId)?.joined) return;
    state.sent = isTyping;
    state.at = now;
    this.ws.send(JSON.stringify({ type: 'typing', session_id: sessionId, state: isTyping }));
  }

  /** Records that this user has read up to `seq` (only forward; stored by the gateway, which answers nothing). */
  read(sessionId, seq) {
    if (seq <= (this.readSent.get(sessionId) ?? 0) || this.state !== 'open') return;
    this.readSent.set(sessionId, seq);
    this.ws.send(JSON.stringify({ type: 'read', ref: READ_REF + sessionId, session_id: sessionId, seq }));
  }

  // A read the gateway could not store now (its readers busy, its database away): the highest
  // position sent for the session goes again after a jittered wait, unless a later read has gone
  // meanwhile. True when handled so; any other refusal is reported as an `error` event.
  readRefused(sessionId, code) {
    const seq = this.readSent.get(sessionId);
    if (!RETRYABLE.has(code) || seq == null) return false;
    this.readSent.delete(sessionId);
    const attempt = (this.readRetries.get(sessionId) ?? 0) + 1;
    this.readRetries.set(sessionId, attempt);
    setTimeout(() => this.sessions.has(sessionId) && this.read(sessionId, seq), backoff(attempt, this.minDelay, this.maxDelay));
    return true;
  }

  /** Operators: the first inbox page, then a `session` event per change (renewed on reconnect). */
  async subscribeInbox() {
    this.inboxWanted = true;
    // Not repeated after a lost connection: every reconnect subscribes again.
    const frame = await this.retrying({ type: 'inbox.subscribe' }, { repeatUnanswered: ['timeout'] });
    // The page is the `inbox` event; its rows only set the versions a later change must beat.
    for (const session of frame.sessions) this.onSession(session, { emit: false });
    this.emit('inbox', { sessions: frame.sessions, nextCursor: frame.next_cursor });
    return frame;
  }

  // Operators: `online`, `away` or `offline`; resolves with the operator's presence.
  async setPresence(status) {
    return (await this.retrying({ type: 'presence.set', status })).operator;
  }

  // Operators: every operator (`presence.list`, renewed on reconnect), then `presence.updated` events.
  async subscribePresence() {
    this.presenceWanted = true;
    return (await this.retrying({ type: 'presence.subscribe' }, { repeatUnanswered: ['timeout'] })).operators;
  }

  // Visitors: an address to be answered at, stored on the session as `contact.email`.
  leaveContact(sessionId, email) {
    return this.retrying({ type: 'session.contact', session_id: sessionId, email });
  }

  /** Visitors: rates a closed session, once (1 to 5, a comment optional); resolves with the session as stored. */
  async rate(sessionId, rating, comment) {
    // Not repeated when unanswered: a second rating is refused, though the first was stored.
    const frame = await this.retrying(
      { type: 'csat', session_id: sessionId, rating, ...(comment ? { comment } : {}) },
      { repeatUnanswered: [] },
    );
    return frame.session;
  }

  /** Operators: assigns a session (to this operator by default). */
  async assign(sessionId, operatorId) {
    const frame = await this.retrying({ type: 'session.assign', session_id: sessionId, ...(operatorId ? { operator_id: operatorId } : {}) });
    return frame.session;
  }

  /** Closes a session (its operators, or its visitor). */
  async closeSession(sessionId) {
    const frame = await this.retrying({ type: 'session.close', session_id: sessionId });
    return frame.session;
  }

  // The token for an HTTP request: renewed when it expires within 5 s.
  async freshToken() {
    if (!this.token || tokenExpiry(this.token) * 1000 < Date.now() + 5000) this.token = await this.tokenProvider();
    return this.token;
  }

  /** The HTTP API, with this client's token; resolves with the JSON body. */
  async api(path, { method = 'GET', body } = {}) {
    const response = await fetch(this.apiUrl + path, {
      method,
      headers: { Authorization: `Bearer ${await this.freshToken()}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (response.status === 204) return null;
    const json = await response.json().catch(() => ({}));
    if (!response.ok) throw new SwitchboardError(json.error?.code ?? 'http', json.error?.message ?? `HTTP ${response.status}`);
    return json;
  }

  /** A page of a session's history over HTTP (oldest first, after `afterSeq`). */
  async history(sessionId, { afterSeq = 0, limit = 100 } = {}) {
    const page = await this.api(`/api/v1/sessions/${sessionId}/messages?after_seq=${afterSeq}&limit=${limit}`);
    for (const message of page.messages) this.absolute(message.attachments);
    return page;
  }

  // Attachment URLs come as the gateway's paths: made absolute, so pages on other origins can use them.
  absolute(attachments = []) {
    for (const attachment of attachments) {
      for (const key of ['url', 'thumbnail_url']) if (attachment[key]?.[0] === '/') attachment[key] = this.apiUrl + attachment[key];
    }
    return attachments;
  }

  /**
   * Uploads a file to a session (`POST /api/v1/sessions/{id}/attachments`); resolves with the attachment for `send`.
   * Loaded on first use (upload.js): pages that never send a file never load it.
   */
  async uploadAttachment(sessionId, file, options) {
    return (await import('./upload.js')).upload(this, sessionId, file, options);
  }
}
