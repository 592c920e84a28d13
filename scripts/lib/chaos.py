#!/usr/bin/env python3
"""The driver of scripts/chaos: the `conversations` load against a gateway
while a schedule of faults is applied, then the verdict and an HTML report.

Faults, in order (seconds after the traffic starts; --quick compresses them):
  terminate   pg_terminate_backend on the writer's and the readers' connections
  slow        an operator console that subscribes to the inbox and stops reading
  pg-restart  PostgreSQL restarted (pg_ctl restart -m fast)
  sigkill     the gateway killed with SIGKILL, then started again on its port
  sigterm     the gateway stopped with SIGTERM (its clients get 1001), then
              started again: every client reconnects at once

The run fails on any of: a correctness failure of the harness (an acked message
missing from the database, a gap, a duplicate or a reorder at a subscriber, an
unexpected close, a send left unanswered), a gateway that is not ready again
within --recovery seconds of a fault without being restarted by hand (for
terminate, slow and pg-restart nothing is restarted: it must recover by
itself), deliveries that do not resume after a fault, or a slow consumer that
is not cut off.

With --drain the schedule is one SIGTERM, and the run also fails unless every
client's connection was closed with 1001 (none ended without a close frame)
and the process exited by itself within server.shutdown_grace_s.

    chaos.py --bin DIR --database-url URL --pgdata DIR --work DIR --out DIR
             --sessions N --rate R --seconds S --quick 0|1 [--drain 0|1] [--recovery S]
"""
import argparse
import html
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_gateway import Gateway, free_port  # noqa: E402
from raw_websocket import RawWebSocket  # noqa: E402

FULL_SCHEDULE = [(8, "terminate"), (16, "slow"), (26, "pg-restart"), (40, "sigkill"), (54, "sigterm")]
QUICK_SCHEDULE = [(5, "terminate"), (10, "slow"), (16, "pg-restart"), (24, "sigkill"), (32, "sigterm")]
# --drain: one SIGTERM under load, judged strictly (every client told 1001, the exit within the grace).
DRAIN_SCHEDULE = [(8, "sigterm")]
DRAIN_GRACE_S = 5


def log(text):
    print(f"[{time.strftime('%H:%M:%S')} chaos] {text}", file=sys.stderr, flush=True)


def http(port, path, timeout=2):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return None, ""


def metric(port, name):
    status, text = http(port, "/metrics")
    if status != 200:
        return None
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def wait_recovered(port, seconds, since):
    """Seconds from `since` until /readyz answers 200 and the gateway has stored messages again (its
    stored counter grew, or, for a new process, is above zero), or None if not within `seconds`."""
    stored = metric(port, "switchboard_messages_stored_total") or 0
    while time.time() - since < seconds:
        if http(port, "/readyz")[0] == 200:
            now = metric(port, "switchboard_messages_stored_total") or 0
            if now > stored or (stored == 0 and now > 0):
                return round(time.time() - since, 2)
            stored = min(stored, now)
        time.sleep(0.1)
    return None


