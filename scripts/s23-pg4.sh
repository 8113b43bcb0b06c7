#!/usr/bin/env bash
# The twenty-third session's fifth call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): the unsharp's one wave of strips of unequal length (gaussian.cl's
# -DPG=4) with its constants made from the groups along y (in the fourth call's form NVIDIA's
# compiler gave it 138 registers), with L2 fetch sizes: the tuner's per-candidate times at 4K
# (the programs' PTX kept, for ptxas's register counts), the bench with the unsharp's forms
# forced in three alternating rounds, and the Gaussian/unsharp every-candidate test under
# NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s23-pg4.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s23-pg4.tar.gz (scripts/device-call.sh).
# (Run once with that form and candidate, not kept: NVIDIA's compiler still gave the unsharp's
# PG program 138 registers, where clang's PTX had gone from 126 to 105;
# benchmarks/2026-11-28-s23/5-pg-unsharp-h200, nz.diff.)
set -uo pipefail
source scripts/device-call.sh
device_call s23-pg4 "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp 'PG=|LH=' 100 'PG='
forced unsharp unsharp 'UNSHARP=1' 80 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=3 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=3 32x4"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 90
