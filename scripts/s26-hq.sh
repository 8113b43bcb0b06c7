#!/usr/bin/env bash
# The twenty-sixth session's second call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): the strips' horizontal sums rounded to quarters of a level by their
# conversion to half (gaussian.cl's -DHQ=1: 1 + H / 256 from the product, then one f16x2
# multiply-add to levels) in place of eighths by a multiply-add and an add per sum, against PG
# as it is: the tuner's per-candidate times at 4K, the bench with each forced in three
# alternating rounds. (Timing only: the HQ frames differ from the eighths' reference.)
#   source .devpack/env.sh && bash scripts/s26-hq.sh --h200|--any
# Results under $OUT: summary.txt, s26-hq.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s26-hq "${1:-}" || exit 0

tuner_times gaussian,unsharp 'PG=|HQ=' 100
for f in gaussian:0 unsharp:1; do
  forced ${f%:*} ${f%:*} "UNSHARP=${f#*:}" 80 \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DHQ=1 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DHQ=1 -DLH=3 32x4"
done
