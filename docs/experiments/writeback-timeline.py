#!/usr/bin/env python3
"""A per-second timeline beside a load run, for docs/operations.md "The host's
writeback": which side of the alternating windows the second falls in, the
gateway's commits over 25/50/100 ms (from its /metrics histogram), what the disk
wrote (/proc/diskstats), dirty and writeback pages (/proc/meminfo), PostgreSQL's
WAL and full-page images (pg_stat_wal), and CPU by process kind.

    writeback-timeline.py SECONDS OUT METRICS_URL DATABASE_URL [DISK] [WINDOW_S]

e.g. writeback-timeline.py 128 /tmp/tl.out http://127.0.0.1:19557/metrics \
         postgresql://postgres@127.0.0.1:14745/fx vda 10
Start it with the gateway up, then the load (`loadtest fanout --alternate 10`).
"""
import os
import subprocess
import sys
import time
import urllib.request

seconds, out_path, metrics_url, database_url = sys.argv[1:5]
disk = sys.argv[5] if len(sys.argv) > 5 else "vda"
window = float(sys.argv[6]) if len(sys.argv) > 6 else 10.0
HZ = os.sysconf("SC_CLK_TCK")
BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, float("inf")]


def commit_buckets():
    try:
        text = urllib.request.urlopen(metrics_url, timeout=1).read().decode()
    except OSError:
        return None
    return [float(line.split()[-1]) for line in text.splitlines()
            if line.startswith("switchboard_commit_latency_seconds_bucket")]


def disk_written():
    for line in open("/proc/diskstats"):
        fields = line.split()
        if fields[2] == disk:
            return int(fields[9]) * 512 / 1e6
    return 0.0


def dirty_mb():
    values = {}
    for line in open("/proc/meminfo"):
        key, value = line.split(":")
        values[key] = int(value.split()[0]) // 1024
    return values["Dirty"], values["Writeback"]


def cpu_ticks():
    ticks = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        command = b" ".join(argv).decode(errors="ignore")
        name = os.path.basename(argv[0].decode(errors="ignore")) if argv and argv[0] else ""
        if name.startswith("postgres"):
            kind = "checkpointer" if "checkpointer" in command else "postgres"
        elif name == "loadtest":
            kind = "uploader" if len(argv) > 1 and argv[1] == b"uploader" else "harness"
        elif name == "switchboard":
            kind = "gateway"
        else:
            continue
        ticks[kind] = ticks.get(kind, 0) + int(stat[11]) + int(stat[12])
    return ticks


def wal():
    row = subprocess.run(["psql", "-qAt", "-d", database_url, "-c", "select wal_bytes, wal_fpi from pg_stat_wal"],
                         capture_output=True, text=True).stdout.strip().split("|")
    return (float(row[0]), int(row[1])) if len(row) == 2 else (0.0, 0)


KINDS = ["gateway", "postgres", "checkpointer", "uploader", "harness"]
with open(out_path, "w") as out:
    print("t side | commits >25ms >50ms >100ms | disk_MB dirty_MB writeback_MB | wal_MB fpi | cpu% "
          + " ".join(KINDS), file=out)
    previous = None
    start = next_tick = time.time()
    while time.time() - start < float(seconds):
        now = time.time()
        sample = (commit_buckets(), disk_written(), dirty_mb(), cpu_ticks(), wal(), now)
        if previous and sample[0] and previous[0]:
            buckets = [b - a for a, b in zip(previous[0], sample[0])]
            total = buckets[-1]
            elapsed = now - previous[5]
            cpu = {k: (sample[3].get(k, 0) - previous[3].get(k, 0)) * 100 / HZ / elapsed for k in KINDS}
            side = "A" if ((int(now // window) + 1) >> 1) & 1 == 0 else "B"
            print(f"{now - start:6.1f} {side} | {total:4.0f} {total - buckets[6]:3.0f} {total - buckets[7]:3.0f} "
                  f"{total - buckets[8]:3.0f} | {sample[1] - previous[1]:6.1f} {sample[2][0]:4d} {sample[2][1]:3d} | "
                  f"{(sample[4][0] - previous[4][0]) / 1e6:5.2f} {sample[4][1] - previous[4][1]:4d} | "
                  + " ".join(f"{cpu[k]:3.0f}" for k in KINDS), file=out, flush=True)
        previous = sample
        next_tick += 1.0
        time.sleep(max(0.0, next_tick - time.time()))