class Chaos:
    def __init__(self, args):
        self.args = args
        self.secret = secrets.token_hex(24)
        self.workspace = str(uuid.uuid4())
        self.port = free_port()
        self.gateway = None
        self.faults = []  # {"name", "at" (wall), "recovered_s", "note"}
        self.problems = []
        self.drain = None

    def start_gateway(self):
        self.gateway = Gateway(self.args.bin, self.args.database_url, self.secret,
                               os.path.join(self.args.work, "gateway.toml"), os.path.join(self.args.out, "gateway.log"),
                               core=None, port=self.port, threads=2, grace=DRAIN_GRACE_S)

    def psql(self, statement):
        return subprocess.run(["psql", "-X", "-q", "-t", "-A", self.args.database_url, "-c", statement],
                              capture_output=True, text=True)

    def fault(self, name):
        at = time.time()
        note = ""
        recovered = None
        if name == "terminate":
            done = self.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name "
                             "IN ('switchboard-writer', 'switchboard-reader')")
            note = f"{done.stdout.strip() or 0} connections terminated"
            recovered = wait_recovered(self.port, self.args.recovery, at)
        elif name == "slow":
            token = subprocess.run(
                [os.path.join(self.args.bin, "switchboard"), "token", "--role", "operator", "--workspace",
                 self.workspace, "--sub", "op-slow", "--config", os.path.join(self.args.work, "gateway.toml")],
                check=True, capture_output=True, text=True).stdout.strip()
            before = metric(self.port, "switchboard_slow_consumer_closes_total") or 0
            # An operator console that subscribes to the workspace's inbox and then never reads:
            # every message of the load becomes a `session.updated` for it, and the gateway must
            # cut it off (1008) instead of buffering without bound.
            consumer = RawWebSocket(self.port, token, receive_buffer=4096)
            consumer.send({"type": "inbox.subscribe"})
            deadline = time.time() + self.args.recovery
            closes = before
            while time.time() < deadline and closes <= before:
                time.sleep(0.2)
                closes = metric(self.port, "switchboard_slow_consumer_closes_total") or before
            cut = consumer.closed_by_peer() if closes > before else False
            if closes > before and cut:
                recovered = round(time.time() - at, 2)
                note = "cut off by the gateway (switchboard_slow_consumer_closes_total grew)"
            else:
                self.problems.append("the slow consumer was not cut off")
                note = "NOT cut off"
        elif name == "pg-restart":
            subprocess.run(["bash", "-c", f'. scripts/lib/common.sh && restart_postgres "{self.args.pgdata}"'],
                           check=True, capture_output=True)
            recovered = wait_recovered(self.port, self.args.recovery, at)
        elif name in ("sigkill", "sigterm"):
            metric_before_stop = sum(metric(self.port, f'switchboard_connections{{role="{role}"}}') or 0
                                     for role in ("visitor", "operator"))
            process = self.gateway.process
            process.send_signal(9 if name == "sigkill" else 15)
            process.wait(timeout=30)
            stopped = round(time.time() - at, 2)
            if name == "sigterm":
                self.drain = {"exit_s": stopped, "exit_code": process.returncode,
                              "connections": metric_before_stop}
            note = f"exited with {process.returncode} after {stopped} s; started again on the same port"
            self.start_gateway()
            recovered = wait_recovered(self.port, self.args.recovery, at)
        if name != "slow" and recovered is None:
            self.problems.append(f"{name}: the gateway was not ready and storing within {self.args.recovery} s")
        self.faults.append({"name": name, "at": at, "recovered_s": recovered, "note": note})
        log(f"fault {name}: {note}{'; ' if note else ''}recovered after {recovered} s")

    def run(self):
        args = self.args
        self.start_gateway()
        schedule = DRAIN_SCHEDULE if args.drain else QUICK_SCHEDULE if args.quick else FULL_SCHEDULE
        command = [os.path.join(args.bin, "loadtest"), "conversations", "--url", self.gateway.url,
                   "--jwt-secret", self.secret, "--database-url", args.database_url, "--workspace", self.workspace,
                   "--sessions", str(args.sessions), "--operators", "2", "--rate", str(args.rate),
                   "--seconds", str(args.seconds), "--drain", "30", "--out", args.out]
        harness_log = open(os.path.join(args.out, "loadtest.txt"), "w")
        harness = subprocess.Popen(command, stdout=harness_log, stderr=subprocess.STDOUT)
        # The schedule counts from the traffic, which starts once every client is set up.
        ready_deadline = time.time() + 120
        while time.time() < ready_deadline and harness.poll() is None:
            if (metric(self.port, "switchboard_messages_stored_total") or 0) > 0:
                break
            time.sleep(0.2)
        traffic = time.time()
        for offset, name in schedule:
            wait = traffic + offset - time.time()
            if wait > 0:
                time.sleep(wait)
            if harness.poll() is not None:
                self.problems.append(f"the harness ended before the {name} fault")
                break
            self.fault(name)
        harness.wait(timeout=args.seconds + 300)
        harness_log.close()
        self.gateway.stop()
        report = json.load(open(os.path.join(args.out, "conversations.json")))
        return report, harness.returncode, traffic

    def verdict(self, report, code, traffic):
        correctness = report.get("correctness", {})
        if code != 0 or correctness.get("failures", 1) != 0:
            self.problems.append(f"the harness found correctness failures (exit {code}): {json.dumps(correctness)}")
        if not correctness.get("database_checked"):
            self.problems.append("acked messages were not checked against the database")
        timeline = report.get("timeline", [])
        started = report_start(report)
        last = max((row["second"] for row in timeline if row.get("delivered", 0) > 0), default=-1)
        final_fault = max(fault["at"] for fault in self.faults) if self.faults else traffic
        if started is not None and started + last < final_fault:
            self.problems.append("deliveries did not resume after the last fault")
        if self.args.drain:
            self.judge_drain(report)
        return not self.problems

    def judge_drain(self, report):
        figures = {key: value.get("value") for key, value in report.get("figures", {}).items()}
        drain = self.drain or {}
        clients = int(figures.get("connections") or 0)
        told = int(figures.get("lost_to_going_away") or 0)
        cut = int(figures.get("lost_without_close_frame") or 0)
        drain.update({"clients": clients, "closed_with_1001": told, "ended_without_close_frame": cut})
        self.drain = drain
        if told != clients or cut:
            self.problems.append(f"drain: {told} of {clients} clients got 1001, {cut} lost without a close frame")
        if drain.get("exit_code") != 0 or (drain.get("exit_s") or 1e9) > DRAIN_GRACE_S:
            self.problems.append(f"drain: exit code {drain.get('exit_code')} after {drain.get('exit_s')} s "
                                 f"(grace {DRAIN_GRACE_S} s)")
        log(f"drain: {told} of {clients} clients got 1001, {cut} without a close frame; the gateway exited "
            f"{drain.get('exit_code')} after {drain.get('exit_s')} s with {drain.get('connections')} chat "
            f"connections open")


