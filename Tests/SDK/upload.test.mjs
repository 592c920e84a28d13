// Unit tests of the SDK's attachments (uploadAttachment in Web/sdk/upload.js, send's attachments, absolute
// URLs) against a scripted XMLHttpRequest and WebSocket: refusals, cut-off uploads, a connection lost in
// the middle. The browser tests (Tests/Browser/test_attachments.py) upload to the real gateway.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';

import { Switchboard, SwitchboardError } from '../../Web/sdk/switchboard.js';
import { ScriptedSocket, connected, message, sleep, until } from './support.mjs';

/** An XMLHttpRequest whose server is the test: `FakeXHR.respond(xhr)` runs when the request is sent. */
class FakeXHR {
  static all = [];
  static respond = () => {};
  constructor() {
    this.headers = {};
    this.upload = {};
    this.status = 0;
    this.responseText = '';
    this.responseHeaders = {};
    FakeXHR.all.push(this);
  }
  open(method, url) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name, value) {
    this.headers[name] = value;
  }
  getResponseHeader(name) {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }
  send(body) {
    this.body = body;
    this.sentAt = performance.now();
    setTimeout(() => FakeXHR.respond(this), 0);
  }
  progress(loaded) {
    this.upload.onprogress?.({ loaded, total: this.body.size, lengthComputable: true });
  }
  answer(status, body, headers = {}) {
    if (this.done) return;
    this.done = true;
    this.status = status;
    this.responseText = body == null ? '' : JSON.stringify(body);
    this.responseHeaders = headers;
    this.onloadend?.();
  }
  /** As a browser reports a connection that broke: status 0, no body. */
  cutOff() {
    this.answer(0);
  }
  abort() {
    this.aborted = true;
    this.answer(0);
  }
}

const PNG = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])], 'receipt (1).png', { type: 'image/png' });
const stored = (id = 'a1') => ({
  attachment: {
    id, filename: 'receipt (1).png', content_type: 'image/png', size: 12, sha256: 'ab'.repeat(32), width: 1, height: 1,
    url: `/api/v1/attachments/${id}?exp=1&sig=s`, thumbnail_url: `/api/v1/attachments/${id}/thumbnail?exp=1&sig=t`,
  },
});
const offline = () => new Switchboard({ url: 'ws://gateway.test/v1/ws', token: async () => 'token-1', minDelayMs: 20, maxDelayMs: 200 });

let clients = [];
beforeEach(() => {
  ScriptedSocket.all = [];
  globalThis.WebSocket = ScriptedSocket;
  FakeXHR.all = [];
  FakeXHR.respond = () => {};
  globalThis.XMLHttpRequest = FakeXHR;
  clients = [];
});
afterEach(() => {
  for (const client of clients) client.close();
  delete globalThis.fetch;
});

test('an upload posts the raw file with the token, its type and name, reports progress, and answers absolute URLs', async () => {
  const client = offline();
  FakeXHR.respond = (xhr) => {
    xhr.progress(6);
    xhr.progress(12);
    xhr.answer(201, stored());
  };
  const progress = [];
  const attachment = await client.uploadAttachment('s 1', PNG, { onProgress: (p) => progress.push([p.loaded, p.total]) });
  const [xhr] = FakeXHR.all;
  assert.equal(xhr.method, 'POST');
  assert.equal(xhr.url, 'http://gateway.test/api/v1/sessions/s%201/attachments?filename=receipt%20(1).png');
  assert.deepEqual(xhr.headers, { Authorization: 'Bearer token-1', 'Content-Type': 'image/png' });
  assert.equal(xhr.body, PNG, 'the file itself is the body');
  assert.deepEqual(progress, [[0, 12], [6, 12], [12, 12], [12, 12]]);
  assert.equal(attachment.url, 'http://gateway.test/api/v1/attachments/a1?exp=1&sig=s');
  assert.equal(attachment.thumbnail_url, 'http://gateway.test/api/v1/attachments/a1/thumbnail?exp=1&sig=t');
  // A file the browser has no type for is declared as bytes: the gateway decides from its content.
  FakeXHR.respond = (xhr) => xhr.answer(201, stored('a2'));
  await client.uploadAttachment('s1', new Blob(['hello']));
  assert.equal(FakeXHR.all[1].headers['Content-Type'], 'application/octet-stream');
  assert.match(FakeXHR.all[1].url, /\?filename=file$/);
});

