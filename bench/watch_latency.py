#!/usr/bin/env python3
"""Save -> visible through the real watcher: `sextant watch --json` on an indexed git repository.

Usage (from the repository root, after `cargo build --release -p sextant-cli`):

    python3 bench/watch_latency.py --repo DIR [--edits 20] [--debounce-ms N] [--sextant PATH]

Starts `sextant watch --json --debounce-ms N DIR`, waits for its initial run, then for N source files
picked evenly (Python, Rust, TypeScript/JavaScript, Go, C) inserts a comment line in the middle of
the file (what it defines stays), waits for the `indexed` event, restores the file and waits
again. Reports, over the edits, the wall time from the write to the event line (what an agent
waiting on the index sees: debounce + update + publish) and the watcher's own `latency_ms` (first
file-system event -> published). Prints one JSON object. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
import queue
from pathlib import Path

COMMENT = {".py": "#", ".rs": "//", ".ts": "//", ".js": "//", ".go": "//", ".c": "//"}


def body_edit(text: str, i: int, comment: str) -> str:
    lines = text.splitlines(keepends=True)
    mid = len(lines) // 2
    for k in list(range(mid, len(lines))) + list(range(0, mid)):
        line = lines[k]
        stripped = line.lstrip()
        if (k > 0 and len(line) > len(stripped) and stripped[:1].isalpha()
                and not lines[k - 1].rstrip().endswith("\\")):
            indent = line[: len(line) - len(stripped)]
            return "".join(lines[:k]) + f"{indent}{comment} sextant watch edit {i}\n" + "".join(lines[k:])
    return text + f"\n{comment} sextant watch edit {i}\n"


def percentile(values: list[float], p: float) -> float:
    v = sorted(values)
    if not v:
        return float("nan")
    k = max(0, min(len(v) - 1, round(p / 100 * (len(v) - 1))))
    return v[k]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, type=Path)
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--debounce-ms", type=int, default=None, help="default: sextant's own")
    ap.add_argument("--sextant", type=Path,
                    default=Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "release" / "sextant")
    args = ap.parse_args()
    repo = args.repo.resolve()
    files = sorted(
        p for p in (repo / f for f in subprocess.run(
            ["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split())
        if p.suffix in COMMENT and p.stat().st_size < 200_000
    )
    if not files:
        raise SystemExit("no source files tracked by git")
    step = max(1, len(files) // args.edits)
    picked = files[::step][: args.edits]

    proc = subprocess.Popen(
        [str(args.sextant), "watch", "--json", str(repo)]
        + (["--debounce-ms", str(args.debounce_ms)] if args.debounce_ms is not None else []),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    events: "queue.Queue[tuple[float, dict]]" = queue.Queue()

    def reader() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                events.put((time.monotonic(), json.loads(line)))
            except json.JSONDecodeError:
                pass

    threading.Thread(target=reader, daemon=True).start()

    def wait_for(kind: str, timeout: float = 120.0) -> tuple[float, dict]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit(f"no {kind!r} event within {timeout} s")
            at, ev = events.get(timeout=left)
            if ev.get("event") == kind:
                return at, ev

    wait_for("indexed", 600)  # the initial run
    walls: list[float] = []
    own: list[float] = []
    try:
        for i, path in enumerate(picked):
            original = path.read_text(encoding="utf-8", errors="surrogateescape")
            edited = body_edit(original, i, COMMENT[path.suffix])
            time.sleep(0.3)
            while not events.empty():
                events.get_nowait()
            t = time.monotonic()
            path.write_text(edited, encoding="utf-8", errors="surrogateescape")
            at, ev = wait_for("indexed")
            walls.append((at - t) * 1000)
            if ev.get("latency_ms") is not None:
                own.append(ev["latency_ms"])
            path.write_text(original, encoding="utf-8", errors="surrogateescape")
            wait_for("indexed")
    finally:
        for path in picked:
            subprocess.run(["git", "checkout", "-q", "--", str(path.relative_to(repo))], cwd=repo)
        proc.terminate()
        proc.wait(timeout=30)

    def summary(v: list[float]) -> dict:
        return {"count": len(v), "p50_ms": round(statistics.median(v), 1),
                "p95_ms": round(percentile(v, 95), 1), "max_ms": round(max(v), 1)}

    print(json.dumps({
        "repo": str(repo),
        "debounce_ms": args.debounce_ms if args.debounce_ms is not None else "default",
        "walls_ms": [round(w, 1) for w in walls],
        "write_to_indexed_event": summary(walls),
        "watcher_latency": summary(own) if own else None,
        "load_average": os.getloadavg(),
        "machine": {"nproc": os.cpu_count(), "platform": platform.platform()},
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                                 capture_output=True, text=True).stdout.strip(),
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
