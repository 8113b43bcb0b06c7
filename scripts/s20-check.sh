#!/usr/bin/env bash
# The twentieth session's device call (2026-11-28): its build (video outputs on the source's time
# base, the signals that clean up, the command line's messages) checked under NVIDIA's OpenCL and
# Vulkan by scripts/s19-check.sh (interop and player tests, headless 4K play with validation, a
# 4K process run with report and preset, the 4K bench with fresh tuning); on an H200, MHC's and
# the fused run's forms forced in alternating rounds as well (what s18-session.sh --h200-only
# measures after its bench).
#   source .devpack/env.sh && bash scripts/s20-check.sh
# carry: .devpack, .media (4k-h264.mp4), build-gpu/tests/media. Results under $OUT:
# summary.txt, s19.tar.gz and, on an H200, forced.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/s20-out}; mkdir -p "$final"
OUT=$final bash scripts/s19-check.sh
if [[ $(nvidia-smi -L) == *H200* ]]; then
  source scripts/s15-parts.sh
  tmp=$(mktemp -d)
  echo "== forced forms on the H200 (three alternating rounds)" | tee -a "$final/summary.txt"
  s15_forced "$tmp" 60 "${S15_MHC[@]}" -- "${S15_FUSED[@]}"
  grep -hE '== round|mhc|\(fused' "$tmp"/forced-*/forced.txt | cut -c1-150 |
    tee -a "$final/summary.txt"
  tar -C "$tmp" -czf "$final/forced.tar.gz" .
fi