test('a refused file is not tried again: a code for what is wrong, the gateway\'s message, and Retry-After', async () => {
  const client = offline();
  const answers = [
    [413, { error: { code: 'too_large', message: 'files are at most 10 MiB' } }, {}],
    [415, { error: { code: 'bad_request', message: 'markup is not an allowed type' } }, {}],
    [429, { error: { code: 'rate_limited', message: 'too many uploads' } }, { 'retry-after': '30' }],
    [413, null, {}], // a proxy's refusal, without the gateway's body
    [403, { error: { code: 'forbidden', message: 'not your session' } }, {}],
  ];
  for (const [status, body, headers] of answers) {
    const before = FakeXHR.all.length;
    FakeXHR.respond = (xhr) => xhr.answer(status, body, headers);
    await assert.rejects(client.uploadAttachment('s1', PNG), (error) => {
      assert.ok(error instanceof SwitchboardError);
      assert.equal(error.status, status);
      assert.equal(error.code, { 413: 'too_large', 415: 'unsupported_type', 429: 'rate_limited' }[status] ?? body.error.code);
      assert.equal(error.message, body?.error.message ?? 'HTTP 413');
      assert.equal(error.retryAfter, headers['retry-after'] ? 30 : undefined);
      return true;
    });
    await sleep(100);
    assert.equal(FakeXHR.all.length, before + 1, `${status}: one request, not retried`);
  }
});

test('an upload the gateway cannot take now is tried again after its Retry-After; cut off, at most 5 times', async () => {
  const client = offline();
  FakeXHR.respond = (xhr) => (FakeXHR.all.length === 1
    ? xhr.answer(503, { error: { code: 'unavailable', message: 'busy' } }, { 'retry-after': '1' })
    : xhr.answer(201, stored()));
  const attachment = await client.uploadAttachment('s1', PNG);
  assert.equal(attachment.id, 'a1');
  const [first, second] = FakeXHR.all;
  assert.ok(second.sentAt - first.sentAt >= 990, `waited ${second.sentAt - first.sentAt} ms of Retry-After: 1`);

  FakeXHR.all = [];
  FakeXHR.respond = (xhr) => {
    xhr.progress(4);
    xhr.cutOff();
  };
  const progress = [];
  await assert.rejects(client.uploadAttachment('s1', PNG, { onProgress: (p) => progress.push(p.loaded) }),
    (error) => error.code === 'disconnected' && error.status === 0);
  assert.equal(FakeXHR.all.length, 5, 'five tries in all');
  assert.deepEqual(progress, [0, 4, 0, 4, 0, 4, 0, 4, 0, 4], 'each try starts from 0');
  const waits = FakeXHR.all.slice(1).map((xhr, i) => xhr.sentAt - FakeXHR.all[i].sentAt);
  assert.ok(waits.every((ms) => ms <= 250), `jittered waits under the cap: ${waits}`);
});

test('a connection lost mid-upload: the upload waits for the reconnect, then the message goes once with the same client_msg_id', async () => {
  let holdWelcome = false;
  let heldHello = null;
  let sendsSeen = 0;
  const { client, events, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type === 'join') s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 0, truncated: false });
      if (frame.type === 'send') {
        // The first send's ack is lost with its connection; the second is answered as a duplicate would be.
        if (++sendsSeen === 1) return s.drop();
        s.reply({ type: 'ack', ref: frame.ref, session_id: 's1', client_msg_id: frame.client_msg_id, seq: 1, duplicate: true });
      }
    },
  });
  clients.push(client);
  const serve = ScriptedSocket.serve;
  ScriptedSocket.serve = (s) => {
    serve(s);
    const answer = s.onframe;
    s.onframe = (frame) => (frame.type === 'hello' && holdWelcome ? (heldHello = () => answer(frame)) : answer(frame));
  };
  await client.join('s1');

  FakeXHR.respond = (xhr) => {
    if (FakeXHR.all.length > 1) return xhr.answer(201, stored());
    xhr.progress(6);
    // The network goes: the upload is cut off, and the WebSocket with it.
    holdWelcome = true;
    socket().drop();
    xhr.cutOff();
  };
  const upload = client.uploadAttachment('s1', PNG);
  await until(() => heldHello, 'the reconnect to say hello');
  await sleep(300); // well past the upload's own back-off (at most 200 ms)
  assert.equal(FakeXHR.all.length, 1, 'no second try while the gateway cannot be reached');
  assert.notEqual(client.state, 'open');
  holdWelcome = false;
  heldHello();
  const attachment = await upload;
  assert.equal(FakeXHR.all.length, 2, 'tried again once connected');

  const ack = await client.send('s1', '', { attachments: [attachment], clientMsgId: 'c-photo' });
  assert.equal(ack.seq, 1);
  const sends = ScriptedSocket.all.flatMap((s) => s.sent).filter((f) => f.type === 'send');
  assert.equal(sends.length, 2);
  for (const frame of sends) {
    assert.equal(frame.client_msg_id, 'c-photo');
    assert.deepEqual(frame.attachments, ['a1']);
    assert.equal(frame.body, '');
  }
  assert.deepEqual(events.filter((e) => e.type === 'error'), []);
});

