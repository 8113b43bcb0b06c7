#!/usr/bin/env bash
# The twenty-second session's streaming-store call (issue 4): demosaic MHC's and the tensor-core
# strips' output written with st.global.cs (-DCS=1: evict-first, the output is never read
# again), on an H200 (elsewhere it names the card and stops, unless --any): the tuner's
# per-candidate times at 4K and the bench with the forms forced in three alternating rounds.
#   source .devpack/env.sh && bash scripts/s22-cs.sh --h200|--any
# (Run once with the CS candidates, cs.diff in benchmarks/2026-11-28-s22/7-cs-h200; no change,
# not committed.)
# Results under $OUT: summary.txt and s22-cs.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-cs "${1:-}" || exit 0

tuner_times demosaic,gaussian,unsharp 'FP=1 -DRP=(128|256)|MW=4 -DNS=(8|13|17) ' 150
forced mhc demosaic 'METHOD=0' 130 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 16x8 px4x2" "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 -DCS=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 -DCS=1 16x8 px4x2"
forced gaussian gaussian 'UNSHARP=0' 100 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DCS=1 -DMW=4 -DNS=17 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 110 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DLV=1 -DCS=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DCS=1 -DMW=4 -DNS=8 32x4 px2x32"
