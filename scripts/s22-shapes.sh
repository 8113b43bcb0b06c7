#!/usr/bin/env bash
# The twenty-second session's second call (issue 4): demosaic MHC's packed form (-DFP=1) in
# wider groups and 8-pixel rows, the unsharp's and Gaussian's levels form (-DLV=1) in 2-warp
# groups, on an H200 (elsewhere it names the card and stops, unless --any): the tuner's
# per-candidate times at 4K (the gaussian programs' PTX kept, for ptxas's register counts here),
# and the bench with the candidates forced in three alternating rounds.
#   source .devpack/env.sh && bash scripts/s22-shapes.sh --h200|--any
# (The MW 2 LV and PX 8 FP candidates lost and left the lists after this call.)
# Results under $OUT: summary.txt, ptx.tar.gz and s22-shapes.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-shapes "${1:-}" || exit 0

export VFX_DUMP_BINARIES=$tmp/bin
mkdir -p "$VFX_DUMP_BINARIES"
tuner_times demosaic,gaussian,unsharp 'FP=1|LV=1' 150
unset VFX_DUMP_BINARIES
(cd "$tmp/bin" && grep -lE 'MMA=1|FP=1 -DRP=128$' *.txt | while read -r t; do echo "$t" "${t%.txt}.bin"; done |
  xargs tar -czf "$final/ptx.tar.gz")
forced mhc demosaic 'METHOD=0' 130 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 16x8 px4x2" "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 32x4 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 32x8 px4x2" \
  "-DPX=8 -DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 16x8 px8x2"
forced unsharp unsharp 'UNSHARP=1' 100 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=8 32x4 px2x32" "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=2 -DNS=17 32x2 px1x68"
