#!/usr/bin/env bash
# Time of `sextant workspace refresh` after editing one file (issue 5, named workspaces).
#
#   bench/workspace_refresh.sh SEXTANT_BINARY CORPUS_DIR FILE [RUNS]
#
# Copies CORPUS_DIR into a temporary git repository (one commit), indexes it into a private
# SEXTANT_HOME, creates a workspace, then RUNS times (default 5): appends a new function to FILE
# and times `sextant workspace refresh w FILE --json` (process wall time, and the engine's own
# wall_seconds). Prints one line per run and the median. Nothing outside the temporary
# directory is touched.
set -euo pipefail
bin=$(realpath "$1"); corpus=$(realpath "$2"); file=$3; runs=${4:-5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -a "$corpus" "$tmp/repo"
export SEXTANT_HOME="$tmp/home" GIT_CONFIG_GLOBAL=/dev/null
cd "$tmp/repo"
git init -q -b main && git add -A && git -c user.name=b -c user.email=b@example.com commit -qm corpus
files=$("$bin" index --json . | python3 -c 'import json,sys; print(json.load(sys.stdin)["files"]["indexed"])')
"$bin" workspace create w --json >/dev/null
ext=${file##*.}
walls=()
for i in $(seq 1 "$runs"); do
  case "$ext" in
    py) printf '\n\ndef bench_added_%s():\n    return %s\n' "$i" "$i" >> "$file" ;;
    rs) printf '\npub fn bench_added_%s() -> u32 {\n    %s\n}\n' "$i" "$i" >> "$file" ;;
    *) printf '\n// edit %s\n' "$i" >> "$file" ;;
  esac
  start=$(date +%s.%N)
  out=$("$bin" workspace refresh w "$file" --json)
  end=$(date +%s.%N)
  wall=$(python3 -c "print(f'{($end-$start)*1000:.0f}')")
  engine=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.0f ms engine, revision %d, %d file(s), %d symbols; %s" % (d["wall_seconds"]*1000, d["revision"], d["files_reindexed"], d["symbols_updated"], " ".join("%s %.0f" % (k, v*1000) for k, v in d["phases"] if v >= 0.005)))')
  echo "run $i: ${wall} ms process, $engine"
  walls+=("$wall")
done
median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "corpus $(basename "$corpus"): $files files indexed; workspace refresh of one edited file: median ${median} ms (process wall, $runs runs)"
