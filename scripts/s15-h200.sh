#!/usr/bin/env bash
# The fifteenth session's H200 call, if one comes (issue 4): the final build's bench table with
# fresh tuning and the peers (scripts/bench-session.sh --no-play), then the bench with demosaic
# MHC's DI=3 and DI=5 forms and the fused run with and without its table in local memory forced,
# in alternating rounds (scripts/forced-bench.sh). On any other card it does nothing.
#   source .devpack/env.sh && bash scripts/s15-h200.sh
# Results: $OUT/h200.tar.gz and $OUT/summary.txt (also on stdout).
set -uo pipefail
source scripts/s15-parts.sh
final=${OUT:-$PWD/s15-h200-out}; mkdir -p "$final"
nvidia-smi -L
nvidia-smi -L | grep -q H200 || { echo "not an H200: nothing measured"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$tmp/h200; mkdir -p "$out"
nvidia-smi -L > "$out/gpu-l.txt"
OUT=$out/bench timeout 240 bash scripts/bench-session.sh --no-play > "$out/bench-session.log" 2>&1
s15_forced "$out" 70 "${S15_MHC[@]}" -- "${S15_FUSED[@]}"
tar -C "$tmp" -czf "$final/h200.tar.gz" h200
{
  grep -h ' 3840x2160 ' "$out"/bench/summary.txt | head -40
  grep -hE '== round|mhc|\(fused' "$out"/forced-*/forced.txt
} | cut -c1-150 | tee "$final/summary.txt"
