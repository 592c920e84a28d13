#!/usr/bin/env node
// node-ws-echo.js: WebSocket echo server used as a comparison peer by scripts/bench-transport.
//
//   NODE_PATH=/usr/share/nodejs node LoadTests/node-ws-echo.js --port P [--host 127.0.0.1]
//
// Uses the `ws` module from the Debian package node-ws (installed under
// /usr/share/nodejs, hence NODE_PATH). GET /v1/echo upgrades to WebSocket and every
// text or binary message is sent back unchanged, with the same opcode. No
// permessage-deflate. Prints "node-ws-echo listening on HOST:PORT" once listening.
'use strict';

const http = require('http');
const { WebSocketServer } = require('ws');

function usage() {
  process.stderr.write('usage: node-ws-echo.js --port PORT [--host HOST]\n');
  process.exit(2);
}

let host = '127.0.0.1';
let port = null;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if ((a === '--port' || a === '-p') && i + 1 < args.length) {
    port = Number(args[++i]);
    if (!Number.isInteger(port) || port < 0 || port > 65535) usage();
  } else if (a === '--host' && i + 1 < args.length) {
    host = args[++i];
  } else {
    usage();
  }
}
if (port === null) usage();

const MAX_MESSAGE = 16 * 1024 * 1024;

const server = http.createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
    return;
  }
  res.writeHead(404);
  res.end();
});

const wss = new WebSocketServer({
  server,
  path: '/v1/echo',
  perMessageDeflate: false,
  maxPayload: MAX_MESSAGE,
});

wss.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => {
    ws.send(data, { binary: isBinary });
  });
  ws.on('error', () => {});
});

server.listen(port, host, () => {
  const addr = server.address();
  process.stdout.write(`node-ws-echo listening on ${addr.address}:${addr.port}\n`);
});

function shutdown() {
  for (const client of wss.clients) client.terminate();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
