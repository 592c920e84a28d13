#!/usr/bin/env python3
"""Writes the results of scripts/fuzz-campaign into docs/conformance.md.

    fuzz_campaign.py --command TEXT --started TEXT --minutes M --cpu-minutes C --parallel P TARGET...

Reads each target's libFuzzer log (Fuzz/.out/TARGET.log) and its kept corpus
(Fuzz/corpus/TARGET/, after the merge).
"""
import argparse
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "conformance.md")
WHAT = {
    "FuzzHTTP": "HTTP/1.1 request parser",
    "FuzzFrames": "WebSocket frame parser and handshake",
    "FuzzInflate": "permessage-deflate inflater",
    "FuzzJSON": "JSON parser",
    "FuzzChatFrame": "chat protocol frame decoder",
    "FuzzToken": "JWT verifier",
    "FuzzProxy": "PROXY protocol v1/v2 and X-Forwarded-For",
    "FuzzBus": "cluster bus envelope decoder",
    "FuzzNATS": "NATS protocol parser",
}


def first(pattern, text, default=None):
    match = re.search(pattern, text, re.M)
    return match.group(1) if match else default


def target_row(target):
    log = open(os.path.join(ROOT, "Fuzz", ".out", f"{target}.log"), errors="replace").read()
    # A run stopped at its CPU budget (SIGINT) prints no DONE line: its last status line counts.
    status = [line for line in log.splitlines() if re.match(r"^#\d+\s+\w+\s+cov:", line)]
    last = status[-1] if status else ""
    kept = os.path.join(ROOT, "Fuzz", "corpus", target)
    files = [os.path.join(kept, name) for name in os.listdir(kept)] if os.path.isdir(kept) else []
    return {
        "target": target,
        "cpu_minutes": int(first(r"^cpu_seconds: (\d+)", log, 0)) / 60,
        "runs": int(first(r"^stat::number_of_executed_units:\s+(\d+)", log, 0)),
        "per_second": int(first(r"^stat::average_exec_per_sec:\s+(\d+)", log, 0)),
        "new_units": int(first(r"^stat::new_units_added:\s+(\d+)", log, 0)),
        "rss_mb": int(first(r"^stat::peak_rss_mb:\s+(\d+)", log, 0)),
        "cov": first(r"cov: (\d+)", last, "?"),
        "ft": first(r"ft: (\d+)", last, "?"),
        "kept_files": len(files),
        "kept_bytes": sum(os.path.getsize(path) for path in files),
        "finding": bool(re.search(r"^(==\d+==ERROR|SUMMARY:|.*Test unit written)", log, re.M)),
    }


def section(args, rows):
    cores = os.cpu_count()
    if args.cpu_minutes > 0:
        budget = (f"each target ran until it had used {args.cpu_minutes} minutes of CPU time "
                  "(*CPU* below: what each used)")
    else:
        budget = (f"each target ran {args.minutes} minutes of wall-clock time, sharing the cores "
                  "(*CPU* below: the CPU time each got)")
    lines = ["<!-- fuzz-campaign:begin -->", "## Fuzzing campaign (scripts/fuzz-campaign)", "",
             f"Command: `{args.command}` (started {args.started}) on {cores} cores, {args.parallel} targets at once: "
             f"{budget}. libFuzzer with AddressSanitizer "
             "(debug build), starting from the kept corpus, the seeds and the working corpus. *cov*/*ft*: the "
             "code edges and features reached at the end. *Kept* is the corpus committed under `Fuzz/corpus/` "
             "after merging: the smallest set of inputs that reaches the same coverage, the start of every "
             "later run.", "",
             "| target | parses | CPU | runs | runs/s | new inputs | cov / ft | kept corpus | peak RSS | result |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        lines.append(
            f"| {row['target']} | {WHAT.get(row['target'], '')} | {row['cpu_minutes']:.1f} min | {row['runs']:,} | {row['per_second']:,} | "
            f"{row['new_units']:,} | {row['cov']} / {row['ft']} | {row['kept_files']:,} inputs, "
            f"{row['kept_bytes'] / 1024:,.0f} KiB | {row['rss_mb']} MB | "
            f"{'**finding: see Fuzz/.out/**' if row['finding'] else 'no finding'} |")
    total = sum(row["runs"] for row in rows)
    lines += ["", f"{total:,} runs in all; "
              f"{'no target found anything' if not any(r['finding'] for r in rows) else '**a target found something**'}.",
              "<!-- fuzz-campaign:end -->"]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--command", required=True)
    parser.add_argument("--started", required=True)
    parser.add_argument("--minutes", type=int, required=True)
    parser.add_argument("--cpu-minutes", type=int, default=0)
    parser.add_argument("--parallel", type=int, required=True)
    parser.add_argument("targets", nargs="+")
    args = parser.parse_args()
    text = open(DOC).read()
    block = section(args, [target_row(target) for target in args.targets])
    begin, end = "<!-- fuzz-campaign:begin -->", "<!-- fuzz-campaign:end -->\n"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    open(DOC, "w").write(text)
    print(block)


if __name__ == "__main__":
    main()
