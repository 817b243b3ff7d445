#!/usr/bin/env python3
"""Draws the hand-check sample of reported-dead symbols from `sextant dead-code --json` reports.

    python3 bench/dead_code/sample.py [--seed 6] [--size 50] REPORT.json [REPORT.json ...]

Every `dead` item of every report (each report is one project: `[project, path]` pairs are
written as `project:path`), sorted by (project, path, line, qualified name), then `size` of them
drawn with `random.Random(seed).sample` (all of them when there are fewer), printed in the
sorted order as a Markdown table to fill in the verdicts.
"""

import argparse
import json
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--size", type=int, default=50)
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()
    items = []
    for report in args.reports:
        project = os.path.basename(report).rsplit("-", 1)[0]
        with open(report) as f:
            data = json.load(f)
        for d in data["dead"]:
            n = d["node"]
            items.append((project, n["path"], n["line"], n["qualified_name"], n["kind"]))
    items.sort()
    picked = items if len(items) <= args.size else random.Random(args.seed).sample(items, args.size)
    picked.sort()
    print(f"<!-- {len(picked)} of {len(items)} reported dead, seed {args.seed} -->")
    print("| # | project | symbol | file:line | verdict | evidence |")
    print("|---:|---|---|---|---|---|")
    for i, (project, path, line, qname, kind) in enumerate(picked, 1):
        print(f"| {i} | {project} | `{qname}` ({kind}) | `{path}:{line}` | | |")


if __name__ == "__main__":
    main()
