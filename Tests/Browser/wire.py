"""A plain protocol client (Python websockets) for the side of a conversation that is not under test."""
import base64
import hashlib
import hmac
import json
import time

from websockets.sync.client import connect


class WireClient:
    # The gateway allows a connection 20 frames a second (more is rate_limited): keep under it.
    MIN_INTERVAL_S = 0.055

    def __init__(self, gateway, token):
        self.ws = connect(gateway.ws, origin=gateway.base, open_timeout=10)
        self.refs = 0
        self.last_sent = 0.0
        self.request({"type": "hello", "token": token}, answer="welcome")

    def request(self, frame, answer=None):
        """Sends `frame` with a fresh ref; returns the reply to it (frames for others are skipped)."""
        self.refs += 1
        ref = f"w{self.refs}"
        time.sleep(max(0.0, self.last_sent + self.MIN_INTERVAL_S - time.monotonic()))
        self.last_sent = time.monotonic()
        self.ws.send(json.dumps({**frame, "ref": ref}))
        while True:
            reply = json.loads(self.ws.recv(timeout=10))
            if reply.get("ref") == ref or (answer and reply["type"] == answer):
                assert reply["type"] != "error", reply
                return reply

    def create_session(self, title):
        return self.request({"type": "session.create", "title": title})["session"]["id"]

    def join(self, session_id):
        return self.request({"type": "join", "session_id": session_id})

    def send(self, session_id, body):
        return self.request({"type": "send", "session_id": session_id, "client_msg_id": f"wire-{time.time_ns()}",
                             "body": body})

    def close(self):
        self.ws.close()


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def mint(secret, claims):
    """An HS256 token with the given claims (to test expiry and bad signatures, which /dev/token never makes)."""
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).rstrip(b"=").decode()
    signing_input = part({"alg": "HS256", "typ": "JWT"}) + "." + part(claims)
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()
