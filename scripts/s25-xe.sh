#!/usr/bin/env bash
# The twenty-fifth session's fourth call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): demosaic's blocks at the left and right edges with their words from the
# row (demosaic.cl's x-edge path) against the per-sample path they took before (-DXE=0): the
# tuner's per-candidate times at 4K, the bench with each forced in three alternating rounds
# (MHC and bilinear), the demosaic tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s25-xe.sh --h200|--any
# Results under $OUT: summary.txt, s25-xe.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s25-xe "${1:-}" || exit 0

tuner_times demosaic 'NC=|RP=128 ' 150
forced mhc demosaic 'METHOD=0' 80 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 -DXE=0 16x8 px4x2"
forced bilinear demosaic 'METHOD=1' 80 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=128 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=128 -DXE=0 16x8 px4x2"
nvidia_tests test_filters_isp 'Isp.Demosaic*' 200
