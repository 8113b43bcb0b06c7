#!/usr/bin/env bash
# The twenty-fourth session's experiment call (issue 4), for an H200 (elsewhere it names the card
# and stops, unless --any): the tensor-core Gaussian and unsharp with their one wave of strips as
# a 2-D grid (gaussian.cl's -DPGC=1: the column from the group's x index, no division, for the
# unsharp's register count) and with their chunks prefetched into L2 (-DPF=D); demosaic MHC in
# smaller groups and with a longer prefetch distance. The tuner's per-candidate times at 4K (the
# programs' PTX kept, for ptxas's register counts), the bench with each forced in three
# alternating rounds, the kernel tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s24-pgc.sh --h200|--any
# Results under $OUT: summary.txt, ptx.tar.gz, s24-pgc.tar.gz (scripts/device-call.sh).
# (Run once, on a build with these candidates: -DPGC=1 became gaussian.cl's -DPG, the one-row
# grid and -DPF were dropped, the demosaic candidates were not kept: benchmarks/2026-11-28-s24/
# 1-pgc-pf-h200.)
set -uo pipefail
source scripts/device-call.sh
device_call s24-pgc "${1:-}" || exit 0

tuner_times_ptx gaussian,unsharp 'PG=|PF=|NS=17' 120 'PG=|PF=|NS=17'
forced gaussian gaussian 'UNSHARP=0' 100 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPGC=1 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPGC=1 -DLH=2 -DPF=1 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 -DPF=1 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 120 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=3 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPGC=1 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPGC=1 -DLH=3 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DPGC=1 -DLH=2 -DPF=1 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 -DPF=1 32x4 px2x68"
forced mhc demosaic 'METHOD=0' 70 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 16x4 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=256 32x2 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=384 16x8 px4x2"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*:*PgCandidates*' 80
