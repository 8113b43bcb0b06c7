#!/usr/bin/env bash
# The twenty-third session's second experiment call (issue 4), for an H200 (elsewhere it names
# the card and stops, unless --any): the tensor-core Gaussian and unsharp as one wave of strips
# of unequal length (gaussian.cl's -DPG=4), with and without an L2 fetch size on their loads
# (-DLH=2|3), and the strips without a required work-group size under a register budget
# (-DNRQ=1 -cl-nv-maxrregcount=128: a control for the first call's PG, which had both): the
# tuner's per-candidate times at 4K (the programs' PTX kept, for ptxas's register counts), the
# bench with each forced in three alternating rounds, the kernel tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s23-pg2.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s23-pg2.tar.gz (scripts/device-call.sh).
# (Run once with those candidates; the NRQ form and PG without LH were not kept:
# benchmarks/2026-11-28-s23/2-pg-balanced-h200.)
set -uo pipefail
source scripts/device-call.sh
device_call s23-pg2 "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp 'PG=|LH=|NRQ=|NS=17|NS=8' 150 'PG=|NRQ=|LH='
forced gaussian gaussian 'UNSHARP=0' 100 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DNRQ=1 -cl-nv-maxrregcount=128 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 100 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DNRQ=1 -cl-nv-maxrregcount=128 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=3 32x4 px2x68"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 110
