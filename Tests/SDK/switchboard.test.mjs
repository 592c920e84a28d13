// Unit tests of the browser SDK (Web/sdk/switchboard.js) under Node's test runner, against a
// scripted WebSocket: the paths a real gateway will not produce on demand (overloaded answers,
// versions out of order, a gap on a live session, history paging that fails). The browser tests
// (Tests/Browser/test_sdk.py) cover the same SDK against the real gateway.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';

import {
  Switchboard, SwitchboardError, backoff, charactersOver, linkRuns, utf8Bytes,
} from '../../Web/sdk/switchboard.js';
import { ScriptedSocket, connected, message, sleep, until, user } from './support.mjs';

let clients = [];
beforeEach(() => {
  ScriptedSocket.all = [];
  globalThis.WebSocket = ScriptedSocket;
  clients = [];
});
afterEach(() => {
  for (const client of clients) client.close();
  delete globalThis.fetch;
});

test('overloaded answers are retried after jittered waits that grow, never in a tight loop', async () => {
  let refusals = 2;
  const { client, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type === 'join') s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 0, truncated: false });
      if (frame.type === 'send') {
        if (refusals-- > 0) s.reply({ type: 'error', ref: frame.ref, code: 'overloaded', message: 'busy' });
        else s.reply({ type: 'ack', ref: frame.ref, session_id: 's1', client_msg_id: frame.client_msg_id, seq: 1, duplicate: false });
      }
    },
  });
  clients.push(client);
  await client.join('s1');
  const random = Math.random;
  Math.random = () => 0.5; // the middle of each jitter window
  try {
    const ack = await client.send('s1', 'hello');
    assert.equal(ack.seq, 1);
  } finally {
    Math.random = random;
  }
  const sends = socket().sent.filter((f) => f.type === 'send');
  assert.equal(sends.length, 3);
  assert.ok(new Set(sends.map((f) => f.client_msg_id)).size === 1, 'one client_msg_id for every try');
  // backoff(1) = 0.5 * 40 ms, backoff(2) = 0.5 * 80 ms: each wait at least its jittered share, and growing.
  assert.ok(sends[1].at - sends[0].at >= 19, `first wait ${sends[1].at - sends[0].at} ms`);
  assert.ok(sends[2].at - sends[1].at >= 39, `second wait ${sends[2].at - sends[1].at} ms`);
});

test('ten thousand clients spread their first reconnect over the whole window', () => {
  const delays = Array.from({ length: 10000 }, () => backoff(0, 500, 30000));
  assert.ok(delays.every((d) => d >= 0 && d <= 500));
  const tenths = Array(10).fill(0);
  for (const d of delays) tenths[Math.min(9, Math.floor(d / 50))]++;
  assert.ok(tenths.every((n) => n > 700 && n < 1300), `per 50 ms: ${tenths}`);
  assert.equal(backoff(40, 500, 30000) <= 30000, true, 'capped');
});

test('an older session state never follows a newer one', async () => {
  const { client, events, socket } = await connected();
  clients.push(client);
  for (const version of [5, 3, 6, 6, 4]) {
    socket().reply({ type: 'session.updated', session: { id: 's9', version, status: version > 5 ? 'closed' : 'open' } });
  }
  assert.deepEqual(events.filter((e) => e.type === 'session').map((e) => e.session.version), [5, 6, 6]);
});

test('a gap on a live session holds what follows until a join from the last delivered seq fills it', async () => {
  const joins = [];
  const { client, events, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type !== 'join') return;
      joins.push(frame.since_seq);
      s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 5, truncated: false });
      for (let seq = frame.since_seq + 1; seq <= 5; seq++) s.reply(message(seq));
    },
  });
  clients.push(client);
  await client.join('s1', { sinceSeq: 5 });
  socket().reply(message(6));
  socket().reply(message(8)); // 7 went missing
  socket().reply(message(9));
  await until(() => joins.length === 2, 'the second join');
  assert.equal(joins[1], 6, 'joined again from the last delivered seq');
  // The gateway's replay of the join brings 7..9.
  for (const seq of [7, 8, 9]) socket().reply(message(seq));
  await until(() => events.filter((e) => e.type === 'message').length === 4, 'four messages');
  assert.deepEqual(events.filter((e) => e.type === 'message').map((e) => e.message.seq), [6, 7, 8, 9]);
});

