// The console's webhooks page, for admins: the workspace's endpoints (#/webhooks), a new one
// (#/webhooks/new) and one endpoint with its delivery log (#/webhooks/<id>). Loaded by console.js the
// first time an admin opens it, with its own style sheet, so the console's first load carries none of it.
// Docs: docs/clients.md, "The operator console" (Webhooks); the API: docs/webhooks.md and docs/protocol.md.
import { el } from '/console/dom.js';
import { confirmAction } from '/console/confirm.js';
import { DeliveryLog } from '/console/webhook-deliveries.js';
import { endpointForm } from '/console/webhook-form.js';
import { secretPanel } from '/console/webhook-secret.js';
import { WebhooksAPI, explain } from '/console/webhooks-api.js';

await new Promise((resolve) => {
  const sheet = el('link', { rel: 'stylesheet', href: '/console/webhooks.css' });
  sheet.onload = sheet.onerror = resolve; // unstyled is still usable: the page does not wait on a failure
  document.head.append(sheet);
});

const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });

export class WebhooksPage {
  constructor(view) {
    this.view = view; // the Console: its client, its flash line
    this.api = new WebhooksAPI(view.client);
    this.body = document.getElementById('webhooks-body');
    // One polite region for what an action did (created, copied, sent, retried); kept across views so
    // that a result said while the view changes is still read.
    this.live = el('p', { class: 'sr', role: 'status', 'data-sb': 'webhooks-live' });
    this.body.before(this.live);
    this.revealed = null; // {id, secret}: a new endpoint's secret, to show once on the endpoint's view
  }

  say(text) {
    // Emptied first, then set a moment later: the same words twice (two retries) are read twice.
    this.live.textContent = '';
    setTimeout(() => (this.live.textContent = text), 30);
  }

  /** `route`: '' (the list), 'new', or an endpoint's id. */
  async show(route) {
    this.log?.stop();
    this.log = null;
    const generation = (this.generation = (this.generation ?? 0) + 1);
    const view = el('div', { class: 'wh-view' });
    this.body.replaceChildren(view);
    if (route === 'new') await this.showNew(view);
    else if (route) await this.showEndpoint(view, route, generation);
    else await this.showList(view, generation);
  }

  /** The view's heading, focusable, so that a screen reader says where the admin is after each move. */
  heading(text, attributes = {}) {
    return el('h3', { id: 'wh-view-title', tabindex: '-1', ...attributes }, text);
  }

  problem(view, text) {
    view.append(el('p', { class: 'error', role: 'alert', 'data-sb': 'webhooks-error' }, text));
  }

  // MARK: the list

  async showList(view, generation) {
    const title = this.heading('Endpoints');
    const add = el('a', { href: '#/webhooks/new', class: 'button', 'data-sb': 'webhook-add' }, 'Add endpoint');
    const bar = el('div', { class: 'wh-bar' });
    bar.append(title, add);
    view.append(bar, el('p', { class: 'muted' },
      'The gateway sends signed HTTP POSTs to these URLs when something happens in this workspace, ' +
      'and retries for about a day until your receiver answers 2xx.'));
    title.focus();
    let endpoints;
    try {
      endpoints = await this.api.list();
    } catch (error) {
      if (generation === this.generation) this.problem(view, `Could not load the endpoints: ${explain(error)}`);
      return;
    }
    if (generation !== this.generation) return;
    if (!endpoints.length) {
      view.append(el('p', { class: 'wh-empty', 'data-sb': 'webhooks-empty' }, 'No endpoints yet: add one to start receiving events.'));
      return;
    }
    const list = el('ul', { class: 'wh-endpoints', 'data-sb': 'webhook-list', 'aria-labelledby': 'wh-view-title' });
    list.append(...endpoints.map((endpoint) => this.listItem(endpoint)));
    view.append(list);
  }

  listItem(endpoint) {
    const li = el('li', { 'data-sb': 'webhook', 'data-webhook-id': endpoint.id, 'data-enabled': String(endpoint.enabled) });
    const top = el('div', { class: 'wh-item-top' });
    top.append(el('a', { href: `#/webhooks/${endpoint.id}`, class: 'wh-url', 'data-sb': 'webhook-url' }, endpoint.url), this.stateChip(endpoint));
    li.append(top);
    if (endpoint.description) li.append(el('p', { class: 'wh-description' }, endpoint.description));
    li.append(this.eventChips(endpoint.events));
    if (!endpoint.enabled) li.append(this.disabledNotice(endpoint, () => this.show('')));
    return li;
  }

