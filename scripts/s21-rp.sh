#!/usr/bin/env bash
# The twenty-first session's demosaic call (issue 4): the group-ahead prefetch in its plainest
# form (-DRP=R: each work-item its own rows R rows down, no group-index division) against the
# shipped LP forms, on an H200 (elsewhere it names the card and stops, unless --any): the tuner's
# per-candidate times at 4K, the bench with LP 512 / 1024 and RP 128 / 192 / 256 forced in three
# alternating rounds, and the demosaic tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s21-rp.sh [--any]
# Results under $OUT: summary.txt and s21-rp.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/s21-rp-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/s21-rp; mkdir -p "$out"
sum=$final/summary.txt
trap 'tar -C "$tmp" -czf "$final/s21-rp.tar.gz" s21-rp' EXIT
log() { echo "== $*" | tee -a "$sum"; }
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$sum"
gpus=$(nvidia-smi -L)
[[ $gpus != *H200* && ${1:-} != --any ]] && exit 0

log "tuner, 4K, fresh cache: demosaic"
VFX_CACHE_DIR=$tmp/cache timeout 90 $bin/vfx bench --size 3840x2160 --retune --log-level debug \
  --filters demosaic > "$out/tune.txt" 2>&1
grep -E 'copy bandwidth|3840x2160 ' "$out/tune.txt" | grep -vE '^\[' | cut -c1-150 | tee -a "$sum"
grep -oE 'tuned [^ ]+ .*' "$out/tune.txt" | tr ';' '\n' | grep -E 'DI=5|chose' | tee -a "$sum"

log "forced, three alternating rounds"
OUT=$out/forced-mhc timeout 120 bash scripts/forced-bench.sh demosaic 'METHOD=0' 3 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=512 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=128 16x8 px4x2" "-DPY=2 -DDI=5 -DPRMT=1 -DRP=192 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=256 16x8 px4x2" > /dev/null 2>&1
grep -hE '== round|mhc' "$out"/forced-mhc/forced.txt | cut -c1-150 | tee -a "$sum"

log "tests under NVIDIA's compiler"
VFX_SOURCE_DIR=$PWD timeout 200 stdbuf -oL $bin/test_filters_isp \
  --gtest_filter='Isp.Demosaic*' > "$out/tests.txt" 2>&1
echo "exit $?" >> "$out/tests.txt"
grep -hE '^\[  (PASSED|FAILED|SKIPPED)|^\[       OK|^exit|Failure' "$out/tests.txt" | tee -a "$sum"
