// The SDK's uploads (Switchboard.uploadAttachment), loaded on first use: most
// visitors never send a file, and every byte the widget loads before it is
// opened counts against its budget (docs/benchmarks.md, "Browser clients").
//
// An upload is one POST of the raw file (XMLHttpRequest, for its progress
// events). One that is cut off, or that the gateway cannot take right now,
// is tried again from the start, a bounded number of times, after a jittered
// wait (at least the gateway's Retry-After) and, when the connection to the
// gateway is down too, once it is back: a lost network shows there first.
// The answers that say the file itself is refused (too large, a type not
// allowed, ...) or that the user must slow down (429) are not retried: the
// caller gets them with the gateway's code and message.
import { SwitchboardError, backoff } from './switchboard.js';

const TRIES = 5;
// Cut off (0), or refused for now by the gateway (503: its in-flight budget) or a proxy in front of it.
const TRANSIENT = new Set([0, 502, 503, 504]);
// Statuses that say what is wrong with the file whatever code the body has (the gateway answers a 415
// with `bad_request`): the caller can tell the person without parsing messages.
const BY_STATUS = { 413: 'too_large', 415: 'unsupported_type', 429: 'rate_limited' };
// Codes for other answers without the gateway's error body (a proxy's).
const CODES = { 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 503: 'unavailable' };

/** `Switchboard.uploadAttachment`: see switchboard.d.ts. */
export async function upload(client, sessionId, file, { onProgress, signal } = {}) {
  let renewed = false;
  for (let attempt = 1; ; attempt++) {
    let error;
    try {
      if (signal?.aborted) throw aborted();
      const answer = await post(client, sessionId, file, await client.freshToken(), onProgress, signal);
      return client.absolute([answer.attachment])[0];
    } catch (caught) {
      error = caught;
    }
    if (error.code === 'aborted' || error.code === 'closed') throw error;
    // A token refused (expired early, revoked): once more with a new one from the provider.
    if (error.status === 401 && !renewed) {
      renewed = true;
      client.token = null;
      continue;
    }
    if (!TRANSIENT.has(error.status) || attempt >= TRIES) throw error;
    await pause(Math.max((error.retryAfter ?? 0) * 1000, backoff(attempt, client.minDelay, client.maxDelay)), signal);
    if (!client.closed && client.state !== 'open') await client.whenOpen();
  }
}

function post(client, sessionId, file, token, onProgress, signal) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const name = encodeURIComponent(file.name || 'file');
    xhr.open('POST', `${client.apiUrl}/api/v1/sessions/${encodeURIComponent(sessionId)}/attachments?filename=${name}`);
    xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    // The gateway takes the type from the bytes; a declared one must agree with them.
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    const total = file.size;
    onProgress?.({ loaded: 0, total });
    xhr.upload.onprogress = (event) => onProgress?.({ loaded: event.loaded, total });
    const abort = () => xhr.abort();
    signal?.addEventListener('abort', abort);
    xhr.onloadend = () => {
      signal?.removeEventListener('abort', abort);
      if (signal?.aborted) return reject(aborted());
      let body = {};
      try {
        body = JSON.parse(xhr.responseText || '{}');
      } catch {
        // a proxy's page, not the gateway's JSON
      }
      if (xhr.status === 201 || xhr.status === 200) {
        onProgress?.({ loaded: total, total });
        return resolve(body);
      }
      const code = BY_STATUS[xhr.status] ?? body.error?.code ?? CODES[xhr.status] ?? (xhr.status ? 'http' : 'disconnected');
      const error = new SwitchboardError(code, body.error?.message ?? (xhr.status ? `HTTP ${xhr.status}` : 'the upload was cut off'));
      error.status = xhr.status;
      const retryAfter = xhr.getResponseHeader('Retry-After');
      if (retryAfter != null && Number.isFinite(Number(retryAfter))) error.retryAfter = Number(retryAfter);
      reject(error);
    };
    xhr.send(file);
  });
}

function aborted() {
  return new SwitchboardError('aborted', 'the upload was cancelled');
}

function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      if (signal?.aborted) reject(aborted());
      else resolve();
    }
  });
}
