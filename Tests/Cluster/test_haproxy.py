"""Two gateway nodes behind haproxy (config/haproxy.cfg): a node stopped mid-run loses nothing.

The release `loadtest` drives a `conversations` run through haproxy; six seconds in, node 1 gets SIGTERM,
closes its WebSockets with 1001 and exits. Its clients reconnect through haproxy to node 2, rejoin with
since_seq and re-send what was not acked, and every check of the harness must still pass: no gap, no
duplicate, every send answered, every ack stored. Run by scripts/test-cluster, which provides
SWITCHBOARD_BIN, SWITCHBOARD_DATABASE_URL and SWITCHBOARD_LOADTEST.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
import uuid

import pytest

from conftest import OUT, SECRET, Node, free_port, psql, wait_for_port

CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "config", "haproxy.cfg")
# Sent 6 s after the harness starts: past its set-up and warm-up, well before its 20 s of traffic end.
STOP_AFTER_S = 6
LOADTEST_TIMEOUT_S = 60


def required(name, what):
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} ({what}) is required: run scripts/test-cluster")
    return value


class Haproxy:
    """haproxy in the foreground on a copy of config/haproxy.cfg with this test's ports."""

    def __init__(self, work, nodes):
        self.binary = shutil.which("haproxy")
        if not self.binary:
            pytest.fail("haproxy is not installed: run scripts/test-cluster, which installs it")
        self.port = free_port()
        self.log = os.path.join(work, "haproxy.log")
        self.config = os.path.join(work, "haproxy.cfg")
        with open(CONFIG) as f:
            text = f.read()
        # The committed file stays readable documentation; the test's copy takes its free ports.
        ports = {"8000": self.port, "8081": nodes[0].port, "8082": nodes[1].port}
        text, replaced = re.subn(r"127\.0\.0\.1:(8000|8081|8082)\b",
                                 lambda m: f"127.0.0.1:{ports[m.group(1)]}", text)
        assert replaced == 3, f"config/haproxy.cfg no longer names 8000, 8081 and 8082 once each ({replaced})"
        with open(self.config, "w") as f:
            f.write(text)
        self.process = None

    def start(self):
        log = open(self.log, "a")
        self.process = subprocess.Popen([self.binary, "-db", "-f", self.config], stdout=log, stderr=log)
        wait_for_port(self.port, self.process, self.log)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def wait_until_serving(haproxy, seconds=10):
    """haproxy reaches a ready node (GET /readyz through it) before the run starts."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{haproxy.port}/readyz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"haproxy does not reach a ready node after {seconds} s: see {haproxy.log}")


def test_a_node_stopped_behind_haproxy_loses_nothing(tmp_path):
    binary = required("SWITCHBOARD_BIN", "the release switchboard")
    admin = required("SWITCHBOARD_DATABASE_URL", "an admin URL")
    loadtest = required("SWITCHBOARD_LOADTEST", "the release loadtest")
    work = str(tmp_path)
    name = "sb_haproxy_" + uuid.uuid4().hex[:12]
    psql(admin, f"CREATE DATABASE {name}")
    url = admin.rsplit("/", 1)[0] + "/" + name
    nodes, haproxy, harness = [], None, None
    try:
        subprocess.run([binary, "migrate", "up", "--database-url", url], check=True, stdout=subprocess.DEVNULL)
        nodes = [Node(binary, url, work, f"node{i + 1}", "postgres") for i in range(2)]
        for node in nodes:
            node.start()
        for node in nodes:
            node.wait_bus()
        # PostgreSQL buses count the nodes listening once a second and tell nobody before (as conftest's cluster).
        time.sleep(1.2)
        haproxy = Haproxy(work, nodes)
        haproxy.start()
        wait_until_serving(haproxy)

        report_dir = os.path.join(work, "report")
        output = open(os.path.join(work, "loadtest.out"), "w+")
        started = time.time()
        harness = subprocess.Popen(
            [loadtest, "conversations", "--url", f"ws://127.0.0.1:{haproxy.port}/v1/ws", "--jwt-secret", SECRET,
             "--database-url", url, "--sessions", "50", "--operators", "2", "--rate", "300", "--seconds", "20",
             "--out", report_dir],
            stdout=output, stderr=subprocess.STDOUT)
        time.sleep(STOP_AFTER_S)
        assert harness.poll() is None, "loadtest ended before node 1 was stopped"
        nodes[0].process.send_signal(signal.SIGTERM)
        # shutdown_grace_s is 2: the node is gone well within this.
        assert nodes[0].process.wait(timeout=15) == 0, f"node 1 did not stop cleanly: see {nodes[0].log}"
        nodes[0].process = None
        code = harness.wait(timeout=LOADTEST_TIMEOUT_S)
        elapsed = time.time() - started
        output.seek(0)
        text = output.read()
        assert code == 0, f"loadtest exited {code}:\n{text}"

        with open(os.path.join(report_dir, "conversations.json")) as f:
            report = json.load(f)
        figures = {key: figure["value"] for key, figure in report["figures"].items()}
        correctness = report["correctness"]
        print(f"\nhaproxy run: {elapsed:.1f} s; sent {figures['sent']:.0f}, acked {figures['acked']:.0f}, "
              f"deliveries {figures['deliveries']:.0f}, reconnections {figures.get('reconnections_after_close')}, "
              f"re-sent {figures.get('resent_after_reconnect')}, verified in database "
              f"{correctness['verified_in_database']}; notes: {report['notes']}")
        assert report["passed"] and correctness["failures"] == 0, text
        assert figures.get("reconnections_after_close", 0) > 0, f"no reconnection: was node 1 serving anyone?\n{text}"
        for check in ("gaps", "duplicates", "reorders", "lost_acks", "unanswered", "unexpected_closes"):
            assert correctness[check] == 0, f"{check}: {correctness[check]}\n{text}"
        assert correctness["database_checked"] and correctness["verified_in_database"] == figures["acked"]
        assert figures["acked"] == figures["sent"] > 0
        # Every message reached the visitor and both operators of its session: three deliveries each.
        assert figures["deliveries"] == 3 * figures["sent"]
    finally:
        if harness and harness.poll() is None:
            harness.kill()
            harness.wait()
        if haproxy:
            haproxy.stop()
        for node in nodes:
            node.stop()
        os.makedirs(OUT, exist_ok=True)
        for path in [n.log for n in nodes] + ([haproxy.log] if haproxy else []):
            if os.path.exists(path):
                shutil.copy(path, os.path.join(OUT, f"haproxy-{os.path.basename(path)}"))
        report = os.path.join(work, "report", "conversations.json")
        if os.path.exists(report):
            shutil.copy(report, os.path.join(OUT, "haproxy-conversations.json"))
        psql(admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
