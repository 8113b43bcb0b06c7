#!/usr/bin/env bash
# The twenty-second session's third call (issue 4): the tensor-core Gaussian's and unsharp's
# levels form with each channel's levels put into the pixel words at once (-DLV=2, fewer values
# live than LV=1, whose unsharp program NVIDIA's compiler gives 128 registers where the shipped
# one takes 95: 4 groups per SM instead of 5), and LV=1 capped at 96 registers (no required
# work-group size, -cl-nv-maxrregcount), on an H200 (elsewhere it names the card and stops,
# unless --any): the tuner's per-candidate times at 4K (the programs' PTX kept, for ptxas's
# register counts here), and the bench with the candidates forced in three alternating rounds.
#   source .devpack/env.sh && bash scripts/s22-lv2.sh --h200|--any
# (Run once with those candidates in filters_blur.cpp and gaussian.cl; they lost and were not
# committed: benchmarks/2026-11-28-s22/3-lv2-h200.)
# Results under $OUT: summary.txt, ptx.tar.gz and s22-lv2.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-lv2 "${1:-}" || exit 0

export VFX_DUMP_BINARIES=$tmp/bin
mkdir -p "$VFX_DUMP_BINARIES"
tuner_times gaussian,unsharp 'LV=' 150
unset VFX_DUMP_BINARIES
(cd "$tmp/bin" && grep -lE 'LV=' *.txt | while read -r t; do echo "$t" "${t%.txt}.bin"; done |
  xargs tar -czf "$final/ptx.tar.gz")
forced unsharp unsharp 'UNSHARP=1' 150 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=8 32x4 px2x32" "-DMMA=1 -DLV=2 -DMW=4 -DNS=13 32x4 px2x52" \
  "-DMMA=1 -DLV=2 -DMW=4 -DNS=8 32x4 px2x32" \
  "-DMMA=1 -DLV=1 -DNRQ=1 -DMW=4 -DNS=13 -cl-nv-maxrregcount=96 32x4 px2x52"
forced gaussian gaussian 'UNSHARP=0' 100 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DLV=2 -DMW=4 -DNS=17 32x4 px2x68"
