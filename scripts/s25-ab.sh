#!/usr/bin/env bash
# The twenty-fifth session's first experiment call (issue 4), for an H200 (elsewhere it names the
# card and stops, unless --any): the strips' columns shared out evenly among one wave of groups
# (gaussian.cl's -DPB=1, a group's share going on into the next column) against the columns cut
# into whole strips (PG), and demosaic MHC in groups of 3, 5 and 6 warps and in blocks of 4 rows:
# the tuner's per-candidate times at 4K (the programs' PTX kept), the bench with each forced in
# three alternating rounds, the new test under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s25-ab.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s25-ab.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s25-ab "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp,demosaic 'PG=|NC=' 150 'PB=|NC='
forced gaussian gaussian 'UNSHARP=0' 80 \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPB=1 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPB=1 -DLH=3 32x4"
forced unsharp unsharp 'UNSHARP=1' 80 \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPB=1 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPB=1 -DLH=3 32x4"
forced mhc demosaic 'METHOD=0' 110 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x6 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=200 -DNC=1 16x10 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x12 px4x2" \
  "-DPY=4 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x4 px4x4" \
  "-DPY=4 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x8 px4x4"
nvidia_tests test_compute '*GaussianStripsSharedAcrossColumns*' 60