  stateChip(endpoint) {
    return el('span', { class: 'chip', 'data-state': endpoint.enabled ? 'enabled' : 'disabled', 'data-sb': 'webhook-state' },
      endpoint.enabled ? 'Enabled' : 'Disabled');
  }

  eventChips(events) {
    const list = el('ul', { class: 'wh-types', 'aria-label': 'Events' });
    for (const type of events) list.append(el('li', {}, type));
    return list;
  }

  /** Why an endpoint gets nothing, said where it cannot be missed; the gateway's reason when it was the
   * gateway that disabled it (after failing for webhooks.disable_after_hours). */
  disabledNotice(endpoint, changed) {
    const byGateway = !!endpoint.disabled_reason;
    const box = el('div', { class: `wh-disabled${byGateway ? ' by-gateway' : ''}`, 'data-sb': 'webhook-disabled' });
    box.append(el('strong', {}, byGateway ? 'Disabled by the gateway' : 'Disabled'));
    if (byGateway) box.append(el('p', { 'data-sb': 'webhook-disabled-reason' }, endpoint.disabled_reason));
    // What the outbox does meanwhile: new events skip a disabled endpoint, its pending deliveries wait,
    // and enabling it makes them due at once.
    box.append(el('p', {}, 'While it is disabled it gets no new events and its pending deliveries wait. ' +
      (byGateway ? 'Once your receiver answers again, re-enable it: the pending deliveries go out at once, and ' +
        'failed ones can be sent again with “Retry every failed delivery since”.' : 'Enabling it sends them at once.')));
    const enable = el('button', { type: 'button', 'data-sb': 'webhook-enable' }, byGateway ? 'Re-enable' : 'Enable');
    enable.setAttribute('aria-label', `${byGateway ? 'Re-enable' : 'Enable'} ${endpoint.url}`);
    enable.addEventListener('click', async () => {
      enable.disabled = true;
      try {
        await this.api.update(endpoint.id, { enabled: true });
        this.say(`${endpoint.url} is enabled again.`);
        await changed();
      } catch (error) {
        enable.disabled = false;
        this.view.flash(`Not enabled: ${explain(error)}`);
      }
    });
    box.append(enable);
    return box;
  }

  // MARK: a new endpoint

  async showNew(view) {
    const back = el('a', { href: '#/webhooks', class: 'wh-back' }, '← All endpoints');
    const form = endpointForm({
      save: async (fields) => {
        const { webhook, secret } = await this.api.create(fields);
        this.revealed = { id: webhook.id, secret };
        this.say('Endpoint added. Copy its signing secret now.');
        location.hash = `#/webhooks/${webhook.id}`;
      },
      cancel: () => (location.hash = '#/webhooks'),
    });
    view.append(back, this.heading('Add an endpoint'), form);
    form.focusFirst();
  }

  // MARK: one endpoint

  async showEndpoint(view, id, generation) {
    const back = el('a', { href: '#/webhooks', class: 'wh-back' }, '← All endpoints');
    view.append(back);
    let endpoint;
    try {
      endpoint = await this.api.get(id);
    } catch (error) {
      if (generation !== this.generation) return;
      view.append(this.heading('Endpoint'));
      this.problem(view, `Could not load this endpoint: ${explain(error)}`);
      return view.querySelector('h3').focus();
    }
    if (generation !== this.generation) return;
    const title = this.heading(endpoint.url, { class: 'wh-url', 'data-sb': 'webhook-title' });
    view.append(title);
    // Shown once: taken from memory as it is drawn, so that coming back to the endpoint does not show it.
    const revealed = this.revealed?.id === id ? this.revealed : null;
    this.revealed = null;
    const secretSlot = el('div');
    view.append(secretSlot);
    if (!endpoint.enabled) view.append(this.disabledNotice(endpoint, () => this.show(id)));
    const details = this.summary(endpoint);
    view.append(details, this.actions(endpoint, details, secretSlot));
    this.log = new DeliveryLog({
      api: this.api, endpointID: id, failingSince: endpoint.failing_since,
      say: (text) => this.say(text), alarm: (text) => this.view.flash(text),
    });
    view.append(this.log.node);
    if (revealed) this.reveal(secretSlot, revealed, title);
    else title.focus();
    this.log.start();
  }

