#!/usr/bin/env python3
"""How peak memory and throughput grow with the repository: `bench/memory_scaling.py`.

Builds three monorepos of real, distinct code from pinned registry packages (hard links under
`bench/corpora/_scaling/`, no copies):

  s1: Django 5.1.4 (Python, 18 MB of source)
  s2: s1 + SymPy 1.13.3 (Python, 44 MB)
  s3: s2 + tokio, effect, redis (the other corpora of `bench/run.py`) and seven crates
      (bevy_ecs, wgpu-core, rustls, regex-automata, syn, hyper, clap_builder): 73 MB
  s4: s3 + six more crates (aws-sdk-ec2, aws-sdk-iam, aws-sdk-s3, web-sys, cranelift-codegen,
      naga): 165 MB, most of it generated API code (many methods of the same names)

and indexes each (`sextant index --full --json`, a fresh `SEXTANT_HOME` per run), sampling the
process's `/proc/PID/status` every 20 ms for its peak resident memory (`VmRSS`), split into
anonymous memory (`RssAnon`: Sextant's own heap, SQLite's page cache) and file pages (`RssFile`:
the binary and the database's memory map, which the kernel can drop). Each stage reports the
median over `--runs` (default 1) and the slope of peak memory against source size (MiB per MB,
least squares over the stages): what a repository ten times larger would need.

The peak is the read phase's, which depends on the densest files being parsed (SymPy's make s2's
the largest), not on the repository's size. What does grow with it is held after the read
phase (the resolver's tables, what waits on disk's indexes): each run also reports the largest
anonymous memory once the read phase has given its memory back (`after_read_anon_mib`, from the
index's debug log: "resolver inputs"), with its own slope.

Duplicating one corpus would not do: identical modules make every name ambiguous and multiply
the edges (4 copies of Django: 10x the edges of one).

Resident memory counts file pages the kernel can drop (the maps of the resolver's temporary
tables, the binary), so `--limit-mib N` also indexes each stage once inside a memory cgroup of
N MiB (v1 or v2; it must be writable, e.g. as root). The cgroup charges everything the index
touches, page cache included (the source read, the database written, the maps), and there is
no swap: anonymous memory must fit, file pages are dropped and read again. It reports whether
the index completed, its wall time against the stage's median without the limit, and the
cgroup's own peak: the memory a machine must have, not what an unconstrained run happens to
keep.

`--edit` also measures the run that follows an edit: each stage indexed once (not measured),
one file changed (`django/__init__.py`, in every stage: a function appended; the stage's hard
link is replaced, never the corpus written through it, and put back after), then indexed again
as a user's next `sextant index` would, reusing every other file version, while sampled as
above. Its peak anonymous memory includes SQLite's page cache of a normal run (up to 64 MiB;
a first index loads with 8 MiB).

Options: `--runs N`, `--stages s1,s2`, `--skip-download`, `--limit-mib N`, `--edit`. Writes
`bench/out/memory-scaling.json` (the figures, the machine, the commit, the binary's SHA-256)."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as base  # noqa: E402  (the corpora's download, check and extraction)

SCALING = base.CORPORA / "_scaling"

EXTRA: dict[str, dict] = {
    "sympy": {
        "language": "python",
        "version": "1.13.3",
        "fetch": "pip",
        "package": "sympy",
        "archive": "sympy-1.13.3.tar.gz",
        "sha256": "b27fd2c6530e0ab39e275fc9b683895367e51d5da91baa8d3d64db2565fec4d9",
        "subdir": None,
        "keep": None,
    },
}
CRATES = {
    "bevy_ecs": ("0.14.2", "9ee4222406637f3c8e3991a99788cfcde76097bf997c311f1b6297364057483f"),
    "wgpu-core": ("22.1.0", "0348c840d1051b8e86c3bcd31206080c5e71e5933dabd79be1ce732b0b2f089a"),
    "rustls": ("0.23.16", "eee87ff5d9b36712a58574e12e9f0ea80f915a5b0ac518d322b24a465617925e"),
    "regex-automata": ("0.4.9", "809e8dc61f6de73b46c85f4c96486310fe304c434cfa43669d7b40f711150908"),
    "syn": ("2.0.87", "25aa4ce346d03a6dcd68dd8b4010bcb74e54e62c90c573f394c46eae99aba32d"),
    "hyper": ("1.5.0", "bbbff0a806a4728c99295b254c8838933b5b082d75e3cb70c8dab21fdfbcfa9a"),
    "clap_builder": ("4.5.20", "19bc80abd44e4bed93ca373a0704ccbd1b710dc5749406201bb018272808dc54"),
}
# The fourth stage's: twice s3's source, real (generated) code rather than copies.
MORE_CRATES = {
    "aws-sdk-ec2": ("1.90.0", "fed8791f1d24f2d09c0a2b09cb2706f168cf54d2babd934a8d229fa31b0b0400"),
    "aws-sdk-iam": ("1.50.0", "244bda0530a9f653f3b32f4363307c2fcd96d59483f256b378857c2094de974d"),
    "aws-sdk-s3": ("1.60.0", "0506cc60e392e33712d47717d5ae5760a3b134bf8ee7aea7e43df3d7e2669ae0"),
    "web-sys": ("0.3.72", "f6488b90108c040df0fe62fa815cbdee25124641df01814dd7282749234c6112"),
    "cranelift-codegen": (
        "0.113.1", "46566d7c83a8bff4150748d66020f4c7224091952aa4b4df1ec4959c39d937a1"),
    "naga": ("23.0.0", "3d5941e45a15b53aad4375eedf02033adb7a28931eedc31117faffa52e6a857e"),
}
for crate, (version, digest) in {**CRATES, **MORE_CRATES}.items():
    EXTRA[crate] = {
        "language": "rust",
        "version": version,
        "fetch": "crate",
        "package": crate,
        "archive": f"{crate}-{version}.crate",
        "sha256": digest,
        "subdir": None,
        "keep": None,
    }

STAGES = {
    "s1": ["django"],
    "s2": ["django", "sympy"],
    "s3": ["django", "sympy", "tokio", "effect", "redis", *CRATES],
    "s4": ["django", "sympy", "tokio", "effect", "redis", *CRATES, *MORE_CRATES],
}


def spec_of(name: str) -> dict:
    return base.SPECS.get(name) or EXTRA[name]


def corpus(name: str, download: bool) -> Path:
    spec = spec_of(name)
    if download:
        return base.extract(name, spec, base.fetch(name, spec))
    path = base.corpus_dir(name, spec)
    if not path.is_dir():
        raise SystemExit(f"{name}: {path} is missing (run without --skip-download)")
    return path


def link_tree(src: Path, dest: Path) -> None:
    """`dest` mirrors `src` with hard links (a copy where linking fails)."""
    for dirpath, _dirs, files in os.walk(src):
        out = dest / Path(dirpath).relative_to(src)
        out.mkdir(parents=True, exist_ok=True)
        for f in files:
            s = Path(dirpath) / f
            if s.is_symlink():
                continue
            try:
                os.link(s, out / f)
            except OSError:
                shutil.copy2(s, out / f)


def build_stage(stage: str, names: list[str], download: bool) -> Path:
    dest = SCALING / stage
    stamp = SCALING / f".{stage}.parts"
    parts = "\n".join(f"{n} {spec_of(n)['sha256']}" for n in names)
    if dest.is_dir() and stamp.exists() and stamp.read_text() == parts:
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    for name in names:
        src = corpus(name, download)
        base.log(f"[{stage}] linking {src.name}")
        link_tree(src, dest / src.name)
    stamp.write_text(parts)
    return dest


def sample_memory(pid: int, peaks: dict, stop: threading.Event,
                  read_over: threading.Event) -> None:
    while not stop.is_set():
        try:
            fields = {}
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                key = line.split(":", 1)[0]
                if key in ("VmRSS", "RssAnon", "RssFile"):
                    fields[key] = int(line.split()[1]) / 1024
            if "VmRSS" in fields and fields["VmRSS"] > peaks.get("rss", 0):
                peaks["rss"] = fields["VmRSS"]
                peaks["anon_at_peak"] = fields.get("RssAnon", 0)
                peaks["file_at_peak"] = fields.get("RssFile", 0)
            peaks["anon"] = max(peaks.get("anon", 0), fields.get("RssAnon", 0))
            if read_over.is_set():
                peaks["after_read"] = max(peaks.get("after_read", 0), fields.get("RssAnon", 0))
        except (OSError, ValueError):
            pass
        stop.wait(0.02)


class Cgroup:
    """A memory cgroup of its own (v1 or v2) that a child process joins before it starts."""

    def __init__(self, limit_mib: int) -> None:
        name = f"sextant-scaling-{os.getpid()}"
        v1 = Path("/sys/fs/cgroup/memory")
        self.v1 = v1.is_dir()
        self.dir = (v1 if self.v1 else Path("/sys/fs/cgroup")) / name
        limit = str(limit_mib << 20)
        try:
            self.dir.mkdir()
            if self.v1:
                (self.dir / "memory.limit_in_bytes").write_text(limit)
            else:
                (self.dir / "memory.max").write_text(limit)
        except OSError as e:
            self.remove()
            raise SystemExit(
                f"--limit-mib needs a memory cgroup it can make ({self.dir}: {e}); run it as "
                "root, or where the memory controller is delegated") from e
        # No swap: anonymous memory must fit in the limit (the host has none anyway).
        for swap in ("memory.memsw.limit_in_bytes", "memory.swap.max"):
            try:
                (self.dir / swap).write_text(limit if self.v1 else "0")
            except OSError:
                pass

    def join(self) -> None:
        """Runs in the child between fork and exec."""
        (self.dir / "cgroup.procs").write_text(str(os.getpid()))

    def peak_mib(self) -> float | None:
        for f in ("memory.max_usage_in_bytes", "memory.peak"):
            try:
                return int((self.dir / f).read_text()) / 1048576
            except (OSError, ValueError):
                pass
        return None

    def oom_kills(self) -> int:
        for f in ("memory.oom_control", "memory.events"):
            try:
                for line in (self.dir / f).read_text().splitlines():
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
            except (OSError, ValueError):
                pass
        return 0

    def remove(self) -> None:
        try:
            self.dir.rmdir()
        except OSError:
            pass


def index_once(binary: Path, directory: Path, cgroup: Cgroup | None = None,
               home: str | None = None) -> dict:
    """A full index in a fresh home; with `home`, a plain `sextant index` there (which reuses
    what that home's index holds)."""
    own_home = home is None
    home = home or tempfile.mkdtemp(prefix="sextant-scaling-")
    try:
        # The pipeline's debug log says when the read phase is over and its memory given back
        # ("resolver inputs").
        env = dict(os.environ, SEXTANT_HOME=home, NO_COLOR="1",
                   SEXTANT_LOG="sextant_engine::pipeline=debug")
        started = time.monotonic()
        full = ["--full"] if own_home else []
        p = subprocess.Popen([str(binary), "index", "--json", *full, str(directory)],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=cgroup.join if cgroup else None)
        peaks: dict = {}
        stop, read_over = threading.Event(), threading.Event()
        sampler = threading.Thread(target=sample_memory, args=(p.pid, peaks, stop, read_over))
        sampler.start()
        err_lines: list[str] = []

        def read_stderr() -> None:
            for line in p.stderr:
                if "resolver inputs" in line:
                    read_over.set()
                err_lines.append(line)
                del err_lines[:-50]

        reader = threading.Thread(target=read_stderr)
        reader.start()
        out = p.stdout.read()
        p.wait()
        reader.join()
        stop.set()
        sampler.join()
        err = "".join(err_lines)
        if cgroup is not None and p.returncode != 0:
            return {"completed": False, "returncode": p.returncode,
                    "process_wall_seconds": time.monotonic() - started,
                    "error": err[-500:]}
        if p.returncode != 0:
            raise SystemExit(f"index of {directory} failed ({p.returncode}): {err[-2000:]}")
        s = json.loads(out)
        return {
            "wall_seconds": s["wall_seconds"],
            "process_wall_seconds": time.monotonic() - started,
            "bytes": s["bytes"],
            "files": s["files"]["indexed"],
            "symbols": s["symbols"],
            "references": s["references"],
            "edges": base.edges_total(s),
            "peak_rss_mib": round(peaks.get("rss", 0), 1),
            "anon_at_peak_mib": round(peaks.get("anon_at_peak", 0), 1),
            "file_at_peak_mib": round(peaks.get("file_at_peak", 0), 1),
            "peak_anon_mib": round(peaks.get("anon", 0), 1),
            "after_read_anon_mib": round(peaks.get("after_read", 0), 1),
            "phases": s.get("phases"),
            "files_reused": s["files"].get("reused"),
        }
    finally:
        if own_home:
            shutil.rmtree(home, ignore_errors=True)


# The file every stage has, changed by `--edit`.
EDITED = Path("django-5.1.4") / "django" / "__init__.py"


@contextlib.contextmanager
def edited(directory: Path):
    """`EDITED` in `directory` replaced by a changed copy (a function appended) while inside:
    a new file in the hard link's place, so the corpus the stage links to is never written; the
    link is put back afterwards."""
    path = directory / EDITED
    original = corpus("django", False) / "django" / "__init__.py"
    side = path.with_name(path.name + ".sextant-edit")
    side.write_bytes(original.read_bytes() + b"\n\ndef sextant_probe():\n    return setup()\n")
    os.replace(side, path)
    try:
        yield
    finally:
        try:
            os.link(original, side)
        except OSError:
            shutil.copy2(original, side)
        os.replace(side, path)


def index_after_edit(binary: Path, directory: Path) -> dict:
    """Indexes `directory`, changes `EDITED` in it, and measures the index that follows."""
    home = tempfile.mkdtemp(prefix="sextant-scaling-")
    try:
        first = subprocess.run([str(binary), "index", "--json", str(directory)],
                               env=dict(os.environ, SEXTANT_HOME=home),
                               capture_output=True, text=True)
        if first.returncode != 0:
            raise SystemExit(f"index of {directory} failed: {first.stderr[-2000:]}")
        with edited(directory):
            return index_once(binary, directory, home=home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def slope(points: list[tuple[float, float]]) -> float | None:
    if len(points) < 2:
        return None
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--stages", default=",".join(STAGES))
    ap.add_argument("--skip-download", action="store_true")
    ap.add_argument("--binary", default=str(base.ROOT / "target" / "release" / "sextant"))
    ap.add_argument("--limit-mib", type=int, default=None,
                    help="also index each stage once inside a memory cgroup of this many MiB")
    ap.add_argument("--edit", action="store_true",
                    help="also measure the index that follows a one-file edit")
    args = ap.parse_args()
    stages = [s for s in args.stages.split(",") if s]
    for s in stages:
        if s not in STAGES:
            raise SystemExit(f"unknown stage {s!r} (known: {', '.join(STAGES)})")
    binary = Path(args.binary)
    if not binary.exists():
        raise SystemExit(f"{binary} is missing: cargo build --release -p sextant-cli")
    snap = Path(tempfile.mkdtemp(prefix="sextant-scaling-bin-"))
    copy = snap / "sextant"
    shutil.copy2(binary, copy)
    results = []
    for stage in stages:
        directory = build_stage(stage, STAGES[stage], not args.skip_download)
        runs = []
        for i in range(args.runs):
            r = index_once(copy, directory)
            base.log(f"[{stage}] run {i + 1}/{args.runs}: {r['bytes'] / 1e6:.1f} MB in "
                     f"{r['wall_seconds']:.2f} s ({r['bytes'] / 1e6 / r['wall_seconds']:.2f} MB/s), "
                     f"peak RSS {r['peak_rss_mib']:.0f} MiB (anonymous {r['anon_at_peak_mib']:.0f}), "
                     f"anonymous after the read phase {r['after_read_anon_mib']:.0f} MiB")
            runs.append(r)
        med = lambda k: statistics.median(r[k] for r in runs)  # noqa: E731
        limited = None
        if args.limit_mib:
            cgroup = Cgroup(args.limit_mib)
            try:
                r = index_once(copy, directory, cgroup)
                limited = {
                    "limit_mib": args.limit_mib,
                    "completed": r.get("completed", True),
                    "cgroup_peak_mib": round(cgroup.peak_mib() or 0, 1),
                    "oom_kills": cgroup.oom_kills(),
                } | r
            finally:
                cgroup.remove()
            if limited["completed"]:
                limited["slowdown"] = round(r["wall_seconds"] / med("wall_seconds"), 2)
                base.log(f"[{stage}] within {args.limit_mib} MiB: {r['wall_seconds']:.2f} s "
                         f"({limited['slowdown']:.2f}x), peak RSS {r['peak_rss_mib']:.0f} MiB")
            else:
                base.log(f"[{stage}] within {args.limit_mib} MiB: failed "
                         f"(exit {limited['returncode']}, OOM kills {limited['oom_kills']})")
        edited = None
        if args.edit:
            edited = index_after_edit(copy, directory)
            base.log(f"[{stage}] after an edit: {edited['wall_seconds']:.2f} s, "
                     f"{edited['files_reused']} files reused, peak RSS "
                     f"{edited['peak_rss_mib']:.0f} MiB, peak anonymous "
                     f"{edited['peak_anon_mib']:.0f} MiB")
        results.append({
            "stage": stage,
            "parts": STAGES[stage],
            "mb": round(runs[0]["bytes"] / 1e6, 2),
            "files": runs[0]["files"],
            "symbols": runs[0]["symbols"],
            "references": runs[0]["references"],
            "edges": runs[0]["edges"],
            "wall_seconds_median": round(med("wall_seconds"), 3),
            "mb_per_second_median": round(runs[0]["bytes"] / 1e6 / med("wall_seconds"), 2),
            "peak_rss_mib_median": round(med("peak_rss_mib"), 1),
            "peak_anon_mib_median": round(med("peak_anon_mib"), 1),
            "after_read_anon_mib_median": round(med("after_read_anon_mib"), 1),
            "runs": runs,
            "limited": limited,
            "after_edit": edited,
        })
    report = {
        "stages": results,
        "peak_rss_mib_per_source_mb": slope([(r["mb"], r["peak_rss_mib_median"]) for r in results]),
        "peak_anon_mib_per_source_mb": slope([(r["mb"], r["peak_anon_mib_median"]) for r in results]),
        "after_read_anon_mib_per_source_mb": slope(
            [(r["mb"], r["after_read_anon_mib_median"]) for r in results]),
        "machine": base.machine_info() | {"loadavg": base.loadavg()},
        "commit": subprocess.run(["git", "-C", str(base.ROOT), "rev-parse", "HEAD"],
                                 capture_output=True, text=True).stdout.strip() or None,
        "binary_sha256": base.sha256(copy),
    }
    shutil.rmtree(snap, ignore_errors=True)
    base.OUT.mkdir(parents=True, exist_ok=True)
    out = base.OUT / "memory-scaling.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print("| stage | MB | files | refs | edges | wall s | MB/s | peak RSS MiB | peak anonymous MiB "
          "| anonymous after the read phase MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['stage']} | {r['mb']:.1f} | {r['files']:,} | {r['references']:,} | "
              f"{r['edges']:,} | {r['wall_seconds_median']:.2f} | {r['mb_per_second_median']:.2f} | "
              f"{r['peak_rss_mib_median']:.0f} | {r['peak_anon_mib_median']:.0f} | "
              f"{r['after_read_anon_mib_median']:.0f} |")
    if args.limit_mib:
        print(f"\nwithin a memory cgroup of {args.limit_mib} MiB:\n")
        print("| stage | completed | wall s | slowdown | read s | resolve s | cgroup peak MiB |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for r in results:
            lim = r["limited"]
            if lim["completed"]:
                ph = lim.get("phases") or {}
                print(f"| {r['stage']} | yes | {lim['wall_seconds']:.2f} | {lim['slowdown']:.2f} | "
                      f"{ph.get('read', 0):.2f} | {ph.get('resolve', 0):.2f} | "
                      f"{lim['cgroup_peak_mib']:.0f} |")
            else:
                print(f"| {r['stage']} | no (exit {lim['returncode']}, "
                      f"{lim['oom_kills']} OOM kills) | | | | | {lim['cgroup_peak_mib']:.0f} |")
        print()
    if args.edit:
        print("after a one-file edit:\n")
        print("| stage | files reused | wall s | peak RSS MiB | peak anonymous MiB |")
        print("|---|---:|---:|---:|---:|")
        for r in results:
            e = r["after_edit"]
            print(f"| {r['stage']} | {e['files_reused']:,} | {e['wall_seconds']:.2f} | "
                  f"{e['peak_rss_mib']:.0f} | {e['peak_anon_mib']:.0f} |")
        print()
    for key in ("peak_rss_mib_per_source_mb", "peak_anon_mib_per_source_mb",
                "after_read_anon_mib_per_source_mb"):
        if report[key] is not None:
            print(f"{key}: {report[key]:.2f}")
    print(f"wrote {out.relative_to(base.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
