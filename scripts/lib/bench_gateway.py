"""What the benchmark drivers share: a gateway process configured for load
(one event loop on one core, no per-connection rate limit, no compression),
free ports, and a database settled between measurements."""
import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import time

# At nice -5 where allowed, as scripts/bench runs the harness: its own waits for the CPU are not latency.
NICE = ["nice", "-n", "-5"] if os.geteuid() == 0 else []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def settle(database_url):
    """Vacuumed and checkpointed before each measurement: otherwise autovacuum and checkpoints of the
    rows earlier runs left land at random moments inside later runs."""
    for statement in ("VACUUM (ANALYZE) chats, chat_sessions", "CHECKPOINT"):
        subprocess.run(["psql", "-X", "-q", database_url, "-c", statement], check=True, stdout=subprocess.DEVNULL)
    time.sleep(1)


class Gateway:
    """`switchboard serve` pinned to `core` (None: not pinned), `threads` event loops (one by default),
    the harness's rate allowed; `extra` is more TOML (a [cluster] table, say), `server_extra` more keys
    of [server]. Its log is appended to `log`. `port` (default: a free one) lets a restarted gateway take
    its predecessor's place."""

    def __init__(self, bin_dir, database_url, secret, config_path, log, core=0, extra="", port=None, threads=1,
                 grace=2, server_extra=""):
        self.port = port or free_port()
        with open(config_path, "w") as f:
            f.write(f"""
[server]
listen = ["127.0.0.1:{self.port}"]
threads = {threads}
shutdown_grace_s = {grace}
{server_extra}
[websocket.deflate]
enabled = false
[chat]
rate_per_second = 100000
rate_burst = 100000
[auth]
jwt_secret = "{secret}"
[log]
level = "warning"
{extra}
""")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWITCHBOARD_")}
        pin = [] if core is None else ["taskset", "-c", str(core)]
        self.process = subprocess.Popen(
            pin + [os.path.join(bin_dir, "switchboard"), "serve", "--config", config_path,
             "--database-url", database_url], stdout=open(log, "a"), stderr=subprocess.STDOUT, env=env)
        wait_for_port(self.port, 60)

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}/v1/ws"

    def metrics(self):
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as answer:
            return answer.read().decode()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=20)


class CpuSampler:
    """Where a machine's CPU went while a measurement ran: the whole machine's busy cores (from /proc/stat),
    PostgreSQL's (every process named postgres) and the named processes', sampled twice a second. `cores()`
    gives each one's median over the half-second intervals, so a run's steady state, not its set-up or its
    final checks, is what shows."""

    def __init__(self, named=()):
        import threading
        self.named = dict(named)  # label -> command-line substring
        self.samples = []  # (time, {key: ticks}); a key is "machine" or (label, pid)
        self.stopped = threading.Event()
        self.clock = os.sysconf("SC_CLK_TCK")
        self.thread = threading.Thread(target=self.run, daemon=True)

    def sample(self):
        fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
        # Timed with the machine's counters: the scan of every process below can take a while.
        now = time.time()
        seen = {"machine": sum(fields) - fields[3] - fields[4]}  # all but idle and iowait
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                stat = open(f"/proc/{pid}/stat").read()
                ticks = sum(int(v) for v in stat.rsplit(")", 1)[1].split()[11:13])
                if stat[stat.index("(") + 1:stat.rindex(")")] == "postgres":
                    seen[("postgres", pid)] = ticks
                    continue
                command = open(f"/proc/{pid}/cmdline").read().replace("\0", " ")
            except (OSError, ValueError):
                continue
            for label, needle in self.named.items():
                if needle in command:
                    seen[(label, pid)] = ticks
        self.samples.append((now, seen))

    def run(self):
        while not self.stopped.wait(0.5):
            self.sample()

    def __enter__(self):
        self.sample()
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stopped.set()
        self.thread.join()
        self.sample()

    def intervals(self):
        """Per half-second interval: its length in seconds and the CPU-seconds each key used in it,
        for the processes alive at both of its ends."""
        for (t0, before), (t1, after) in zip(self.samples, self.samples[1:]):
            yield t1 - t0, {key: (ticks - before[key]) / self.clock for key, ticks in after.items() if key in before}

    def cores(self):
        """Median busy cores per label over the intervals: machine, postgres, and each named label."""
        rates = {}
        for length, used in self.intervals():
            interval = {}
            for key, seconds in used.items():
                label = key if key == "machine" else key[0]
                interval[label] = interval.get(label, 0) + seconds
            for label in ["machine", "postgres", *self.named]:
                rates.setdefault(label, []).append(interval.get(label, 0) / length)
        return {label: round(sorted(values)[len(values) // 2], 2) for label, values in rates.items() if values}


def run_with_backend_cpu(command, database_url, database):
    """Runs `command`, and returns its output and the CPU-seconds each kind of PostgreSQL backend of
    `database` used meanwhile, by application_name ("switchboard-writer", "switchboard-bus", ...): what
    each party costs the database, measured in the same run, so the noise between runs does not enter."""
    import threading
    names = {}

    def name_backends():
        for _ in range(20):  # every 0.25 s for the first 5 s: the backends connect as the run starts
            time.sleep(0.25)
            answer = subprocess.run(
                ["psql", "-X", "-At", database_url, "-c",
                 f"SELECT pid, application_name FROM pg_stat_activity WHERE datname = '{database}'"],
                capture_output=True, text=True).stdout
            for line in answer.splitlines():
                pid, _, application = line.partition("|")
                names[pid] = application or "other"

    namer = threading.Thread(target=name_backends, daemon=True)
    sampler = CpuSampler()
    with sampler:
        namer.start()
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    namer.join()
    seconds = {}
    for _, used in sampler.intervals():
        for key, value in used.items():
            if key != "machine" and key[0] == "postgres":
                name = names.get(key[1], "other")
                seconds[name] = seconds.get(name, 0) + value
    return output, {name: round(value, 2) for name, value in seconds.items()}


def fanout_report(bin_dir, gateway, secret, database_url, sessions, subscribers, rate, seconds, out, extra=()):
    """The harness's fanout scenario against `gateway`, pinned to core 1 at NICE, with `extra` options; its
    report (fanout.json)."""
    command = NICE + ["taskset", "-c", "1", os.path.join(bin_dir, "loadtest"), "fanout", "--url", gateway.url,
                      "--jwt-secret", secret, "--database-url", database_url,
                      "--gateway-pid", str(gateway.process.pid), "--sessions", str(sessions),
                      "--subscribers", str(subscribers), "--rate", str(rate), "--seconds", str(seconds),
                      "--out", out, *extra]
    subprocess.run(command, capture_output=True, text=True)
    return json.load(open(os.path.join(out, "fanout.json")))


def driver_arguments(numbers):
    """The options every benchmark driver takes (--bin, --database-url, --work, --out, --command) and the whole
    numbers it names; a fresh JWT secret as `secret`; the database migrated."""
    parser = argparse.ArgumentParser()
    for name in ("bin", "database-url", "work", "out", "command"):
        parser.add_argument(f"--{name}", required=True)
    for name in numbers:
        parser.add_argument(f"--{name}", type=int, required=True)
    args = parser.parse_args()
    args.secret = secrets.token_hex(24)
    subprocess.run([os.path.join(args.bin, "switchboard"), "migrate", "up", "--database-url", args.database_url],
                   check=True, stdout=subprocess.DEVNULL)
    return args
