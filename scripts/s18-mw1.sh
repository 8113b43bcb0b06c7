#!/usr/bin/env bash
# The eighteenth session's one-warp strips (issue 4): gaussian.cl's MMA path with MW 1 (one warp
# a group, filters_blur.cpp) against the shipped shapes. The NVIDIA test that forces every
# candidate of the Gaussian and unsharp, the tuner's per-candidate times at 4K, then the bench
# with each shape forced in three alternating rounds (scripts/forced-bench.sh).
#   source .devpack/env.sh && bash scripts/s18-mw1.sh
# The one-warp candidates lost and are not in the tree: apply
# benchmarks/2026-11-27-s18/5-gaussian-mw1-h100/mw1.diff to build them again.
# Expects .devpack/bin/{vfx,test_compute}. Results under $OUT: summary.txt, mw1.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/s18-mw1-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/mw1; mkdir -p "$out"
trap 'cp "$out/summary.txt" "$final/"; tar -C "$tmp" -czf "$final/mw1.tar.gz" mw1' EXIT
log() { echo "== $*" | tee -a "$out/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/summary.txt"
log "NVIDIA: every Gaussian and unsharp candidate forced"
VFX_SOURCE_DIR=$PWD timeout 200 .devpack/bin/test_compute \
  --gtest_filter='Filters.Gaussian*:Filters.Unsharp*' > "$out/tests.txt" 2>&1
echo "exit $?" >> "$out/tests.txt"
grep -E '^\[  (PASSED|FAILED|SKIPPED)|^exit|Failure' "$out/tests.txt" | head -20 | tee -a "$out/summary.txt"
log "tuner, 4K, fresh cache"
VFX_CACHE_DIR=$tmp/cache timeout 120 .devpack/bin/vfx bench --size 3840x2160 \
  --filters gaussian,unsharp --retune --log-level debug > "$out/tune.txt" 2>&1
grep -E '3840x2160 ' "$out/tune.txt" | grep -vE '^\[' | cut -c1-150 | tee -a "$out/summary.txt"
grep -oE 'tuned gaussian.cl:gaussian_strip .*' "$out/tune.txt" | tr ';' '\n' |
  grep -E 'MW=1|MW=4 -DNS=(13|17)|UNSHARP' | tee -a "$out/summary.txt"
g=("-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DMW=1 -DNS=15 32x1 px1x240"
   "-DMMA=1 -DMW=1 -DNS=13 32x1 px1x208")
u=("-DMMA=1 -DMW=4 -DNS=13 32x4 px2x52" "-DMMA=1 -DMW=1 -DNS=13 32x1 px1x208"
   "-DMMA=1 -DMW=1 -DNS=8 32x1 px1x128")
OUT="$out/forced-gaussian" timeout 150 bash scripts/forced-bench.sh gaussian 'UNSHARP=0' 3 \
  "${g[@]}" > /dev/null 2>&1
OUT="$out/forced-unsharp" timeout 150 bash scripts/forced-bench.sh unsharp 'UNSHARP=1' 3 \
  "${u[@]}" > /dev/null 2>&1
grep -hE '== round|gaussian=|unsharp=' "$out"/forced-*/forced.txt | cut -c1-150 |
  tee -a "$out/summary.txt"
