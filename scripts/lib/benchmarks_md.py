#!/usr/bin/env python3
"""What the remaining Python benchmark drivers (soak.py, bench_latency.py,
bench_abuse.py, bench_cluster.py) share for docs/benchmarks.md: a section's
heading and its replacement between <!-- NAME:begin --> and <!-- NAME:end -->.
LoadKit's BenchmarksDoc does the same for the `loadtest` drivers; this file
goes with the last of those Python drivers.
"""
import datetime
import os
import platform

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "benchmarks.md")
HEADER = "# Benchmarks\n\nFigures from single runs on the machine named in each section; compare ratios within a run, not wall-clock figures across runs.\n"


def machine():
    model, memory = "unknown CPU", ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal"):
            memory = f"{int(line.split()[1]) // (1024 * 1024)} GiB"
    return f"{os.cpu_count()} cores ({model}), {memory}, Linux {platform.release()}"


def heading(title):
    """A section's title and its "Run DATE on MACHINE." line."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [f"## {title}", "", f"Run {now} on {machine()}."]


def replace_section(name, body):
    text = open(DOC).read() if os.path.exists(DOC) else HEADER
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = f"{begin}\n{body}{end}\n"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) + 1 :]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    open(DOC, "w").write(text)
