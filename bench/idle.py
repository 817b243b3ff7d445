#!/usr/bin/env python3
"""Idle `sextant serve` with watching on: memory and CPU over time (issue 5 target: no memory
growth over an hour, CPU idle).

    python3 bench/idle.py --repo DIR [--minutes 60] [--interval 30] [--sextant BIN] [--out FILE]

Starts `sextant serve` (stdio, watching DIR), completes the MCP handshake, then every INTERVAL
seconds samples the server's RSS (VmRSS) and CPU time (utime + stime from /proc/PID/stat) and
sends a `ping` to check it answers. Nothing touches the repository. Writes a JSON report: the
samples, RSS at start and end, the RSS slope (KiB per hour, least squares over the second half,
after warm-up), CPU seconds used while idle and the CPU share, plus the machine and commit.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def slope_per_hour(points):
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    den = sum((p[0] - mx) ** 2 for p in points)
    if den == 0:
        return 0.0
    return sum((p[0] - mx) * (p[1] - my) for p in points) / den * 3600.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--interval", type=float, default=30)
    ap.add_argument("--sextant", default=str(ROOT / "target" / "release" / "sextant"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    proc = subprocess.Popen(
        [args.sextant, "serve", "--repo", args.repo],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    next_id = 0

    def call(method, params=None, notify=False):
        nonlocal next_id
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            next_id += 1
            msg["id"] = next_id
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        if notify:
            return None
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("server closed stdout")
            reply = json.loads(line)
            if reply.get("id") == msg["id"]:
                return reply

    call("initialize", {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "sextant-idle-bench", "version": "1"},
    })
    call("notifications/initialized", notify=True)
    # Let the initial index and the first load finish before measuring idleness.
    time.sleep(min(60.0, args.interval * 2))
    start = time.time()
    cpu0 = cpu_seconds(proc.pid)
    samples = []
    while True:
        now = time.time() - start
        ok = "result" in call("ping")
        samples.append({
            "t_s": round(now, 1),
            "rss_kib": rss_kib(proc.pid),
            "cpu_s": round(cpu_seconds(proc.pid) - cpu0, 3),
            "ping_ok": ok,
        })
        if now >= args.minutes * 60:
            break
        time.sleep(args.interval)
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()

    half = [(s["t_s"], s["rss_kib"]) for s in samples[len(samples) // 2:]]
    elapsed = samples[-1]["t_s"] or 1.0
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    report = {
        "repo": args.repo,
        "minutes": round(elapsed / 60, 1),
        "interval_s": args.interval,
        "rss_kib_start": samples[0]["rss_kib"],
        "rss_kib_end": samples[-1]["rss_kib"],
        "rss_kib_max": max(s["rss_kib"] for s in samples),
        "rss_slope_kib_per_hour_second_half": round(slope_per_hour(half), 1),
        "cpu_seconds_idle": samples[-1]["cpu_s"],
        "cpu_share_percent": round(100.0 * samples[-1]["cpu_s"] / elapsed, 3),
        "pings_failed": sum(1 for s in samples if not s["ping_ok"]),
        "samples": samples,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "loadavg_1_5_15": os.getloadavg()},
        "commit": commit,
    }
    text = json.dumps(report, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text if not args.out else json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