test("a visitor's stream skips the seqs of private notes: a join's replay and the history are complete", async () => {
  // Seqs 3 and 7 are operators' notes, which the gateway never sends a visitor.
  const visible = [1, 2, 4, 5, 6, 8];
  globalThis.fetch = async (url) => {
    const after = Number(new URL(url).searchParams.get('after_seq'));
    const messages = visible.filter((seq) => seq > after && seq <= 6).map(message);
    return new Response(JSON.stringify({ session_id: 's1', messages, next_after_seq: null }), { status: 200 });
  };
  const joins = [];
  const { client, events, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type !== 'join') return;
      joins.push(frame.since_seq);
      if (joins.length === 1) {
        // Truncated: 1..6 are paged over HTTP, the replay brings 8 only.
        s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 8, truncated: true });
        s.reply(message(8));
      } else {
        s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 11, truncated: false });
        for (const seq of [10, 11]) if (seq > frame.since_seq) s.reply(message(seq));
      }
    },
  });
  clients.push(client);
  await client.join('s1');
  assert.deepEqual(events.filter((e) => e.type === 'message').map((e) => e.message.seq), visible);
  // Live, a skipped seq (9, a note) is not taken on trust: the join from 8 brings what follows.
  socket().reply(message(10));
  await until(() => joins.length === 2, 'the second join');
  assert.equal(joins[1], 8);
  await until(() => events.filter((e) => e.type === 'message').length === 8, 'eight messages');
  assert.deepEqual(events.filter((e) => e.type === 'message').map((e) => e.message.seq), [...visible, 10, 11]);
});

test('a truncated replay whose history cannot be paged delivers nothing past the gap, then fills it', async () => {
  let pagingWorks = false;
  globalThis.fetch = async (url) => {
    if (!pagingWorks) throw new TypeError('network down');
    const after = Number(new URL(url).searchParams.get('after_seq'));
    const messages = [];
    for (let seq = after + 1; seq <= 8; seq++) messages.push(message(seq));
    return new Response(JSON.stringify({ session_id: 's1', messages, next_after_seq: null }), { status: 200 });
  };
  const { client, events, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type !== 'join') return;
      // replay_limit 2: the newest two of ten follow a truncated joined.
      s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 10, truncated: true });
      s.reply(message(9));
      s.reply(message(10));
    },
  });
  clients.push(client);
  const joined = client.join('s1');
  await until(() => events.some((e) => e.type === 'error' && e.code === 'history'), 'the paging to give up', 5000);
  await joined;
  assert.deepEqual(events.filter((e) => e.type === 'message'), [], 'nothing past the gap');
  assert.equal(client.lastSeq('s1'), 0);
  pagingWorks = true;
  await until(() => events.filter((e) => e.type === 'message').length === 10, 'all ten', 5000);
  assert.deepEqual(events.filter((e) => e.type === 'message').map((e) => e.message.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.ok(socket().sent.filter((f) => f.type === 'join').length >= 2);
});

test('close() stops reconnecting and settles whoever waits for the connection', async () => {
  const { client, socket } = await connected();
  socket().drop();
  await until(() => client.state === 'reconnecting', 'reconnecting');
  const waiting = client.whenOpen();
  client.close();
  await assert.rejects(waiting, (error) => error instanceof SwitchboardError && error.code === 'closed');
  const sockets = ScriptedSocket.all.length;
  await sleep(300); // past maxDelayMs
  assert.equal(ScriptedSocket.all.length, sockets, 'no reconnect after close()');
  assert.equal(client.state, 'offline');
});

test('session.create is not repeated after its connection drops (it could open a second session)', async () => {
  const { client, socket } = await connected({ onframe: (s, frame) => frame.type === 'session.create' && s.drop() });
  clients.push(client);
  await assert.rejects(client.createSession('x'), (error) => error.code === 'disconnected');
  await until(() => client.state === 'open', 'reconnected');
  const creates = ScriptedSocket.all.flatMap((s) => s.sent).filter((f) => f.type === 'session.create');
  assert.equal(creates.length, 1);
  assert.ok(socket());
});