def report_start(report):
    try:
        return time.mktime(time.strptime(report["started_at"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    except (KeyError, ValueError):
        return None


def chart(report, faults):
    """An SVG timeline: deliveries/s and acks/s per second, each fault a labelled vertical line."""
    timeline = report.get("timeline", [])
    if not timeline:
        return "<p>no timeline</p>"
    width, height, pad = 900, 260, 40
    seconds = max(row["second"] for row in timeline) or 1
    peak = max(max(row.get("delivered", 0), row.get("acked", 0)) for row in timeline) or 1

    def x(second):
        return pad + (width - 2 * pad) * second / seconds

    def y(value):
        return height - pad - (height - 2 * pad) * value / peak

    def line(key, colour):
        points = " ".join(f"{x(row['second']):.1f},{y(row.get(key, 0)):.1f}" for row in timeline)
        return f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>'

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="deliveries and acks per second, with the faults">',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#888"/>',
             f'<text x="{pad}" y="{pad - 10}" font-size="12">per second (peak {peak:,})</text>',
             line("delivered", "#1f77b4"), line("acked", "#2ca02c")]
    start = report_start(report)
    for fault in faults:
        if start is None:
            break
        at = fault["at"] - start
        if 0 <= at <= seconds:
            parts.append(f'<line x1="{x(at):.1f}" y1="{pad}" x2="{x(at):.1f}" y2="{height - pad}" stroke="#d62728" '
                         f'stroke-dasharray="4 3"/><text x="{x(at) + 3:.1f}" y="{pad + 12}" font-size="11" '
                         f'fill="#d62728">{html.escape(fault["name"])}</text>')
    parts.append(f'<text x="{width - pad}" y="{height - 10}" font-size="12" text-anchor="end">seconds</text>')
    parts.append(f'<text x="{width - pad - 160}" y="{pad - 10}" font-size="12" fill="#1f77b4">deliveries/s</text>'
                 f'<text x="{width - pad - 60}" y="{pad - 10}" font-size="12" fill="#2ca02c">acks/s</text>')
    parts.append("</svg>")
    return "".join(parts)


def write_report(path, chaos, report, passed):
    correctness = report.get("correctness", {})
    errors = correctness.get("errors", {}) or {}
    rows = "".join(f"<tr><td>{html.escape(f['name'])}</td><td>{f['recovered_s'] if f['recovered_s'] is not None else 'no'}"
                   f"</td><td>{html.escape(f['note'])}</td></tr>" for f in chaos.faults)
    error_rows = "".join(f"<tr><td>{html.escape(code)}</td><td>{count}</td></tr>" for code, count in sorted(errors.items()))
    problems = "".join(f"<li>{html.escape(p)}</li>" for p in chaos.problems) or "<li>none</li>"
    page = f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>Switchboard chaos run</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:960px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}}</style>
<h1>Chaos run: {'passed' if passed else 'FAILED'}</h1>
<p>{html.escape(json.dumps(report.get('parameters', {})))}</p>
{chart(report, chaos.faults)}
<h2>Faults</h2><table><tr><th>fault</th><th>recovered after (s): ready and storing again</th><th>note</th></tr>{rows}</table>
<h2>Errors answered to sends, by code</h2><table><tr><th>code</th><th>count</th></tr>{error_rows or '<tr><td colspan=2>none</td></tr>'}</table>
<h2>Correctness</h2><pre>{html.escape(json.dumps(correctness, indent=1))}</pre>
<h2>Problems</h2><ul>{problems}</ul></html>
"""
    open(path, "w").write(page)


def main():
    parser = argparse.ArgumentParser()
    for name in ("bin", "database-url", "pgdata", "work", "out"):
        parser.add_argument(f"--{name}", required=True)
    for name, default in (("sessions", 700), ("rate", 2000), ("seconds", 70), ("quick", 0), ("drain", 0),
                          ("recovery", 30)):
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    subprocess.run([os.path.join(args.bin, "switchboard"), "migrate", "up", "--database-url", args.database_url],
                   check=True, stdout=subprocess.DEVNULL)
    chaos = Chaos(args)
    try:
        report, code, traffic = chaos.run()
    finally:
        if chaos.gateway and chaos.gateway.process.poll() is None:
            chaos.gateway.stop()
    passed = chaos.verdict(report, code, traffic)
    name = "drain" if args.drain else "chaos"
    write_report(os.path.join(args.out, f"{name}.html"), chaos, report, passed)
    summary = {"passed": passed, "faults": chaos.faults, "problems": chaos.problems, "drain": chaos.drain,
               "correctness": report.get("correctness"), "figures": report.get("figures")}
    json.dump(summary, open(os.path.join(args.out, f"{name}.json"), "w"), indent=1)
    c = report.get("correctness", {})
    log(f"{'passed' if passed else 'FAILED'}: {c.get('verified_in_database', 0)} acked messages verified in the "
        f"database; {c.get('gaps', '?')} gaps, {c.get('duplicates', '?')} duplicates, {c.get('lost_acks', '?')} lost "
        f"acks; report {os.path.join(args.out, name + '.html')}")
    for problem in chaos.problems:
        log(f"problem: {problem}")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
