#!/usr/bin/env bash
# The twenty-fifth session's fifth call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): the one wave of strips with the longer strips kept off the frame's first
# and last columns (gaussian.cl's -DPE=1), whose fetches take the clamped path, against PG as
# it is: the tuner's per-candidate times at 4K, the bench with each forced in three alternating
# rounds, the Gaussian's tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s25-pe.sh --h200|--any
# Results under $OUT: summary.txt, s25-pe.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s25-pe "${1:-}" || exit 0

tuner_times gaussian,unsharp 'PG=' 100
for f in gaussian:0 unsharp:1; do
  forced ${f%:*} ${f%:*} "UNSHARP=${f#*:}" 80 \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPE=1 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPE=1 -DLH=3 32x4"
done
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*:TunedKernel.*' 120
