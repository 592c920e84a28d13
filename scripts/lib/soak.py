#!/usr/bin/env python3
"""The driver of scripts/soak: mixed traffic for a long time, and a verdict on
whether anything grows that should not.

Traffic, all at once for the whole run:
  - the load harness's `conversations` scenario in back-to-back rounds of
    --round seconds: every round connects its clients, creates sessions, joins,
    sends (every message checked) and disconnects: joins, leaves and reconnects;
  - churn clients (raw WebSocket): connect, hello, join a session, send
    `typing` on and off, `read`, `leave`, close; over and over;
  - HTTP API calls: the inbox, a session's messages, PATCH of a title.

Every --sample seconds: the gateway's RSS and open descriptors (/proc), the
writer's queue depth and the p99 of `switchboard_send_stage_seconds{stage="total"}`
over the interval (/metrics). After the first quarter of the run (warm-up:
allocator pools, caches), a straight line is fitted to each series; the run
fails when its slope is above the bound below, or when a harness round finds a
correctness failure.

    soak.py --bin DIR --database-url URL --work DIR --out DIR --minutes M
"""
import argparse
import html
import json
import os
import secrets
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchmarks_md  # noqa: E402
import send_stages  # noqa: E402
from bench_gateway import Gateway  # noqa: E402
from raw_websocket import RawWebSocket  # noqa: E402

# Largest slope, per minute, that counts as flat. RSS: 1 MiB a minute would be
# 1.4 GiB a day; descriptors: one a minute; queue depth: 50 commands a minute
# (it is 0 when the writer keeps up); p99: 0.5 ms a minute.
BOUNDS = {"rss_kib": 1024.0, "fds": 1.0, "queue_depth": 50.0, "p99_ms": 0.5}
# Growth over the measured part of the run that is never a failure (it decides
# only for short runs: over the 22 measured minutes of a 30-minute run, each
# is below its per-minute bound).
FLOORS = {"rss_kib": 8192.0, "fds": 20.0, "queue_depth": 200.0, "p99_ms": 10.0}
# Runs this long or longer are written to docs/benchmarks.md ("Soak"); shorter ones are checks.
RECORDED_MINUTES = 30
LABELS = {"rss_kib": "RSS (KiB)", "fds": "open descriptors", "queue_depth": "writer queue depth",
          "p99_ms": "p99 receipt to ack (ms)"}


def log(text):
    print(f"[{time.strftime('%H:%M:%S')} soak] {text}", file=sys.stderr, flush=True)


def http(port, method, path, token=None, body=None, timeout=5):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode())
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError as error:
        return None, str(error)


