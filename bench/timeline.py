#!/usr/bin/env python3
"""CPU use over time of one cold index, by thread name: `bench/timeline.py BIN CORPUS_DIR [BUCKET_S]`.

Runs `BIN index --json --full CORPUS_DIR` into a fresh SEXTANT_HOME, samples every thread's user +
system time from /proc every 20 ms, and prints per bucket (default 0.1 s) the CPU each thread name
used, in percent of one core (200 % = both cores of a 2-core machine), then sextant's phases.
A bucket under 200 % on a 2-core machine is a core left idle: the start (query compiles), the end
of the read phase (the writer's last batch) and the tail after resolution (edge writes, edge
indexes) show up this way. Rayon workers, the writer and the main thread all carry the binary's
name; compile and checkpoint threads have their own (`sextant-compile`, `sextant-checkpo...`).
Pair it with `SEXTANT_LOG=sextant_engine=debug,sextant_store=debug` for the events' timestamps."""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, corpus = sys.argv[1], sys.argv[2]
    bucket = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
    home = tempfile.mkdtemp(prefix="sextant-timeline-")
    tick = os.sysconf("SC_CLK_TCK")
    try:
        env = dict(os.environ, SEXTANT_HOME=home)
        proc = subprocess.Popen([binary, "index", "--json", "--full", corpus], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        start = time.time()
        previous = {}
        used = collections.defaultdict(collections.Counter)
        while proc.poll() is None:
            now = time.time() - start
            current = {}
            for stat in glob.glob(f"/proc/{proc.pid}/task/*/stat"):
                try:
                    text = open(stat).read()
                except OSError:
                    continue
                name = text[text.index("(") + 1:text.rindex(")")]
                fields = text[text.rindex(")") + 2:].split()
                current[stat] = (name, int(fields[11]) + int(fields[12]))
            for task, (name, ticks) in current.items():
                if task in previous:
                    used[int(now / bucket)][name] += ticks - previous[task][1]
            previous = current
            time.sleep(0.02)
        out = proc.stdout.read()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    for b in sorted(used):
        cells = " ".join(f"{name}:{ticks / tick / bucket * 100:.0f}%"
                         for name, ticks in sorted(used[b].items()) if ticks)
        print(f"{b * bucket:5.2f} {cells}")
    summary = json.loads(out)
    print("wall", round(summary.get("wall_seconds", 0), 3), "phases", summary.get("phases"))


if __name__ == "__main__":
    main()
