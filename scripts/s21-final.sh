#!/usr/bin/env bash
# The twenty-first session's closing call (issue 4), for an H200 (on any other card it names the
# card and stops, unless --any):
#  1. the bench with fresh tuning, 1080p and 4K, every filter (the table's figures);
#  2. demosaic MHC with the prefetch distance forced (LP 1024, 512, 256) in three alternating
#     rounds (scripts/forced-bench.sh);
#  3. under NVIDIA's compiler, every candidate forced: the point-wise tests (the prefetching
#     candidates on a frame tall enough that they prefetch) and the demosaic tests.
#   source .devpack/env.sh && bash scripts/s21-final.sh [--any]
# (LP 256 lost in its one run and left the candidates; step 2 now forces a label that is gone.)
# Results under $OUT: summary.txt (written as the call goes) and s21-final.tar.gz
# (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s21-final "${1:-}" || exit 0

fresh_bench 170

forced mhc demosaic 'METHOD=0' 70 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=512 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=256 16x8 px4x2"
nvidia_tests test_compute 'PointwiseFusion.*' 90
nvidia_tests test_filters_isp 'Isp.Demosaic*' 220
