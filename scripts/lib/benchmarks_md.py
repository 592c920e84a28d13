#!/usr/bin/env python3
"""Writes one section of docs/benchmarks.md from a benchmark's raw output.

Each benchmark script owns the text between its markers
(<!-- NAME:begin --> and <!-- NAME:end -->) and leaves the rest alone.
"""
import datetime
import json
import os
import platform
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



def heading(title):
    """A section's title and its "Run DATE on MACHINE." line."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [f"## {title}", "", f"Run {now} on {machine()}."]


def raw_output(path):
    """The benchmark's own output, verbatim, closing a section."""
    return ["", "Raw output:", "", "```", *open(path).read().strip().splitlines(), "```"]

def json_lines(path):
    """The JSON objects a benchmark printed, one per line (docs/benchmarks.md, "Output formats");
    lines that are not JSON objects (progress, warnings) are skipped."""
    objects = []
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and "kind" in value:
            objects.append(value)
    return objects


def parse(path):
    """transport-bench's objects keyed by server label: {"echo": {offered: object}, "idle": object}."""
    rows = {}
    for value in json_lines(path):
        entry = rows.setdefault(value.get("label", "?"), {"echo": {}})
        if value["kind"] == "echo":
            entry["echo"][value.get("offered", 0)] = value
        elif value["kind"] == "idle":
            entry["idle"] = value
    return rows


FLOOR = "echo-floor"
REGIMES = [(0, "closed loop"), (20000, "paced 20,000/s"), (5000, "paced 5,000/s")]


def cpu_ratios(server, base, digits):
    """`server`'s CPU per round trip over `base`'s, per regime both measured: ["2.4x (closed loop)", ...]."""
    parts = []
    for key, name in REGIMES:
        theirs = server["echo"].get(key, {}).get("server_cpu_us_per_round_trip")
        reference = base["echo"].get(key, {}).get("server_cpu_us_per_round_trip")
        if theirs and reference:
            parts.append(f"{float(theirs) / float(reference):.{digits}f}x ({name})")
    return parts


