"""A chat participant for cluster tests: one connection, a reader thread, and the bookkeeping to check order."""
import json
import threading
import time
import uuid

from websockets.sync.client import connect


class Participant:
    def __init__(self, node, role, sub):
        self.node, self.role, self.sub = node, role, sub
        self.lock = threading.Condition()
        self.seqs = {}          # session id -> [seq, ...] in arrival order (replay and live)
        self.messages = []      # every message frame, in arrival order
        self.acks = {}          # client_msg_id -> seq
        self.errors = []        # error frames
        self.events = []        # every other frame
        self.replies = {}       # ref -> frame
        self.refs = 0
        self.closed = None
        self.connect(node)

    def connect(self, node):
        self.node = node
        self.ws = connect(node.ws, open_timeout=10, max_size=None)
        self.closed = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.request({"type": "hello", "token": node.token(self.role, self.sub)}, expect="welcome")

    def _read(self):
        ws = self.ws
        try:
            for text in ws:
                frame = json.loads(text)
                with self.lock:
                    kind = frame.get("type")
                    if kind == "message":
                        self.seqs.setdefault(frame["session_id"], []).append(frame["seq"])
                        self.messages.append(frame)
                    elif kind == "ack":
                        self.acks[frame["client_msg_id"]] = frame["seq"]
                    elif kind == "error":
                        self.errors.append(frame)
                    else:
                        self.events.append(frame)
                    if "ref" in frame:
                        self.replies[frame["ref"]] = frame
                    self.lock.notify_all()
        except Exception as error:  # the connection ended: recorded, the test decides
            with self.lock:
                self.closed = error
                self.lock.notify_all()
        else:
            with self.lock:
                self.closed = "closed"
                self.lock.notify_all()

    def send_frame(self, frame):
        self.refs += 1
        ref = f"r{self.refs}"
        self.ws.send(json.dumps({**frame, "ref": ref}))
        return ref

    def request(self, frame, expect=None, timeout=10):
        ref = self.send_frame(frame)
        deadline = time.time() + timeout
        with self.lock:
            while True:
                reply = self.replies.get(ref)
                if reply is None and expect:
                    reply = next((e for e in self.events if e.get("type") == expect), None)
                if reply is not None:
                    assert reply.get("type") != "error", reply
                    return reply
                remaining = deadline - time.time()
                assert remaining > 0, f"no answer to {frame['type']} from {self.node.name}"
                self.lock.wait(remaining)

    def create_session(self):
        return self.request({"type": "session.create", "title": "cluster test"})["session"]["id"]

    def join(self, session_id, since=None):
        frame = {"type": "join", "session_id": session_id}
        if since is not None:
            frame["since_seq"] = since
        return self.request(frame)

    def send(self, session_id, body, client_msg_id=None):
        client_msg_id = client_msg_id or str(uuid.uuid4())
        self.send_frame({"type": "send", "session_id": session_id, "client_msg_id": client_msg_id,
                         "body": body, "kind": "text"})
        return client_msg_id

    def wait_for(self, predicate, timeout=30, what="condition"):
        deadline = time.time() + timeout
        with self.lock:
            while not predicate():
                remaining = deadline - time.time()
                assert remaining > 0, f"{self.sub} on {self.node.name}: timed out waiting for {what}"
                self.lock.wait(remaining)

    def received(self, session_id):
        with self.lock:
            return list(self.seqs.get(session_id, []))

    def last_seq(self, session_id):
        seqs = self.received(session_id)
        return seqs[-1] if seqs else 0

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass


def assert_in_order_once(seqs, total, who):
    """Every seq 1..total, each once, in increasing order."""
    duplicates = len(seqs) - len(set(seqs))
    assert duplicates == 0, f"{who}: {duplicates} duplicates"
    assert seqs == sorted(seqs), f"{who}: out of order around {next(i for i in range(1, len(seqs)) if seqs[i] < seqs[i - 1])}"
    missing = sorted(set(range(1, total + 1)) - set(seqs))
    assert not missing, f"{who}: {len(missing)} missing, first {missing[:10]}"
