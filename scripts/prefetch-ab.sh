#!/usr/bin/env bash
# Demosaic's candidates with the L2 prefetch (demosaic.cl's LP: the input rows of the work-group
# D places ahead in launch order fetched into L2) against each other and against the integer
# path without byte permutes or prefetch (the byte-permute kernel without the prefetch, which
# the figures in BENCHMARKS.md were measured against, is no longer a candidate: build commit
# 3284b9d for it), by the bench's own timing (rotating buffers, DRAM to DRAM: the tuner's
# bursts re-read a frame that is partly in L2, which hides what a prefetch into L2 can give), in
# alternating rounds (scripts/forced-bench.sh), on the GPU machine:
#   source .devpack/env.sh && bash scripts/prefetch-ab.sh [ROUNDS] [KERNELS]
# KERNELS (default both): mhc, bilinear. Results: $OUT/prefetch-ab.txt and, with every run's
# output, $OUT/prefetch-ab.tar.gz. (The strip kernels' prefetches it measured once were dropped:
# benchmarks/2026-11-27-h100-s11/experiments/1-prefetch-ahead.)
set -uo pipefail
final=${OUT:-$PWD/prefetch-out}; mkdir -p "$final"
rounds=${1:-3}
kernels=${2:-mhc bilinear}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run() {  # NAME FILTER CASE LABEL...
  local name=$1; shift
  mkdir -p "$work/$name"
  OUT="$work/$name" bash scripts/forced-bench.sh "$@" > /dev/null 2> "$work/$name/stderr.txt"
  { echo "## $name"; cat "$work/$name/forced.txt"; cat "$work/$name/stderr.txt"; echo; } \
    >> "$final/prefetch-ab.txt"
}
d="-DPY=2 -DDI=3 -DPRMT=1"
dl=("$d -DLX=16 -DLP=1024 16x8 px4x2" "$d -DLX=16 -DLP=1024 16x16 px4x2"
    "-DPY=4 -DDI=3 -DPRMT=1 -DLX=32 -DLP=1024 32x4 px4x4" "-DPY=2 -DDI=3 16x8 px4x2")
for k in $kernels; do
  case $k in
    mhc) run mhc demosaic 'METHOD=0' "$rounds" "${dl[@]}" ;;
    bilinear) run bilinear demosaic 'METHOD=1' "$rounds" "${dl[@]}" ;;
    *) echo "prefetch-ab: unknown kernel '$k' (mhc, bilinear)" >&2; exit 2 ;;
  esac
done
tar -C "$work" -czf "$final/prefetch-ab.tar.gz" .
grep -E "^##|^== |3840x2160|did not run|failed" "$final/prefetch-ab.txt" | grep -v "copy bandwidth"
