#!/usr/bin/env bash
# The twenty-third session's last call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): the Gaussian's strips of NS steps and its one wave of strips of unequal
# length (gaussian.cl's -DPG=4), both with an L2 fetch size (-DLH=2), each forced in the bench
# in three alternating rounds, at 4K and at 1080p (the final build's tuner took one at each).
#   source .devpack/env.sh && bash scripts/s23-pg3.sh --h200|--any
# Results under $OUT: summary.txt, s23-pg3.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s23-pg3 "${1:-}" || exit 0

forced gaussian-4k gaussian 'UNSHARP=0' 90 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 32x4 px2x68" "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4"
export FORCED_SIZE=1920x1080
log "(1080p)"
forced gaussian-1080p gaussian 'UNSHARP=0' 90 \
  "-DMMA=1 -DMW=4 -DNS=5 32x4 px2x20" "-DMMA=1 -DLV=1 -DMW=4 -DNS=8 32x4 px2x32" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4"
