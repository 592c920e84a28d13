// Types of the Switchboard browser SDK (/sdk/switchboard.js). Guide: docs/clients.md.

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'offline';

export const STATES: readonly ConnectionState[];

export interface Participant {
  id: string;
  role: 'visitor' | 'operator' | 'admin' | string;
  name: string | null;
}

export interface Message {
  type: 'message';
  session_id: string;
  seq: number;
  id: string;
  client_msg_id: string;
  /** `text`, or `event`: a stored system line ("Olga joined the conversation") with `meta`. */
  kind: 'text' | 'event' | string;
  body: string;
  /** Events: `{action: 'assigned'|'unassigned'|'closed'|'reopened', operator?, previous?, reason?}`. */
  meta?: { action: string; [key: string]: unknown };
  sender: Participant;
  created_at: string;
  /** Files sent with the message (absent or empty when none); their URLs are absolute and expire. */
  attachments?: Attachment[];
}

/** A file uploaded to a session (`uploadAttachment`), as messages carry it. */
export interface Attachment {
  id: string;
  filename: string;
  /** The type the gateway found in the file's bytes: `image/png`, `image/jpeg`, `image/gif`, `image/webp`,
   * `application/pdf` or `text/plain` (or what `attachments.allowed_types` adds). */
  content_type: string;
  size: number;
  sha256: string;
  /** Images only. */
  width?: number | null;
  height?: number | null;
  /** The file (images shown as they are, anything else downloaded), signed and valid for
   * `attachments.url_ttl_s` (an hour by default); made absolute by the SDK. */
  url: string;
  /** Images: at most 400 px on the longest side, without the file's metadata. */
  thumbnail_url?: string;
}

export interface UploadProgress {
  /** Bytes sent so far (from 0 again when an upload is tried again). */
  loaded: number;
  total: number;
}

export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  /** Aborting cancels the upload (and any wait before another try): it rejects with `aborted`. */
  signal?: AbortSignal;
}

export interface Limits {
  /** The most UTF-8 bytes a message body may have (8192 by default). */
  max_body_bytes: number;
  max_message_bytes: number;
}

export interface Ack {
  type: 'ack';
  session_id: string;
  client_msg_id: string;
  seq: number;
  id: string;
  created_at: string;
  duplicate: boolean;
}

export interface Session {
  id: string;
  workspace_id: string;
  visitor_id: string | null;
  title: string;
  status: 'open' | 'assigned' | 'closed';
  assigned_operator: { id: string; name: string | null } | null;
  last_seq: number;
  last_message: { seq: number; body: string; sender_role: string; created_at: string } | null;
  created_at: string;
  updated_at: string;
  /** Grows with every change; the SDK never emits an older state after a newer one. */
  version: number;
  /** Present (true) only when the session was deleted. */
  deleted?: boolean;
  /** Waiting for an operator (open, unassigned, with a visitor message), since `waiting_since`. */
  queued?: boolean;
  waiting_since?: string | null;
  /** What the visitor left to be answered at, when it did. */
  contact?: { email?: string } | null;
}

/** An operator's presence (`presence`, `presence.list`, `presence.updated`). */
export interface OperatorPresence {
  id: string;
  name: string | null;
  status: 'online' | 'away' | 'offline';
  /** One of its connections is open, on any node. */
  connected: boolean;
  active_sessions: number;
  capacity: number;
}

/** Whether someone can answer, and the visitor's place in the queue: the `availability` frame, or before
 * one only `operators_available` from the `welcome`. */
export interface Availability {
  operators_available: boolean;
  /** 1 for the next session to be assigned; absent when not queued. */
  queue_position?: number;
  /** False outside business hours, then `opens_at` (RFC 3339) is the next opening. */
  open?: boolean;
  opens_at?: string;
  session_id?: string;
}

export interface OutboxEntry {
  sessionId: string;
  body: string;
  kind: string;
  clientMsgId: string;
  /** The ids of the attachments it sends. */
  attachments?: string[];
}

export interface SwitchboardEvents {
  state: { state: ConnectionState };
  message: { sessionId: string; message: Message };
  typing: { sessionId: string; sender: Participant; state: boolean };
  read: { sessionId: string; reader: Participant; seq: number };
  session: { session: Session };
  inbox: { sessions: Session[]; nextCursor: string | null };
  ack: { sessionId: string; clientMsgId: string; seq: number; ack: Ack | Message };
  outbox: { sessionId: string; entry: OutboxEntry; error?: SwitchboardError };
  error: { code: string; message: string; ref?: string };
  availability: Availability;
  /** This operator's own presence, as `presence.set` answered it. */
  presence: { operator: OperatorPresence };
  /** Every operator of the workspace, after `subscribePresence()` (and again after each reconnect). */
  'presence.list': { operators: OperatorPresence[] };
  /** One operator's presence changed. */
  'presence.updated': { operator: OperatorPresence };
}

export interface SwitchboardOptions {
  /** WebSocket URL of the gateway, e.g. `wss://chat.example.com/v1/ws`. */
  url: string;
  /** Returns a token; called again when it expires or the gateway refuses it (close 4001). */
  token: () => Promise<string>;
  /** HTTP base of the gateway (default: derived from `url`). */
  apiUrl?: string;
  /** Reconnect back-off: the first delay bound and the cap, in ms (defaults 500 and 30000). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** At most one typing frame per interval, in ms (default 3000). */
  typingIntervalMs?: number;
}

