#!/usr/bin/env python3
"""How local the resolver's table accesses are: the figures that size a bounded cache in front of
the store (issue 2's memory clause). Reads a trace written by a binary built with the
`access-trace` feature:

    cargo build --release -p sextant-cli --features access-trace
    SEXTANT_ACCESS_TRACE=/tmp/x.trace target/release/sextant index --full --threads 1 CORPUS
    python3 bench/resolver_access.py /tmp/x.trace [--json OUT]

Records are 9 bytes (tag, little-endian u64); see crates/resolve/src/trace.rs. For each table
(S definitions by position, B typed bindings by position, N name-list lookups, F per-file import
tables) it prints the accesses and distinct keys by phase (0 the tables' construction, 1 the
passes before the references, 2.. the references' batches), and the misses of a
least-recently-used cache of several sizes over the references' batches (the passes before them
scan whole tables, which a store streams); and how many name-list lookups found no list.
"""
import argparse
import collections
import json
import struct
import sys

TAGS = {ord("S"): "S", ord("B"): "B", ord("N"): "N", ord("E"): "E", ord("F"): "F"}
SIZES = [1_000, 4_000, 16_000, 64_000, 256_000]


def read(path):
    data = open(path, "rb").read()
    n = len(data) // 9
    phase = 0
    out = []
    for i in range(n):
        tag, value = struct.unpack_from("<BQ", data, i * 9)
        if tag == ord("M"):
            phase = value
            continue
        out.append((phase, TAGS[tag], value))
    return out


def lru_misses(keys, size):
    cache = collections.OrderedDict()
    misses = 0
    for k in keys:
        if k in cache:
            cache.move_to_end(k)
        else:
            misses += 1
            cache[k] = None
            if len(cache) > size:
                cache.popitem(last=False)
    return misses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--json")
    args = ap.parse_args()
    events = read(args.trace)
    report = {"trace": args.trace, "events": len(events), "tables": {}}
    found = sum(1 for _, t, _ in events if t == "N")
    empty = sum(1 for _, t, _ in events if t == "E")
    report["name_lookups"] = {"found": found, "empty": empty}
    print(f"name-list lookups: {found:,} found a list, {empty:,} found none")
    # A name-list lookup is one key whatever it found.
    events = [(p, "N" if t == "E" else t, v) for p, t, v in events]
    for tag in "SBNF":
        evs = [(p, v) for p, t, v in events if t == tag]
        if not evs:
            continue
        everything = {v for _, v in evs}
        build = [v for p, v in evs if p == 0]
        imports = [v for p, v in evs if p == 1]
        batches = collections.defaultdict(list)
        for p, v in evs:
            if p >= 2:
                batches[p].append(v)
        per_batch = [len(set(b)) for b in batches.values()]
        # The passes before the references (imports, inheritance, overrides) scan whole tables
        # (streamed from a store in a bounded design); the references' batches look things up.
        resolving = [v for p, v in evs if p >= 2]
        row = {
            "accesses": len(evs),
            "distinct": len(everything),
            "build_accesses": len(build),
            "import_accesses": len(imports),
            "import_distinct": len(set(imports)),
            "batches": len(batches),
            "batch_accesses": sum(len(b) for b in batches.values()),
            "batch_distinct_median": sorted(per_batch)[len(per_batch) // 2] if per_batch else 0,
            "batch_distinct_max": max(per_batch, default=0),
            "resolving_accesses": len(resolving),
            "resolving_distinct": len(set(resolving)),
            "lru_misses": {str(s): lru_misses(resolving, s) for s in SIZES},
        }
        report["tables"][tag] = row
        print(
            f"{tag}: {row['accesses']:,} accesses, {row['distinct']:,} distinct; build {len(build):,};"
            f" imports {len(imports):,} ({row['import_distinct']:,} distinct); {row['batches']} batches"
            f" {row['batch_accesses']:,} accesses, distinct per batch median"
            f" {row['batch_distinct_median']:,} max {row['batch_distinct_max']:,}"
        )
        print(
            "   LRU misses over the batches ("
            + f"{len(resolving):,} accesses, {row['resolving_distinct']:,} distinct): "
            + ", ".join(f"{int(s):,}: {m:,}" for s, m in row["lru_misses"].items())
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