class Soak:
    def __init__(self, args):
        self.args = args
        self.secret = secrets.token_hex(24)
        self.workspace = str(uuid.uuid4())
        self.stop = threading.Event()
        self.rounds = []
        self.samples = []
        self.churn = {"cycles": 0, "errors": 0}
        self.api = {"calls": 0, "errors": 0}
        self.gateway = None
        self.failures = []

    def token(self, role, sub):
        return subprocess.run(
            [os.path.join(self.args.bin, "switchboard"), "token", "--role", role, "--workspace", self.workspace,
             "--sub", sub, "--ttl", str(int(self.args.minutes * 60) + 600), "--config",
             os.path.join(self.args.work, "gateway.toml")], check=True, capture_output=True, text=True).stdout.strip()

    def harness_rounds(self):
        index = 0
        while not self.stop.is_set():
            index += 1
            out = os.path.join(self.args.out, f"round-{index}")
            command = [os.path.join(self.args.bin, "loadtest"), "conversations", "--url", self.gateway.url,
                       "--jwt-secret", self.secret, "--database-url", self.args.database_url,
                       "--workspace", self.workspace, "--sessions", str(self.args.sessions), "--operators", "2",
                       "--rate", str(self.args.rate), "--seconds", str(self.args.round), "--drain", "20",
                       "--out", out]
            run = subprocess.run(command, capture_output=True, text=True)
            try:
                report = json.load(open(os.path.join(out, "conversations.json")))
                correctness = report.get("correctness", {})
                acked = report.get("figures", {}).get("acked", {}).get("value", 0)
            except (OSError, ValueError):
                correctness = {"failures": 1, "note": "no report"}
                acked = 0
            self.rounds.append({"round": index, "exit": run.returncode, "correctness": correctness, "acked": acked})
            if run.returncode != 0:
                log(f"round {index}: harness exit {run.returncode}: {json.dumps(correctness)}")

    def churn_clients(self):
        visitor_token = self.token("visitor", "soak-churn")
        operator_token = self.token("operator", "soak-operator")
        sessions = []
        while not self.stop.is_set():
            try:
                if len(sessions) < 20:
                    client = RawWebSocket(self.gateway.port, visitor_token)
                    client.send({"type": "session.create", "title": "soak"})
                    data = client.receive_until(b'"type":"session"')
                    marker = data.find(b'"id":"', data.find(b'"type":"session"'))
                    if marker >= 0:
                        sessions.append(data[marker + 6:marker + 42].decode())
                    client.close()
                session = sessions[self.churn["cycles"] % len(sessions)] if sessions else None
                client = RawWebSocket(self.gateway.port, operator_token)
                if session:
                    client.send({"type": "join", "session_id": session})
                    client.send({"type": "typing", "session_id": session, "state": True})
                    client.send({"type": "typing", "session_id": session, "state": False})
                    client.send({"type": "read", "session_id": session, "seq": 0})
                    client.send({"type": "leave", "session_id": session})
                client.send({"type": "ping"})
                time.sleep(0.05)
                client.drain()
                client.close()
                self.churn["cycles"] += 1
            except OSError:
                self.churn["errors"] += 1
                time.sleep(0.2)
            time.sleep(0.02)

    def api_calls(self):
        token = self.token("operator", "soak-api")
        while not self.stop.is_set():
            status, body = http(self.gateway.port, "GET", "/api/v1/admin/live-chat/conversations?limit=20", token)
            self.api["calls"] += 1
            if status != 200:
                self.api["errors"] += 1
            else:
                try:
                    listed = json.loads(body).get("sessions") or json.loads(body).get("conversations") or []
                except ValueError:
                    listed = []
                for session in listed[:2]:
                    sid = session.get("id")
                    for method, path, payload in (("GET", f"/api/v1/sessions/{sid}/messages?limit=50", None),
                                                  ("PATCH", f"/api/v1/sessions/{sid}", {"title": "soak checked"})):
                        status, _ = http(self.gateway.port, method, path, token, payload)
                        self.api["calls"] += 1
                        if status not in (200, 404):
                            self.api["errors"] += 1
            time.sleep(0.25)

    def guarded(self, work):
        """A worker that dies says so and fails the run, instead of leaving its traffic out quietly."""
        try:
            work()
        except Exception as error:  # noqa: BLE001 (any failure of a worker is the run's)
            self.failures.append(f"{work.__name__} stopped: {error!r}")
            log(f"{work.__name__} stopped: {error!r}")

    def sample(self, started, previous_metrics):
        pid = self.gateway.process.pid
        rss = 0
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        metrics_path = os.path.join(self.args.work, "metrics-now.txt")
        status, text = http(self.gateway.port, "GET", "/metrics")
        open(metrics_path, "w").write(text if status == 200 else "")
        depth = 0.0
        for line in text.splitlines():
            if line.startswith("switchboard_writer_queue_depth "):
                depth = float(line.split()[1])
        p99 = None
        if previous_metrics:
            p99 = send_stages.stages(previous_metrics, metrics_path)["total"]["p99_ms"]
        kept = os.path.join(self.args.work, "metrics-previous.txt")
        os.replace(metrics_path, kept)
        self.samples.append({"t_min": round((time.time() - started) / 60, 3), "rss_kib": rss, "fds": fds,
                             "queue_depth": depth, "p99_ms": p99})
        return kept

    def run(self):
        args = self.args
        self.gateway = Gateway(args.bin, args.database_url, self.secret, os.path.join(args.work, "gateway.toml"),
                               os.path.join(args.out, "gateway.log"), core=None, threads=2)
        workers = [threading.Thread(target=self.guarded, args=(f,), daemon=True)
                   for f in (self.harness_rounds, self.churn_clients, self.api_calls)]
        for worker in workers:
            worker.start()
        started = time.time()
        previous = None
        end = started + args.minutes * 60
        while time.time() < end:
            time.sleep(args.sample)
            previous = self.sample(started, previous)
            last = self.samples[-1]
            if len(self.samples) % max(1, int(60 / args.sample)) == 0:
                log(f"{last['t_min']:.1f} min: RSS {last['rss_kib']:,} KiB, {last['fds']} fds, queue "
                    f"{last['queue_depth']:.0f}, p99 {last['p99_ms']} ms; rounds {len(self.rounds)}, churn "
                    f"{self.churn['cycles']}, API calls {self.api['calls']}")
        self.stop.set()
        for worker in workers:
            worker.join(timeout=args.round + 120)
        self.gateway.stop()


