#!/usr/bin/env bash
# The twenty-second session's check on an H100 (issue 4): the session's new candidates (demosaic
# MHC's FP=1, the unsharp's and Gaussian's LV=1) where the tuner of that card chooses: the
# tuner's per-candidate times at 4K, and the bench with the shipped and new forms forced in
# three alternating rounds.
#   source .devpack/env.sh && bash scripts/s22-h100.sh --any
# Results under $OUT: summary.txt and s22-h100.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-h100 "${1:-}" || exit 0

tuner_times demosaic,gaussian,unsharp 'DI=5 -DPRMT=1 (-DFP=1 )?-D(RP=256|LX=16 -DLP=1024) 16x8|MW=4 -DNS=(8|13|17) ' 150
forced mhc demosaic 'METHOD=0' 110 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=256 16x8 px4x2" "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DLX=16 -DLP=1024 16x8 px4x2"
forced unsharp unsharp 'UNSHARP=1' 100 \
  "-DMMA=1 -DMW=4 -DNS=13 32x4 px2x52" "-DMMA=1 -DLV=1 -DMW=4 -DNS=8 32x4 px2x32" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68"
