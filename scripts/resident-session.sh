#!/usr/bin/env bash
# Each kernel's cost without DRAM (issue 4): `vfx bench --cache-resident` at sizes whose frames fit
# the L2, next to the ordinary DRAM-to-DRAM bench of the same sizes, one tuning cache for both.
# Made to test whether an H100's cache-resident figures stand in for an H200's (the same SMs and
# clocks, faster memory): they do not (BENCHMARKS.md, eighteenth session). At 1920x1080 and below
# the launch's fixed cost dominates.
#   source .devpack/env.sh && bash scripts/resident-session.sh [SIZE...]   (default 3840x1080)
# Results under $OUT: summary.txt, resident.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/resident-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/resident; mkdir -p "$out"
trap 'cp "$out/summary.txt" "$final/"; tar -C "$tmp" -czf "$final/resident.tar.gz" resident' EXIT
export VFX_CACHE_DIR=$tmp/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader |
  tee "$out/summary.txt"
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(3840x1080)
for s in "${sizes[@]}"; do
  for mode in dram resident; do
    flag=(); [ "$mode" = resident ] && flag=(--cache-resident)
    echo "== $s $mode" | tee -a "$out/summary.txt"
    timeout 200 .devpack/bin/vfx bench --size "$s" "${flag[@]}" --json "$out/$s-$mode.json" \
      > "$out/$s-$mode.txt" 2> "$out/$s-$mode.log"
    echo "exit $?" >> "$out/$s-$mode.txt"
    grep -vE '^device|^$|^filter' "$out/$s-$mode.txt" | cut -c1-140 | tee -a "$out/summary.txt"
  done
done
