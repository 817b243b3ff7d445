#!/usr/bin/env python3
"""Where the heap goes, SQLite's apart, on the stages of `bench/memory_scaling.py`:
`bench/heap_profile.py`.

Resident memory mixes Sextant's own heap with SQLite's page cache (bounded: 64 MiB on a normal
run, 8 MiB during a first index's bulk load), so it cannot say alone whether what Sextant keeps
grows with the repository. This runs one index of each stage under Valgrind's heap profiler
(massif, a snapshot of every live allocation with its call stack, ~100 snapshots a run) and
splits each snapshot into what SQLite allocated (a stack through `sqlite3*`) and the rest. It
reports per stage the peak heap, the peak of the rest, and the largest the rest is once the read
phase is over (from the index's debug log: "resolver inputs", matched to massif's clock in
milliseconds), with the allocation sites that hold it; then the slope of that figure against
source size (MiB per MB, least squares over the stages).

Modes: `first` (a full index in a fresh home, `sextant index --full`) and `edit` (the run that
follows a one-file edit, as `memory_scaling.py --edit` makes it: each stage indexed once, then
`django/__init__.py` replaced by a changed copy in the stage's place, never written through the
hard link, and put back afterwards).

Needs `valgrind` and a binary on the system allocator (massif sees `malloc`, not mimalloc):

    CARGO_TARGET_DIR=target/heap cargo build --release -p sextant-cli --features system-alloc
    python3 bench/heap_profile.py --binary target/heap/release/sextant --mode edit

Options: `--stages s1,s4`, `--mode first|edit`, `--skip-download`, `--top N` (sites listed).
Writes `bench/out/heap-profile-MODE.json` (the figures, the machine, the commit, the
binary's SHA-256). Valgrind makes a run 20-50
times slower: s4 takes minutes."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import memory_scaling as ms  # noqa: E402  (the stages, the edit)
import run as base  # noqa: E402  (the machine, the output directory)

MIB = 1048576
NODE = re.compile(r"^(\s*)n(\d+): (\d+) (.*)$")
SEXTANT_FRAME = re.compile(r"sextant_\w+::|\((crates/[^)]*)\)")


def site_of(stack: list[str]) -> str:
    """What holds a leaf allocation: SQLite, the first frame of Sextant's code, or else the
    caller below the allocator."""
    for frame in stack:
        if "sqlite3" in frame:
            return "SQLite"
    for frame in stack:
        if SEXTANT_FRAME.search(frame) and "library/" not in frame:
            return frame[:160]
    return "other: " + (stack[1] if len(stack) > 1 else stack[-1])[:100]


def parse_massif(path: Path) -> list[dict]:
    """The snapshots: time (ms), total heap, and for detailed ones the bytes by site."""
    snapshots: list[dict] = []
    current: dict | None = None
    stack: list[tuple[int, str]] = []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("snapshot="):
            current = {"time_ms": 0, "heap": 0, "sites": None}
            snapshots.append(current)
            stack = []
        elif current is None:
            continue
        elif line.startswith("time="):
            current["time_ms"] = int(line.split("=", 1)[1])
        elif line.startswith("mem_heap_B="):
            current["heap"] += int(line.split("=", 1)[1])
        elif line.startswith("mem_heap_extra_B="):
            current["heap"] += int(line.split("=", 1)[1])
        elif line.startswith("heap_tree=detailed"):
            current["sites"] = {}
        else:
            m = NODE.match(line)
            if not m or current["sites"] is None:
                continue
            depth, children, size = len(m.group(1)), int(m.group(2)), int(m.group(3))
            frame = re.sub(r"0x[0-9A-F]+: ", "", m.group(4))
            while stack and stack[-1][0] >= depth:
                stack.pop()
            stack.append((depth, frame))
            if children == 0 and depth > 0:
                site = site_of([f for _, f in stack[1:]])
                current["sites"][site] = current["sites"].get(site, 0) + size
    return snapshots


def profile(binary: Path, directory: Path, mode: str, out_dir: Path) -> dict:
    home = tempfile.mkdtemp(prefix="sextant-heap-")
    massif_out = out_dir / f"massif-{directory.name}-{mode}.out"
    env = dict(os.environ, SEXTANT_HOME=home, NO_COLOR="1")
    full = ["--full"]
    try:
        if mode == "edit":
            first = subprocess.run([str(binary), "index", "--json", str(directory)], env=env,
                                   capture_output=True, text=True)
            if first.returncode != 0:
                raise SystemExit(f"index of {directory} failed: {first.stderr[-2000:]}")
            full = []
        with ms.edited(directory) if mode == "edit" else contextlib.nullcontext():
            env["SEXTANT_LOG"] = "sextant_engine::pipeline=debug"
            started = datetime.now().astimezone()
            p = subprocess.run(
                ["valgrind", "--tool=massif", "--threshold=0.05", "--detailed-freq=1",
                 "--max-snapshots=200", "--time-unit=ms", f"--massif-out-file={massif_out}",
                 str(binary), "index", "--json", *full, str(directory)],
                env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"massif run on {directory} failed: {p.stderr[-2000:]}")
        summary = json.loads(p.stdout)
        read_over_ms = None
        for line in p.stderr.splitlines():
            if "resolver inputs" in line:
                stamp = datetime.fromisoformat(line.split()[0].replace("Z", "+00:00"))
                read_over_ms = (stamp - started).total_seconds() * 1000
                break
    finally:
        shutil.rmtree(home, ignore_errors=True)
    snapshots = [s for s in parse_massif(massif_out) if s["sites"] is not None]
    massif_out.unlink(missing_ok=True)

    def rest(s: dict) -> int:
        return sum(v for k, v in s["sites"].items() if k != "SQLite")

    after = [s for s in snapshots if read_over_ms is not None and s["time_ms"] >= read_over_ms]
    peak_after = max(after, key=rest, default=None)
    return {
        "bytes": summary["bytes"],
        "files": summary["files"]["indexed"],
        "files_reused": summary["files"].get("reused"),
        "snapshots": len(snapshots),
        "peak_heap_mib": round(max((s["heap"] for s in snapshots), default=0) / MIB, 1),
        "peak_sqlite_mib": round(
            max((s["sites"].get("SQLite", 0) for s in snapshots), default=0) / MIB, 1),
        "peak_rest_mib": round(max((rest(s) for s in snapshots), default=0) / MIB, 1),
        "read_over_ms": read_over_ms,
        "after_read_rest_mib": round(rest(peak_after) / MIB, 1) if peak_after else None,
        "after_read_sqlite_mib": (
            round(peak_after["sites"].get("SQLite", 0) / MIB, 1) if peak_after else None),
        "after_read_sites": (
            sorted(((k, round(v / MIB, 3)) for k, v in peak_after["sites"].items()),
                   key=lambda kv: -kv[1]) if peak_after else []),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True,
                    help="a sextant built with --features system-alloc")
    ap.add_argument("--mode", choices=["first", "edit"], default="edit")
    ap.add_argument("--stages", default=",".join(ms.STAGES))
    ap.add_argument("--skip-download", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (e.g. apt-get install valgrind)")
    binary = Path(args.binary).resolve()
    commit = subprocess.run(["git", "-C", str(base.ROOT), "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or None
    out_dir = base.OUT
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict] = {}
    for stage in args.stages.split(","):
        directory = ms.build_stage(stage, ms.STAGES[stage], not args.skip_download)
        t = time.monotonic()
        r = profile(binary, directory, args.mode, out_dir)
        r["profile_seconds"] = round(time.monotonic() - t, 1)
        top = r["after_read_sites"][: args.top]
        r["after_read_sites"] = top
        results[stage] = r
        base.log(f"[{stage}] {r['bytes'] / 1e6:.0f} MB, {r['files']} files: peak heap "
                 f"{r['peak_heap_mib']} MiB (SQLite {r['peak_sqlite_mib']}), rest at most "
                 f"{r['peak_rest_mib']}; after the read phase the rest is at most "
                 f"{r['after_read_rest_mib']} MiB (SQLite {r['after_read_sqlite_mib']})")
        for site, mib in top:
            base.log(f"    {mib:8.3f} {site}")
    points = [(r["bytes"] / 1e6, r["after_read_rest_mib"]) for r in results.values()
              if r["after_read_rest_mib"] is not None]
    slope = ms.slope(points)
    report = {
        "mode": args.mode,
        "stages": results,
        "after_read_rest_slope_mib_per_mb": round(slope, 4) if slope is not None else None,
        "binary_sha256": base.sha256(binary),
        "machine": base.machine_info() | {"loadavg": base.loadavg()},
        "commit": commit,
        "date": time.strftime("%Y-%m-%d"),
    }
    out = out_dir / f"heap-profile-{args.mode}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    base.log(f"slope of the rest after the read phase: {report['after_read_rest_slope_mib_per_mb']}"
             f" MiB per MB; report: {out}")


if __name__ == "__main__":
    main()
