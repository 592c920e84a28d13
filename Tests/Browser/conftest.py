"""Browser tests: a real release gateway on a real PostgreSQL, driven in headless Chromium.

Run by scripts/test-browser (and scripts/test), which provide SWITCHBOARD_BIN (the
release binary) and SWITCHBOARD_DATABASE_URL (an admin URL of a throwaway server).
Each run gets its own database. Screenshots go to .build-test/browser/, and with
SB_UPDATE_SCREENSHOTS=1 also to docs/images/.
"""
import functools
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
import uuid

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, ".build-test", "browser")
SECRET = "browser-test-secret-at-least-32-bytes!"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(url, sql):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True,
                   stdout=subprocess.DEVNULL)


def psql_value(url, sql):
    """The first column of the first row, as text."""
    result = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True,
                            capture_output=True, text=True)
    return result.stdout.strip()


class Gateway:
    """One `switchboard serve` on a free port, restartable on the same port and database."""

    def __init__(self, binary, database_url, work, routing_mode="manual", extra_config=""):
        # A copy, run from elsewhere than the repository: the clients it serves are in the binary.
        self.work = work
        self.binary = os.path.join(work, "switchboard")
        shutil.copy(binary, self.binary)
        self.database_url = database_url
        self.port = free_port()
        self.config = os.path.join(work, "gateway.toml")
        self.log = os.path.join(work, "gateway.log")
        # Small, so that a join past it (paged over HTTP by the SDK) is easy to reach.
        self.replay_limit = 20
        with open(self.config, "w") as f:
            f.write(f"""
[server]
listen = ["127.0.0.1:{self.port}"]
threads = 2
shutdown_grace_s = 1
[websocket]
allowed_origins = ["http://127.0.0.1:*"]
[chat]
replay_limit = {self.replay_limit}
[auth]
jwt_secret = "{SECRET}"
dev_tokens = true
[routing]
mode = "{routing_mode}"
[log]
level = "warning"
{extra_config}""")
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
            stdout=log, stderr=log, env=env, cwd=self.work)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the gateway exited: see {self.log}")
                time.sleep(0.05)
        raise RuntimeError("the gateway did not start listening within 30 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self, down_seconds=1.0):
        self.stop()
        time.sleep(down_seconds)
        self.start()

    def token(self, role, name=None, sub=None, ttl=None, workspace_id=None):
        body = {"role": role}
        if workspace_id:
            body["workspace_id"] = workspace_id
        if name:
            body["name"] = name
        if sub:
            body["sub"] = sub
        if ttl:
            body["ttl_s"] = ttl
        request = urllib.request.Request(f"{self.base}/dev/token", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def sql(self, statement):
        psql(self.database_url, statement)

    def value(self, query):
        return psql_value(self.database_url, query)

    def stored_bodies(self, session_id):
        """The bodies stored for a session, in seq order (one line each)."""
        text = self.value(f"SELECT string_agg(content, E'\\n' ORDER BY seq) FROM chats WHERE session_id = '{session_id}'")
        return text.split("\n") if text else []


def run_gateway(tmp_path_factory, routing_mode, log_name, extra_config=""):
    """A gateway on a database of its own, for the whole run; its log kept in .build-test/browser/."""
    binary = os.environ.get("SWITCHBOARD_BIN")
    admin = os.environ.get("SWITCHBOARD_DATABASE_URL")
    if not binary or not admin:
        pytest.fail("SWITCHBOARD_BIN and SWITCHBOARD_DATABASE_URL are required: run scripts/test-browser")
    name = "sb_browser_" + uuid.uuid4().hex[:12]
    psql(admin, f"CREATE DATABASE {name}")
    url = admin.rsplit("/", 1)[0] + "/" + name
    subprocess.run([binary, "migrate", "up", "--database-url", url], check=True, stdout=subprocess.DEVNULL)
    os.makedirs(OUT, exist_ok=True)
    gw = Gateway(binary, url, str(tmp_path_factory.mktemp("gateway")), routing_mode, extra_config)
    gw.start()
    yield gw
    gw.stop()
    shutil.copy(gw.log, os.path.join(OUT, log_name))
    psql(admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def gateway(tmp_path_factory):
    """The gateway most tests share. Routing is `manual` on it: those tests are about the inbox run by hand
    (Assign to me, taking over, unassigning), which manual mode keeps as it was, and their consoles all sign
    in to one workspace, where automatic assignment would hand each conversation to whoever signed in last."""
    yield from run_gateway(tmp_path_factory, "manual", "gateway.log")


@pytest.fixture(scope="session")
def routing_gateway(tmp_path_factory):
    """A gateway with automatic assignment (`least_busy`, the default), for Tests/Browser/test_routing.py,
    whose tests each take a workspace of their own."""
    yield from run_gateway(tmp_path_factory, "least_busy", "gateway-routing.log")


@pytest.fixture(scope="session")
def webhook_gateway(tmp_path_factory):
    """A gateway whose webhooks may call the tests' own receivers on 127.0.0.1 (allow_private_targets) and retry
    ten times sooner (after 0.5 s, then 30 s, ...), for Tests/Browser/test_webhooks.py. The shared gateway keeps
    the defaults: it refuses such targets, as a production gateway does."""
    yield from run_gateway(tmp_path_factory, "manual", "gateway-webhooks.log", """
[webhooks]
allow_private_targets = true
retry_divisor = 10
poll_interval_ms = 200
""")


class HostPages:
    """Pages of a site that embeds the widget, served from another origin than the gateway's."""

    def __init__(self, root):
        self.root = root
        handler = functools.partial(QuietHandler, directory=root)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add(self, name, html):
        with open(os.path.join(self.root, name), "w") as f:
            f.write(html)
        return f"http://127.0.0.1:{self.server.server_address[1]}/{name}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def host_pages(tmp_path):
    pages = HostPages(str(tmp_path))
    yield pages
    pages.close()


@pytest.fixture(scope="session")
def figures():
    """Figures the tests measure (budgets, timings), written to .build-test/browser/figures.json."""
    measured = {}
    yield measured
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "figures.json"), "w") as f:
        json.dump(measured, f, indent=2, sort_keys=True)


def chrome(width=1280, height=800):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("SB_CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--enable-precise-memory-info", "--js-flags=--expose-gc", "--lang=en-US"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("SB_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


@pytest.fixture
def browsers():
    """A factory of Chromium windows, each closed at the end of the test."""
    opened = []

    def make(width=1280, height=800):
        driver = chrome(width, height)
        driver.set_script_timeout(30)
        # Headless windows keep a desktop minimum width; a phone's viewport is emulated instead.
        if width < 600:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
        opened.append(driver)
        return driver

    yield make
    problems = []
    for driver in opened:
        # A policy violation (an inline script, a foreign origin) or an unhandled error is a defect.
        problems += [entry["message"] for entry in driver.get_log("browser")
                     if "Content Security Policy" in entry["message"] or "Uncaught" in entry["message"]]
        driver.quit()
    assert not problems, f"the browser console reported: {problems}"


def screenshot(driver, name):
    """Saved for the run's report, and for the README when SB_UPDATE_SCREENSHOTS=1."""
    os.makedirs(OUT, exist_ok=True)
    driver.save_screenshot(os.path.join(OUT, name))
    if os.environ.get("SB_UPDATE_SCREENSHOTS") == "1":
        images = os.path.join(ROOT, "docs", "images")
        os.makedirs(images, exist_ok=True)
        driver.save_screenshot(os.path.join(images, name))
