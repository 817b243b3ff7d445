#!/usr/bin/env python3
"""Interleaved A/B of cold indexing with medians: `bench/ab_medians.py N CORPUS BIN...`.

Runs `bench/ab_run.py BIN CORPUS` for each binary in turn, N rounds (each a cold index into a fresh
SEXTANT_HOME), and prints per binary the medians of sextant's own wall time (what `bench/run.py`
computes MB/s from), the resulting MB/s, process wall, CPU (user + sys), sys, peak RSS, and the
median and minimum of each phase. Interleaving matters on a shared machine: neighbours' load
moves every run, and both binaries see the same moments."""
import json, os, statistics as st, subprocess, sys

n, corpus, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
runs = {b: [] for b in bins}
for _ in range(n):
    for b in bins:
        out = subprocess.run([sys.executable, os.path.join(here, "ab_run.py"), b, corpus],
                             capture_output=True, text=True, check=True).stdout
        runs[b].append(json.loads(out))
report = {"corpus": os.path.basename(corpus.rstrip("/")), "rounds": n,
          "load_average": os.getloadavg(), "binaries": {}}
for b in bins:
    r = runs[b]
    med = lambda k: round(st.median(x[k] for x in r), 3)
    phases = sorted({k for x in r for k in x["phases"]})
    index_wall = med("index_wall")
    report["binaries"][os.path.basename(b)] = {
        "index_wall_s": index_wall,
        "mb_per_s": round(r[0]["bytes"] / 1e6 / index_wall, 2),
        "process_wall_s": med("wall"), "cpu_s": med("cpu"), "sys_s": med("sys"),
        "rss_mib": med("rss_mb"),
        "index_wall_runs": [x["index_wall"] for x in r],
        "phases_median": {k: round(st.median(x["phases"].get(k, 0) for x in r), 3) for k in phases},
        "phases_min": {k: round(min(x["phases"].get(k, 0) for x in r), 3) for k in phases},
    }
print(json.dumps(report, indent=1))
