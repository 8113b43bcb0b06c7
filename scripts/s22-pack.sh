#!/usr/bin/env bash
# The twenty-second session's call (issue 4): levels converted and packed two at a time
# (common.h's vfx_level2_u8, one F2IP on sm_90) in demosaic MHC (-DFP=1) and in the tensor-core
# Gaussian and unsharp (-DLV=1: products in levels), on an H200 (elsewhere it names the card and
# stops, unless --any): the tuner's per-candidate times at 4K with every program's PTX dumped
# (the compared ones come back, for ptxas here), and the bench with the shipped and new forms
# forced in three alternating rounds. With --tests-only: the tests of every candidate under
# NVIDIA's compiler instead (a call of their own on a fresh machine).
#   source .devpack/env.sh && bash scripts/s22-pack.sh --h200|--any [--tests-only]
# Results under $OUT: summary.txt, ptx/ (the dumped programs) and s22-pack.tar.gz
# (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-pack "${1:-}" || exit 0
if [ "${2:-}" = --tests-only ]; then
  nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 200
  nvidia_tests test_filters_isp \
    'Isp.DemosaicAndMosaicEveryTunedVariant:Isp.DemosaicSaturates*:Isp.DemosaicPrefetching*' 300
  exit 0
fi

export VFX_DUMP_BINARIES=$tmp/bin
mkdir -p "$VFX_DUMP_BINARIES"
tuner_times demosaic,gaussian,unsharp 'DI=5 -DPRMT=1 -D(FP=1 -D)?RP=128|LP=1024|MW=4 -DNS=(8|13|17) ' 150
unset VFX_DUMP_BINARIES
mkdir -p "$final/ptx"
for t in "$tmp"/bin/*.txt; do
  grep -qE 'DI=5 -DPRMT=1 (-DFP=1 )?-DRP=128|MMA=1 (-DLV=1 )?-DMW=4 -DNS=(13|17)' "$t" || continue
  cp "$t" "${t%.txt}.bin" "$final/ptx/" 2>/dev/null
done
forced mhc demosaic 'METHOD=0' 130 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DRP=128 16x8 px4x2" "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=128 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DFP=1 -DRP=192 16x8 px4x2"
forced gaussian gaussian 'UNSHARP=0' 100 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=8 32x4 px2x32"
forced unsharp unsharp 'UNSHARP=1' 100 \
  "-DMMA=1 -DMW=4 -DNS=13 32x4 px2x52" "-DMMA=1 -DLV=1 -DMW=4 -DNS=13 32x4 px2x52" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=8 32x4 px2x32"
