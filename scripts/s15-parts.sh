#!/usr/bin/env bash
# Pieces the fifteenth session's device scripts share (issue 4), sourced by them:
#   s15_tests DIR        the demosaic and point-wise tests under NVIDIA's compiler, every candidate
#                        forced, line-buffered (a run cut at its limit keeps what it printed) into
#                        DIR/tests-demosaic.txt and DIR/tests-pointwise.txt
#   s15_fused_program    prints the fused run's program (bench.cpp's run: its tuning key names it
#                        by the hash of its text), the first point-wise program a bench of `fused`
#                        tunes
#   s15_forced DIR LIMIT MHC_LABEL... -- FUSED_LABEL...
#                        the bench with each demosaic MHC form, then each form of the fused run,
#                        forced in three alternating rounds (scripts/forced-bench.sh), into
#                        DIR/forced-mhc/ and DIR/forced-fused/, each step cut at LIMIT seconds
s15_tests() {
  VFX_SOURCE_DIR=$PWD timeout 240 stdbuf -oL .devpack/bin/test_filters_isp \
    --gtest_filter='Isp.Demosaic*' > "$1/tests-demosaic.txt" 2>&1
  VFX_SOURCE_DIR=$PWD timeout 90 stdbuf -oL .devpack/bin/test_compute \
    --gtest_filter='Pointwise*' > "$1/tests-pointwise.txt" 2>&1
  tail -n 2 "$1/tests-demosaic.txt" "$1/tests-pointwise.txt"
}

s15_fused_program() {
  VFX_CACHE_DIR=$(mktemp -d) .devpack/bin/vfx bench --size 256x64 --filters fused \
    --log-level debug 2>&1 | grep -o 'tuned pointwise-[0-9a-f]*' | head -1 | cut -d' ' -f2
}

s15_forced() {
  local dir=$1 limit=$2 mhc=() fused_labels=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do mhc+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  fused_labels=("$@")
  OUT=$dir/forced-mhc timeout "$limit" bash scripts/forced-bench.sh demosaic 'METHOD=0' 3 \
    "${mhc[@]}" > /dev/null 2>&1
  local fused
  fused=$(s15_fused_program)
  [ -n "$fused" ] || { echo "no fused run's program in a bench of 'fused'" >&2; return 1; }
  OUT=$dir/forced-fused timeout "$limit" bash scripts/forced-bench.sh fused "$fused" 3 \
    "${fused_labels[@]}" > /dev/null 2>&1
}

# The MHC and fused-run forms the closing calls compare.
S15_MHC=("-DPY=2 -DDI=3 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2"
         "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2"
         "-DPY=4 -DDI=5 -DPRMT=1 -DLX=32 -DLP=1024 32x4 px4x4")
S15_FUSED=("-DPX=4 -DQW=3 64x4 px4x1" "-DPX=4 -DQW=3 -DLT=1 64x4 px4x1")
