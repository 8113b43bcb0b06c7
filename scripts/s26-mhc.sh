#!/usr/bin/env bash
# The twenty-sixth session's MHC call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): demosaic MHC's row prefetch issued after the block's own loads
# (demosaic.cl's -DRL=1), the read-only loads in 32 x 4 groups and 64 x 2 groups, against the
# two forms the tuner picks between: the bench with each forced in three alternating rounds,
# then the demosaic tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s26-mhc.sh --h200|--any
# Results under $OUT: summary.txt, s26-mhc.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s26-mhc "${1:-}" || exit 0

forced mhc demosaic "METHOD=0" 200 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 32x4 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 -DRL=1 32x4 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 -DRL=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 -DNC=1 32x4 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 64x2 px4x2"
nvidia_tests test_filters_isp 'Isp.Demosaic*' 200
