#!/usr/bin/env bash
# The twenty-first session's last kernel call (issue 4): the tensor-core strips eight warps wide
# (-DMW=8 -DNS=17 / -DNS=8: half the horizontal apron per output of four-warp groups, the same
# wave count) on an H200 (elsewhere it names the card and stops, unless --any): the tuner's
# per-candidate times for the Gaussian and the unsharp at 4K, the bench with the shipped shape
# and the wide ones forced in three alternating rounds, and the Gaussian/unsharp tests under
# NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s21-mw8.sh [--any]
# (Run once with the two MW 8 candidates in filters_blur.cpp; they lost and were not committed.)
# Results under $OUT: summary.txt and s21-mw8.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/s21-mw8-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/s21-mw8; mkdir -p "$out"
sum=$final/summary.txt
trap 'tar -C "$tmp" -czf "$final/s21-mw8.tar.gz" s21-mw8' EXIT
log() { echo "== $*" | tee -a "$sum"; }
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$sum"
gpus=$(nvidia-smi -L)
[[ $gpus != *H200* && ${1:-} != --any ]] && exit 0

log "tuner, 4K, fresh cache: gaussian, unsharp"
VFX_CACHE_DIR=$tmp/cache timeout 90 $bin/vfx bench --size 3840x2160 --retune --log-level debug \
  --filters gaussian,unsharp > "$out/tune.txt" 2>&1
grep -E 'copy bandwidth|3840x2160 ' "$out/tune.txt" | grep -vE '^\[' | cut -c1-150 | tee -a "$sum"
grep -oE 'tuned [^ ]+ .*' "$out/tune.txt" | tr ';' '\n' | grep -E 'MW=4 -DNS=(8|13|17) |MW=8|chose' |
  tee -a "$sum"

log "forced, three alternating rounds"
OUT=$out/forced-gaussian timeout 80 bash scripts/forced-bench.sh gaussian 'UNSHARP=0' 3 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DMW=8 -DNS=17 32x8 px4x34" \
  "-DMMA=1 -DMW=8 -DNS=8 32x8 px4x16" > /dev/null 2>&1
OUT=$out/forced-unsharp timeout 80 bash scripts/forced-bench.sh unsharp 'UNSHARP=1' 3 \
  "-DMMA=1 -DMW=4 -DNS=13 32x4 px2x52" "-DMMA=1 -DMW=8 -DNS=17 32x8 px4x34" \
  "-DMMA=1 -DMW=8 -DNS=8 32x8 px4x16" > /dev/null 2>&1
grep -hE '== round|3840x2160' "$out"/forced-*/forced.txt | grep -v '^copy ' | cut -c1-150 |
  tee -a "$sum"

log "tests under NVIDIA's compiler"
VFX_SOURCE_DIR=$PWD timeout 150 stdbuf -oL $bin/test_compute \
  --gtest_filter='*GaussianAndUnsharpEveryTunedVariant*' > "$out/tests.txt" 2>&1
echo "exit $?" >> "$out/tests.txt"
grep -hE '^\[  (PASSED|FAILED|SKIPPED)|^\[       OK|^exit|Failure' "$out/tests.txt" | tee -a "$sum"