def slope(points):
    """Least-squares slope of (x, y) points, or 0 for fewer than 3."""
    points = [(x, y) for x, y in points if y is not None]
    if len(points) < 3:
        return 0.0
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((x - mean_x) ** 2 for x, _ in points)
    return 0.0 if var == 0 else sum((x - mean_x) * (y - mean_y) for x, y in points) / var


def verdict(soak):
    samples = soak.samples
    kept = samples[len(samples) // 4:]
    trends = {}
    problems = []
    window = (kept[-1]["t_min"] - kept[0]["t_min"]) if len(kept) > 1 else 0
    for key, per_minute in BOUNDS.items():
        # A short run may grow by up to FLOORS over its measured part: one round's connections or
        # one burst moves these figures that much, which says nothing about a leak.
        bound = max(per_minute, FLOORS[key] / window) if window > 0 else per_minute
        value = slope([(s["t_min"], s[key]) for s in kept])
        trends[key] = {"slope_per_min": round(value, 3), "bound_per_min": round(bound, 3), "grows": value > bound}
        if value > bound:
            problems.append(f"{LABELS[key]} grows {value:.2f} per minute (bound {bound:.2f})")
    problems += soak.failures
    for round_ in soak.rounds:
        if round_["exit"] != 0:
            problems.append(f"harness round {round_['round']} failed: {json.dumps(round_['correctness'])}")
    if not soak.rounds:
        problems.append("no harness round finished")
    if soak.churn["cycles"] == 0:
        problems.append("the churn clients made no cycle")
    if soak.api["calls"] == 0 or soak.api["errors"] > soak.api["calls"] * 0.01:
        problems.append(f"API calls: {soak.api['errors']} errors in {soak.api['calls']}")
    return trends, problems


def benchmarks_section(soak, args, trends, passed, started):
    """The run in docs/benchmarks.md: what ran, each series' course and slope, the charts in an SVG."""
    kept = soak.samples[len(soak.samples) // 4:]
    lines = benchmarks_md.heading(f"Soak: {args.minutes:g} minutes (scripts/soak)") + [""]
    acked = sum(r.get("acked", 0) for r in soak.rounds)
    verified = sum(r["correctness"].get("verified_in_database", 0) for r in soak.rounds)
    failures = sum(1 for r in soak.rounds if r["exit"] != 0)
    lines += [
        f"Command: `scripts/soak {args.minutes:g}` (started {started}). A release gateway (two event loops) on a "
        "private durable PostgreSQL; all at once for the whole run: the harness's `conversations` scenario in "
        f"back-to-back rounds of {args.round} s ({args.sessions} sessions of a visitor and two operators, "
        f"{args.rate} msg/s; every round connects, joins, sends and disconnects), churn clients (connect, join, "
        "typing, read, leave, close, over and over) and HTTP API calls (inbox, history, PATCH). Sampled every "
        f"{args.sample} s; a line is fitted to each series after the first quarter of the run.",
        "",
        f"Traffic: {len(soak.rounds)} harness rounds ({failures} with a correctness failure), {acked:,} messages "
        f"acked, {verified:,} of them checked in the database; {soak.churn['cycles']:,} churn cycles "
        f"({soak.churn['errors']} errors); {soak.api['calls']:,} API calls ({soak.api['errors']} errors).",
        "",
        "| series | after warm-up | at the end | min / max (after warm-up) | fitted slope per minute | bound | |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for key, trend in trends.items():
        values = [s[key] for s in kept if s[key] is not None]
        if not values:
            continue
        lines.append(f"| {LABELS[key]} | {values[0]:,.1f} | {values[-1]:,.1f} | {min(values):,.1f} / "
                     f"{max(values):,.1f} | {trend['slope_per_min']:,.3f} | {trend['bound_per_min']:,.3f} | "
                     f"{'**grows**' if trend['grows'] else 'flat'} |")
    lines += ["", f"Verdict: {'passed' if passed else '**FAILED**'}.", "", "![The soak's four series over the run]"
              "(images/soak.svg)", ""]
    charts = [chart(soak.samples, key).replace("<svg ", f'<svg x="0" y="{index * 170}" ', 1)
              for index, key in enumerate(BOUNDS)]
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="440" height="{170 * len(charts)}" '
           f'font-family="sans-serif">' + "".join(charts) + "</svg>\n")
    open(os.path.join(benchmarks_md.ROOT, "docs", "images", "soak.svg"), "w").write(svg)
    benchmarks_md.replace_section("soak", "\n".join(lines) + "\n")


def chart(samples, key):
    width, height, pad = 440, 160, 36
    points = [(s["t_min"], s[key]) for s in samples if s[key] is not None]
    if len(points) < 2:
        return "<p>too few samples</p>"
    x_max = max(x for x, _ in points) or 1
    y_max = max(y for _, y in points) or 1
    coords = " ".join(f"{pad + (width - 2 * pad) * x / x_max:.1f},{height - pad - (height - 2 * pad) * y / y_max:.1f}"
                      for x, y in points)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{LABELS[key]} over the run"><text x="{pad}" y="16" font-size="12">{LABELS[key]} '
            f'(max {y_max:,.1f})</text><line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
            f'stroke="#888"/><polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="{coords}"/>'
            f'<text x="{width - pad}" y="{height - 10}" font-size="11" text-anchor="end">{x_max:.1f} min</text></svg>')


def main():
    parser = argparse.ArgumentParser()
    for name in ("bin", "database-url", "work", "out"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--minutes", type=float, required=True)
    for name, default in (("sessions", 200), ("rate", 500), ("round", 60), ("sample", 5)):
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    subprocess.run([os.path.join(args.bin, "switchboard"), "migrate", "up", "--database-url", args.database_url],
                   check=True, stdout=subprocess.DEVNULL)
    soak = Soak(args)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        soak.run()
    finally:
        if soak.gateway and soak.gateway.process.poll() is None:
            soak.gateway.stop()
    trends, problems = verdict(soak)
    passed = not problems
    if args.minutes >= RECORDED_MINUTES:
        benchmarks_section(soak, args, trends, passed, started)
        log("docs/benchmarks.md: section Soak written, charts in docs/images/soak.svg")
    result = {"passed": passed, "minutes": args.minutes, "trends": trends, "problems": problems,
              "rounds": soak.rounds, "churn": soak.churn, "api": soak.api, "samples": soak.samples,
              "parameters": {"sessions": args.sessions, "rate": args.rate, "round_s": args.round,
                             "sample_s": args.sample}}
    json.dump(result, open(os.path.join(args.out, "soak.json"), "w"), indent=1)
    rows = "".join(f"<tr><td>{LABELS[k]}</td><td>{v['slope_per_min']}</td><td>{v['bound_per_min']}</td>"
                   f"<td>{'GROWS' if v['grows'] else 'flat'}</td></tr>" for k, v in trends.items())
    page = (f"<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Switchboard soak</title>"
            f"<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:960px}}td,th{{border:1px solid #ccc;"
            f"padding:.3rem .6rem}}table{{border-collapse:collapse}}svg{{margin:.5rem}}</style>"
            f"<h1>Soak, {args.minutes:g} minutes: {'passed' if passed else 'FAILED'}</h1>"
            f"<p>{len(soak.rounds)} harness rounds, {soak.churn['cycles']:,} churn cycles, "
            f"{soak.api['calls']:,} API calls</p>"
            + "".join(chart(soak.samples, key) for key in BOUNDS)
            + f"<h2>Trends after the first quarter</h2><table><tr><th>series</th><th>slope per minute</th>"
            f"<th>bound</th><th></th></tr>{rows}</table><h2>Problems</h2><ul>"
            + ("".join(f"<li>{html.escape(p)}</li>" for p in problems) or "<li>none</li>") + "</ul></html>")
    open(os.path.join(args.out, "soak.html"), "w").write(page)
    for key, trend in trends.items():
        log(f"{LABELS[key]}: slope {trend['slope_per_min']} per minute (bound {trend['bound_per_min']})")
    log(f"{'passed' if passed else 'FAILED'}: {len(soak.rounds)} rounds, {soak.churn['cycles']} churn cycles, "
        f"{soak.api['calls']} API calls; report {os.path.join(args.out, 'soak.html')}")
    for problem in problems:
        log(f"problem: {problem}")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
