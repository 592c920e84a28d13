#!/usr/bin/env python3
"""Renders the chat section of docs/benchmarks.md from one scripts/bench run.

    python3 scripts/lib/benchmarks_chat.py REPORT_DIR [--doc]

REPORT_DIR holds the harness's SCENARIO.json files and scripts/bench's run.json
(the command, the PostgreSQL settings, each scenario's options, exit status and
wall time). The section is always written to REPORT_DIR/benchmarks-chat.md; with
--doc it also replaces the text between <!-- chat:begin --> and <!-- chat:end -->
in docs/benchmarks.md. Any figure or latency a report lacks renders as "n/a".
"""
import datetime
import json
import os
import sys

from benchmarks_md import ROOT, machine, replace_section

SECTION = "chat"
SCENARIOS = ["idle", "fanout", "storm", "ramp", "conversations"]
NA = "n/a"

REFERENCES = (
    "References (published figures for other servers, not measured here): pure pub/sub, 50 rooms x 20"
    " subscribers, uWebSockets about 800,000 deliveries/s and Node's `ws` about 76,000/s; these relay messages"
    " without authentication, storage, ordering or acknowledgements, which every delivery here includes."
    " Memory per idle connection: uWebSockets 0.5 KiB (unauthenticated), Centrifugo 11-27 KiB."
)


def number(value, unit=""):
    """1234567 -> "1,234,567"; small values keep two decimals; unit appended when given."""
    if value is None:
        return NA
    try:
        v = float(value)
    except (TypeError, ValueError):
        return f"{value} {unit}".strip()
    if abs(v) >= 100 or v == int(v):
        text = f"{v:,.0f}"
    elif abs(v) >= 10:
        text = f"{v:,.1f}"
    else:
        text = f"{v:,.2f}"
    if unit in ("B", "bytes", "bytes/connection", "B/connection"):
        text += f" B ({v / 1024:.2f} KiB)"
    elif unit:
        text += unit if unit.startswith("/") else f" {unit}"
    return text


def ms(value):
    if value is None:
        return NA
    try:
        return f"{float(value):.2f} ms"
    except (TypeError, ValueError):
        return NA


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        if os.path.exists(path):
            print(f"benchmarks_chat: cannot read {path}: {error}", file=sys.stderr)
        return None


def figure(report, key):
    entry = ((report or {}).get("figures") or {}).get(key)
    if isinstance(entry, dict) and isinstance(entry.get("value"), (int, float)):
        return entry
    return None


def latency(report, key):
    entry = ((report or {}).get("latencies") or {}).get(key)
    return entry if isinstance(entry, dict) else None


def passed(report, exit_code):
    if exit_code not in (None, "", "0", 0):
        return False
    return bool(report.get("passed")) if report else False


def targets_table(reports, run):
    """Every scenario's targets as its report states them (the harness owns the goals:
    LoadTests/LoadKit/Scenarios/ScenarioTargets.swift); this only renders."""
    lines = [
        "| scenario | measure | target | measured | result |",
        "| --- | --- | --- | ---: | --- |",
    ]
    for scenario in SCENARIOS:
        report = reports.get(scenario)
        if report is None:
            ran = f"exit.{scenario}" in run
            lines.append(f"| {scenario} | | | {NA} | {'no report' if ran else 'not run'} |")
            continue
        for target in report.get("targets") or []:
            met = target.get("met")
            result = "report only" if met is None else ("met" if met else "**MISSED**")
            lines.append(
                f"| {scenario} | {target.get('label', NA)} | {target.get('target', NA)}"
                f" | {target.get('measured', NA)} | {result} |")
    return lines


def correctness_text(report):
    c = report.get("correctness") or {}

    def n(key):
        value = c.get(key)
        return number(value) if isinstance(value, (int, float)) else NA

    text = (f"{n('gaps')} gaps, {n('duplicates')} duplicates, {n('reorders')} reorders, {n('lost_acks')} lost acks,"
            f" {n('unanswered')} unanswered sends, {n('unexpected_closes')} unexpected closes")
    if c.get("database_checked"):
        text += f"; {n('verified_in_database')} acked messages verified in the database"
    else:
        text += "; the database was not checked"
    errors = c.get("errors") or {}
    if errors:
        listed = ", ".join(f"`{code}` {number(count)}" for code, count in sorted(errors.items()))
        text += f". Error replies (reported, not failures): {listed}"
    return text + "."


