#!/usr/bin/env python3
"""The driver of scripts/bench-latency: the gateway's send-to-delivery latency
against its own durable commit, measured in the same run, shape by shape.

For each fan-out shape, each repeat: the load harness on core 1 against one
gateway (one event loop) on core 0, the gateway's latency stages scraped from
/metrics before and after; then, with the gateway idle, writer-bench at the
same rate and session count on core 0: the writer's own submit-to-commit
latency, the floor no gateway can go below on this machine today. The figure
that compares across machines is the gateway's p99 above that floor.

    bench_latency.py --bin DIR --database-url URL --work DIR --out DIR
                     --seconds S --repeats N --quick 0|1
    bench_latency.py --render DIR     (the section again from a finished run)
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchmarks_md  # noqa: E402
from bench_gateway import NICE, CpuSampler, Gateway, driver_arguments, fanout_report, settle  # noqa: E402
import send_stages  # noqa: E402

# (sessions, subscribers per session, messages/s): the three shapes.
SHAPES = [(10, 100, 10500), (50, 20, 10000), (500, 2, 10000)]
QUICK_SHAPES = [(5, 20, 1000), (50, 2, 1000)]
RAMP_RATES = list(range(2500, 25001, 2500))
QUICK_RAMP_RATES = [1000, 2000]
ABOVE_FLOOR_TARGET_MS = 5.0
STAGES = ["receive", "queue", "commit", "handoff", "deliver", "total"]


def log(text):
    print(f"[{time.strftime('%H:%M:%S')} bench-latency] {text}", file=sys.stderr, flush=True)


def floor(args, sessions, rate):
    """writer-bench at the gateway's place (core 0, the gateway idle): submit to commit, open loop."""
    settle(args.database_url)
    command = ["taskset", "-c", "0", os.path.join(args.bin, "writer-bench"), "--database-url", args.database_url,
               "--only", "latency", "--sessions", str(sessions), "--rate", str(rate),
               "--seconds", str(max(3, args.seconds // 2))]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return next(json.loads(line) for line in output.splitlines() if '"latency"' in line)


def latency(report, key):
    return report.get("latencies", {}).get(key, {})


def run_fanout(args, gateway, label, sessions, subscribers, rate):
    settle(args.database_url)
    out = os.path.join(args.out, label)
    os.makedirs(out, exist_ok=True)
    before, after = os.path.join(out, "metrics-before.txt"), os.path.join(out, "metrics-after.txt")
    open(before, "w").write(gateway.metrics())
    with CpuSampler({"harness": "loadtest fanout", "gateway": "switchboard serve"}) as sampler:
        report = fanout_report(args.bin, gateway, args.secret, args.database_url, sessions, subscribers, rate,
                               args.seconds, out)
    open(after, "w").write(gateway.metrics())
    base = floor(args, sessions, rate)
    delivery = latency(report, "send_to_delivery")
    row = {
        "label": label, "shape": f"{sessions} x {subscribers}", "rate": rate, "passed": report.get("passed"),
        "delivery_p50_ms": delivery.get("p50_ms"), "delivery_p99_ms": delivery.get("p99_ms"),
        "ack_p99_ms": latency(report, "send_to_ack").get("p99_ms"),
        "deliveries_per_s": report.get("figures", {}).get("deliveries_per_second", {}).get("value"),
        "gateway_cores": report.get("figures", {}).get("gateway_cpu_cores", {}).get("value"),
        "floor_p50_ms": base["p50_ms"], "floor_p99_ms": base["p99_ms"],
        "stages": send_stages.stages(before, after),
        "cpu": sampler.cores(),
    }
    row["above_p99_ms"] = round(row["delivery_p99_ms"] - row["floor_p99_ms"], 2) if delivery else None
    log(f"{label}: delivery p50 {row['delivery_p50_ms']} p99 {row['delivery_p99_ms']} ms; floor p50 "
        f"{row['floor_p50_ms']} p99 {row['floor_p99_ms']} ms; above {row['above_p99_ms']} ms")
    return row


STEP = re.compile(r"step (\d+) msg/s: sent (\d+), acked (\d+), p99 delivery ([0-9.]+) ms")


def run_ramp(args, gateway, label, rates):
    """The ramp with no latency bound of its own (it stops only when acks fall behind); each step's
    p99 is then held to that rate's floor + 5 ms."""
    settle(args.database_url)
    out = os.path.join(args.out, label)
    os.makedirs(out, exist_ok=True)
    sessions = 100 if args.quick else 1000
    step = rates[1] - rates[0] if len(rates) > 1 else rates[0]
    command = NICE + ["taskset", "-c", "1", os.path.join(args.bin, "loadtest"), "ramp", "--url", gateway.url,
                      "--jwt-secret", args.secret, "--database-url", args.database_url,
                      "--sessions", str(sessions), "--operators", "2", "--start", str(rates[0]),
                      "--step", str(step), "--max", str(rates[-1]), "--step-seconds", "4",
                      "--p99-bound-ms", "100000", "--out", out]
    subprocess.run(command, capture_output=True, text=True)
    report = json.load(open(os.path.join(out, "ramp.json")))
    steps = []
    for note in report.get("notes", []):
        match = STEP.search(note if isinstance(note, str) else json.dumps(note))
        if not match:
            continue
        rate, sent, acked, p99 = int(match[1]), int(match[2]), int(match[3]), float(match[4])
        base = floor(args, sessions, rate)
        within = p99 <= base["p99_ms"] + ABOVE_FLOOR_TARGET_MS and acked >= 0.99 * sent
        steps.append({"rate": rate, "p99_ms": p99, "floor_p99_ms": base["p99_ms"], "within": within,
                      "acked_share": round(acked / sent, 4) if sent else 0})
        log(f"{label} step {rate}: p99 {p99} ms, floor p99 {base['p99_ms']} ms: {'within' if within else 'above'}")
        if not within:
            break
    # Steps stop at the first one out of bounds, so every earlier one is within.
    highest = max([s["rate"] for s in steps if s["within"]] or [0])
    return {"label": label, "steps": steps, "highest_within_ms_rate": highest, "passed": report.get("passed")}


def spread(values, digits=1):
    values = [v for v in values if v is not None]
    if not values:
        return "n/a"
    low, high = min(values), max(values)
    return f"{low:,.{digits}f}" if low == high else f"{low:,.{digits}f}-{high:,.{digits}f}"


def section(results):
    meta = results["meta"]
    lines = benchmarks_md.heading("Latency: the gateway above its own commit (scripts/bench-latency)") + [""]
    lines += [
        f"Command: `{meta['command']}` (started {meta['started']}). One gateway "
        "(one event loop) pinned to core 0, the load harness to core 1 at nice -5, PostgreSQL (durable: fsync, "
        "synchronous_commit, full_page_writes on) unpinned. Each shape ran "
        f"{meta['repeats']} times for {meta['seconds']} s; ranges are over the repeats. The floor is "
        "`writer-bench --only latency` at the same rate and session count, on core 0 with the gateway idle, "
        "straight after each run: the writer's submit-to-commit latency on this machine that day. "
        "*Above floor* is the gateway's send-to-delivery p99 minus the floor's p99, from the same repeat.",
        "",
        "| shape (sessions x subscribers) | msg/s | send-to-delivery p50 | p99 | floor p50 | floor p99 | "
        "above floor (p99) | target <= 5 ms | deliveries/s | gateway cores |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    by_shape = {}
    for row in results["fanout"]:
        by_shape.setdefault((row["shape"], row["rate"]), []).append(row)
    for (shape, rate), rows in by_shape.items():
        above = [r["above_p99_ms"] for r in rows]
        met = all(a is not None and a <= ABOVE_FLOOR_TARGET_MS for a in above)
        lines.append(
            f"| {shape} | {rate:,} | {spread([r['delivery_p50_ms'] for r in rows])} ms | "
            f"{spread([r['delivery_p99_ms'] for r in rows])} ms | {spread([r['floor_p50_ms'] for r in rows])} ms | "
            f"{spread([r['floor_p99_ms'] for r in rows])} ms | {spread(above)} ms | {'met' if met else '**MISSED**'} | "
            f"{spread([r['deliveries_per_s'] for r in rows], 0)} | {spread([r['gateway_cores'] for r in rows], 2)} |")
    if any(r.get("cpu") for r in results["fanout"]):
        lines += ["", "Where the CPU went while each shape ran: busy cores of the whole machine (2 cores: 2.00 is "
                  "saturated) and of each party, the median over half-second samples of the run, so its steady "
                  "state rather than its set-up. Latency above the floor grows steeply as the machine nears "
                  "saturation; the floor itself is measured with the harness's core idle.", "",
                  "| shape | msg/s | machine | gateway | PostgreSQL | harness |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for (shape, rate), rows in by_shape.items():
            cells = [spread([(r.get("cpu") or {}).get(k) for r in rows], 2)
                     for k in ("machine", "gateway", "postgres", "harness")]
            lines.append(f"| {shape} | {rate:,} | " + " | ".join(cells) + " |")
    lines += ["", "Where the time goes: each stage's p50 / p99 in ms from `switchboard_send_stage_seconds` "
              "(interpolated within its buckets), per shape, over the repeats. *receive*: the loop woke with the "
              "frame until the writer took it; *queue*: waiting for its batch to be sent; *commit*: the batch "
              "sent until its commit returned (a batch sent behind another waits for it here); *handoff*: the "
              "commit returned until the loop started on the batch; *deliver*: until its acks and fan-out were "
              "written to the sockets; *total*: the loop woke with the frame until its ack was written.", ""]
    lines += ["| shape | msg/s | " + " | ".join(STAGES) + " |", "| --- | ---: |" + " ---: |" * len(STAGES)]
    for (shape, rate), rows in by_shape.items():
        cells = []
        for stage in STAGES:
            p50 = spread([r["stages"][stage]["p50_ms"] for r in rows], 2)
            p99 = spread([r["stages"][stage]["p99_ms"] for r in rows], 2)
            cells.append(f"{p50} / {p99}")
        lines.append(f"| {shape} | {rate:,} | " + " | ".join(cells) + " |")
    lines += ["", "Ramp (1,000 sessions of 1 visitor + 2 operators, everyone sending, 4 s per step): each step's "
              "send-to-delivery p99 against the floor's p99 at that step's rate; the highest rate within floor + "
              "5 ms (and 99% of sends acked) before the first step that is not. Target: at least 20,000 msg/s.", ""]
    lines += ["| repeat | highest rate within floor + 5 ms | steps (rate: p99 / floor p99, ms) |", "| --- | ---: | --- |"]
    for index, ramp in enumerate(results["ramp"], 1):
        steps = "; ".join(f"{s['rate']:,}: {s['p99_ms']:.1f} / {s['floor_p99_ms']:.1f}" for s in ramp["steps"])
        lines.append(f"| {index} | {ramp['highest_within_ms_rate']:,} msg/s | {steps} |")
    correctness = all(r.get("passed") for r in results["fanout"] + results["ramp"])
    lines += ["", f"Correctness (gaps, duplicates, reorders, lost acks, acked messages in the database): "
              f"{'every run passed' if correctness else '**a run failed: see its report**'}.", ""]
    return "\n".join(lines) + "\n"


def main():
    if sys.argv[1:2] == ["--render"]:
        results = json.load(open(os.path.join(sys.argv[2], "results.json")))
        benchmarks_md.replace_section("bench-latency", section(results))
        return
    args = driver_arguments(("seconds", "repeats", "quick"))
    shapes = QUICK_SHAPES if args.quick else SHAPES
    rates = QUICK_RAMP_RATES if args.quick else RAMP_RATES
    gateway = Gateway(args.bin, args.database_url, args.secret, os.path.join(args.work, "gateway.toml"),
                      os.path.join(args.out, "gateway.log"))
    results = {"meta": {"started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": args.command,
                        "repeats": args.repeats, "seconds": args.seconds}, "fanout": [], "ramp": []}
    try:
        for repeat in range(1, args.repeats + 1):
            for sessions, subscribers, rate in shapes:
                results["fanout"].append(
                    run_fanout(args, gateway, f"fanout-{sessions}x{subscribers}-{repeat}", sessions, subscribers,
                               rate))
            results["ramp"].append(run_ramp(args, gateway, f"ramp-{repeat}", rates))
    finally:
        gateway.stop()
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    if args.quick:
        print(section(results))
        log("--quick: docs/benchmarks.md left alone")
    else:
        benchmarks_md.replace_section("bench-latency", section(results))
        log("docs/benchmarks.md: section Latency written")


if __name__ == "__main__":
    main()
