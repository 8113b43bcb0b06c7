#!/usr/bin/env bash
# Two builds of vfx, each tuning from an empty cache and then running the bench, in alternating
# rounds, on the GPU machine: what a change of the tuner's measuring does to its choices and to
# the bench's figures (the tuner's choices are only as good as the bench says they are).
#   source .devpack/env.sh && bash scripts/tuner-ab.sh ROUNDS SIZE FILTERS BIN...
# BIN: programs under .devpack/bin (e.g. vfx-base vfx); SIZE e.g. 3840x2160; FILTERS as
# `vfx bench --filters` takes them, or `all`. Results: $OUT/ab.txt (every bench line at SIZE, by round and
# build), $OUT/ab.tar.gz (the benches' output and the tuner's per-candidate times).
set -uo pipefail
out=${OUT:-$PWD/ab-out}; mkdir -p "$out"
rounds=${1:?usage: tuner-ab.sh ROUNDS SIZE FILTERS BIN...}; size=${2:?}; filters=${3:?}
shift 3
sel=(--filters "$filters"); [ "$filters" = all ] && sel=()
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq 1 "$rounds"); do
  for b in "$@"; do
    d=$work/$r-$b; mkdir -p "$d"
    start=$(date +%s)
    VFX_CACHE_DIR=$d/cache .devpack/bin/"$b" bench --size "$size" "${sel[@]}" \
      --log-level debug > "$d/bench.txt" 2> "$d/bench.log"
    rc=$?
    grep "tuned " "$d/bench.log" > "$d/tuned.txt"
    { echo "== round $r: $b (exit $rc, $(( $(date +%s) - start )) s with tuning)"
      grep -E "copy bandwidth| $size " "$d/bench.txt"; } | tee -a "$out/ab.txt"
  done
done
tar -C "$work" -czf "$out/ab.tar.gz" --exclude=cache .
