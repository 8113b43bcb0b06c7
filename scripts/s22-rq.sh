#!/usr/bin/env bash
# The twenty-second session's last experiment call (issue 4), on an H200 (elsewhere it names the
# card and stops, unless --any):
#  - demosaic: RP's row prefetch issued from the interior blocks' row pointer (-DRQ=1; 17
#    instructions of the work-item's ~250 went to the prefetch's own address and test in
#    NVIDIA's SASS);
#  - the tensor-core strips: chunks 1 .. N fetched into L2 as the strip starts (-DPP=N: the
#    first steps wait on chunk 0 and then on chunk 1 from DRAM one after the other);
# the tuner's per-candidate times at 4K, the bench with the forms forced in three alternating
# rounds, and the tests of every candidate under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s22-rq.sh --h200|--any
# (Run once with -DRQ=1 and -DPP=2 candidates: RQ then became the only form of RP and its flag
# went; PP lost and was not committed, pp.diff in benchmarks/2026-11-28-s22/8-rq-pp-h200.)
# Results under $OUT: summary.txt and s22-rq.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-rq "${1:-}" || exit 0

tuner_times demosaic,gaussian,unsharp 'FP=1 -DRP=|MW=4 -DNS=(8|17) ' 120
forced mhc demosaic 'METHOD=0' 90 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 16x8 px4x2" "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 -DRQ=1 16x8 px4x2"
forced gaussian gaussian 'UNSHARP=0' 70 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DPP=2 -DMW=4 -DNS=17 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 70 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DLV=1 -DPP=2 -DMW=4 -DNS=17 32x4 px2x68"
nvidia_tests test_filters_isp 'Isp.DemosaicAndMosaicEveryTunedVariant:Isp.DemosaicPrefetching*' 120
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 90
