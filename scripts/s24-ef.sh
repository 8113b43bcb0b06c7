#!/usr/bin/env bash
# The twenty-fourth session's fourth experiment call (issue 4), for an H200 (elsewhere it names
# the card and stops, unless --any): the strips' first two chunks fetched together (gaussian.cl's
# -DEF=1: the second chunk's loads issued before the first is put, where they waited for it), and
# demosaic's read-only loads with an L2 fetch size (-DNC=2|3) or a longer prefetch distance: the
# tuner's per-candidate times at 4K (the programs' PTX kept), the bench with each forced in three
# alternating rounds, the kernel tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s24-ef.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s24-ef.tar.gz (scripts/device-call.sh).
# (Run once, on a build with these candidates; EF and NC=2|3 were not kept:
# benchmarks/2026-11-28-s24/4-ef-nc-h200.)
set -uo pipefail
source scripts/device-call.sh
device_call s24-ef "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp,demosaic 'PG=|NS=17 -DLH|NC=|FP=1 -DRP' 120 'PG=|NC=|EF='
forced gaussian gaussian 'UNSHARP=0' 80 \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 -DEF=1 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 -DEF=1 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 80 \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 -DEF=1 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 -DEF=1 32x4 px2x68"
forced mhc demosaic 'METHOD=0' 90 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 -DNC=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=2 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DNC=3 16x8 px4x2"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 80
nvidia_tests test_filters_isp '*Demosaic*Every*:*DemosaicPrefetching*' 130
