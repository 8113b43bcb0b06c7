#!/usr/bin/env bash
# The twenty-sixth session's closing call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any), on the build whose Gaussian and unsharp round their horizontal sums to
# quarters of a level (the tensor-core strips by their conversion to half): the Gaussian's and
# unsharp's tests of every candidate under NVIDIA's compiler, the tuner's per-candidate times at
# 4K, the one-wave strips forced in three alternating rounds, then the bench with fresh tuning at
# 1080p and 4K, every filter (the table's figures).
#   source .devpack/env.sh && bash scripts/s26-final.sh --h200|--any
# Results under $OUT: summary.txt, bench.txt, tuned.txt and s26-final.tar.gz
# (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s26-final "${1:-}" || exit 0

nvidia_tests test_compute '*Gaussian*:*Unsharp*:TunedKernel.*' 150
tuner_times gaussian,unsharp 'PG=|NS=17' 100
for f in gaussian:0 unsharp:1; do
  forced ${f%:*} ${f%:*} "UNSHARP=${f#*:}" 80 \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=3 32x4"
done
fresh_bench 240
