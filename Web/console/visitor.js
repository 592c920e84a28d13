// The visitor panel ([data-sb=context]) of the open conversation: what the embedding site vouches for (the
// token's signed claims, `contact.verified`), what the visitor's browser reported (`context`: the page it
// opened the chat on, where it came from, language, time zone, browser), kept apart because only the first
// can be trusted, and the visitor's earlier conversations, one click away. Every value is set as text.
import { el } from '/console/dom.js';

const REPORTED = [
  ['page_url', 'Page'], ['page_title', 'Page title'], ['referrer', 'Came from'], ['locale', 'Language'],
  ['time_zone', 'Time zone'], ['user_agent', 'Browser'],
];

/** `<dl>` of [label, value] pairs; values that are http(s) URLs are links that open elsewhere. */
function list(pairs) {
  const dl = el('dl');
  for (const [label, value] of pairs) {
    const dd = el('dd');
    if (/^https?:\/\//i.test(value)) dd.append(el('a', { href: value, target: '_blank', rel: 'noopener noreferrer' }, value));
    else dd.textContent = value;
    dl.append(el('dt', {}, label), dd);
  }
  return dl;
}

function text(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export class VisitorPanel {
  constructor(client) {
    this.client = client;
    this.panel = document.querySelector('[data-sb=context]');
    this.body = document.querySelector('#context-body');
    this.shownFor = null;
    // On a phone the conversation needs the screen: the panel starts folded (a tap opens it), as the layout's.
    if (matchMedia('(max-width: 760px)').matches) this.panel.open = false;
  }

  clear() {
    this.shownFor = null;
    this.panel.hidden = true;
    this.body.replaceChildren();
  }

  /**
   * Reads the session as stored (its context rides on no live frame) and the visitor's other sessions;
   * `stored(session)` gets the session read (the console heads a conversation outside its list with it).
   */
  async show(sessionId, isOpen, stored = () => {}) {
    this.clear();
    this.shownFor = sessionId;
    let session;
    try {
      session = (await this.client.api(`/api/v1/sessions/${encodeURIComponent(sessionId)}`)).session;
    } catch {
      return; // the conversation still works; the panel stays hidden
    }
    if (this.shownFor !== sessionId || !isOpen()) return;
    stored(session);
    const sections = [];
    const verified = session.contact?.verified;
    if (verified) {
      const pairs = [];
      if (verified.name) pairs.push(['Name', verified.name]);
      if (verified.email) pairs.push(['Email', verified.email]);
      for (const [key, value] of Object.entries(verified.attrs ?? {})) pairs.push([key, text(value)]);
      sections.push(el('h3', {}, 'Verified by your site'), list(pairs));
    }
    const reported = REPORTED.filter(([key]) => session.context?.[key]).map(([key, label]) => [label, session.context[key]]);
    if (session.contact?.email) reported.unshift(['Email (left by the visitor)', session.contact.email]);
    if (reported.length) sections.push(el('h3', {}, 'Reported by the visitor’s browser'), list(reported));
    if (!sections.length) sections.push(el('p', { class: 'muted' }, 'Nothing is known of this visitor yet.'));
    const earlier = el('div', { class: 'earlier-conversations' });
    sections.push(earlier);
    this.body.replaceChildren(...sections);
    this.panel.hidden = false;
    if (session.visitor_id) this.showEarlier(session, earlier, isOpen);
  }

  async showEarlier(session, node, isOpen) {
    const query = new URLSearchParams({ visitor_id: session.visitor_id, limit: '11' });
    let page;
    try {
      page = await this.client.api(`/api/v1/admin/live-chat/conversations?${query}`);
    } catch {
      return;
    }
    if (this.shownFor !== session.id || !isOpen()) return;
    const others = page.sessions.filter((other) => other.id !== session.id).slice(0, 10);
    if (!others.length) return node.replaceChildren(el('p', { class: 'muted' }, 'No earlier conversations.'));
    const items = others.map((other) => {
      const item = el('li');
      const date = other.created_at ? new Date(other.created_at).toLocaleDateString([], { month: 'short', day: 'numeric', year: 'numeric' }) : '';
      item.append(el('a', { href: `#/s/${other.id}`, 'data-sb': 'earlier-conversation' }, other.title), ` · ${date} · ${other.status}`);
      return item;
    });
    node.replaceChildren(el('h3', {}, 'Earlier conversations'), el('ul', {}, null));
    node.querySelector('ul').append(...items);
  }
}
