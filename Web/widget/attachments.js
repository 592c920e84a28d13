// Attachments in the widget and the console (docs/clients.md, "Attachments"). The widget loads this
// module on first use (a file chosen, dropped or pasted, or a message with files to show), so
// visitors who never send one never load it; the console imports it.
//
// - The tray: files being attached to the next message. Each uploads at once (SDK uploadAttachment,
//   which retries what can be retried), with a progress bar; the text typed is the caption. One the
//   gateway refuses leaves the tray and a line (role=alert) says why in plain words.
// - The files of a message: images as previews (the thumbnail) that open the full size in a new tab,
//   everything else as a chip with name and size that downloads it.
// Every name a person chose is set with textContent, never parsed as HTML.

/** What the gateway takes by default (`attachments.allowed_types`): what the file choosers offer first (widget.js
 * has the same list, so that its chooser filters before this module is loaded). Only a hint: a person may
 * choose any file, and the gateway decides. */
export const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain';
const MAX_FILES = 10; // per message (the protocol's limit)
const PREVIEW_PX = 220; // a preview's longest side in a message

export function el(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text != null) node.textContent = text;
  return node;
}

/** "820 bytes", "48 KB", "1.2 MB". */
export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${Number((bytes / 1024 / 1024).toFixed(1))} MB`;
}

const isImage = (type) => type?.startsWith('image/');

/** Why a file was not sent, in words its sender can act on. */
export function refusal(error, name) {
  const code = { 413: 'too_large', 415: 'unsupported_type', 429: 'rate_limited' }[error?.status] ?? error?.code;
  switch (code) {
    case 'too_large':
      return `${name} is too large to send.`;
    case 'unsupported_type':
      return `${name} cannot be sent: only pictures (PNG, JPEG, GIF, WebP), PDF and plain text files can.`;
    case 'rate_limited':
      return `Too many files at once: try ${name} again in ${error.retryAfter ?? 60} s.`;
    case 'forbidden':
    case 'not_found':
      return `${name} cannot be sent to this conversation.`;
    case 'disconnected':
      return `${name} was not sent: the connection was lost.`;
    default:
      return `${name} was not sent: ${error?.message ?? 'something went wrong'}.`;
  }
}

/** The files of a stored message, `[data-sb=attachment]` each. */
export function attachmentList(attachments) {
  const list = el('div', { class: 'files', 'data-sb': 'attachments' });
  for (const attachment of attachments) list.append(attachmentNode(attachment));
  return list;
}

function attachmentNode(attachment) {
  const { filename, content_type: type, url } = attachment;
  const link = el('a', { 'data-sb': 'attachment', 'data-content-type': type, href: url, rel: 'noopener noreferrer' });
  if (isImage(type)) {
    // A new tab shows the full size; the preview keeps its shape before it loads (no jump in the list).
    link.className = 'file-image';
    link.target = '_blank';
    link.setAttribute('aria-label', `${filename}: open the full size in a new tab`);
    const image = el('img', { src: attachment.thumbnail_url ?? url, alt: filename, decoding: 'async' });
    const { width, height } = attachment;
    if (width > 0 && height > 0) {
      const scale = Math.min(1, PREVIEW_PX / Math.max(width, height));
      image.width = Math.max(1, Math.round(width * scale));
      image.height = Math.max(1, Math.round(height * scale));
    }
    link.append(image);
  } else {
    link.className = 'file-chip';
    link.download = filename;
    link.setAttribute('aria-label', `Download ${filename}, ${formatSize(attachment.size)}`);
    link.append(fileIcon(type), el('span', { class: 'file-name', dir: 'auto' }, filename), el('span', { class: 'file-size' }, formatSize(attachment.size)));
  }
  return link;
}

function fileIcon(type) {
  return el('span', { class: 'file-icon', 'aria-hidden': 'true' }, type === 'application/pdf' ? 'PDF' : type === 'text/plain' ? 'TXT' : 'FILE');
}

/** Shows a message's files in its bubble (after the text), in place of any shown before. */
export function showFiles(item, attachments) {
  for (const old of item.querySelectorAll('.files')) {
    for (const image of old.querySelectorAll('img[src^="blob:"]')) URL.revokeObjectURL(image.src);
    old.remove();
  }
  item.querySelector('[data-sb=body]').after(attachmentList(attachments));
}

/** One file being attached: its upload (started at once), its progress bars, its preview. */
class Upload {
  constructor(file, tray) {
    this.file = file;
    this.tray = tray;
    this.bars = new Set();
    this.preview = isImage(file.type) ? URL.createObjectURL(file) : null;
    this.start();
  }

  start() {
    this.failed = null;
    this.controller = new AbortController();
    const { tray, file } = this;
    this.done = (async () => {
      const sessionId = await tray.session();
      return tray.client.uploadAttachment(sessionId, file, {
        signal: this.controller.signal,
        onProgress: ({ loaded, total }) => this.progressed(total ? Math.round((100 * loaded) / total) : 0),
      });
    })();
    this.done.then(
      () => this.progressed(100),
      (error) => {
        this.failed = error;
        if (error.code !== 'aborted') tray.refused(this, error);
      },
    );
  }

  progressed(percent) {
    for (const bar of this.bars) {
      bar.value = percent;
      bar.hidden = percent >= 100;
    }
  }

  /** A progress bar of this upload: `<progress data-sb=upload-progress>`, kept up to date. */
  bar() {
    const bar = el('progress', { max: '100', value: '0', 'data-sb': 'upload-progress', 'aria-label': `Uploading ${this.file.name}` });
    this.bars.add(bar);
    return bar;
  }

  /** How the file looks while it is sent: its preview (pictures) or a chip, and its progress. */
  node(tag = 'span') {
    const node = el(tag, { class: this.preview ? 'file-image sending' : 'file-chip sending', 'data-sb': 'attachment', 'data-content-type': this.file.type || 'application/octet-stream' });
    if (this.preview) node.append(el('img', { src: this.preview, alt: this.file.name }));
    else node.append(fileIcon(this.file.type), el('span', { class: 'file-name', dir: 'auto' }, this.file.name), el('span', { class: 'file-size' }, formatSize(this.file.size)));
    node.append(this.bar());
    return node;
  }

  cancel() {
    this.controller.abort();
    if (this.preview) URL.revokeObjectURL(this.preview);
  }
}

/**
 * The files attached to the next message, above the composer. `client`: the SDK; `session()`: resolves
 * with the session to upload to (the widget starts one if there is none yet); `changed()`: after each change.
 */
export class Tray {
  constructor({ client, session, changed = () => {} }) {
    Object.assign(this, { client, session, changed, items: [] });
    this.node = el('div', { class: 'tray', 'data-sb': 'attachments-tray', hidden: '' });
    this.list = el('ul', { class: 'tray-items', 'aria-label': 'Files to send' });
    this.alert = el('p', { class: 'tray-alert', role: 'alert', 'data-sb': 'attach-error' });
    this.node.append(this.list, this.alert);
  }

  add(files) {
    this.alert.textContent = '';
    for (const file of files) {
      // The type is the gateway's to judge (from the bytes, against its allowed_types): no guess here.
      if (this.items.length >= MAX_FILES) this.say(`At most ${MAX_FILES} files go with one message.`);
      else this.keep(new Upload(file, this));
    }
    this.show();
  }

  keep(upload) {
    this.items.push(upload);
    const item = el('li', { class: 'tray-item' });
    const remove = el('button', { type: 'button', class: 'remove', 'aria-label': `Remove ${upload.file.name}` }, '×');
    remove.onclick = () => {
      this.drop(upload);
      this.changed({ focus: true });
    };
    item.append(upload.node('span'), remove);
    upload.item = item;
    this.list.append(item);
  }

  drop(upload) {
    upload.cancel();
    this.items = this.items.filter((item) => item !== upload);
    upload.item.remove();
    this.show();
  }

  /** A file the gateway refused while still in the tray: it goes, and the alert says why. */
  refused(upload, error) {
    if (!this.items.includes(upload)) return;
    this.drop(upload);
    this.say(refusal(error, upload.file.name));
  }

  say(text) {
    this.alert.textContent = text;
    this.show();
  }

  /** The files to send with a message, taken out of the tray (their uploads go on). */
  take() {
    const taken = this.items;
    this.items = [];
    this.list.replaceChildren();
    this.alert.textContent = '';
    this.show();
    return taken;
  }

  /** Empties the tray, stopping its uploads (another conversation opened). */
  clear() {
    for (const upload of this.take()) upload.cancel();
  }

  show() {
    this.node.hidden = this.items.length === 0 && !this.alert.textContent;
    this.changed();
  }
}

/**
 * Sends a message with files once they are all uploaded: `send(attachments)` then; an upload that fails
 * for good turns the bubble `item` failed with Retry (the failed uploads again) and Delete.
 */
export async function sendWhenUploaded(uploads, item, { send, failed, removed }) {
  const files = el('div', { class: 'files', 'data-sb': 'attachments' });
  files.append(...uploads.map((upload) => upload.node()));
  item.querySelector('.files')?.remove();
  item.querySelector('[data-sb=body]').after(files);
  for (;;) {
    try {
      const attachments = await Promise.all(uploads.map((upload) => upload.done));
      return send(attachments);
    } catch (error) {
      const upload = uploads.find((each) => each.failed) ?? uploads[0];
      const again = await failed(refusal(error, upload.file.name));
      if (!again) {
        for (const each of uploads) each.cancel();
        return removed?.();
      }
      for (const each of uploads) if (each.failed) each.start();
    }
  }
}

const WIDGET_CSS = `
.tray{padding:8px 10px 0;background:#fff;border-top:1px solid #e3e6ee}
.tray-items{list-style:none;display:flex;flex-wrap:wrap;gap:6px}
.tray-item{display:flex;align-items:center;gap:4px;max-width:100%}
.tray .file-image img{width:48px;height:48px;object-fit:cover}
.tray .file-chip{box-shadow:inset 0 0 0 1px #cfd5e2}
.remove{width:26px;height:26px;border-radius:8px;font-size:18px;line-height:1;color:#4b5466}
.remove:hover{background:#eef1f6}
.tray-alert{padding:2px 2px 6px;color:#b42318;font-size:12px;font-weight:600}
.tray-alert:empty{display:none}
.body:empty{display:none}
.files{display:flex;flex-wrap:wrap;gap:6px}
.mine .files{justify-content:flex-end}
.file-image{position:relative;display:block;line-height:0}
.file-image img{display:block;max-width:${PREVIEW_PX}px;max-height:${PREVIEW_PX}px;border-radius:12px;background:#e3e6ee;object-fit:cover}
.file-chip{display:flex;align-items:center;gap:8px;max-width:100%;padding:8px 12px;border-radius:12px;background:#fff;color:#18202c;box-shadow:0 1px 2px rgba(20,30,60,.08);text-decoration:none}
.file-name{min-width:0;overflow-wrap:anywhere;font-weight:600}
.file-size{flex:none;color:#5b6578;font-size:12px}
.file-icon{flex:none;padding:3px 5px;border-radius:5px;background:#eef1f6;color:#1d44a8;font-size:10px;font-weight:700}
.sending img{opacity:.7}
a:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
progress{appearance:none;display:block;width:100%;height:5px;border-radius:3px;background:#e3e6ee;overflow:hidden}
.file-chip progress{width:56px}
.file-image progress{position:absolute;left:4px;right:4px;bottom:4px;width:auto}
progress::-webkit-progress-bar{background:#e3e6ee}
progress::-webkit-progress-value{background:var(--accent)}
progress::-moz-progress-bar{background:var(--accent)}`;

/** What the widget gains once a file is attached or shown (widget.js loads this with `files()`). */
export class WidgetFiles {
  constructor(widget) {
    this.widget = widget;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(WIDGET_CSS);
    widget.shadowRoot.adoptedStyleSheets = [...widget.shadowRoot.adoptedStyleSheets, sheet];
    this.tray = new Tray({
      client: widget.client,
      // The first file of a visitor who has not written yet starts the conversation.
      session: async () => {
        if (!widget.sessionId) await (widget.sessionReady ??= widget.createSession('Sent a file'));
        return widget.sessionId;
      },
      changed: ({ focus } = {}) => this.changed(focus),
    });
    widget.composer.form.before(this.tray.node);
    // Send goes through here while files wait in the tray; a message without any is the widget's as before.
    const plain = widget.submit.bind(widget);
    widget.submit = () => (this.tray.items.length ? this.send() : plain());
  }

  add(files) {
    this.tray.add(files);
    this.widget.picker.value = ''; // the same file can be chosen again
    this.widget.scrollDown();
  }

  show(item, attachments) {
    showFiles(item, attachments);
    this.widget.scrollDown();
  }

  changed(focus) {
    const { composer } = this.widget;
    composer.placeholder = this.tray.items.length ? 'Add a caption…' : 'Type a message…';
    if (focus) composer.focus();
  }

  send() {
    const widget = this.widget;
    const caption = widget.composer.value.trim();
    if (widget.count()) return widget.say(widget.counter.textContent);
    const uploads = this.tray.take();
    widget.composer.value = '';
    widget.count();
    widget.composer.focus();
    const id = widget.sdk.newClientMessageId();
    widget.showPending(id, caption);
    const item = widget.pendingNodes.get(id);
    const meta = item.querySelector('.meta');
    sendWhenUploaded(uploads, item, {
      // Uploaded: from here on the outbox keeps it (with its attachments) across reloads, like any message.
      send: (attachments) => {
        widget.keep(id, { id, body: caption, attachments });
        widget.dispatch(id, caption);
      },
      failed: (reason) => new Promise((resolve) => {
        item.dataset.state = 'failed';
        meta.textContent = `Not sent: ${reason}`;
        const retry = el('button', { type: 'button', 'data-sb': 'retry' }, 'Retry');
        const drop = el('button', { type: 'button', 'data-sb': 'delete' }, 'Delete');
        retry.onclick = () => {
          item.dataset.state = 'pending';
          meta.textContent = 'Sending…';
          resolve(true);
        };
        drop.onclick = () => resolve(false);
        meta.append(retry, drop);
        widget.say(`Not sent: ${reason}`);
      }),
      removed: () => {
        widget.pendingNodes.delete(id);
        item.remove();
        widget.composer.focus();
      },
    });
    widget.scrollDown();
  }
}