export class SwitchboardError extends Error {
  /**
   * The protocol's error code (`forbidden`, `overloaded`, ...); or `disconnected` (the connection
   * dropped before the answer), `timeout` (no answer within 15 s), `closed` (`close()` was called),
   * `http` (an HTTP error without a code). The `error` event also carries `token` (the token
   * provider failed) and `history` (a truncated replay could not be paged; the join is retried).
   * Uploads add `too_large` (413), `unsupported_type` (415: a type not allowed, or bytes that are not
   * the declared type), `rate_limited` (429), whatever code the answer's body has; otherwise the
   * gateway's code (`forbidden`, ...); `aborted` (the signal), and `disconnected` (cut off every try).
   * The message is the gateway's when it sent one.
   */
  code: string;
  /** Uploads: the HTTP status (0: no answer). */
  status?: number;
  /** Uploads: the gateway's Retry-After, in seconds (429, 503). */
  retryAfter?: number;
}

export function newClientMessageId(): string;
export function backoff(attempt: number, min: number, max: number): number;
export function tokenExpiry(token: string): number;
/** UTF-8 bytes of `text`: what the gateway's `max_body_bytes` counts. */
export function utf8Bytes(text: string): number;
/** How many characters to take off the end of `text` for it to fit in `maxBytes` UTF-8 bytes (0: it fits). */
export function charactersOver(text: string, maxBytes: number): number;
/** `text` as runs of plain text and http(s) links, for building DOM nodes (never HTML). */
export function linkRuns(text: string): Array<{ text: string } | { url: string }>;

export class Switchboard extends EventTarget {
  constructor(options: SwitchboardOptions);
  readonly state: ConnectionState;
  readonly user: Participant | null;
  readonly workspaceId: string | null;
  /** The `welcome`'s limits; null before the first one. */
  readonly limits: Limits | null;
  /** The latest `availability` (or the welcome's `operators_available`); null before either. */
  readonly availability: Availability | null;

  addEventListener<K extends keyof SwitchboardEvents>(
    type: K,
    listener: (event: CustomEvent<SwitchboardEvents[K]>) => void,
    options?: boolean | AddEventListenerOptions,
  ): void;

  /** Connects and keeps reconnecting until `close()`; resolves at the first welcome. */
  connect(): Promise<void>;
  close(): void;
  whenOpen(): Promise<void>;

  createSession(title?: string, options?: { context?: PageContext }): Promise<Session>;
  join(sessionId: string, options?: { sinceSeq?: number }): Promise<unknown>;
  leave(sessionId: string): Promise<void>;
  lastSeq(sessionId: string): number;

  /** Resolves with the ack once stored; re-sent with the same client_msg_id after reconnects.
   * `attachments` (uploaded to this session, at most 10): `body` may then be empty. */
  send(
    sessionId: string,
    body: string,
    options?: { kind?: string; clientMsgId?: string; attachments?: Array<Attachment | string> },
  ): Promise<Ack | Message>;
  /**
   * Uploads a file to a session, as the session's visitor or an operator of its workspace: the raw bytes,
   * `Content-Type` from the file, `?filename=` its name. Resolves with the attachment to `send`. Cut off, or
   * refused for now (503, a proxy's 502/504), it is tried again from the start, up to 5 times in all, after
   * a jittered wait (at least the gateway's Retry-After) and, if the connection is down, once it is back.
   * Rejects with the gateway's code and message otherwise (`too_large`, `unsupported_type`, `rate_limited`
   * with `retryAfter`, ...). The code that does this loads on the first call (`/sdk/upload.js`).
   */
  uploadAttachment(sessionId: string, file: Blob & { name?: string }, options?: UploadOptions): Promise<Attachment>;
  pending(sessionId?: string): OutboxEntry[];

  typing(sessionId: string, isTyping?: boolean): void;
  read(sessionId: string, seq: number): void;

  subscribeInbox(): Promise<{ sessions: Session[]; next_cursor: string | null }>;
  /** To this operator by default; to another one, a transfer. */
  assign(sessionId: string, operatorId?: string): Promise<Session>;
  setPresence(status: 'online' | 'away' | 'offline'): Promise<OperatorPresence>;
  subscribePresence(): Promise<OperatorPresence[]>;
  /** Visitors: an address to be answered at, stored on the session as `contact`. */
  leaveContact(sessionId: string, email: string): Promise<unknown>;
  /** Visitors: rates a closed session once, 1 to 5, with an optional comment (at most 1,000 bytes). */
  rate(sessionId: string, rating: 1 | 2 | 3 | 4 | 5, comment?: string): Promise<Session>;
  closeSession(sessionId: string): Promise<Session>;

  api<T = unknown>(path: string, options?: { method?: string; body?: unknown }): Promise<T>;
  history(
    sessionId: string,
    options?: { afterSeq?: number; limit?: number },
  ): Promise<{ session_id: string; messages: Message[]; next_after_seq: number | null }>;
}

/** What the operators see of the visitor's page (`session.create`'s `context`; each value at most 2 KiB). */
export interface PageContext {
  page_url?: string;
  page_title?: string;
  referrer?: string;
  locale?: string;
  time_zone?: string;
  user_agent?: string;
}

/** This page as a session's context, each value cut to 2 KiB. */
export function pageContext(): PageContext;