def transport_section(rows, seconds, connections, idle):
    lines = heading("Transport: WebSocket echo (scripts/bench-transport)") + [
        f"Command: `scripts/bench-transport --seconds {seconds} --connections {connections} --idle {idle}`."
        " Each server pinned to core 0 (`taskset -c 0`), the client (`transport-bench`) to core 1; the gateway"
        " runs one event loop (`--threads 1`).",
        "",
        f"Echo: {connections} connections, 64-byte text messages, each connection waits for its echo before"
        f" sending again; {seconds} s per regime after a 1 s warm-up. Closed loop sends again at once (the"
        " saturated cost, where one wake-up serves many messages); paced sends a fixed total rate spread"
        " over the connections, so each message wakes the server. Server CPU is user + system time from"
        f" /proc/PID/stat. Idle: RSS growth per upgraded WebSocket connection at {idle} connections"
        " (no TLS, no deflate).",
        "",
        "| server | round trips/s (closed loop) | CPU per round trip: closed loop | paced 20,000/s | paced 5,000/s"
        " | RSS per idle connection |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, data in rows.items():
        echo = data["echo"]
        rate = echo.get(0, {}).get("round_trips_per_s", "n/a")
        cpus = [echo.get(key, {}).get("server_cpu_us_per_round_trip") for key, _ in REGIMES]
        cpu_text = [f"{c} µs" if c else "n/a" for c in cpus]
        per = data.get("idle", {}).get("bytes_per_connection")
        per_text = f"{int(per) / 1024:.2f} KiB" if per else "n/a"
        lines.append(f"| {label} | {rate} | " + " | ".join(cpu_text) + f" | {per_text} |")
    ours = rows.get("switchboard")
    if ours:
        lines.append("")
        for label, data in rows.items():
            if label in ("switchboard", FLOOR):
                continue
            parts = cpu_ratios(data, ours, 1)
            mem_ours = ours.get("idle", {}).get("bytes_per_connection")
            mem_theirs = data.get("idle", {}).get("bytes_per_connection")
            memory = ""
            if mem_ours and mem_theirs:
                memory = f"; {int(mem_theirs) / int(mem_ours):.0f}x the memory per idle connection"
            lines.append(f"- {label} spends " + ", ".join(parts) + " the server CPU per round trip that"
                         f" switchboard does{memory}.")
    floor = rows.get(FLOOR)
    if floor:
        lines.append(
            f"- Against {FLOOR} (LoadTests/Floors/echo-floor.c: a minimal C epoll echo, one read and one write per message,"
            " so its cost is the kernel's loopback TCP and the epoll sleep and wake-up that any server pays here):")
        for label, data in rows.items():
            if label == FLOOR:
                continue
            parts = cpu_ratios(data, floor, 2)
            lines.append(f"  - {label}: " + ", ".join(parts) + " the floor's CPU per round trip.")
    lines += raw_output(sys.argv[2])
    return "\n".join(lines) + "\n"


def parse_writer(path):
    """writer-bench's objects keyed by kind (settings, naive, batched, ratio, latency)."""
    return {value["kind"]: value for value in json_lines(path)}


def writer_section(rows, path, command):
    settings = rows.get("settings", {})
    naive = rows.get("naive", {})
    batched = rows.get("batched", {})
    latency = rows.get("latency", {})
    ratio = rows.get("ratio", {}).get("batched_over_naive", "n/a")
    lines = heading("Writer: stored messages per second (scripts/bench-writer)") + [
        f"Command: `{command}`. A fresh private PostgreSQL {settings.get('server_version', '?')} with durable"
        f" settings (fsync={settings.get('fsync', '?')}, synchronous_commit={settings.get('synchronous_commit', '?')},"
        f" full_page_writes={settings.get('full_page_writes', '?')}, wal_sync_method={settings.get('wal_sync_method', '?')},"
        f" shared_buffers={settings.get('shared_buffers', '?')}, max_wal_size={settings.get('max_wal_size', '?')});"
        " `writer-bench` pinned to core 1, PostgreSQL not pinned (it shares both cores).",
        "Naive: one connection, one autocommitted `INSERT INTO chats` per message, seq counted client-side."
        f" Batched: `BatchWriter` ({batched.get('connections', '1')} connections, sessions sharded over them; batches of up to"
        f" {batched.get('batch', '?')} messages, a smaller one sent when the connection's previous batch has committed"
        f" (after a {batched.get('delay_ms', '?')} ms wait for company), up to {batched.get('depth', '?')} full batches"
        " in flight per connection), each batch one call of `switchboard_append_messages`"
        " (row locks, dedup, gap-free seq) and one commit; submitted as fast as the queues take them."
        " Both ways build their messages before the clock starts."
        " Both runs start on the same database with new sessions, messages spread round-robin over them; the database is vacuumed, analyzed and checkpointed before each run (naive, batched, then latency), so none pays for the autovacuum the previous run's rows call for, and no checkpoint starts inside one.",
        "",
        "| way | messages | seconds | stored messages/s |",
        "| --- | ---: | ---: | ---: |",
        f"| naive | {naive.get('messages', 'n/a')} | {naive.get('seconds', 'n/a')} | {naive.get('per_s', 'n/a')} |",
        f"| batched | {batched.get('messages', 'n/a')} | {batched.get('seconds', 'n/a')} | {batched.get('per_s', 'n/a')} |",
        "",
        f"Batched over naive: **{ratio}x** (mean batch {batched.get('mean_batch', '?')} messages, mean commit"
        f" {batched.get('mean_commit_ms', '?')} ms from send to commit).",
        "",
        f"Commit latency at {latency.get('offered_per_s', '?')} messages/s offered (open loop: message i is due at"
        f" start + i/rate, latency runs from when it was due to its result; {latency.get('seconds', '?')} s after a 1 s"
        f" warm-up, {latency.get('measured', '?')} messages, {latency.get('refused', '?')} refused):",
        "",
        "| p50 | p90 | p99 | p99.9 | max |",
        "| ---: | ---: | ---: | ---: | ---: |",
        f"| {latency.get('p50_ms', '?')} ms | {latency.get('p90_ms', '?')} ms | {latency.get('p99_ms', '?')} ms"
        f" | {latency.get('p999_ms', '?')} ms | {latency.get('max_ms', '?')} ms |",
    ]
    lines += raw_output(path)
    return "\n".join(lines) + "\n"


def parse_chat_floor(path):
    """("network", object) and ("storage", object) rows of scripts/bench-chat-floor."""
    return [(value["kind"], value) for value in json_lines(path) if value["kind"] in ("network", "storage")]


def chat_floor_section(rows, path, rate, command):
    rate = int(rate)
    network = [values for kind, values in rows if kind == "network"]
    storage = next((values for kind, values in rows if kind == "storage"), None)
    lines = heading("Chat floor: what the conversations target leaves for the gateway (scripts/bench-chat-floor)") + [
        f"Command: `{command}`. Network: chat-floor (LoadTests/Floors/chat-floor.c, a C epoll server that answers the "
        "harness like the gateway but stores nothing) on core 0, the release `loadtest` conversations scenario "
        f"(1,000 sessions of 1 visitor + 2 operators, {rate:,} msg/s for 10 s) on core 1 at nice -5, as "
        "scripts/bench runs it; with `--flush-ms W` chat-floor writes every W ms instead of after every pass. "
        "Storage: one INSERT ... SELECT into `chats` (five indexes, the foreign key) on a fresh durable "
        "PostgreSQL, the backend's CPU per row.",
        "",
        "| chat-floor writes | server | harness | server + harness | p50 / p99 send to delivery | acked |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for values in network:
        flush = int(values["flush_ms"])
        when = "after every pass" if flush == 0 else f"every {flush} ms"
        server, harness = float(values["server_cores"]), float(values["harness_cores"])
        lines.append(
            f"| {when} | {server:.2f} cores | {harness:.2f} cores | {server + harness:.2f} cores "
            f"| {float(values['p50_ms']):.2f} / {float(values['p99_ms']):.2f} ms "
            f"| {int(values['stored_per_s']):,} msg/s |")
    if storage:
        store = float(storage["cores_at_rate"])
        lines += [
            "",
            f"PostgreSQL's least work per stored message: {float(storage['us_per_row']):.2f} µs of backend CPU "
            f"per row ({int(storage['rows']):,} rows in {float(storage['backend_cpu_s']):.2f} s), "
            f"{store:.2f} cores at {rate:,} msg/s, before any session lock, numbering, duplicate answer, "
            "result or round trip (and with one commit).",
            "",
            "| chat-floor writes | network floor + storage floor | the machine's cores | left for everything else |",
            "| --- | ---: | ---: | ---: |",
        ]
        cores = os.cpu_count() or 1
        for values in network:
            flush = int(values["flush_ms"])
            when = "after every pass" if flush == 0 else f"every {flush} ms"
            total = float(values["server_cores"]) + float(values["harness_cores"]) + store
            lines.append(f"| {when} | {total:.2f} cores | {cores} | {cores - total:.2f} cores |")
    lines += raw_output(path)
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
    elif kind == "writer":
        replace_section("bench-writer", writer_section(parse_writer(sys.argv[2]), sys.argv[2], sys.argv[3]))
    elif kind == "chat-floor":
        replace_section(
            "chat-floor", chat_floor_section(parse_chat_floor(sys.argv[2]), sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        sys.exit(f"unknown section {kind}")
