"""A webhook receiver for the browser tests: an HTTP server on 127.0.0.1 that keeps every request it gets and
answers what the test tells it (`status`, `body`), and a check of Standard Webhooks signatures with a secret
as the console showed it (docs/protocol.md, "Webhooks")."""
import base64
import hashlib
import hmac
import http.server
import threading


class Receiver:
    def __init__(self, status=200, body=b"ok"):
        self.status = status
        self.body = body
        self.requests = []  # (headers as a dict with lower-case names, body bytes), in arrival order
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the dispatcher uses it

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver.lock:
                    receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    status, answer = receiver.status, receiver.body
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/switchboard"

    def answer(self, status, body):
        with self.lock:
            self.status, self.body = status, body

    def received(self):
        with self.lock:
            return list(self.requests)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def signed_with(secret, headers, body):
    """True when one of the `v1,` signatures in webhook-signature is HMAC-SHA256 of "id.timestamp.body" under the
    secret's decoded bytes (a rotation's overlap carries two, space-separated)."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    given = [part.split(",", 1)[1] for part in headers["webhook-signature"].split() if part.startswith("v1,")]
    return any(hmac.compare_digest(expected, signature) for signature in given)
