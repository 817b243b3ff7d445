#!/usr/bin/env bash
# Interleaved A/B of indexing: bench/ab.sh N CORPUS_DIR BIN_A BIN_B ...
# Runs `BIN index --json --full CORPUS_DIR` for each binary in turn, N rounds, each with a fresh
# SEXTANT_HOME, and prints one line per run: the binary's name and a JSON object with wall
# seconds, CPU seconds (user + sys), peak RSS, counts and phases (bench/ab_run.py).
set -euo pipefail
n=$1; corpus=$2; shift 2
here="$(dirname "$0")"
for _ in $(seq "$n"); do
  for b in "$@"; do
    echo "$(basename "$b") $(python3 "$here/ab_run.py" "$b" "$corpus")"
  done
done
