#!/usr/bin/env bash
# The twenty-first session's closing call (issue 4), for an H200 (on any other card it names the
# card and stops, unless --any):
#  1. the bench with fresh tuning, 1080p and 4K, every filter (the table's figures);
#  2. demosaic MHC with the prefetch distance forced (LP 1024, 512, 256) in three alternating
#     rounds (scripts/forced-bench.sh);
#  3. under NVIDIA's compiler, every candidate forced: the point-wise tests (the prefetching
#     candidates on a frame tall enough that they prefetch) and the demosaic tests.
#   source .devpack/env.sh && bash scripts/s21-final.sh [--any]
# (LP 256 lost in its one run and left the candidates; step 2 now forces a label that is gone.)
# Results under $OUT: summary.txt (written as the call goes) and s21-final.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/s21-final-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/s21-final; mkdir -p "$out"
sum=$final/summary.txt
trap 'tar -C "$tmp" -czf "$final/s21-final.tar.gz" s21-final' EXIT
log() { echo "== $*" | tee -a "$sum"; }
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader |
  tee "$sum"
gpus=$(nvidia-smi -L)
[[ $gpus != *H200* && ${1:-} != --any ]] && exit 0

log "vfx bench, fresh tuning (1080p and 4K)"
VFX_CACHE_DIR=$tmp/cache timeout 170 $bin/vfx bench --retune --log-level debug \
  --json "$out/ours.json" > "$out/bench.txt" 2> "$out/bench.log"
echo "exit $?" >> "$out/bench.txt"
grep -oE 'tuned [^ ]+ .*' "$out/bench.log" > "$out/tuned.txt"
grep -E 'copy bandwidth| 3840x2160 |^exit' "$out/bench.txt" | cut -c1-150 | tee -a "$sum"

log "demosaic MHC, prefetch distance forced, three alternating rounds"
OUT=$out/forced-mhc timeout 70 bash scripts/forced-bench.sh demosaic 'METHOD=0' 3 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=512 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=256 16x8 px4x2" > /dev/null 2>&1
grep -hE '== round|mhc' "$out"/forced-mhc/forced.txt | cut -c1-150 | tee -a "$sum"

log "tests under NVIDIA's compiler"
VFX_SOURCE_DIR=$PWD timeout 90 stdbuf -oL $bin/test_compute \
  --gtest_filter='PointwiseFusion.*' > "$out/tests-pointwise.txt" 2>&1
echo "exit $?" >> "$out/tests-pointwise.txt"
VFX_SOURCE_DIR=$PWD timeout 220 stdbuf -oL $bin/test_filters_isp \
  --gtest_filter='Isp.Demosaic*' > "$out/tests-demosaic.txt" 2>&1
echo "exit $?" >> "$out/tests-demosaic.txt"
grep -hE '^\[  (PASSED|FAILED|SKIPPED)|^\[       OK|^exit|Failure' "$out"/tests-*.txt |
  tee -a "$sum"
