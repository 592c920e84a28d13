#!/usr/bin/env python3
"""The gateway's latency stages over a measurement: p50 and p99 of each
`switchboard_send_stage_seconds` stage between two /metrics scrapes.

    send_stages.py BEFORE.txt AFTER.txt [--json OUT]

Percentiles are interpolated linearly inside the histogram's buckets (their
bounds are fine below 10 ms: SendStages.bucketBounds), so they are estimates
to within a bucket, which the report says.
"""
import json
import re
import sys

STAGES = ["receive", "queue", "commit", "handoff", "deliver", "total"]
LINE = re.compile(r'^switchboard_send_stage_seconds_bucket\{stage="([a-z]+)",le="([^"]+)"\} (\d+)$')


def buckets(path):
    """{stage: [(upper bound in s, cumulative count)]} from one exposition."""
    found = {}
    with open(path) as text:
        for line in text:
            match = LINE.match(line.strip())
            if match:
                stage, bound, count = match.groups()
                upper = float("inf") if bound == "+Inf" else float(bound)
                found.setdefault(stage, []).append((upper, int(count)))
    return found


def percentile(series, fraction):
    """Interpolated percentile (ms) of cumulative buckets; None without data."""
    total = series[-1][1] if series else 0
    if total == 0:
        return None
    rank = fraction * total
    lower_bound, lower_count = 0.0, 0
    for upper, count in series:
        if count >= rank:
            if upper == float("inf"):
                return lower_bound * 1000  # past the last bound: report the bound
            share = (rank - lower_count) / (count - lower_count) if count > lower_count else 1.0
            return (lower_bound + (upper - lower_bound) * share) * 1000
        lower_bound, lower_count = upper, count
    return None


def stages(before_path, after_path):
    before, after = buckets(before_path), buckets(after_path)
    result = {}
    for stage in STAGES:
        late = after.get(stage, [])
        early = dict(before.get(stage, []))
        delta = [(upper, count - early.get(upper, 0)) for upper, count in late]
        count = delta[-1][1] if delta else 0
        p50, p99 = percentile(delta, 0.5), percentile(delta, 0.99)
        result[stage] = {
            "count": count,
            "p50_ms": None if p50 is None else round(p50, 3),
            "p99_ms": None if p99 is None else round(p99, 3),
        }
    return result


def main():
    args = sys.argv[1:]
    out = None
    if "--json" in args:
        index = args.index("--json")
        out = args[index + 1]
        del args[index:index + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    result = stages(args[0], args[1])
    if out:
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
    for stage in STAGES:
        row = result[stage]
        print(f"{stage:8} n={row['count']:>9}  p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms")


if __name__ == "__main__":
    main()