test('aborting cancels the upload, and a wait before another try; nothing more is sent', async () => {
  const client = offline();
  const controller = new AbortController();
  FakeXHR.respond = (xhr) => {
    xhr.progress(3);
    controller.abort();
  };
  await assert.rejects(client.uploadAttachment('s1', PNG, { signal: controller.signal }), (error) => error.code === 'aborted');
  assert.equal(FakeXHR.all[0].aborted, true);

  const later = new AbortController();
  FakeXHR.respond = (xhr) => xhr.answer(503, null, { 'retry-after': '30' });
  const waiting = client.uploadAttachment('s1', PNG, { signal: later.signal });
  await until(() => FakeXHR.all.length === 2 && FakeXHR.all[1].done, 'the refusal');
  later.abort();
  await assert.rejects(waiting, (error) => error.code === 'aborted');
  await sleep(50);
  assert.equal(FakeXHR.all.length, 2);
  await assert.rejects(client.uploadAttachment('s1', PNG, { signal: later.signal }), (error) => error.code === 'aborted');
  assert.equal(FakeXHR.all.length, 2, 'an aborted signal sends nothing');
});

test('a refused token is renewed once, then the refusal is the caller\'s', async () => {
  let issued = 0;
  const client = new Switchboard({ url: 'wss://chat.example/v1/ws', token: async () => `token-${++issued}`, minDelayMs: 20 });
  FakeXHR.respond = (xhr) => (xhr.headers.Authorization === 'Bearer token-2'
    ? xhr.answer(201, stored())
    : xhr.answer(401, { error: { code: 'unauthorized', message: 'expired' } }));
  const attachment = await client.uploadAttachment('s1', PNG);
  assert.equal(attachment.url, 'https://chat.example/api/v1/attachments/a1?exp=1&sig=s');
  assert.deepEqual(FakeXHR.all.map((xhr) => xhr.headers.Authorization), ['Bearer token-1', 'Bearer token-2']);
  FakeXHR.respond = (xhr) => xhr.answer(401, { error: { code: 'unauthorized', message: 'revoked' } });
  await assert.rejects(client.uploadAttachment('s1', PNG), (error) => error.code === 'unauthorized');
  assert.equal(FakeXHR.all.length, 4);
});

test('attachments come with absolute URLs in live messages and history pages; send carries them only when given', async () => {
  const withFile = (seq) => ({ ...message(seq), body: '', attachments: [stored(`f${seq}`).attachment] });
  globalThis.fetch = async () => new Response(JSON.stringify({ session_id: 's1', messages: [withFile(1)], next_after_seq: null }));
  const { client, events, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type === 'join') s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 0, truncated: false });
      if (frame.type === 'send') s.reply({ type: 'ack', ref: frame.ref, session_id: 's1', client_msg_id: frame.client_msg_id, seq: 3 });
    },
  });
  clients.push(client);
  const page = await client.history('s1');
  assert.equal(page.messages[0].attachments[0].url, 'http://gateway.test/api/v1/attachments/f1?exp=1&sig=s');
  await client.join('s1', { sinceSeq: 1 });
  socket().reply(withFile(2));
  const [delivered] = events.filter((e) => e.type === 'message');
  assert.equal(delivered.message.attachments[0].thumbnail_url, 'http://gateway.test/api/v1/attachments/f2/thumbnail?exp=1&sig=t');
  await client.send('s1', 'plain text');
  await client.send('s1', 'two files', { attachments: ['x1', { id: 'x2' }] });
  const [plain, files] = socket().sent.filter((f) => f.type === 'send');
  assert.equal('attachments' in plain, false);
  assert.deepEqual(files.attachments, ['x1', 'x2']);
});
