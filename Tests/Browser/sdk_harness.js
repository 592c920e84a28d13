// Installed into a page by test_sdk.py: SDK clients the test drives by name, each with a token
// provider fed by the test and a log of every event it emitted.
window.sbt = {
  clients: {},
  events: {},
  providerCalls: {},
  tokens: {},
  sends: {},
  async make(name, url, tokens, options = {}) {
    const { Switchboard } = await import('/sdk/switchboard.js');
    this.events[name] = [];
    this.providerCalls[name] = 0;
    this.tokens[name] = [...tokens];
    const client = new Switchboard({
      url,
      minDelayMs: 100,
      maxDelayMs: 1000,
      ...options,
      token: async () => {
        this.providerCalls[name]++;
        const queue = this.tokens[name];
        return queue.length > 1 ? queue.shift() : queue[0];
      },
    });
    const log = this.events[name];
    client.addEventListener('state', (e) => log.push({ type: 'state', state: e.detail.state }));
    client.addEventListener('message', (e) =>
      log.push({ type: 'message', sessionId: e.detail.sessionId, seq: e.detail.message.seq, body: e.detail.message.body }));
    client.addEventListener('ack', (e) => log.push({ type: 'ack', clientMsgId: e.detail.clientMsgId, seq: e.detail.seq }));
    client.addEventListener('session', (e) =>
      log.push({ type: 'session', id: e.detail.session.id, version: e.detail.session.version, status: e.detail.session.status }));
    client.addEventListener('error', (e) => log.push({ type: 'error', code: e.detail.code }));
    this.clients[name] = client;
    return client;
  },
  /** Starts a send and keeps its promise's outcome, so the test can start several while offline. */
  send(name, sessionId, body) {
    const outcome = { done: false };
    this.sends[body] = outcome;
    this.clients[name].send(sessionId, body).then(
      (ack) => Object.assign(outcome, { done: true, seq: ack.seq }),
      (error) => Object.assign(outcome, { done: true, error: error.code }),
    );
  },
};