  summary(endpoint) {
    const list = el('dl', { class: 'wh-summary', 'data-sb': 'webhook-summary' });
    const item = (label, value) => {
      const pair = el('div');
      const dd = el('dd');
      dd.append(value);
      pair.append(el('dt', {}, label), dd);
      list.append(pair);
    };
    item('Status', this.stateChip(endpoint));
    item('Events', this.eventChips(endpoint.events));
    if (endpoint.description) item('Description', endpoint.description);
    if (endpoint.created_at) item('Added', when(endpoint.created_at));
    return list;
  }

  actions(endpoint, details, secretSlot) {
    const bar = el('div', { class: 'wh-actions' });
    const button = (label, hook, action, tone = 'secondary') => {
      const node = el('button', { type: 'button', class: tone, 'data-sb': hook }, label);
      node.addEventListener('click', () => action(node));
      bar.append(node);
      return node;
    };
    button('Send test event', 'webhook-test', (node) => this.sendTest(endpoint, node), '');
    button('Edit', 'webhook-edit', (node) => this.edit(endpoint, details, bar, node));
    button('Rotate secret', 'webhook-rotate', () => this.rotate(endpoint, secretSlot));
    button('Delete', 'webhook-delete', () => this.remove(endpoint), 'danger');
    return bar;
  }

  reveal(slot, { secret, rotated, overlapUntil }, after) {
    const panel = secretPanel({
      secret, rotated, overlapUntil, say: (text) => this.say(text),
      done: () => after.focus(),
    });
    slot.replaceChildren(panel);
    panel.focusFirst();
  }

  async sendTest(endpoint, button) {
    button.disabled = true;
    try {
      const eventID = await this.api.test(endpoint.id);
      // The dispatcher claims nothing for a disabled endpoint: the test waits like every other delivery.
      this.say(`Test event ${eventID} sent: it appears in the deliveries below` +
        (endpoint.enabled ? '.' : ', and waits until the endpoint is enabled.'));
      await this.log?.refresh();
    } catch (error) {
      this.view.flash(`The test event was not sent: ${explain(error)}`);
    } finally {
      button.disabled = false;
    }
  }

  /** The summary gives way to the form; Cancel or Save brings it back, with the focus on Edit. */
  edit(endpoint, details, bar, editButton) {
    const done = () => this.show(endpoint.id);
    const form = endpointForm({
      endpoint,
      save: async (fields) => {
        await this.api.update(endpoint.id, fields);
        this.say('Endpoint saved.');
        await done();
      },
      cancel: () => {
        form.remove();
        details.hidden = bar.hidden = false;
        editButton.focus();
      },
    });
    details.hidden = bar.hidden = true;
    bar.after(form);
    form.focusFirst();
  }

  async rotate(endpoint, secretSlot) {
    const sure = await confirmAction({
      hook: 'rotate-confirm',
      title: 'Rotate the signing secret?',
      text: 'A new secret is made and shown once. For a while deliveries carry two signatures, one with the old ' +
        'secret and one with the new, so your receiver keeps working while you change it; then the old secret stops.',
      action: 'Rotate secret',
    });
    if (!sure) return;
    try {
      const { webhook, secret } = await this.api.rotateSecret(endpoint.id);
      this.say('New signing secret made. Copy it now.');
      this.reveal(secretSlot, { secret, rotated: true, overlapUntil: webhook?.previous_secret_expires_at },
        document.getElementById('wh-view-title'));
    } catch (error) {
      this.view.flash(`The secret was not rotated: ${explain(error)}`);
    }
  }

  async remove(endpoint) {
    const sure = await confirmAction({
      hook: 'delete-confirm',
      title: 'Delete this endpoint?',
      text: `${endpoint.url} will get no more events, and its pending deliveries are marked failed. This cannot be undone.`,
      action: 'Delete endpoint',
    });
    if (!sure) return;
    try {
      await this.api.remove(endpoint.id);
      this.say(`${endpoint.url} deleted.`);
      location.hash = '#/webhooks';
    } catch (error) {
      this.view.flash(`Not deleted: ${explain(error)}`);
    }
  }
}