test('typing is throttled to one frame per interval, and its end is sent once', async () => {
  const { client, socket } = await connected({
    typingIntervalMs: 100,
    onframe: (s, frame) =>
      frame.type === 'join' && s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 0, truncated: false }),
  });
  clients.push(client);
  await client.join('s1');
  for (let i = 0; i < 10; i++) client.typing('s1', true); // a burst of keystrokes
  await sleep(120);
  client.typing('s1', true); // still typing, one interval later
  client.typing('s1', false);
  client.typing('s1', false);
  assert.deepEqual(socket().sent.filter((f) => f.type === 'typing').map((f) => f.state), [true, true, false]);
});

test('a read refused as overloaded goes again after a jittered wait; another refusal is an error event', async () => {
  let refusals = 1;
  const { client, socket, events } = await connected({
    onframe: (s, frame) => {
      if (frame.type === 'join') s.reply({ type: 'joined', ref: frame.ref, session_id: frame.session_id, last_seq: 5, truncated: false });
      if (frame.type !== 'read') return;
      if (frame.session_id === 's2') s.reply({ type: 'error', ref: frame.ref, code: 'not_found', message: 'gone' });
      else if (refusals-- > 0) s.reply({ type: 'error', ref: frame.ref, code: 'overloaded', message: 'busy' });
      else s.reply({ type: 'read', session_id: frame.session_id, reader: user, seq: frame.seq });
    },
  });
  clients.push(client);
  await client.join('s1');
  await client.join('s2');
  client.read('s1', 3);
  await until(() => socket().sent.filter((f) => f.type === 'read' && f.session_id === 's1').length === 2, 'the read sent again');
  const reads = socket().sent.filter((f) => f.type === 'read' && f.session_id === 's1');
  assert.deepEqual(reads.map((f) => f.seq), [3, 3]);
  assert.ok(reads[1].at - reads[0].at < 200 + 50, 'within the jittered wait');
  client.read('s1', 3);
  assert.equal(socket().sent.filter((f) => f.type === 'read' && f.session_id === 's1').length, 2, 'stored: not sent a third time');
  client.read('s2', 1);
  await until(() => events.some((e) => e.type === 'error'), 'the refusal reported');
  assert.deepEqual(events.filter((e) => e.type === 'error').map((e) => e.code), ['not_found']);
});

test('the welcome\'s limits are kept on the client, renewed by each welcome', async () => {
  const fresh = new Switchboard({ url: 'ws://gateway.test/v1/ws', token: async () => 'token' });
  assert.equal(fresh.limits, null, 'unknown before the first welcome');
  const limits = { max_body_bytes: 8192, max_message_bytes: 65536 };
  const { client, socket } = await connected({ welcome: { limits } });
  clients.push(client);
  assert.deepEqual(client.limits, limits);
  // A welcome without limits (an older gateway) keeps what the client knew.
  socket().reply({ type: 'welcome', user, workspace_id: 'w', heartbeat_s: 60 });
  await sleep(5);
  assert.deepEqual(client.limits, limits);
});

test('availability: the welcome\'s word until a frame says more, and a reconnect\'s welcome keeps the place in line', async () => {
  const { client, socket } = await connected({ welcome: { operators_available: false } });
  clients.push(client);
  const told = [];
  client.addEventListener('availability', (e) => told.push(e.detail));
  assert.deepEqual(client.availability, { operators_available: false });
  socket().reply({ type: 'availability', session_id: 's1', operators_available: false, queue_position: 3 });
  assert.equal(client.availability.queue_position, 3);
  // Reconnected: the welcome says someone is there before the next frame does; the place is not forgotten.
  socket().reply({ type: 'welcome', user, workspace_id: 'w', heartbeat_s: 60, operators_available: true });
  await sleep(5);
  assert.deepEqual(told.map((a) => [a.operators_available, a.queue_position]), [[false, 3], [true, 3]]);
});

