#!/usr/bin/env bash
# Headless 4K playback against the decode-only rate of the same clip, on the GPU machine
# (issue 4): `vfx bench --decode CLIP` (the same demuxer, decoder and threads as play) and
# `vfx play --headless --clock fast` through no chain and the default chain, alternated.
#   source .devpack/env.sh && bash scripts/playback-session.sh [CLIP]
# Default clip: .media/4k-h264-long.mp4 (see BENCHMARKS.md for how it is made).
set -uo pipefail
out=${OUT:-$PWD/playback-out}; mkdir -p "$out"
bin=.devpack/bin
clip=${1:-.media/4k-h264-long.mp4}
log() { echo "== $*" | tee -a "$out/playback.txt"; }
for i in 1 2 3; do
  log "decode only (run $i)"
  $bin/vfx bench --decode "$clip" 2>&1 | tail -1 | tee -a "$out/playback.txt"
  for chain in "" "median=radius=1,unsharp=sigma=1:amount=0.5,histogram"; do
    log "play --headless --clock fast, chain '$chain' (run $i)"
    $bin/vfx play --headless --clock fast --input "$clip" --chain "$chain" \
      --report "$out/play-$i-${#chain}.json" 2>&1 | grep -vE "^\[info\]" | tee -a "$out/playback.txt"
  done
done
