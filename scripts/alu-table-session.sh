#!/usr/bin/env bash
# One device call for the fifteenth session's two candidates (issue 4): demosaic MHC's rounding
# with no integer-pipe operation (demosaic.cl's DI=5) and the point-wise tables in __local memory
# (pointwise.cpp's LT). In order: the demosaic and point-wise tests under NVIDIA's compiler (every
# candidate exact), two rounds of scripts/tuner-ab.sh (vfx-base: the build before, vfx: this one),
# the bench with each candidate forced in alternating rounds (scripts/forced-bench.sh), and the
# programs' SASS (scripts/sass-session.sh).
#   source .devpack/env.sh && bash scripts/alu-table-session.sh
# Needs .devpack/bin/{vfx,vfx-base,test_filters_isp,test_compute}. (It ran with a 130 s limit on
# the demosaic tests; scripts/s15-parts.sh's is 240 now.) Results: $OUT/s15.tar.gz, a
# summary on stdout.
set -uo pipefail
source scripts/s15-parts.sh
final=${OUT:-$PWD/alu-table-out}; mkdir -p "$final"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
r=$tmp/r; mkdir -p "$r"
nvidia-smi -L | tee "$r/gpu.txt"
s15_tests "$r" > /dev/null
OUT=$r/ab timeout 180 bash scripts/tuner-ab.sh 2 3840x2160 demosaic,fused,gamma vfx-base vfx \
  > /dev/null 2>&1
s15_forced "$r" 70 \
  "-DPY=2 -DDI=3 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=2048 16x8 px4x2" -- \
  "-DPX=4 -DQW=3 64x4 px4x1" "-DPX=4 -DQW=3 -DLT=1 64x4 px4x1" \
  "-DPX=4 -DQW=3 -DLT=1 128x2 px4x1" "-DPX=4 -DLT=1 64x4 px4x1"
OUT=$r/sass timeout 70 bash scripts/sass-session.sh demosaic,fused > /dev/null 2>&1
tar -C "$tmp" -czf "$final/s15.tar.gz" r
tail -n 2 "$r/tests-demosaic.txt" "$r/tests-pointwise.txt"
grep -E 'demosaic|fused|gamma|copy' "$r/ab/ab.txt" | grep -v 'not fused' | cut -c1-130
grep -hE '== round|mhc|\(fused' "$r"/forced-*/forced.txt | cut -c1-150
