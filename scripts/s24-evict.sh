#!/usr/bin/env bash
# The twenty-fourth session's second experiment call (issue 4), for an H200 (elsewhere it names
# the card and stops, unless --any): the tuner's per-candidate times at 4K with its cache
# eviction before each measured run done three ways (VFX_EVICT_MODE: the fill of a scratch
# larger than L2, a copy between its halves, a read of it), set against the bench with each
# candidate forced in three alternating rounds, to see which way ranks the candidates as the
# bench does (the first call's tuner put the unsharp's one wave of strips 1 % behind strips of 17
# steps, the bench 4 % ahead); the Gaussian and unsharp in their final candidates, the kernel
# and tuner tests under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s24-evict.sh --h200|--any
# Results under $OUT: summary.txt, s24-evict.tar.gz (scripts/device-call.sh).
# (Run once, on a build whose ClContext::evict_caches read VFX_EVICT_MODE; the copy is now the
# only way: benchmarks/2026-11-28-s24/2-eviction-h200.)
set -uo pipefail
source scripts/device-call.sh
device_call s24-evict "${1:-}" || exit 0

for mode in fill copy read; do
  log "eviction by $mode"
  VFX_EVICT_MODE=$mode tuner_times gaussian,unsharp,demosaic 'PG=|NS=17|FP=1' 100
  cp "$out/tune.txt" "$out/tune-$mode.txt"
done
forced gaussian gaussian 'UNSHARP=0' 90 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=3 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=3 32x4"
forced unsharp unsharp 'UNSHARP=1' 90 \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=2 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DNS=17 -DLH=3 32x4 px2x68" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=2 32x4" \
  "-DMMA=1 -DLV=1 -DMW=4 -DPG=4 -DLH=3 32x4"
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*:TunedKernel.*' 80
