// What the SDK's unit tests share: a WebSocket whose server side is the test, and a client connected
// through it. The tests install `ScriptedSocket` as globalThis.WebSocket before each test.
import { Switchboard } from '../../Web/sdk/switchboard.js';

// Browsers have CustomEvent; Node before 19 has it only behind a flag.
globalThis.CustomEvent ??= class extends Event {
  constructor(type, options) {
    super(type);
    this.detail = options?.detail;
  }
};

/** A WebSocket whose server side is the test: it reads `sent` and calls `reply`. */
export class ScriptedSocket {
  static all = [];
  /** Sets up the server side of each new socket. */
  static serve = () => {};
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.readyState = 0;
    ScriptedSocket.all.push(this);
    ScriptedSocket.serve(this);
    setTimeout(() => {
      this.readyState = 1;
      this.onopen?.();
    }, 0);
  }
  send(text) {
    const frame = JSON.parse(text);
    frame.at = performance.now();
    this.sent.push(frame);
    this.onframe?.(frame);
  }
  reply(frame) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  close(code = 1000) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ code }), 0);
  }
  /** The server drops the connection. */
  drop(code = 1006) {
    this.close(code);
  }
}

export const user = { id: 'v-1', role: 'visitor', name: 'Ann' };
export const message = (seq) => ({
  type: 'message', session_id: 's1', seq, id: String(seq), client_msg_id: `c${seq}`, kind: 'text', body: `m${seq}`,
  sender: { id: 'op', role: 'operator', name: 'Ken' }, created_at: '2026-11-23T00:00:00.000Z',
});
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(condition, what, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** A client connected through a scripted socket whose server answers hello and join by `onframe`. */
export async function connected({ onframe = () => {}, welcome = {}, ...options } = {}) {
  const client = new Switchboard({ url: 'ws://gateway.test/v1/ws', token: async () => 'token', minDelayMs: 20, maxDelayMs: 200, ...options });
  const events = [];
  for (const type of ['message', 'session', 'error', 'state']) client.addEventListener(type, (e) => events.push({ type, ...e.detail }));
  ScriptedSocket.serve = (socket) => {
    socket.onframe = (frame) => {
      if (frame.type === 'hello') socket.reply({ type: 'welcome', user, workspace_id: 'w', heartbeat_s: 60, ...welcome });
      else onframe(socket, frame);
    };
  };
  await client.connect();
  return { client, events, socket: () => ScriptedSocket.all.at(-1) };
}

