"""A loopback TCP proxy in front of the gateway, so a test can cut a browser's connections
without touching the gateway: `cut()` drops every open connection, `down()` also refuses new
ones until `up()`, and `hold()` stops passing the gateway's bytes on (a send reaches the gateway
and is stored, but its ack never reaches the browser)."""
import socket
import threading
import time


class CuttableProxy:
    def __init__(self, target_port):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.pairs = set()
        self.refusing = False
        self.holding = threading.Event()
        self.running = True
        threading.Thread(target=self.accept_loop, daemon=True).start()

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def accept_loop(self):
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            pair = (client, upstream)
            with self.lock:
                self.pairs.add(pair)
            threading.Thread(target=self.pump, args=(client, upstream, pair, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(upstream, client, pair, True), daemon=True).start()

    def pump(self, source, destination, pair, from_gateway):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                while from_gateway and self.holding.is_set() and pair in self.pairs:
                    time.sleep(0.01)
                destination.sendall(data)
        except OSError:
            pass
        self.drop(pair)

    def drop(self, pair):
        with self.lock:
            self.pairs.discard(pair)
        for end in pair:
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def cut(self):
        """Drops every open connection (both ends see a reset or an end of stream)."""
        with self.lock:
            pairs = list(self.pairs)
        for pair in pairs:
            self.drop(pair)
        self.holding.clear()

    def down(self):
        self.refusing = True
        self.cut()

    def up(self):
        self.refusing = False

    def hold(self):
        self.holding.set()

    def close(self):
        self.running = False
        self.down()
        self.listener.close()
