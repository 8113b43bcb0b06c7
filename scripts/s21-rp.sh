#!/usr/bin/env bash
# The twenty-first session's demosaic call (issue 4): the group-ahead prefetch in its plainest
# form (-DRP=R: each work-item its own rows R rows down, no group-index division) against the
# shipped LP forms, on an H200 (elsewhere it names the card and stops, unless --any): the tuner's
# per-candidate times at 4K, the bench with LP 512 / 1024 and RP 128 / 192 / 256 forced in three
# alternating rounds, and the demosaic tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s21-rp.sh [--any]
# Results under $OUT: summary.txt and s21-rp.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s21-rp "${1:-}" || exit 0

tuner_times demosaic 'DI=5'
forced mhc demosaic 'METHOD=0' 120 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=512 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=128 16x8 px4x2" "-DPY=2 -DDI=5 -DPRMT=1 -DRP=192 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=256 16x8 px4x2"
nvidia_tests test_filters_isp 'Isp.Demosaic*' 200
