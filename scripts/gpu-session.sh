#!/usr/bin/env bash
# Everything one GPU-machine session runs, in one go (device time is scarce).
# Run there as:  source .devpack/env.sh && scripts/gpu-session.sh
# Expects .devpack/bin/{vfx,test_*} (../shared/device/prepare build/ui/vfx build/tests/test_*)
# and the 4K clip at .media/4k-h264.mp4 (carried). Results go to $OUT (or ./gpu-out).
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/summary.txt"; }
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

log "vfx probe"
$bin/vfx probe 2>&1 | tee "$out/probe.txt"
$bin/vfx probe --json > "$out/probe.json" 2>&1

clip=.media/4k-h264.mp4
for tier in auto copy; do
  log "headless 4K play, default chain, interop $tier"
  $bin/vfx play --headless --input "$clip" --interop $tier --report "$out/play-4k-$tier.json" \
    2>&1 | tail -25 | tee -a "$out/summary.txt"
done
log "headless 4K play, interop auto, validation layer on"
$bin/vfx play --headless --validation --input "$clip" --frames 60 --report "$out/play-4k-validation.json" 2>&1 | tail -3 | tee -a "$out/summary.txt"
grep -o '"validation_errors": [0-9]*' "$out/play-4k-validation.json" | tee -a "$out/summary.txt"
log "headless 4K play, empty chain (conversion only)"
$bin/vfx play --headless --input "$clip" --chain "" --report "$out/play-4k-nochain.json" 2>&1 | tail -20 | tee -a "$out/summary.txt"
log "process 4K to null"
$bin/vfx process --input "$clip" --output null --chain "gaussian=sigma=2" --report "$out/process-4k.json" 2>&1 | tail -5 | tee -a "$out/summary.txt"

log "process 4K through every filter (per-stage GPU times)"
every="color=brightness=0.02:contrast=1.1:saturation=1.2:hue=10,ccm=matrix=1.2|-0.1|-0.1|-0.1|1.2|-0.1|-0.1|-0.1|1.2,gamma=curve=srgb"
every="$every,mosaic=pattern=rggb,blacklevel=black=2:white=250,wb=r=1.2:b=1.1,demosaic=method=mhc:pattern=rggb"
every="$every,median=radius=1,median=radius=2,bilateral=sigma_s=2:sigma_r=0.1,box=radius=5,gaussian=sigma=2,sharpen=radius=1:amount=0.5"
every="$every,unsharp=sigma=1:amount=0.5,oilpaint=radius=4:levels=16,sepia,grayscale,sobel,blend=mode=screen:opacity=0.5,histogram"
$bin/vfx process --input "$clip" --output null --frames 60 --chain "$every" --report "$out/process-4k-every.json" 2>&1 | tail -32 | tee -a "$out/summary.txt"

log "tests (NVIDIA OpenCL + Vulkan)"
for t in $bin/test_*; do
  name=$(basename "$t")
  VFX_SOURCE_DIR=$PWD timeout 300 "$t" --gtest_brief=1 > "$out/$name.log" 2>&1
  echo "$name: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/$name.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
done
