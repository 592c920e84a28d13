// The webhook management API (docs/protocol.md, "Webhooks"; docs/openapi.yaml), for the console's
// webhooks page: every path and JSON shape of it in this one file, and its refusals in plain words.
const BASE = '/api/v1/webhooks';
const at = (id) => `${BASE}/${encodeURIComponent(id)}`;

export class WebhooksAPI {
  constructor(client) {
    this.client = client; // the SDK's Switchboard: its api() adds the token and throws SwitchboardError
  }

  async list() {
    return (await this.client.api(BASE)).webhooks;
  }

  async get(id) {
    return (await this.client.api(at(id))).webhook;
  }

  /** `{url, events, description?}`; resolves with `{webhook, secret}`: the secret exists only in this answer. */
  async create(fields) {
    return withSecret(await this.client.api(BASE, { method: 'POST', body: fields }));
  }

  /** Changes some of `url`, `events`, `description`, `enabled`. */
  async update(id, fields) {
    return (await this.client.api(at(id), { method: 'PATCH', body: fields })).webhook;
  }

  remove(id) {
    return this.client.api(at(id), { method: 'DELETE' });
  }

  /** A `webhook.test` event to this endpoint alone (whatever it subscribes to); resolves with its id. */
  async test(id) {
    return (await this.client.api(`${at(id)}/test`, { method: 'POST' })).event.id;
  }

  /** A new secret; resolves with `{webhook, secret}`. Until `webhook.previous_secret_expires_at`
   * deliveries carry a signature with each secret. */
  async rotateSecret(id) {
    return withSecret(await this.client.api(`${at(id)}/rotate-secret`, { method: 'POST' }));
  }

  /** A page of the endpoint's deliveries, newest first, of one `status` when given: `{deliveries, nextCursor}`
   * (null: the last page). */
  async deliveries(id, { cursor, limit = 25, status } = {}) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set('cursor', cursor);
    if (status) query.set('status', status);
    const page = await this.client.api(`${at(id)}/deliveries?${query}`);
    return { deliveries: page.deliveries, nextCursor: page.next_cursor ?? null };
  }

  /** Sends one delivery again now; resolves with the delivery as it is then (pending). */
  async retry(id, deliveryID) {
    const path = `${at(id)}/deliveries/${encodeURIComponent(deliveryID)}/retry`;
    return (await this.client.api(path, { method: 'POST' })).delivery;
  }

  /** Sends every failed delivery of the endpoint's events since `since` (a Date) again; resolves with how many. */
  async retryFailedSince(id, since) {
    const answer = await this.client.api(`${at(id)}/deliveries/retry`, { method: 'POST', body: { since: since.toISOString() } });
    return answer.retried;
  }
}

/** `{"webhook":{..., "secret"}}` (creating, rotating) as the endpoint and its secret apart: the page keeps the
 * endpoint, and the secret only until it has been shown. */
function withSecret(answer) {
  const { secret, ...webhook } = answer.webhook;
  return { webhook, secret };
}

// What went wrong, in words an admin can act on. The gateway's own message is kept where it says
// what to change in the form (a URL refused, a field missing); elsewhere its code picks the words.
const WORDS = {
  forbidden: 'Only the workspace’s admins can manage webhooks.',
  unauthorized: 'Your sign-in has expired: sign in again.',
  not_found: 'This endpoint no longer exists (another admin may have deleted it).',
  rate_limited: 'Too many requests at once: try again in a moment.',
  overloaded: 'The gateway is busy: try again in a moment.',
  unavailable: 'The gateway cannot reach its database right now: try again.',
};

export function explain(error) {
  const said = (error?.message ?? '').replace(/\.$/, '');
  if (error?.code === 'private_target') {
    return `The gateway refused this URL: ${said}. It calls only public addresses ` +
      '(webhooks.allow_private_targets lets it call private ones, for development).';
  }
  if (WORDS[error?.code]) return WORDS[error.code];
  // A fetch that never reached the gateway is a TypeError without a code.
  if (!error?.code) return 'The gateway could not be reached: check the connection and try again.';
  return said ? `${said}.` : 'Something went wrong.';
}