test('presence: set answers the operator, and the subscription is renewed after a reconnect', async () => {
  const ken = { id: 'op-ken', name: 'Ken', status: 'online', connected: true, active_sessions: 0, capacity: 5 };
  const { client, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type === 'presence.set') s.reply({ type: 'presence', ref: frame.ref, operator: { ...ken, status: frame.status } });
      if (frame.type === 'presence.subscribe') s.reply({ type: 'presence.list', ref: frame.ref, operators: [ken] });
    },
  });
  clients.push(client);
  const lists = [];
  const updates = [];
  client.addEventListener('presence.list', (e) => lists.push(e.detail.operators));
  client.addEventListener('presence.updated', (e) => updates.push(e.detail.operator));
  assert.equal((await client.setPresence('away')).status, 'away');
  assert.deepEqual(await client.subscribePresence(), [ken]);
  socket().reply({ type: 'presence.updated', operator: { ...ken, active_sessions: 1 } });
  assert.equal(updates.at(-1).active_sessions, 1);
  socket().drop();
  await until(() => lists.length === 2, 'the list again after the reconnect');
  assert.equal(ScriptedSocket.all.at(-1).sent.filter((f) => f.type === 'presence.subscribe').length, 1);
});

test('leaveContact sends session.contact and applies the session it answers', async () => {
  const { client, events } = await connected({
    onframe: (s, frame) => frame.type === 'session.contact' && s.reply({
      type: 'session.updated', ref: frame.ref,
      session: { id: frame.session_id, version: 4, status: 'open', contact: { email: frame.email } },
    }),
  });
  clients.push(client);
  const answer = await client.leaveContact('s1', 'vera@example.com');
  assert.equal(answer.session.contact.email, 'vera@example.com');
  assert.equal(events.filter((e) => e.type === 'session').at(-1).session.contact.email, 'vera@example.com');
});

test('event messages are delivered in seq among the others and settle no outbox entry', async () => {
  const { client, events, socket } = await connected({
    onframe: (s, frame) => {
      if (frame.type === 'join') s.reply({ type: 'joined', ref: frame.ref, session_id: 's1', last_seq: 0, truncated: false });
    },
  });
  clients.push(client);
  await client.join('s1');
  socket().reply(message(1));
  socket().reply({
    ...message(2), kind: 'event', client_msg_id: 'event:x', body: 'Ken joined the conversation',
    meta: { action: 'assigned', operator: { id: 'op', name: 'Ken' }, previous: null },
  });
  socket().reply(message(3));
  const delivered = events.filter((e) => e.type === 'message').map((e) => [e.message.seq, e.message.kind]);
  assert.deepEqual(delivered, [[1, 'text'], [2, 'event'], [3, 'text']]);
  assert.equal(client.lastSeq('s1'), 3);
});

test('utf8Bytes and charactersOver count as the gateway does: UTF-8 bytes, whole characters off the end', () => {
  assert.equal(utf8Bytes('abc'), 3);
  assert.equal(utf8Bytes('é€😀'), 2 + 3 + 4);
  assert.equal(charactersOver('abc', 3), 0);
  assert.equal(charactersOver('abcé', 3), 1, 'the two-byte é alone is over');
  assert.equal(charactersOver('a😀😀', 5), 1, 'one emoji (4 bytes) off leaves 5');
  assert.equal(charactersOver('😀', 0), 1);
});

test('linkRuns makes links of http and https only, without trailing punctuation', () => {
  assert.deepEqual(linkRuns('see https://shop.example/help. Or http://x.io/a?b=1, thanks'), [
    { text: 'see ' }, { url: 'https://shop.example/help' }, { text: '. Or ' }, { url: 'http://x.io/a?b=1' },
    { text: ', thanks' },
  ]);
  assert.deepEqual(linkRuns('javascript:alert(1) and ftp://x'), [{ text: 'javascript:alert(1) and ftp://x' }]);
  assert.deepEqual(linkRuns('(https://a.example)'), [{ text: '(' }, { url: 'https://a.example' }, { text: ')' }]);
  assert.deepEqual(linkRuns(''), []);
});
