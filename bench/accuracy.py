#!/usr/bin/env python3
"""Sextant resolution accuracy against compiler-grade SCIP ground truth, over pinned real corpora.

Usage (from the repository root, after `cargo build --release -p sextant-cli`):

    python3 bench/accuracy.py                       # every corpus
    python3 bench/accuracy.py --corpus flask        # one corpus (repeatable)
    python3 bench/accuracy.py --corpus semver --corpus regex-syntax   # the Rust corpora only (no npm)
    python3 bench/accuracy.py --skip-download       # reuse bench/corpora/accuracy/ and bench/tools/
    python3 bench/accuracy.py --regenerate          # re-run the SCIP indexers even when cached
    python3 bench/accuracy.py --scip-only           # download + SCIP generation only (no sextant)
    python3 bench/accuracy.py --ci                  # smallest corpora, ratchet against thresholds
    python3 bench/accuracy.py --append-results      # also append the table to bench/RESULTS.md

Ground truth. The Python and TypeScript SCIP indexers are npm packages pinned by
bench/accuracy-tools/package-lock.json (scip-python 0.6.6 = pyright; scip-typescript 0.4.0 = the
TypeScript 5.9 compiler) and installed with `npm ci` into bench/tools/ (gitignored) the first time
they are needed (only when a Python/TypeScript/JavaScript corpus is selected). Rust ground truth is
`rust-analyzer scip` from the active rustup toolchain: not pinned here, so its version string
(`rust-analyzer --version`) is recorded in the sidecar and a different version regenerates the
index; `rustup component add rust-analyzer rust-src` runs when either is missing (rust-src is the
standard library's source, without which rust-analyzer cannot type anything that goes through std).

Corpora. Each is downloaded with its registry's ordinary client (`pip download --no-binary :all:
--no-deps`, `npm pack`, or the .crate from https://static.crates.io; the same code as bench/run.py,
into bench/corpora/_downloads/), verified against a pinned SHA-256 and extracted to
bench/corpora/accuracy/NAME-VERSION/ (only the entries in `keep`; the whole archive for crates).
Each Python/TypeScript corpus gets one pinned indexer configuration file written next to its
sources (`pyrightconfig.json` or `tsconfig.json`; Sextant does not index JSON), so the ground truth
does not depend on defaults or on whatever the machine has installed: scip-python runs with an empty
`--environment` and a PATH holding only `node`, so pyright sees no Python interpreter and no
site-packages (the standard library comes from its bundled typeshed), and imports of third-party
packages stay unresolved on both sides. A crate's configuration is its own Cargo.toml and the
Cargo.lock it ships (default features, cfg(test) on): rust-analyzer runs on a temporary copy of the
corpus (outside any Cargo workspace, with its own CARGO_TARGET_DIR and CARGO_NET_OFFLINE unset, so
`cargo metadata` may read the crates.io index), so the corpus Sextant indexes stays exactly the
crate as published (no target/, no regenerated Cargo.lock).

The SCIP index is cached as bench/corpora/accuracy/NAME-VERSION.scip, with a sidecar
NAME-VERSION.scip.json (indexer, version, seconds, command, document/occurrence counts decoded
here); it is regenerated when missing, when the indexer or corpus changed, or with --regenerate.

Then, per corpus, with a fresh temporary SEXTANT_HOME and a copy of the release binary:

1. `sextant index --json DIR`
2. `sextant eval --scip DIR.scip --repo DIR --json`

and bench/out/accuracy-NAME.json gets the corpus spec, the indexer run, the index summary, the
eval report, the machine and the sextant commit. A Markdown table is printed.

CI (--ci): only the smallest Python corpus, plus the smallest TypeScript/JavaScript corpus when
its SCIP generation takes under 60 s (no Rust corpus); each metric is compared with
bench/accuracy-thresholds.json (a ratchet: exit 1 when a metric falls below its floor, or above its
ceiling for lower-is-better metrics; a hint is printed when a metric beats its threshold by more
than 0.02, so it can be raised).

Python 3.11+, standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

# bench/run.py owns the registry download code (pip / npm pack / crates) and the machine probe.
sys.dont_write_bytecode = True  # no bench/__pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import fetch, log, machine_info, sha256  # noqa: E402

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CORPORA = BENCH / "corpora" / "accuracy"
OUT = BENCH / "out"
TOOLS = BENCH / "tools"  # gitignored; `npm ci` target
TOOLS_LOCK = BENCH / "accuracy-tools"  # committed package.json + package-lock.json
THRESHOLDS = BENCH / "accuracy-thresholds.json"
RESULTS = BENCH / "RESULTS.md"

# The SCIP indexers.
#   install "npm":    pinned here and (with every transitive dependency) in TOOLS_LOCK; `npm ci`
#   install "rustup": a rustup component of the active toolchain; "version" is None because it is
#                     whatever that toolchain ships (probed, recorded, and part of the cache key)
INDEXERS: dict[str, dict] = {
    "scip-python": {"install": "npm", "package": "@sourcegraph/scip-python", "version": "0.6.6"},
    "scip-typescript": {"install": "npm", "package": "@sourcegraph/scip-typescript", "version": "0.4.0"},
    "rust-analyzer": {"install": "rustup", "binary": "rust-analyzer",
                      "components": ["rust-analyzer", "rust-src"], "version": None},
}
NPM_INDEXERS = {k: v for k, v in INDEXERS.items() if v["install"] == "npm"}

CI_SCIP_LIMIT_SECONDS = 60.0
DEFAULT_SCIP_TIMEOUT_SECONDS = 3600.0
HINT_MARGIN = 0.02

# Metrics the ratchet compares: higher is better, except LOWER_IS_BETTER (thresholds are ceilings).
LOWER_IS_BETTER = {"wrong"}

PYRIGHT_CONFIG = {"pythonVersion": "3.12", "pythonPlatform": "Linux"}
TSCONFIG_TS = {
    "compilerOptions": {
        "target": "es2022",
        "module": "esnext",
        "moduleResolution": "bundler",
        "strict": True,
        "skipLibCheck": True,
        "noEmit": True,
        "types": [],
    },
    "include": ["src"],
}

# Every corpus is pinned by version and by the SHA-256 of the downloaded archive.
#   fetch:    "pip" (sdist), "npm" (`npm pack`) or "crate" (static.crates.io), as in bench/run.py
#   keep:     top-level entries of the archive's top directory that become the corpus (None: all)
#   config:   {file name: JSON} written into the corpus for the indexer (pinned configuration)
#   indexer:  a key of INDEXERS
#   ci:       "python" / "typescript": the smallest corpus of that family, run by --ci
SPECS: dict[str, dict] = {
    "flask": {
        "language": "python",
        "version": "3.1.3",
        "fetch": "pip",
        "package": "flask",
        "archive": "flask-3.1.3.tar.gz",
        "sha256": "0ef0e52b8a9cd932855379197dd8f94047b359ca0a78695144304cb45f87c9eb",
        "keep": ["src", "tests", "LICENSE.txt"],
        # src layout: tests import `flask` from src/ (pyright adds no src/ path without an
        # interpreter, and module names then start at src/: `flask.app`, not `src.flask.app`).
        "config": {"pyrightconfig.json": {**PYRIGHT_CONFIG, "extraPaths": ["src"]}},
        "indexer": "scip-python",
        "ci": "python",
        "source": "PyPI sdist flask==3.1.3: src/flask/ (the library, src layout) and tests/ "
        "(docs/, examples/ and pyproject.toml left out: scip-python's TOML reader cannot parse "
        "that pyproject.toml, and its [tool.pyright] would limit pyright to src/)",
    },
    "rich": {
        "language": "python",
        "version": "15.0.0",
        "fetch": "pip",
        "package": "rich",
        "archive": "rich-15.0.0.tar.gz",
        "sha256": "edd07a4824c6b40189fb7ac9bc4c52536e9780fbbfbddf6f1e2502c31b068c36",
        "keep": ["rich", "LICENSE"],
        "config": {"pyrightconfig.json": PYRIGHT_CONFIG},
        "indexer": "scip-python",
        "source": "PyPI sdist rich==15.0.0: the library package rich/ only (the sdist ships no "
        "tests or docs)",
    },
    "immer": {
        "language": "typescript",
        "version": "11.2.13",
        "fetch": "npm",
        "package": "immer",
        "archive": "immer-11.2.13.tgz",
        "sha256": "7aafee379780f7b290fd76c5f57fea4ef9f2599c021ae70038739c6e5e96009a",
        "keep": ["src", "package.json", "LICENSE"],
        "config": {"tsconfig.json": TSCONFIG_TS},
        "indexer": "scip-typescript",
        "ci": "typescript",
        "source": "npm immer@11.2.13: src/ (the TypeScript sources; the generated dist/ is left out)",
    },
    "axios": {
        "language": "javascript",
        "version": "1.21.1",
        "fetch": "npm",
        "package": "axios",
        "archive": "axios-1.21.1.tgz",
        "sha256": "5659acb8c9414ad88aa539db8e529947c9bac8cdf55973e314a078fc0205751c",
        "keep": ["lib", "index.js", "package.json", "LICENSE"],
        "config": {"tsconfig.json": {
            "compilerOptions": {
                "allowJs": True,
                "checkJs": False,
                "target": "es2022",
                "module": "esnext",
                "moduleResolution": "bundler",
                "skipLibCheck": True,
                "noEmit": True,
                "types": [],
            },
            "include": ["index.js", "lib"],
        }},
        "indexer": "scip-typescript",
        "source": "npm axios@1.21.1: lib/ and index.js (plain JavaScript ES modules; dist/ bundles "
        "and the .d.ts typings are left out), indexed by scip-typescript with allowJs",
    },
    "zod": {
        "language": "typescript",
        "version": "4.6.7",
        "fetch": "npm",
        "package": "zod",
        "archive": "zod-4.6.7.tgz",
        "sha256": "84efd155bed93270286e793fc951be270b536cbd5b0eeb111f0fa3967201d698",
        "keep": ["src", "package.json", "LICENSE"],
        "config": {"tsconfig.json": {
            "compilerOptions": {
                **TSCONFIG_TS["compilerOptions"],
                # zod's tests import the package by its own name ("zod/v4"); its package.json
                # maps those exports to src/ under this condition, as zod's own build does.
                "customConditions": ["@zod/source"],
            },
            "include": ["src"],
        }},
        "indexer": "scip-typescript",
        "source": "npm zod@4.6.7: src/ (TypeScript sources of v3, v4 classic/core/mini and "
        "locales, with their *.test.ts files; the generated .js/.d.ts are left out)",
    },
    "semver": {
        "language": "rust",
        "version": "1.0.26",
        "fetch": "crate",
        "package": "semver",
        "archive": "semver-1.0.26.crate",
        "sha256": "56e6fa9c48d24d85fb3de5ad847117517440f6beceb7798af16b4a87d616b8d0",
        "keep": None,
        "indexer": "rust-analyzer",
        "source": "crates.io semver =1.0.26, the whole .crate as published (src/, tests/, benches/, "
        "build.rs, Cargo.toml, Cargo.lock; no dependencies); rust-analyzer with default features "
        "(src/serde.rs, behind the `serde` feature, and tests/node/ are not in its index)",
    },
    "regex-syntax": {
        "language": "rust",
        "version": "0.8.12",
        "fetch": "crate",
        "package": "regex-syntax",
        "archive": "regex-syntax-0.8.12.crate",
        "sha256": "d902046e6a28a1e4c3cab97258a0ce11e994903f01c2d97a9447a0b3df85f4f6",
        "keep": None,
        "indexer": "rust-analyzer",
        "source": "crates.io regex-syntax =0.8.12, the whole .crate as published (src/ with the "
        "generated unicode_tables/, benches/, Cargo.toml, Cargo.lock; its only dependency, "
        "`arbitrary`, is optional and off); rust-analyzer with default features (std, unicode)",
    },
}

SOURCE_SUFFIXES = {".py", ".pyi", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".rs"}


def die(msg: str) -> None:
    raise SystemExit(msg)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_text(cmd: list[str], cwd: Path | None = None) -> str | None:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def git_commit() -> dict:
    head = run_text(["git", "rev-parse", "HEAD"], ROOT)
    status = run_text(["git", "status", "--porcelain", "--untracked-files=no"], ROOT)
    return {"commit": head, "dirty": bool(status) if status is not None else None}


# ---------------------------------------------------------------------------------------------
# Tools: the pinned SCIP indexers
# ---------------------------------------------------------------------------------------------


def node_binary() -> str:
    node = shutil.which("node")
    if not node:
        die("node is not on PATH; the SCIP indexers need Node.js (20 or newer)")
    return node


def installed_version(package: str) -> str | None:
    try:
        return json.loads((TOOLS / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def tools_ready() -> bool:
    lock = TOOLS / "package-lock.json"
    if not lock.exists() or lock.read_bytes() != (TOOLS_LOCK / "package-lock.json").read_bytes():
        return False
    return all(installed_version(i["package"]) == i["version"] for i in NPM_INDEXERS.values())


def ensure_npm_tools(allow_install: bool) -> None:
    """`npm ci` of bench/accuracy-tools/ into bench/tools/, skipped when already installed."""
    if tools_ready():
        return
    if not allow_install:
        die(f"{TOOLS.relative_to(ROOT)} is missing or stale; run without --skip-download to install "
            "the pinned SCIP indexers")
    TOOLS.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(TOOLS_LOCK / name, TOOLS / name)
    cmd = ["npm", "ci", "--prefix", str(TOOLS), "--no-audit", "--no-fund", "--loglevel=error"]
    log(f"[tools] {' '.join(cmd)}")
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=sys.stderr)
    if p.returncode != 0:
        die(f"npm ci of the SCIP indexers failed ({p.returncode})")
    if not tools_ready():
        die("npm ci finished but the pinned indexer versions are not installed: "
            + ", ".join(f"{i['package']}={installed_version(i['package'])}" for i in NPM_INDEXERS.values()))
    log(f"[tools] installed in {time.perf_counter() - start:.1f} s: "
        + ", ".join(f"{k} {v['version']}" for k, v in NPM_INDEXERS.items()))


def indexer_entry(indexer: str) -> Path:
    package = INDEXERS[indexer]["package"]
    meta = json.loads((TOOLS / "node_modules" / package / "package.json").read_text())
    binfield = meta["bin"]
    rel = binfield if isinstance(binfield, str) else binfield.get(indexer) or next(iter(binfield.values()))
    return TOOLS / "node_modules" / package / rel


def tools_detail(indexer: str) -> dict:
    """Versions that shape the ground truth (the bundled compilers, the Rust toolchain)."""
    if INDEXERS[indexer]["install"] == "rustup":
        cwd = rust_probe_dir()
        src = rust_src_dir()
        return {
            "rust-analyzer": rust_analyzer_version(),
            "toolchain": run_text(["rustup", "show", "active-toolchain"], cwd),
            "rustc": run_text(["rustc", "--version"], cwd),
            "cargo": run_text(["cargo", "--version"], cwd),
            "rust-src": str(src) if src else None,
        }
    detail = {k: v["version"] for k, v in NPM_INDEXERS.items()}
    ts = installed_version("@sourcegraph/scip-typescript/node_modules/typescript") or installed_version("typescript")
    detail["typescript (used by scip-typescript)"] = ts
    detail["node"] = run_text([node_binary(), "--version"])
    return detail


# rust-analyzer is a rustup proxy: which toolchain it runs depends on the directory (rust-toolchain
# files, `rustup override`). It runs on a copy of the corpus under the temporary directory, so the
# probes and the install run there too.
def rust_probe_dir() -> Path:
    return Path(tempfile.gettempdir())


def rust_analyzer_version() -> str | None:
    """`rust-analyzer --version` without the program name, e.g. "1.95.0 (5980761 2026-04-14)"."""
    out = run_text([INDEXERS["rust-analyzer"]["binary"], "--version"], rust_probe_dir())
    if not out:
        return None
    return out.removeprefix("rust-analyzer").strip() or out


def rust_src_dir() -> Path | None:
    sysroot = run_text(["rustc", "--print", "sysroot"], rust_probe_dir())
    if not sysroot:
        return None
    library = Path(sysroot) / "lib" / "rustlib" / "src" / "rust" / "library"
    return library if library.is_dir() else None


def ensure_rust_analyzer(allow_install: bool) -> str | None:
    """The rust-analyzer version string, after `rustup component add` of whatever is missing
    (rust-analyzer, rust-src); None when it is missing and installing is not allowed."""
    version = rust_analyzer_version()
    missing = ([] if version else ["rust-analyzer"]) + ([] if rust_src_dir() else ["rust-src"])
    if not missing:
        return version
    if not allow_install:
        if version:
            log(f"[tools] warning: rustup component {', '.join(missing)} is missing (--skip-download: not "
                "installing it); rust-analyzer cannot resolve through the standard library")
        return version
    if not shutil.which("rustup"):
        die(f"{', '.join(missing)} missing and rustup is not on PATH; the Rust ground truth needs "
            "`rust-analyzer` and the rust-src component of a rustup toolchain")
    cmd = ["rustup", "component", "add", *missing]
    log(f"[tools] {' '.join(cmd)}")
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=rust_probe_dir(), stdout=sys.stderr)
    if p.returncode != 0:
        die(f"`{' '.join(cmd)}` failed ({p.returncode})")
    version = rust_analyzer_version()
    if not version:
        die("`rustup component add rust-analyzer` finished but `rust-analyzer --version` still fails")
    if not rust_src_dir():
        die("`rustup component add rust-src` finished but the toolchain has no library sources")
    log(f"[tools] installed in {time.perf_counter() - start:.1f} s: rust-analyzer {version}")
    return version


def indexer_version(indexer: str, allow_install: bool) -> str | None:
    """The version the ground truth is generated with: pinned for npm indexers, probed (installing
    when allowed) for rust-analyzer; None when it cannot be determined."""
    if INDEXERS[indexer]["install"] == "npm":
        return INDEXERS[indexer]["version"]
    return ensure_rust_analyzer(allow_install)


# ---------------------------------------------------------------------------------------------
# Corpora
# ---------------------------------------------------------------------------------------------


def corpus_dir(name: str, spec: dict) -> Path:
    return CORPORA / f"{name}-{spec['version']}"


def scip_path(name: str, spec: dict) -> Path:
    return CORPORA / f"{name}-{spec['version']}.scip"


def corpus_stamp(spec: dict) -> str:
    """Identifies the extracted corpus: the archive plus what was kept and written into it."""
    ident = {"sha256": spec["sha256"], "keep": spec["keep"], "config": spec.get("config", {})}
    return sha256_bytes(json.dumps(ident, sort_keys=True).encode())


def extract(name: str, spec: dict, archive: Path) -> Path:
    dest = corpus_dir(name, spec)
    stamp_file = CORPORA / f".{dest.name}.stamp"
    stamp = corpus_stamp(spec)
    if dest.is_dir() and stamp_file.exists() and stamp_file.read_text().strip() == stamp:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    stamp_file.unlink(missing_ok=True)
    keep = spec["keep"]
    log(f"[{name}] extracting {archive.name} -> {dest.relative_to(ROOT)} "
        f"(keeping {', '.join(keep) if keep is not None else 'everything'})")
    tmp = Path(tempfile.mkdtemp(dir=CORPORA, prefix=f".{name}-"))
    try:
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
        tops = list(tmp.iterdir())
        if len(tops) != 1 or not tops[0].is_dir():
            die(f"{name}: expected one top directory in {archive.name}")
        src = tops[0]
        missing = [k for k in keep or [] if not (src / k).exists()]
        if missing:
            die(f"{name}: {archive.name} has no {', '.join(missing)}")
        for entry in list(src.iterdir()):
            if keep is not None and entry.name not in keep:
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
        for fname, content in spec.get("config", {}).items():
            if (src / fname).exists():
                die(f"{name}: {fname} already exists in the archive; refusing to overwrite it")
            (src / fname).write_text(json.dumps(content, indent=2) + "\n")
        src.rename(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    stamp_file.write_text(stamp + "\n")
    return dest


def corpus_stats(d: Path) -> dict:
    files = 0
    total = 0
    by_suffix: dict[str, dict] = {}
    for p in sorted(d.rglob("*")):
        if not p.is_file() or p.is_symlink():
            continue
        files += 1
        size = p.stat().st_size
        total += size
        if p.suffix in SOURCE_SUFFIXES:
            s = by_suffix.setdefault(p.suffix, {"files": 0, "bytes": 0})
            s["files"] += 1
            s["bytes"] += size
    return {
        "files": files,
        "bytes": total,
        "source_files": sum(s["files"] for s in by_suffix.values()),
        "source_bytes": sum(s["bytes"] for s in by_suffix.values()),
        "by_suffix": by_suffix,
    }


# ---------------------------------------------------------------------------------------------
# SCIP: a minimal protobuf reader (scip.proto: Index, Metadata, Document, Occurrence)
# ---------------------------------------------------------------------------------------------


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def _fields(buf: bytes, start: int, end: int):
    """Yields (field number, value): an int for varints, a (start, end) slice for length-delimited."""
    i = start
    while i < end:
        key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _varint(buf, i)
            yield field, v
        elif wire == 2:
            n, i = _varint(buf, i)
            yield field, (i, i + n)
            i += n
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire} at byte {i}")


def _str(buf: bytes, span: tuple[int, int]) -> str:
    return buf[span[0]:span[1]].decode("utf-8", "replace")


def scip_stats(path: Path) -> dict:
    """Counts what the index holds: documents, occurrences (definitions, references), symbols, and
    how many global references point at a symbol defined in the index (in-repository) vs outside."""
    buf = path.read_bytes()
    tool: dict = {}
    project_root = None
    documents = 0
    languages: dict[str, int] = {}
    occurrences = definitions = local_occurrences = 0
    global_refs: dict[str, int] = {}
    defined: set[str] = set()
    symbol_infos = 0
    external_symbols = 0
    for field, val in _fields(buf, 0, len(buf)):
        if field == 1:  # Metadata
            for f2, v2 in _fields(buf, *val):
                if f2 == 2:  # ToolInfo
                    for f3, v3 in _fields(buf, *v2):
                        if f3 == 1:
                            tool["name"] = _str(buf, v3)
                        elif f3 == 2:
                            tool["version"] = _str(buf, v3)
                elif f2 == 3:
                    project_root = _str(buf, v2)
        elif field == 2:  # Document
            documents += 1
            lang = ""
            for f2, v2 in _fields(buf, *val):
                if f2 == 2:  # Occurrence
                    occurrences += 1
                    symbol = ""
                    roles = 0
                    for f3, v3 in _fields(buf, *v2):
                        if f3 == 2:
                            symbol = _str(buf, v3)
                        elif f3 == 3:
                            roles = v3
                    if not symbol:
                        continue
                    if symbol.startswith("local "):
                        local_occurrences += 1
                    elif roles & 1:
                        definitions += 1
                        defined.add(symbol)
                    else:
                        global_refs[symbol] = global_refs.get(symbol, 0) + 1
                elif f2 == 3:
                    symbol_infos += 1
                elif f2 == 4:
                    lang = _str(buf, v2)
            languages[lang or "?"] = languages.get(lang or "?", 0) + 1
        elif field == 3:
            external_symbols += 1
    refs_total = sum(global_refs.values())
    refs_in_repo = sum(n for s, n in global_refs.items() if s in defined)
    return {
        "bytes": len(buf),
        "tool": tool,
        "project_root": project_root,
        "documents": documents,
        "documents_by_language": languages,
        "occurrences": occurrences,
        "definitions": definitions,
        "global_references": refs_total,
        "global_references_to_repo_symbols": refs_in_repo,
        "local_occurrences": local_occurrences,
        "defined_symbols": len(defined),
        "symbol_informations": symbol_infos,
        "external_symbols": external_symbols,
    }


# ---------------------------------------------------------------------------------------------
# SCIP generation
# ---------------------------------------------------------------------------------------------


class ScipTimeout(Exception):
    pass


def rel(path: str | Path) -> str:
    """`path` relative to the repository root when it is under it."""
    text = str(path)
    return str(Path(text).relative_to(ROOT)) if text.startswith(str(ROOT)) else text


# Environment variables that would change what rust-analyzer's cargo sees or where it builds.
# (RUSTUP_TOOLCHAIN is kept: it picks the toolchain for the version probe and the run alike.)
RUST_ENV_DROP = ("CARGO_NET_OFFLINE", "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR", "CARGO_BUILD_TARGET",
                 "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS")


def rust_analyzer_command(name: str, corpus: Path, output: Path,
                          workdir: Path) -> tuple[list[str], dict, Path, str]:
    """rust-analyzer on a copy of the corpus in `workdir`: outside the Sextant Cargo workspace (in
    place, cargo stops with "current package believes it's in a workspace when it's not", because
    of /Cargo.toml), and whatever cargo writes (target/, a Cargo.lock) stays out of the corpus
    Sextant indexes."""
    copy = workdir / corpus.name
    shutil.copytree(corpus, copy, symlinks=True)
    env = {k: v for k, v in os.environ.items() if k not in RUST_ENV_DROP}
    env["CARGO_TARGET_DIR"] = str(workdir / "target")
    cmd = [INDEXERS["rust-analyzer"]["binary"], "scip", ".", "--output", str(output)]
    shown = (f"(cp -a {rel(corpus)} $TMP/{corpus.name} && cd $TMP/{corpus.name} && "
             f"rust-analyzer scip . --output {rel(output).replace('.scip.tmp', '.scip')}) "
             f"with CARGO_TARGET_DIR=$TMP/target, CARGO_NET_OFFLINE unset")
    return cmd, env, copy, shown


def scip_command(name: str, spec: dict, corpus: Path, output: Path,
                 workdir: Path) -> tuple[list[str], dict, Path, str]:
    """(command, environment, working directory, the command as recorded in the sidecar)."""
    if spec["indexer"] == "rust-analyzer":
        return rust_analyzer_command(name, corpus, output, workdir)
    node = node_binary()
    entry = indexer_entry(spec["indexer"])
    env = dict(os.environ)
    env["NODE_OPTIONS"] = (env.get("NODE_OPTIONS", "") + " --max-old-space-size=8192").strip()
    if spec["indexer"] == "scip-python":
        # An empty environment file: no `pip list`/`pip show` scan. A PATH with only `node`:
        # pyright finds no Python interpreter, hence no site-packages (whatever this machine has
        # installed cannot change the ground truth); the stdlib comes from the bundled typeshed.
        empty_env = workdir / "environment.json"
        empty_env.write_text("[]\n")
        bindir = workdir / "bin"
        bindir.mkdir(exist_ok=True)
        (bindir / "node").symlink_to(node)
        env["PATH"] = str(bindir)
        cmd = [node, str(entry), "index", "--project-name", name, "--project-version", spec["version"],
               "--environment", str(empty_env), "--output", str(output), "--quiet"]
    elif spec["indexer"] == "scip-typescript":
        cmd = [node, str(entry), "index", "--cwd", str(corpus), "--no-progress-bar", "--output", str(output)]
        if not (corpus / "tsconfig.json").exists():
            cmd.insert(3, "--infer-tsconfig")  # writes a tsconfig.json into the corpus
    else:
        die(f"{name}: unknown indexer {spec['indexer']}")
    shown = " ".join(rel(c) for c in cmd)
    shown = f"(cd {rel(corpus)} && {shown})".replace(".scip.tmp", ".scip")
    if spec["indexer"] == "scip-python":
        shown += " with PATH holding only node, environment.json = []"
    return cmd, env, corpus, shown


def generate_scip(name: str, spec: dict, corpus: Path, regenerate: bool, allow_install: bool,
                  timeout: float) -> dict:
    """Returns the sidecar metadata of NAME-VERSION.scip, generating the index when needed."""
    out = scip_path(name, spec)
    meta_file = out.with_name(out.name + ".json")
    indexer = spec["indexer"]
    version = indexer_version(indexer, allow_install)
    want = {"indexer": indexer, "indexer_version": version, "corpus_stamp": corpus_stamp(spec)}
    if out.exists() and meta_file.exists() and not regenerate:
        try:
            meta = json.loads(meta_file.read_text())
        except ValueError:
            meta = {}
        if version is None and meta.get("indexer_version"):
            # rust-analyzer is not installed and --skip-download forbids installing it: the cached
            # index stands for whichever version made it.
            want["indexer_version"] = meta["indexer_version"]
        if all(meta.get(k) == v for k, v in want.items()) and meta.get("sha256") == sha256(out):
            log(f"[{name}] SCIP index cached: {out.relative_to(ROOT)} ({indexer} {meta['indexer_version']}, "
                f"{meta['seconds']:.1f} s to generate)")
            return meta
    if version is None:
        die(f"{name}: `{INDEXERS[indexer]['binary']} --version` fails; run without --skip-download to "
            f"`rustup component add {' '.join(INDEXERS[indexer]['components'])}`")
    if INDEXERS[indexer]["install"] == "npm":
        ensure_npm_tools(allow_install)
    tmp_out = out.with_name(out.name + ".tmp")
    tmp_out.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"sextant-scip-{name}-") as work:
        cmd, env, cwd, shown = scip_command(name, spec, corpus, tmp_out, Path(work))
        log(f"[{name}] {shown}")
        before = {p.name for p in corpus.iterdir()}
        start = time.perf_counter()
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            tmp_out.unlink(missing_ok=True)
            raise ScipTimeout(f"{indexer} took more than {timeout:.0f} s on {name}") from e
        seconds = time.perf_counter() - start
    after = {p.name for p in corpus.iterdir()}
    if after - before:
        log(f"[{name}] note: {indexer} added {sorted(after - before)} to the corpus")
    if p.returncode != 0 or not tmp_out.exists():
        tmp_out.unlink(missing_ok=True)
        die(f"{name}: {indexer} failed ({p.returncode}) after {seconds:.1f} s:\n"
            f"{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    stats = scip_stats(tmp_out)
    if stats["documents"] == 0 or stats["occurrences"] == 0 or stats["global_references_to_repo_symbols"] == 0:
        die(f"{name}: {indexer} wrote a trivial index ({stats}); refusing to use it")
    tmp_out.replace(out)
    meta = {
        **want,
        "seconds": round(seconds, 2),
        "command": shown,
        "generated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "tools": tools_detail(indexer),
        "sha256": sha256(out),
        "stats": stats,
        "log_tail": (p.stdout + p.stderr).strip()[-2000:],
    }
    meta_file.write_text(json.dumps(meta, indent=2) + "\n")
    log(f"[{name}] {indexer} {version}: {seconds:.1f} s -> {out.relative_to(ROOT)} "
        f"({stats['bytes'] / 1e6:.1f} MB, {stats['documents']} documents, {stats['occurrences']:,} occurrences, "
        f"{stats['definitions']:,} definitions, {stats['global_references_to_repo_symbols']:,} of "
        f"{stats['global_references']:,} global references to in-repository symbols)")
    return meta


# ---------------------------------------------------------------------------------------------
# Sextant
# ---------------------------------------------------------------------------------------------


def default_binary() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or "target")
    if not target.is_absolute():
        target = ROOT / target
    return target / "release" / "sextant"


def snapshot_binary(src: Path, dest_dir: Path) -> dict:
    if not src.exists():
        die(f"{src} is missing; run `cargo build --release -p sextant-cli` (or pass --sextant PATH)")
    copy = dest_dir / "sextant"
    shutil.copy2(src, copy)
    return {"path": str(copy), "source": str(src), "sha256": sha256(copy),
            "built": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(src.stat().st_mtime))}


class EvalFailed(Exception):
    pass


def run_sextant(binary: Path, name: str, corpus: Path, scip: Path) -> dict:
    home = Path(tempfile.mkdtemp(prefix=f"sextant-accuracy-{name}-"))
    env = dict(os.environ, SEXTANT_HOME=str(home))
    env.pop("SEXTANT_LOG", None)
    try:
        cmd = [str(binary), "index", "--json", str(corpus)]
        log(f"[{name}] sextant index --json {corpus.relative_to(ROOT)}")
        start = time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        index_wall = time.perf_counter() - start
        if p.returncode != 0:
            raise EvalFailed(f"sextant index failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
        try:
            summary = json.loads(p.stdout)
        except ValueError as e:
            raise EvalFailed(f"sextant index --json printed no JSON ({e}): {p.stdout[:500]}") from e
        cmd = [str(binary), "eval", "--scip", str(scip), "--repo", str(corpus), "--json"]
        log(f"[{name}] sextant eval --scip {scip.relative_to(ROOT)} --repo {corpus.relative_to(ROOT)} --json")
        start = time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        eval_wall = time.perf_counter() - start
        if p.returncode != 0:
            lines = [line.strip() for line in (p.stderr or p.stdout).splitlines() if line.strip()]
            detail = " | ".join(lines)[-2000:]
            raise EvalFailed(f"sextant eval failed: exit {p.returncode}: {detail}")
        try:
            report = json.loads(p.stdout)
        except ValueError as e:
            raise EvalFailed(f"sextant eval failed: its output is not JSON ({e}): {p.stdout[:500]}") from e
        if not isinstance(report, dict) or not isinstance(report.get("languages"), dict):
            raise EvalFailed(f"sextant eval failed: no \"languages\" object in its output: {p.stdout[:500]}")
        return {"index_summary": summary, "index_process_seconds": round(index_wall, 3),
                "eval": report, "eval_process_seconds": round(eval_wall, 3),
                "eval_stderr": p.stderr.strip()[-2000:]}
    finally:
        shutil.rmtree(home, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Report, thresholds
# ---------------------------------------------------------------------------------------------

def fmt(v) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return "n/a" if math.isnan(v) else f"{v:.3f}"
    return str(v)


def table(results: list[dict]) -> str:
    head = ("| corpus | language | files | sites | definition top-1 | in candidates | abstained | wrong "
            "| callers P / R | references P / R |")
    rows = [head, "|" + "---|" * 10]
    for r in results:
        langs = (r.get("eval") or {}).get("languages") or {}
        cname = f"{r['corpus']['name']}-{r['corpus']['version']}"
        if not langs:
            rows.append(f"| {cname} | {r['corpus']['language']} | {r['corpus']['stats']['source_files']:,} "
                        f"| – | {'eval failed' if r.get('error') else 'no languages'} | | | | | |")
            continue
        for lang in sorted(langs):
            m = langs[lang] if isinstance(langs[lang], dict) else {}
            rows.append(
                f"| {cname} | {lang} | {fmt(m.get('files'))} | {fmt(m.get('sites'))} "
                f"| {fmt(m.get('definition_top1'))} | {fmt(m.get('definition_in_candidates'))} "
                f"| {fmt(m.get('abstained'))} | {fmt(m.get('wrong'))} "
                f"| {fmt(m.get('callers_precision'))} / {fmt(m.get('callers_recall'))} "
                f"| {fmt(m.get('references_precision'))} / {fmt(m.get('references_recall'))} |")
    return "\n".join(rows)


def scip_table(metas: dict[str, dict]) -> str:
    rows = ["| corpus | indexer | seconds | .scip MB | documents | occurrences | definitions "
            "| global refs (in-repo) |", "|" + "---|" * 8]
    for name, meta in metas.items():
        s = meta["stats"]
        rows.append(f"| {name}-{SPECS[name]['version']} | {meta['indexer']} {meta['indexer_version']} "
                    f"| {meta['seconds']:.1f} | {s['bytes'] / 1e6:.1f} | {s['documents']:,} | {s['occurrences']:,} "
                    f"| {s['definitions']:,} | {s['global_references']:,} "
                    f"({s['global_references_to_repo_symbols']:,}) |")
    return "\n".join(rows)


def load_thresholds() -> dict:
    if not THRESHOLDS.exists():
        return {}
    data = json.loads(THRESHOLDS.read_text())
    return {k: v for k, v in data.items() if not k.startswith("_")}


def check_thresholds(results: list[dict], thresholds: dict) -> tuple[list[str], list[str]]:
    """Returns (regressions, hints)."""
    regressions: list[str] = []
    hints: list[str] = []
    for r in results:
        name = r["corpus"]["name"]
        if name not in thresholds:
            continue
        if r.get("error"):
            regressions.append(f"{name}: {r['error']}")
            continue
        langs = r["eval"]["languages"]
        for lang, metrics in thresholds[name].items():
            got = langs.get(lang)
            if not isinstance(got, dict):
                regressions.append(f"{name}/{lang}: language missing from the sextant eval output "
                                   f"(it reported {sorted(langs)})")
                continue
            for metric, limit in metrics.items():
                ceiling = metric in LOWER_IS_BETTER
                value = got.get(metric)
                trivial = (limit >= 1.0) if ceiling else (limit <= 0.0)
                if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
                    msg = f"{name}/{lang}/{metric}: missing from the sextant eval output ({value!r})"
                    (hints if trivial else regressions).append(msg)
                    continue
                if ceiling and value > limit + 1e-9:
                    regressions.append(f"{name}/{lang}/{metric} = {value:.4f} is above its ceiling "
                                       f"{limit:.4f} (bench/accuracy-thresholds.json)")
                elif not ceiling and value < limit - 1e-9:
                    regressions.append(f"{name}/{lang}/{metric} = {value:.4f} is below its threshold "
                                       f"{limit:.4f} (bench/accuracy-thresholds.json)")
                elif ceiling and value < limit - HINT_MARGIN:
                    hints.append(f"{name}/{lang}/{metric} = {value:.4f}, ceiling {limit:.4f}: lower it to "
                                 f"{math.ceil(value * 1000) / 1000:.3f}")
                elif not ceiling and value > limit + HINT_MARGIN:
                    hints.append(f"{name}/{lang}/{metric} = {value:.4f}, threshold {limit:.4f}: raise it to "
                                 f"{math.floor(value * 1000) / 1000:.3f}")
    return regressions, hints


def append_results(md_table: str, results: list[dict], commit: dict, argv: list[str]) -> None:
    today = datetime.date.today().isoformat()
    sha = (commit.get("commit") or "unknown")[:7]
    dirty = " (uncommitted changes)" if commit.get("dirty") else ""
    scip = "; ".join(f"{r['corpus']['name']}: {r['indexer']['name']} {r['indexer']['version']} "
                     f"{r['indexer']['seconds']:.1f} s" for r in results)
    m = results[0]["machine"] if results else {}
    command = " ".join(["python3", "bench/accuracy.py", *argv])
    block = (f"\n### {today}, commit `{sha}`{dirty}\n\n"
             f"`{command}` on {m.get('nproc')} CPUs ({m.get('cpu_model')}). Ground truth: {scip}.\n\n"
             f"{md_table}\n")
    text = RESULTS.read_text() if RESULTS.exists() else "# Sextant benchmark results\n"
    heading = "\n## Accuracy\n"
    if heading not in text:
        intro = ("\nResolution accuracy against SCIP ground truth (scip-python / scip-typescript / "
                 "rust-analyzer), measured "
                 "by `bench/accuracy.py` with `sextant eval`; per-corpus reports in "
                 "`bench/out/accuracy-NAME.json`. Thresholds for CI: `bench/accuracy-thresholds.json`.\n")
        text = text.rstrip("\n") + "\n" + heading + intro + block
    else:
        start = text.index(heading) + len(heading)
        nxt = text.find("\n## ", start)
        if nxt == -1:
            text = text.rstrip("\n") + "\n" + block
        else:
            text = text[:nxt].rstrip("\n") + "\n" + block + text[nxt:]
    RESULTS.write_text(text)
    log(f"appended the table to {RESULTS.relative_to(ROOT)}")


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append", choices=sorted(SPECS), help="only this corpus (repeatable)")
    ap.add_argument("--skip-download", action="store_true",
                    help="use bench/corpora/accuracy/ and bench/tools/ as they are (no downloads or "
                    "installs; rust-analyzer's `cargo metadata` may still read the crates.io index)")
    ap.add_argument("--regenerate", action="store_true", help="re-run the SCIP indexers even when cached")
    ap.add_argument("--ci", action="store_true",
                    help="smallest Python corpus (+ smallest TS/JS one if its SCIP takes < 60 s); "
                    "exit 1 when a metric regresses below bench/accuracy-thresholds.json")
    ap.add_argument("--append-results", action="store_true", help="append the table to bench/RESULTS.md")
    ap.add_argument("--sextant", type=Path, help="sextant binary (default ${CARGO_TARGET_DIR:-target}/release/sextant)")
    ap.add_argument("--scip-only", action="store_true", help="download and generate the SCIP indexes only")
    args = ap.parse_args()

    if args.ci and args.corpus:
        ap.error("--ci chooses its own corpora; do not combine it with --corpus")
    if args.ci:
        py = [n for n, s in SPECS.items() if s.get("ci") == "python"]
        ts = [n for n, s in SPECS.items() if s.get("ci") == "typescript"]
        names = py + ts
    else:
        names = args.corpus or list(SPECS)

    CORPORA.mkdir(parents=True, exist_ok=True)
    OUT.mkdir(parents=True, exist_ok=True)
    dirs: dict[str, Path] = {}
    metas: dict[str, dict] = {}
    skipped: list[str] = []
    for name in names:
        spec = SPECS[name]
        if args.skip_download:
            d = corpus_dir(name, spec)
            if not d.is_dir():
                die(f"{d} does not exist; run without --skip-download first")
        else:
            d = extract(name, spec, fetch(name, spec))
        conditional = args.ci and spec["language"] != "python"
        timeout = CI_SCIP_LIMIT_SECONDS if conditional else DEFAULT_SCIP_TIMEOUT_SECONDS
        try:
            meta = generate_scip(name, spec, d, args.regenerate, not args.skip_download, timeout)
        except ScipTimeout as e:
            if not conditional:
                die(str(e))
            log(f"[{name}] skipped in CI: {e}")
            skipped.append(name)
            continue
        if conditional and meta["seconds"] >= CI_SCIP_LIMIT_SECONDS:
            log(f"[{name}] skipped in CI: its SCIP generation took {meta['seconds']:.1f} s "
                f"(limit {CI_SCIP_LIMIT_SECONDS:.0f} s)")
            skipped.append(name)
            continue
        dirs[name] = d
        metas[name] = meta

    print(scip_table(metas))
    print()
    for name, meta in metas.items():
        print(f"- {scip_path(name, SPECS[name]).relative_to(ROOT)}: sha256 {meta['sha256']}")
    print()
    if args.scip_only:
        return 0

    commit = git_commit()
    machine = {**machine_info(), "platform": platform.platform(), "python": platform.python_version()}
    results: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="sextant-accuracy-bin-") as bindir:
        binary = snapshot_binary((args.sextant or default_binary()).resolve(), Path(bindir))
        for name, d in dirs.items():
            spec, meta = SPECS[name], metas[name]
            result = {
                "corpus": {
                    "name": name,
                    "language": spec["language"],
                    "version": spec["version"],
                    "package": spec["package"],
                    "fetch": spec["fetch"],
                    "archive": spec["archive"],
                    "sha256": spec["sha256"],
                    "source": spec["source"],
                    "keep": spec["keep"],
                    "config": spec.get("config", {}),
                    "path": str(d.relative_to(ROOT)),
                    "stats": corpus_stats(d),
                },
                "indexer": {
                    "name": meta["indexer"],
                    "version": meta["indexer_version"],
                    "seconds": meta["seconds"],
                    "command": meta["command"],
                    "tools": meta.get("tools"),
                    "scip": str(scip_path(name, spec).relative_to(ROOT)),
                    "scip_sha256": meta["sha256"],
                    "scip_stats": meta["stats"],
                    "generated": meta.get("generated"),
                },
                "sextant": {"binary_sha256": binary["sha256"], "binary_built": binary["built"], **commit},
                "machine": machine,
            }
            try:
                run = run_sextant(Path(binary["path"]), name, d, scip_path(name, spec))
                result.update({
                    "index_summary": run["index_summary"],
                    "index_process_seconds": run["index_process_seconds"],
                    "eval": run["eval"],
                    "eval_process_seconds": run["eval_process_seconds"],
                })
            except EvalFailed as e:
                result["error"] = str(e)
                log(f"[{name}] {e}")
            out = OUT / f"accuracy-{name}.json"
            out.write_text(json.dumps(result, indent=2) + "\n")
            log(f"[{name}] wrote {out.relative_to(ROOT)}")
            results.append(result)

    sha = (commit.get("commit") or "unknown")[:7]
    print(f"Sextant commit {sha}{' (uncommitted changes)' if commit.get('dirty') else ''}, "
          f"binary sha256 {binary['sha256'][:12]}; {machine.get('nproc')} CPUs ({machine.get('cpu_model')})\n")
    md = table(results)
    print(md)
    print()
    failed = [r for r in results if r.get("error")]
    for r in failed:
        print(f"- {r['corpus']['name']}: {r['error']}")
    for name in skipped:
        print(f"- {name}: skipped (SCIP generation over {CI_SCIP_LIMIT_SECONDS:.0f} s)")

    regressions, hints = check_thresholds(results, load_thresholds())
    for h in hints:
        print(f"hint: {h}")
    for reg in regressions:
        print(f"{'REGRESSION' if args.ci else 'below threshold'}: {reg}")
    if args.append_results and results and not failed:
        append_results(md, results, commit, sys.argv[1:])
    elif args.append_results:
        log("not appending to bench/RESULTS.md: some corpus failed")
    if args.ci and regressions:
        print(f"accuracy CI failed: {len(regressions)} regression(s) against bench/accuracy-thresholds.json")
        return 1
    if failed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
