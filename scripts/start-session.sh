#!/usr/bin/env bash
# Start-up time on the GPU machine: `vfx play --headless` of the first frames of CLIP, three
# times: with every cache empty (vfx's tuning cache and the driver's compiled-program cache:
# the first start on a fresh machine, which compiles and measures every tuned kernel it needs),
# with the driver's cache kept but no tuning cache (measuring without compiling), and with
# both kept (a normal start).
#   source .devpack/env.sh && bash scripts/start-session.sh [CLIP] [FRAMES]
# Results: $OUT/start.txt.
set -uo pipefail
out=${OUT:-$PWD/start-out}; mkdir -p "$out"
clip=${1:-.media/4k-h264-long.mp4}
frames=${2:-30}
work=$(mktemp -d)
export CUDA_CACHE_PATH=$work/driver-cache
run() {
  local what=$1
  local t0=$(date +%s%N)
  .devpack/bin/vfx play --headless --clock fast --frames "$frames" --input "$clip" \
    --log-level debug > "$work/log.txt" 2>&1
  local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  echo "$what: exit $rc, $ms ms, kernels measured: $(grep -c 'tuned ' "$work/log.txt")" |
    tee -a "$out/start.txt"
}
export VFX_CACHE_DIR=$work/tuning-1
run "first start (no caches)"
export VFX_CACHE_DIR=$work/tuning-2
run "driver cache kept, no tuning cache"
run "both caches kept"
