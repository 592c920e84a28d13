"""Gateway clusters for the cluster tests: N `switchboard serve` processes on one PostgreSQL.

Run by scripts/test-cluster, which provides SWITCHBOARD_BIN, SWITCHBOARD_DATABASE_URL (an admin URL on a
throwaway server this suite may restart through SB_PG_RESTART) and, for the NATS bus, SB_NATS_SERVER.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
import uuid

import pytest

SECRET = "cluster-test-secret-0123456789-abcdef"
OUT = os.path.join(os.path.dirname(__file__), "..", "..", ".build-test", "cluster")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(url, sql):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True,
                   stdout=subprocess.DEVNULL)


def psql_value(url, query):
    return subprocess.run(["psql", "-X", "-At", url, "-c", query], check=True, capture_output=True,
                          text=True).stdout.strip()


def wait_for_port(port, process=None, log=None, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"exited early: see {log}")
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {seconds} s")


class Node:
    """One gateway node; restartable on its port."""

    def __init__(self, binary, database_url, work, name, bus, nats_url=None):
        self.binary, self.database_url, self.name, self.bus = binary, database_url, name, bus
        self.port = free_port()
        self.log = os.path.join(work, f"{name}.log")
        self.config = os.path.join(work, f"{name}.toml")
        nats = f'nats_url = "{nats_url}"' if nats_url else ""
        with open(self.config, "w") as f:
            f.write(f"""
[server]
listen = ["127.0.0.1:{self.port}"]
threads = 1
shutdown_grace_s = 2
[chat]
rate_per_second = 100000
rate_burst = 100000
# A rejoin after a killed node replays everything it missed (no HTTP paging in these tests).
replay_limit = 5000
[cluster]
bus = "{bus}"
node_id = "{name}"
{nats}
[auth]
jwt_secret = "{SECRET}"
dev_tokens = true
[log]
level = "info"
""")
        self.process = None

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self):
        return f"ws://127.0.0.1:{self.port}/v1/ws"

    def start(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWITCHBOARD_")}
        log = open(self.log, "a")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--config", self.config, "--database-url", self.database_url],
            stdout=log, stderr=log, env=env)
        wait_for_port(self.port, self.process, self.log)
        return self

    def kill(self):
        """SIGKILL: no goodbye to anyone."""
        self.process.kill()
        self.process.wait()
        self.process = None

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=10) as response:
            body = response.read().decode()
            return json.loads(body) if path != "/metrics" else body

    def token(self, role, sub, name=None):
        body = {"role": role, "sub": sub, "name": name or sub}
        request = urllib.request.Request(f"{self.base}/dev/token", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)["token"]

    def wait_bus(self, state="connected", seconds=20):
        deadline = time.time() + seconds
        ready = None
        while time.time() < deadline:
            try:
                ready = self.get("/readyz")
                if ready.get("bus_state") == state:
                    return ready
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"{self.name}: bus not {state} after {seconds} s: {ready}")


class NatsServer:
    def __init__(self, work):
        self.binary = os.environ.get("SB_NATS_SERVER") or shutil.which("nats-server")
        self.port = free_port()
        self.log = os.path.join(work, "nats.log")
        self.process = None

    @property
    def url(self):
        return f"nats://127.0.0.1:{self.port}"

    def start(self):
        log = open(self.log, "a")
        self.process = subprocess.Popen([self.binary, "-a", "127.0.0.1", "-p", str(self.port)], stdout=log,
                                        stderr=log)
        wait_for_port(self.port, self.process, self.log)

    def kill(self):
        self.process.kill()
        self.process.wait()


class Cluster:
    def __init__(self, nodes, database_url, nats=None):
        self.nodes, self.database_url, self.nats = nodes, database_url, nats

    def value(self, query):
        return psql_value(self.database_url, query)


def restart_postgres(down_seconds=1.0):
    command = os.environ.get("SB_PG_RESTART")
    if not command:
        pytest.skip("SB_PG_RESTART is not set: run scripts/test-cluster")
    subprocess.run(["bash", "-c", command, "restart", str(down_seconds)], check=True)


@pytest.fixture(params=["postgres", "nats"])
def cluster(request, tmp_path):
    bus = request.param
    binary = os.environ.get("SWITCHBOARD_BIN")
    admin = os.environ.get("SWITCHBOARD_DATABASE_URL")
    if not binary or not admin:
        pytest.fail("SWITCHBOARD_BIN and SWITCHBOARD_DATABASE_URL are required: run scripts/test-cluster")
    nats = None
    if bus == "nats":
        if not (os.environ.get("SB_NATS_SERVER") or shutil.which("nats-server")):
            pytest.fail("nats-server is not installed: run scripts/test-cluster, which installs it")
        nats = NatsServer(str(tmp_path))
        nats.start()
    name = "sb_cluster_" + uuid.uuid4().hex[:12]
    psql(admin, f"CREATE DATABASE {name}")
    url = admin.rsplit("/", 1)[0] + "/" + name
    subprocess.run([binary, "migrate", "up", "--database-url", url], check=True, stdout=subprocess.DEVNULL)
    nodes = [Node(binary, url, str(tmp_path), f"node{i + 1}", bus, nats.url if nats else None) for i in range(3)]
    for node in nodes:
        node.start()
    for node in nodes:
        node.wait_bus()
    # PostgreSQL buses count the nodes listening once a second and tell nobody before.
    time.sleep(1.2)
    yield Cluster(nodes, url, nats)
    for node in nodes:
        node.stop()
    if nats and nats.process:
        nats.kill()
    os.makedirs(OUT, exist_ok=True)
    for node in nodes:
        shutil.copy(node.log, os.path.join(OUT, f"{request.node.name}-{node.name}.log"))
    psql(admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