def scenario_section(scenario, report, run):
    exit_code = run.get(f"exit.{scenario}")
    options = run.get(f"args.{scenario}", "")
    wall = run.get(f"seconds.{scenario}")
    rss = run.get(f"rss.{scenario}")
    lines = [f"### {scenario}", ""]
    command = f"`loadtest {scenario}{' ' + options if options else ''}`"
    if report is None:
        if exit_code is None:
            lines.append(f"{command}: not run (the run was aborted before it).")
        else:
            lines.append(f"{command}: no report (loadtest exit status {exit_code}).")
        lines.append("")
        return lines
    ok = passed(report, exit_code)
    duration = report.get("duration_s")
    timing = f"{duration:.1f} s of traffic" if isinstance(duration, (int, float)) and duration > 0 else ""
    if wall:
        timing += f"{', ' if timing else ''}{wall} s in all"
    if rss:
        timing += f"{', ' if timing else ''}gateway RSS {rss} afterwards"
    lines.append(f"{command} ({timing}). Correctness: **{'pass' if ok else 'FAIL'}**"
                 + (f" (loadtest exit status {exit_code})" if exit_code not in (None, "0", 0) else "") + ".")
    parameters = report.get("parameters") or {}
    if isinstance(parameters, dict) and parameters:
        # The URL names this run's throwaway port: noise in a document.
        shown = [f"{k} {v}" for k, v in parameters.items() if k != "url"]
        if shown:
            lines.append("Parameters: " + ", ".join(shown) + ".")
    lines.append("")
    figures = report.get("figures") or {}
    if figures:
        lines += ["| figure | value |", "| --- | ---: |"]
        for key, entry in figures.items():
            if not isinstance(entry, dict):
                continue
            lines.append(f"| {entry.get('label', key)} | {number(entry.get('value'), entry.get('unit', ''))} |")
        lines.append("")
    latencies = report.get("latencies") or {}
    if latencies:
        lines += ["| latency | count | p50 | p90 | p99 | p99.9 | max |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for key, entry in latencies.items():
            if not isinstance(entry, dict):
                continue
            lines.append(f"| {entry.get('label', key)} | {number(entry.get('count'))} | {ms(entry.get('p50_ms'))}"
                         f" | {ms(entry.get('p90_ms'))} | {ms(entry.get('p99_ms'))} | {ms(entry.get('p999_ms'))}"
                         f" | {ms(entry.get('max_ms'))} |")
        lines.append("")
    lines.append("Correctness: " + correctness_text(report))
    checks = [t for t in report.get("targets") or [] if isinstance(t, dict)]
    if checks:
        lines.append("Harness targets: " + "; ".join(
            f"{t.get('label', '?')} {t.get('target', '?')}: {t.get('measured', NA)}"
            f" ({'met' if t.get('met') else 'MISSED'})" for t in checks) + ".")
    notes = [str(n) for n in report.get("notes") or []]
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    lines.append("")
    return lines


def render(report_dir):
    run = load(os.path.join(report_dir, "run.json")) or {}
    reports = {s: load(os.path.join(report_dir, f"{s}.json")) for s in SCENARIOS}
    reports = {s: r for s, r in reports.items() if r is not None}
    started = run.get("started") or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = run.get("command", "scripts/bench")
    ran = run.get("scenarios", " ".join(s for s in SCENARIOS if s in reports)).split()
    pg = (f"PostgreSQL {run.get('pg_version', '?')}, fresh for the run, with durable settings"
          f" (fsync={run.get('pg_fsync', '?')}, synchronous_commit={run.get('pg_synchronous_commit', '?')},"
          f" full_page_writes={run.get('pg_full_page_writes', '?')},"
          f" shared_buffers={run.get('pg_shared_buffers', '?')})")
    lines = [
        "## Chat: end-to-end load (scripts/bench)",
        "",
    ]
    if run.get("aborted"):
        lines += [f"> Aborted run: {run['aborted']}. Figures below are from the scenarios that finished.", ""]
    if run.get("quick") == "1":
        lines += ["> Quick run (`--quick`): smoke-test sizes, not a measurement. The targets are stated for the"
                  " standard sizes.", ""]
    if run.get("harness_nice", "none") == "none":
        priority = (" The harness runs at the default priority, so time it waits for the CPU behind PostgreSQL"
                    " counts as latency.")
    else:
        priority = (f" The harness runs at `{run['harness_nice']}`: latency runs from each message's scheduled send"
                    " time, and PostgreSQL yields core 1 to it rather than its waits counting as gateway latency.")
    lines += [
        f"Run {started} on {machine()}.",
        f"Command: `{command}`. The release gateway is pinned to core 0 (`taskset -c 0`), the `loadtest` harness"
        f" (LoadTests/LoadTest) to core 1 (`taskset -c 1`); {pg} is not pinned and shares both cores with them."
        + priority +
        " The harness opens real WebSocket connections with JWTs (visitors and operator consoles), checks every"
        " delivery for gaps, duplicates and reordering, and afterwards checks acked messages against the database.",
        "",
        "Gateway configuration, against the defaults in config/switchboard.toml: `server.threads = 1` (one event"
        " loop for its one core); `chat.rate_per_second = 100000` and `chat.rate_burst = 100000` (defaults 20 and"
        " 40 frames/s per connection): the harness measures capacity, and its senders send far more than a person"
        " does, so the default limit would refuse most of their frames; `websocket.deflate.enabled = false` (the"
        " harness does not offer it); `log.level = \"warning\"`; `server.shutdown_grace_s = 2`. Everything else is"
        " the default (`chat.max_joined_sessions` 100, 2 writer connections, batches of up to 1024 messages, each sent when the previous one commits,"
        " 4 reader threads). One gateway process serves the scenarios in the order below, so sessions and rows"
        " accumulate: idle runs first, on the fresh process (memory freed by earlier scenarios would be reused"
        " without growing the RSS); ramp and conversations come last, because they drive the gateway into"
        " overload on purpose. Between scenarios the script runs VACUUM (ANALYZE) on the chat"
        " tables and waits 2 s, so autovacuum does not start inside a measurement; PostgreSQL runs with"
        " max_wal_size=4GB so that no checkpoint does either.",
        "",
        "### Targets",
        "",
    ]
    lines += targets_table(reports, run)
    lines += ["", REFERENCES, ""]
    for scenario in SCENARIOS:
        if scenario in ran or scenario in reports:
            lines += scenario_section(scenario, reports.get(scenario), run)
    walls = [f"{s} {run[f'seconds.{s}']} s" for s in SCENARIOS if run.get(f"seconds.{s}")]
    if walls:
        total = sum(int(run[f"seconds.{s}"]) for s in SCENARIOS if str(run.get(f"seconds.{s}", "")).isdigit())
        lines.append(f"Wall time per scenario (set-up and drain included): {', '.join(walls)}; {total} s in all.")
    report_dir_text = os.path.relpath(os.path.abspath(report_dir), ROOT)
    if report_dir_text.startswith(".."):
        report_dir_text = os.path.abspath(report_dir)
    lines.append(f"Reports with charts (HTML) and the raw JSON were written to `{report_dir_text}/` (not committed).")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help") or any(a not in ("--doc",) for a in argv[2:]):
        sys.exit("usage: benchmarks_chat.py REPORT_DIR [--doc]")
    report_dir = argv[1]
    body = render(report_dir)
    out = os.path.join(report_dir, "benchmarks-chat.md")
    with open(out, "w") as f:
        f.write(body)
    print(f"benchmarks_chat: wrote {out}", file=sys.stderr)
    if "--doc" in argv[2:]:
        replace_section(SECTION, body)
        print("benchmarks_chat: replaced the chat section of docs/benchmarks.md", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
