#!/usr/bin/env bash
# The twenty-first session's H200 call (issue 4): L2 prefetches ahead of the loads where the
# H200 leaves kernels under the 70 % line. On an H200 (elsewhere it names the card and stops,
# unless --any):
#  1. the tuner's per-candidate times at 4K (fresh cache, debug log) for the fused point-wise
#     run, the Gaussian, the unsharp and demosaic: every new candidate (point-wise -DPF=R, the
#     strips' -DPF=1, demosaic LP 512) beside the ones it would displace;
#  2. the bench with the shipped form and the prefetching ones forced in three alternating
#     rounds (scripts/forced-bench.sh);
#  3. the point-wise, Gaussian/unsharp and demosaic tests under NVIDIA's compiler (every
#     candidate forced), where the pack holds test_compute and test_filters_isp.
#   source .devpack/env.sh && bash scripts/s21-h200.sh [--any]
# (Run once, before bd1f3bc, with the strips' PF candidates too: they lost on the H200 and were
# not committed; see BENCHMARKS.md, twenty-first session.)
# Results under $OUT: summary.txt (written as the call goes) and s21.tar.gz (everything).
set -uo pipefail
final=${OUT:-$PWD/s21-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/s21; mkdir -p "$out"
sum=$final/summary.txt
trap 'tar -C "$tmp" -czf "$final/s21.tar.gz" s21' EXIT
log() { echo "== $*" | tee -a "$sum"; }
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader |
  tee "$sum"
gpus=$(nvidia-smi -L)
[[ $gpus != *H200* && ${1:-} != --any ]] && exit 0
source scripts/s15-parts.sh

log "tuner, 4K, fresh cache: fused, gaussian, unsharp, demosaic"
VFX_CACHE_DIR=$tmp/cache timeout 90 $bin/vfx bench --size 3840x2160 --retune --log-level debug \
  --filters fused,gaussian,unsharp,demosaic > "$out/tune.txt" 2>&1
grep -E 'copy bandwidth|3840x2160 ' "$out/tune.txt" | grep -vE '^\[' | cut -c1-150 | tee -a "$sum"
grep -oE 'tuned [^ ]+ .*' "$out/tune.txt" > "$out/tuned.txt"
grep -E 'PF=|LP=512|NS=1[37] |NS=8 |QW=3 (64|128)' "$out/tuned.txt" | cut -c1-400 >> "$sum"

fused=$(s15_fused_program)
log "forced, three alternating rounds"
OUT=$out/forced-fused timeout 90 bash scripts/forced-bench.sh fused "$fused" 3 \
  "-DPX=4 -DQW=3 64x4 px4x1" "-DPX=4 -DQW=3 -DPF=128 64x4 px4x1" \
  "-DPX=4 -DQW=3 -DPF=256 64x4 px4x1" "-DPX=4 -DQW=3 -DPF=512 64x4 px4x1" > /dev/null 2>&1
OUT=$out/forced-gaussian timeout 60 bash scripts/forced-bench.sh gaussian 'UNSHARP=0' 3 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DMW=4 -DNS=17 -DPF=1 32x4 px2x68" \
  > /dev/null 2>&1
OUT=$out/forced-unsharp timeout 70 bash scripts/forced-bench.sh unsharp 'UNSHARP=1' 3 \
  "-DMMA=1 -DMW=4 -DNS=13 32x4 px2x52" "-DMMA=1 -DMW=4 -DNS=13 -DPF=1 32x4 px2x52" \
  "-DMMA=1 -DMW=4 -DNS=8 -DPF=1 32x4 px2x32" > /dev/null 2>&1
OUT=$out/forced-mhc timeout 60 bash scripts/forced-bench.sh demosaic 'METHOD=0' 3 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=512 16x8 px4x2" > /dev/null 2>&1
grep -hE '== round|3840x2160' "$out"/forced-*/forced.txt | grep -v '^copy ' | cut -c1-150 |
  tee -a "$sum"

if [ -x $bin/test_compute ]; then
  log "tests under NVIDIA's compiler"
  VFX_SOURCE_DIR=$PWD timeout 100 stdbuf -oL $bin/test_compute \
    --gtest_filter='Pointwise*:*Gaussian*:*Unsharp*' > "$out/tests-compute.txt" 2>&1
  echo "exit $?" >> "$out/tests-compute.txt"
  VFX_SOURCE_DIR=$PWD timeout 60 stdbuf -oL $bin/test_filters_isp \
    --gtest_filter='Isp.Demosaic*' > "$out/tests-demosaic.txt" 2>&1
  echo "exit $?" >> "$out/tests-demosaic.txt"
  grep -hE '^\[  (PASSED|FAILED|SKIPPED)|^exit|Failure' "$out"/tests-*.txt | head -20 |
    tee -a "$sum"
fi
