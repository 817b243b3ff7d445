#!/usr/bin/env python3
"""Branch switch to an already-indexed commit: how long until it is served.

Usage (from the repository root, after `cargo build --release -p sextant-cli`):

    python3 bench/switch_latency.py [--corpus bench/corpora/django-5.1.4] [--switches 12]
        [--touch 10] [--work /tmp/sextant-switch-bench] [--sextant PATH] [--out FILE]

Setup: copies the corpus to WORK/repo, makes it a git repository with one commit, then a second
commit that appends a small function to TOUCH source files picked evenly; indexes both commits
into a fresh SEXTANT_HOME (WORK/home), waiting out the stat cache's racy window first (files of a
real checkout are older than the last index run), so both commits have a clean baseline.

(a) `sextant index` after `git checkout`: SWITCHES checkouts alternating between the two commits;
    after each, the wall time of a `sextant index REPO --json` process (what a git hook or an agent
    would run), and the engine's own `wall_seconds`, files hashed and the generation shared.
(b) the watcher: a `sextant watch --json REPO`; for SWITCHES alternating checkouts, from the end
    of `git checkout` until (1) the database's active generation is of the checked-out commit
    (polled with SQLite every 2 ms: from then on every query answers from it) and (2) the
    watcher's `indexed` event line for that commit.

After every switch (untimed) `sextant search` checks the answers are the checked-out commit's
(the functions the second commit adds are found only there). Writes one JSON report (figures,
load averages before and after each part, machine, sextant commit) to OUT and prints it.
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import queue
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

MARKER = "sextant_switch_bench_marker"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, **GIT_ENV)
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def percentile(values: list[float], p: float) -> float:
    v = sorted(values)
    k = max(0, min(len(v) - 1, round(p / 100 * (len(v) - 1))))
    return v[k]


def summary(values: list[float]) -> dict:
    return {"count": len(values), "p50_ms": round(statistics.median(values), 1),
            "p95_ms": round(percentile(values, 95), 1), "max_ms": round(max(values), 1),
            "min_ms": round(min(values), 1)}


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split(":", 1)[1].strip()
    except (OSError, IndexError):
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory": mem, "platform": platform.platform()}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Sextant:
    def __init__(self, binary: Path, home: Path, repo: Path):
        self.binary, self.home, self.repo = binary, home, repo
        self.env = dict(os.environ, SEXTANT_HOME=str(home))
        self.env.pop("SEXTANT_CACHE_DIR", None)

    def index(self) -> tuple[float, dict]:
        t = time.monotonic()
        out = subprocess.run([str(self.binary), "index", str(self.repo), "--json"], env=self.env,
                             check=True, capture_output=True, text=True).stdout
        return (time.monotonic() - t) * 1000, json.loads(out)

    def has_marker(self) -> bool:
        out = subprocess.run([str(self.binary), "--repo", str(self.repo), "search", f"{MARKER}_0",
                              "--json"], env=self.env, check=True, capture_output=True,
                             text=True).stdout
        return any(r.get("name") == f"{MARKER}_0" for r in json.loads(out).get("results", []))


def setup(corpus: Path, work: Path, touch: int) -> tuple[Path, str, str, list[str]]:
    if work.exists():
        shutil.rmtree(work)
    repo = work / "repo"
    shutil.copytree(corpus, repo, symlinks=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    files = sorted(p for p in git(repo, "ls-files", "*.py").split("\n") if p)
    step = max(1, len(files) // touch)
    picked = files[step // 2::step][:touch]
    for i, rel in enumerate(picked):
        with open(repo / rel, "a", encoding="utf-8") as f:
            f.write(f"\n\ndef {MARKER}_{i}():\n    return {i}\n")
    git(repo, "commit", "-qam", f"second: {len(picked)} files touched")
    second = git(repo, "rev-parse", "HEAD")
    return repo, base, second, picked


def active_commit(db: Path) -> str | None:
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            row = c.execute(
                "SELECT g.commit_id FROM meta m JOIN generations g ON g.id = CAST(m.value AS INTEGER)"
                " WHERE m.key = 'active_generation'").fetchone()
        finally:
            c.close()
        return row[0] if row else None
    except sqlite3.Error:
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    here = Path(__file__).resolve().parent
    ap.add_argument("--corpus", type=Path, default=here / "corpora" / "django-5.1.4")
    ap.add_argument("--work", type=Path, default=Path("/tmp/sextant-switch-bench"))
    ap.add_argument("--switches", type=int, default=12)
    ap.add_argument("--touch", type=int, default=10)
    ap.add_argument("--sextant", type=Path,
                    default=Path(os.environ.get("CARGO_TARGET_DIR", here.parent / "target"))
                    / "release" / "sextant")
    ap.add_argument("--out", type=Path, default=here / "out" / "switch.json")
    ap.add_argument("--skip-watch", action="store_true")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus}: no corpus (python3 bench/run.py --download-only)")
    # A snapshot of the binary: a rebuild during the run cannot mix two builds.
    args.work.mkdir(parents=True, exist_ok=True)
    binary = args.work.parent / f"{args.work.name}-sextant"
    shutil.copy2(args.sextant, binary)
    sha = hashlib.sha256(binary.read_bytes()).hexdigest()

    report: dict = {
        "corpus": str(args.corpus), "switches": args.switches,
        "sextant": {"binary": str(args.sextant), "sha256": sha,
                    "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here,
                                             capture_output=True, text=True).stdout.strip()},
        "machine": machine(), "load_before_setup": load(),
    }
    repo, base, second, picked = setup(args.corpus, args.work, args.touch)
    report["touched_files"] = picked
    sx = Sextant(binary, args.work / "home", repo)
    # Both commits indexed (older than the racy window, like a real checkout's files).
    time.sleep(2.5)
    git(repo, "checkout", "-q", base)
    _, first = sx.index()
    git(repo, "checkout", "-q", "main")
    _, second_run = sx.index()
    db = Path(second_run["database"])
    time.sleep(2.5)
    sx.index()  # settles the stat cache (files hashed within the racy window are hashed again)
    report["setup"] = {"files": first["files"], "first_index_seconds": first["wall_seconds"],
                       "second_commit_index_seconds": second_run["wall_seconds"]}

    targets = [(base, False), ("main", True)]
    commit_of = {base: base, "main": second}

    # (a) sextant index after a checkout.
    report["load_before_cli"] = load()
    walls, engine, hashed, shared, phases = [], [], [], [], []
    for i in range(args.switches):
        rev, marked = targets[i % 2]
        git(repo, "checkout", "-q", rev)
        wall, s = sx.index()
        walls.append(wall)
        engine.append(s["wall_seconds"] * 1000)
        hashed.append(s["files"].get("hashed"))
        shared.append(s["resolution_shared_with"] is not None)
        phases.append({k: round(v * 1000, 1) for k, v in s["phases"].items()})
        assert s["commit"] == commit_of[rev], s["commit"]
        assert sx.has_marker() == marked, f"switch {i}: answers are not {rev}'s"
    report["cli"] = {
        "what": "sextant index REPO --json after git checkout (process wall time)",
        "process_wall": summary(walls), "engine_wall": summary(engine),
        "files_hashed": hashed, "resolution_shared": shared, "phases_ms": phases,
        "walls_ms": [round(w, 1) for w in walls],
    }
    report["load_after_cli"] = load()

    # (b) the watcher.
    if not args.skip_watch:
        report["load_before_watch"] = load()
        proc = subprocess.Popen([str(binary), "watch", "--json", str(repo)], env=sx.env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                bufsize=1)
        events: "queue.Queue[tuple[float, dict]]" = queue.Queue()

        def reader() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                try:
                    events.put((time.monotonic(), json.loads(line)))
                except json.JSONDecodeError:
                    pass

        threading.Thread(target=reader, daemon=True).start()

        def wait_indexed(commit: str | None, timeout: float = 120.0) -> tuple[float, dict]:
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SystemExit(f"no indexed event for {commit} within {timeout} s")
                at, ev = events.get(timeout=left)
                if ev.get("event") == "error":
                    raise SystemExit(f"watcher error: {ev}")
                # (A build before `commit` was in the event line: any indexed event.)
                if ev.get("event") == "indexed" and commit in (None, ev.get("commit", commit)):
                    return at, ev

        visible, evented, kinds, checkout = [], [], [], []
        try:
            wait_indexed(None, 600)  # the initial run
            time.sleep(1.0)
            for i in range(args.switches):
                rev, marked = targets[i % 2]
                commit = commit_of[rev]
                time.sleep(1.0)  # the previous switch's idle work (garbage, resolver) done
                while not events.empty():
                    events.get_nowait()
                t0 = time.monotonic()
                git(repo, "checkout", "-q", rev)
                t = time.monotonic()
                checkout.append((t - t0) * 1000)
                while active_commit(db) != commit:
                    if time.monotonic() - t > 120:
                        raise SystemExit(f"switch {i}: {commit} never became active")
                    time.sleep(0.002)
                visible.append((time.monotonic() - t) * 1000)
                at, ev = wait_indexed(commit)
                evented.append((at - t) * 1000)
                kinds.append({"shared_with": ev.get("resolution_shared_with"),
                              "wall_ms": round(ev.get("wall_seconds", 0) * 1000, 1),
                              "latency_ms": ev.get("latency_ms"),
                              "phases_ms": {k: round(v * 1000, 1)
                                            for k, v in (ev.get("phases") or {}).items()}})
                assert sx.has_marker() == marked, f"watch switch {i}: answers are not {rev}'s"
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        report["watch"] = {
            "what": "sextant watch --json: from the end of git checkout",
            "to_active_generation": summary(visible),
            "to_indexed_event": summary(evented),
            "git_checkout_itself": summary(checkout),
            "runs": kinds,
            "visible_ms": [round(v, 1) for v in visible],
        }
        report["load_after_watch"] = load()

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
