"""The least WebSocket client that can chat, for the test drivers (chaos, soak):
the RFC 6455 handshake, masked text frames out, what comes back read and
discarded (the drivers judge by the harness and /metrics, not by frames)."""
import base64
import json
import os
import socket


class RawWebSocket:
    def __init__(self, port, token, receive_buffer=None, path="/v1/ws"):
        self.socket = socket.socket()
        if receive_buffer:
            # Before connect, so the window the gateway sees stays small (a slow consumer).
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.socket.settimeout(5)
        self.socket.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.socket.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                             "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = self.socket.recv(4096)
            if not chunk:
                raise OSError("the gateway closed the connection during the handshake")
            answer += chunk
        status = answer.split(b"\r\n")[0]
        if b" 101 " not in status:
            raise OSError(f"handshake refused: {status!r}")
        self.leftover = answer[answer.index(b"\r\n\r\n") + 4:]
        self.send({"type": "hello", "token": token})

    def send(self, frame):
        payload = json.dumps(frame).encode()
        mask = os.urandom(4)
        if len(payload) < 126:
            length = bytes([0x80 | len(payload)])
        else:
            length = bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
        self.socket.sendall(bytes([0x81]) + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive_until(self, marker, timeout=5):
        """Bytes received until `marker` appears (or the peer closes, or `timeout`)."""
        self.socket.settimeout(timeout)
        data = self.leftover
        while marker not in data:
            chunk = self.socket.recv(65536)
            if not chunk:
                break
            data += chunk
        return data

    def drain(self):
        """Reads and drops whatever has arrived, without waiting."""
        self.socket.setblocking(False)
        try:
            while self.socket.recv(65536):
                pass
        except OSError:
            pass
        self.socket.setblocking(True)

    def closed_by_peer(self, timeout=5):
        """True once the gateway has closed the connection (reading what is left to its end)."""
        self.socket.settimeout(timeout)
        try:
            while self.socket.recv(65536):
                pass
            return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False
        finally:
            self.socket.close()

    def close(self):
        self.socket.close()
