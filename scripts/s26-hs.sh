#!/usr/bin/env bash
# The twenty-sixth session's first call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): the strips' H of a step's two chunks in __local (gaussian.cl's -DHS=1),
# with 4 and 5 groups an SM, against PG as it is: the tuner's per-candidate times at 4K with
# NVIDIA's PTX of the HS programs (ptxas's register counts here), the bench with each forced in
# three alternating rounds, the Gaussian's tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s26-hs.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s26-hs.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s26-hs "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp 'PG=' 100 'HS=|PG=4 -DLH=2'
for f in gaussian:0 unsharp:1; do
  forced ${f%:*} ${f%:*} "UNSHARP=${f#*:}" 80 \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DHS=1 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=5 -DHS=1 -DLH=2 32x4"
done
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*:TunedKernel.*' 120
