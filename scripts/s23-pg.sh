#!/usr/bin/env bash
# The twenty-third session's first experiment call (issue 4), for an H200 (elsewhere it names the
# card and stops, unless --any):
#  - the tensor-core Gaussian and unsharp as one wave of groups with equal runs of steps
#    (gaussian.cl's -DPG=N: N groups per compute unit, a register budget by
#    -cl-nv-maxrregcount), against the strips of whole NS steps (4K: 480 strips of 17 steps on
#    132 SMs, 84 with 4 and 48 with 3);
#  - loads with an L2 fetch size (common.h's -DLH=1|2|3) in demosaic MHC and the strips;
# the tuner's per-candidate times at 4K, then the bench with each forced in three alternating
# rounds, then the candidates' kernel tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s23-pg.sh --h200|--any
# Results under $OUT: summary.txt, s23-pg.tar.gz (scripts/device-call.sh).
# (Run once with those candidates, then replaced: PG here was each group's equal run of steps
# laid over the columns end to end, two strips where a run crossed a column; demosaic's LH and
# the LH=1 loads were dropped. benchmarks/2026-11-28-s23/1-pg-lh-h200.)
set -uo pipefail
source scripts/device-call.sh
device_call s23-pg "${1:-}" || exit 0

tuner_times gaussian,unsharp,demosaic 'PG=|LH=|NS=17|NS=8|FP=1 -DRP=192 ' 200
forced gaussian gaussian 'UNSHARP=0' 90 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -cl-nv-maxrregcount=128 32x4" \
  "-DMMA=1 -DMW=4 -DPG=4 -cl-nv-maxrregcount=128 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 90 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -cl-nv-maxrregcount=128 32x4" \
  "-DMMA=1 -DMW=4 -DPG=5 -cl-nv-maxrregcount=102 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=3 32x4 px2x68"
forced demosaic demosaic 'METHOD=0]' 90 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DLH=1 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DLH=2 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 -DLH=3 16x8 px4x2"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 100
nvidia_tests test_filters_isp 'Isp.DemosaicAndMosaicEveryTunedVariant:Isp.DemosaicPrefetching*' 90
