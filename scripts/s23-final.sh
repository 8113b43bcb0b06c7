#!/usr/bin/env bash
# The twenty-third session's closing call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any):
#  1. demosaic MHC in FP form with 4 rows per work-item and in 16 x 4 groups: the tuner's
#     per-candidate times at 4K, then the bench with each forced in three alternating rounds;
#  2. the bench with fresh tuning, 1080p and 4K, every filter (the table's figures);
#  3. under NVIDIA's compiler, every candidate forced: the Gaussian's and unsharp's tests (PG and
#     LH among them) and the demosaic tests.
#   source .devpack/env.sh && bash scripts/s23-final.sh --h200|--any
# Results under $OUT: summary.txt, bench.txt, tuned.txt and s23-final.tar.gz
# (scripts/device-call.sh).
# (Run once with the demosaic candidates of step 1 in filters_isp.cpp; they lost and were not
# kept: benchmarks/2026-11-28-s23/3-final-h200.)
set -uo pipefail
source scripts/device-call.sh
device_call s23-final "${1:-}" || exit 0

tuner_times demosaic 'FP=1 -DRP=192' 90
forced mhc demosaic 'METHOD=0' 110 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x8 px4x2" \
  "-DPY=4 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x4 px4x4" \
  "-DPY=4 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x8 px4x4" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x4 px4x2"

fresh_bench 200

nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 100
nvidia_tests test_filters_isp 'Isp.Demosaic*' 220
