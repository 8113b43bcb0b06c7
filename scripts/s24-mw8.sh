#!/usr/bin/env bash
# The twenty-fourth session's third experiment call (issue 4), for an H200 (elsewhere it names
# the card and stops, unless --any): the Gaussian's and unsharp's one wave of strips in
# eight-warp groups (-DMW=8 -DPG=2: 128 output columns a group, half the apron columns per output
# column of four-warp groups), and demosaic's words through the read-only path (-DNC=1): the
# tuner's per-candidate times at 4K (the programs' PTX kept), the bench with each forced in three
# alternating rounds, the kernel tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s24-mw8.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s24-mw8.tar.gz (scripts/device-call.sh).
# (Run once, on a build with these candidates; neither the eight-warp groups nor NC=1 with RP 128
# were kept: benchmarks/2026-11-28-s24/3-mw8-nc-h200.)
set -uo pipefail
source scripts/device-call.sh
device_call s24-mw8 "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp,demosaic 'PG=|NS=17 -DLH|NC=|FP=1 -DRP' 120 'PG=|NC='
forced gaussian gaussian 'UNSHARP=0' 90 \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=3 32x4" \
  "-DMMA=1 -DLV=1 -DMW=8 -DPG=2 -DLH=2 32x8" \
  "-DMMA=1 -DLV=1 -DMW=8 -DPG=2 -DLH=3 32x8"
forced unsharp unsharp 'UNSHARP=1' 90 \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=3 32x4" \
  "-DMMA=1 -DLV=1 -DMW=8 -DPG=2 -DLH=2 32x8" \
  "-DMMA=1 -DLV=1 -DMW=8 -DPG=2 -DLH=3 32x8"
forced mhc demosaic 'METHOD=0' 80 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 -DNC=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x8 px4x2"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 90
nvidia_tests test_filters_isp '*Demosaic*Every*:*DemosaicPrefetching*' 60
