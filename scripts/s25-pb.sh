#!/usr/bin/env bash
# The twenty-fifth session's second experiment call (issue 4), for an H200 (elsewhere it names
# the card and stops, unless --any): the strips' columns shared out evenly among one wave of
# groups (gaussian.cl's -DPB=1) in its second form, each step's work one block (gm_run), against
# the columns cut into whole strips (PG): the tuner's per-candidate times at 4K (the programs'
# PTX kept), the bench with each forced in three alternating rounds, the Gaussian's tests under
# NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s25-pb.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s25-pb.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s25-pb "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp 'PG=' 100 'PG='
for f in gaussian:0 unsharp:1; do
  forced ${f%:*} ${f%:*} "UNSHARP=${f#*:}" 80 \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPB=1 -DLH=2 32x4" \
    "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPB=1 -DLH=3 32x4"
done
nvidia_tests test_compute '*GaussianStripsSharedAcrossColumns*:*GaussianAndUnsharpEveryTunedVariant*' 120
