#!/usr/bin/env bash
# The twenty-first session's last kernel call (issue 4): the tensor-core strips eight warps wide
# (-DMW=8 -DNS=17 / -DNS=8: half the horizontal apron per output of four-warp groups, the same
# wave count) on an H200 (elsewhere it names the card and stops, unless --any): the tuner's
# per-candidate times for the Gaussian and the unsharp at 4K, the bench with the shipped shape
# and the wide ones forced in three alternating rounds, and the Gaussian/unsharp tests under
# NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s21-mw8.sh [--any]
# (Run once with the two MW 8 candidates in filters_blur.cpp; they lost and were not committed.)
# Results under $OUT: summary.txt and s21-mw8.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s21-mw8 "${1:-}" || exit 0

tuner_times gaussian,unsharp 'MW=4 -DNS=(8|13|17) |MW=8'
forced gaussian gaussian 'UNSHARP=0' 80 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DMW=8 -DNS=17 32x8 px4x34" \
  "-DMMA=1 -DMW=8 -DNS=8 32x8 px4x16"
forced unsharp unsharp 'UNSHARP=1' 80 \
  "-DMMA=1 -DMW=4 -DNS=13 32x4 px2x52" "-DMMA=1 -DMW=8 -DNS=17 32x8 px4x34" \
  "-DMMA=1 -DMW=8 -DNS=8 32x8 px4x16"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 150
