#!/usr/bin/env bash
# The sixteenth session's closing call (issue 4). On an H200: the 4K bench table with fresh
# tuning, then demosaic MHC's DI=3 and DI=5 forms and the fused run with and without its table in
# local memory forced in alternating rounds (scripts/s15-parts.sh), whose figures the fifteenth
# session could not take there. On any other card: the Gaussian and unsharp at 4K
# with fresh tuning, three starts (the K8 build's table rows).
#   source .devpack/env.sh && bash scripts/s16-final.sh
# Results under $OUT: summary.txt, and h200.tar.gz (H200) or unsharp-gaussian.txt.
set -uo pipefail
final=${OUT:-$PWD/s16-final-out}; mkdir -p "$final"
if nvidia-smi -L | grep -q H200; then
  # Lean, to fit what is left of the session's device time: the 4K table with fresh tuning (no
  # peers: their H200 figures stand from the fifteenth session), then the forced forms.
  source scripts/s15-parts.sh
  tmp=$(mktemp -d); out=$tmp/h200; mkdir -p "$out"
  nvidia-smi -L > "$out/gpu-l.txt"
  VFX_CACHE_DIR=$tmp/cache timeout 150 .devpack/bin/vfx bench --size 3840x2160 --retune \
    --json "$out/ours.json" > "$out/bench.txt" 2> "$out/bench.log"
  s15_forced "$out" 70 "${S15_MHC[@]}" -- "${S15_FUSED[@]}"
  tar -C "$tmp" -czf "$final/h200.tar.gz" h200
  { grep -E 'copy bandwidth| 3840x2160 ' "$out/bench.txt"
    grep -hE '== round|mhc|\(fused' "$out"/forced-*/forced.txt; } | cut -c1-150 |
    tee "$final/summary.txt"
  exit
fi
nvidia-smi -L | tee "$final/summary.txt"
for r in 1 2 3; do
  echo "== start $r"
  VFX_CACHE_DIR=$(mktemp -d) .devpack/bin/vfx bench --size 3840x2160 --filters gaussian,unsharp \
    --retune
done > "$final/unsharp-gaussian.txt" 2>&1
grep -E '== start|copy bandwidth|gaussian=|unsharp=' "$final/unsharp-gaussian.txt" | cut -c1-150 |
  tee -a "$final/summary.txt"
