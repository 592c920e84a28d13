#!/usr/bin/env python3
"""Writes one section of docs/benchmarks.md from a benchmark's raw output.

Each benchmark script owns the text between its markers
(<!-- NAME:begin --> and <!-- NAME:end -->) and leaves the rest alone.
"""
import datetime
import os
import platform
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "benchmarks.md")
HEADER = "# Benchmarks\n\nFigures from single runs on the machine named in each section; compare ratios within a run, not wall-clock figures across runs.\n"


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) // (1024 * 1024)} GiB"
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({model}), {memory}, Linux {platform.release()}"


def parse(path):
    rows = {}
    for line in open(path):
        m = re.match(r"(echo|idle) (\S+): (.*)", line.strip())
        if not m:
            continue
        kind, label, rest = m.groups()
        values = dict(item.split("=", 1) for item in rest.split())
        rows.setdefault(label, {})[kind] = values
    return rows


def transport_section(rows, seconds, connections, idle):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Transport: WebSocket echo (scripts/bench-transport)",
        "",
        f"Run {now} on {machine()}.",
        f"Command: `scripts/bench-transport --seconds {seconds} --connections {connections} --idle {idle}`."
        " Each server pinned to core 0 (`taskset -c 0`), the client (`transport-bench`) to core 1.",
        f"Echo: {connections} connections, 64-byte text messages, each connection waits for its echo before"
        f" sending again, {seconds} s after a 1 s warm-up; server CPU is user + system time from /proc/PID/stat."
        f" Idle: RSS growth per upgraded WebSocket connection at {idle} connections (no TLS, no deflate).",
        "",
        "| server | round trips/s | server CPU per round trip | RSS per idle connection |",
        "| --- | ---: | ---: | ---: |",
    ]
    base = rows.get("switchboard", {})
    for label, data in rows.items():
        echo = data.get("echo", {})
        idle_row = data.get("idle", {})
        rate = echo.get("round_trips_per_s", "n/a")
        cpu = echo.get("server_cpu_us_per_round_trip", "n/a")
        per = idle_row.get("bytes_per_connection", "n/a")
        per_text = f"{int(per) / 1024:.2f} KiB" if per != "n/a" else per
        lines.append(f"| {label} | {rate} | {cpu} µs | {per_text} |")
    if "echo" in base:
        ours = float(base["echo"]["server_cpu_us_per_round_trip"])
        lines.append("")
        for label, data in rows.items():
            if label == "switchboard" or "echo" not in data:
                continue
            theirs = float(data["echo"]["server_cpu_us_per_round_trip"])
            lines.append(f"- {label} spends {theirs / ours:.1f}x the server CPU per round trip that switchboard does.")
    lines.append("")
    lines.append("Raw output:")
    lines.append("")
    lines.append("```")
    lines.extend(open(sys.argv[2]).read().strip().splitlines())
    lines.append("```")
    return "\n".join(lines) + "\n"


def replace_section(name, body):
    text = open(DOC).read() if os.path.exists(DOC) else HEADER
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = f"{begin}\n{body}{end}\n"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) + 1 :]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    open(DOC, "w").write(text)


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "transport":
        rows = parse(sys.argv[2])
        replace_section("bench-transport", transport_section(rows, sys.argv[3], sys.argv[4], sys.argv[5]))
    else:
        sys.exit(f"unknown section {kind}")
