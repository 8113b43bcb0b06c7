#!/usr/bin/env bash
# The twenty-second session's prefetch call (issue 4): the tensor-core strips with one 32-byte
# sector of a chunk D steps ahead fetched into L2 by each work-item (-DPS=D; one address step and
# one prefetch a step, where the eleventh session's -DPF=1 took three prefetches of quads with
# their share arithmetic), on an H200 (elsewhere it names the card and stops, unless --any): the
# tuner's per-candidate times at 4K and the bench with the forms forced in three alternating rounds.
#   source .devpack/env.sh && bash scripts/s22-ps.sh --h200|--any
# (Run once with the PS candidates, ps.diff in benchmarks/2026-11-28-s22/6-ps-h200; they lost
# and were not committed.)
# Results under $OUT: summary.txt and s22-ps.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-ps "${1:-}" || exit 0

tuner_times gaussian,unsharp 'MW=4 -DNS=(8|13|17) ' 150
forced gaussian gaussian 'UNSHARP=0' 130 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DPS=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DPS=2 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DLV=1 -DPS=1 -DMW=4 -DNS=17 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 130 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DLV=1 -DPS=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DPS=2 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DLV=1 -DPS=1 -DMW=4 -DNS=8 32x4 px2x32"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 120
