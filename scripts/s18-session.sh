#!/usr/bin/env bash
# The eighteenth session's device call (issue 4, and the seventeenth session's changes on NVIDIA).
# On an H200: the 4K bench with fresh tuning, the same filters cache-resident at 3840x1080, then
# demosaic MHC's forms (DI=3, DI=5, DI=5 with PY 4) and the fused run with and without its table
# in local memory forced in alternating rounds (s15-parts.sh): figures no H200 has given since
# the fifteenth session. On any other card: those forms forced cache-resident at 3840x1080
# (`vfx bench --cache-resident`). Then, where the pack has them: the interop and player tests
# under NVIDIA's OpenCL and Vulkan (the player's run where the build tree's test media are
# carried: carry build-gpu/tests/media), and headless 4K playback with the validation layer on
# (.media/4k-h264.mp4).
#   source .devpack/env.sh && bash scripts/s18-session.sh [--h200-only]
# (--h200-only: on any other card, stop after naming it: a start that only looks for an H200;
# on an H200, the 4K bench and the forced forms only, to fit what is left of the device time.)
# Results under $OUT: summary.txt (written as the call goes, so a call cut at its limit keeps it)
# and s18.tar.gz (everything, at the end). The steps' limits add up to under 540 s.
set -uo pipefail
final=${OUT:-$PWD/s18-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/s18; mkdir -p "$out"
sum=$final/summary.txt
trap 'tar -C "$tmp" -czf "$final/s18.tar.gz" s18' EXIT
log() { echo "== $*" | tee -a "$sum"; }
bin=.devpack/bin
S18_FILTERS=convert,demosaic,gaussian,unsharp,box,sharpen,sobel,blend,wb,fused
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader |
  tee "$sum"
gpus=$(nvidia-smi -L)  # once: `nvidia-smi -L | grep -q` can fail by SIGPIPE under pipefail

if [[ $gpus != *H200* && ${1:-} == --h200-only ]]; then
  exit 0
elif [[ $gpus == *H200* ]]; then
  log "vfx bench 4K, fresh tuning"
  VFX_CACHE_DIR=$tmp/cache timeout 150 $bin/vfx bench --size 3840x2160 --retune \
    --json "$out/ours.json" > "$out/bench.txt" 2> "$out/bench.log"
  echo "exit $?" >> "$out/bench.txt"
  grep -E 'copy bandwidth| 3840x2160 |^exit' "$out/bench.txt" | cut -c1-150 | tee -a "$sum"
  if [[ ${1:-} != --h200-only ]]; then
    log "the same filters, cache-resident at 3840x1080 (to set against the H100's)"
    VFX_CACHE_DIR=$tmp/cache timeout 60 $bin/vfx bench --size 3840x1080 --cache-resident \
      --filters "$S18_FILTERS" > "$out/resident.txt" 2> "$out/resident.log"
    grep -E 'copy bandwidth| 3840x1080 ' "$out/resident.txt" | cut -c1-150 | tee -a "$sum"
  fi
  log "forced forms on the H200 (three alternating rounds)"
  source scripts/s15-parts.sh
  s15_forced "$out" 60 "${S15_MHC[@]}" -- "${S15_FUSED[@]}"
  grep -hE '== round|mhc|\(fused' "$out"/forced-*/forced.txt | cut -c1-150 | tee -a "$sum"
  [[ ${1:-} == --h200-only ]] && exit 0
else
  # Frames of 3840x1080 fit the L2 (50 MB), so with one buffer set the kernels run without DRAM
  # behind them (the session's call 3 ran the filters from DRAM and from the L2; its call 4
  # this). Its figures did not match the H200's.
  source scripts/s15-parts.sh
  FORCED_SIZE=3840x1080 FORCED_ARGS=--cache-resident s15_forced "$out" 100 "${S15_MHC[@]}" -- \
    "${S15_FUSED[@]}"
  grep -hE '== round|mhc|\(fused|copy bandwidth' "$out"/forced-*/forced.txt | cut -c1-150 |
    tee -a "$sum"
fi

log "tests (NVIDIA OpenCL + Vulkan)"
for t in test_interop test_player; do
  [ -x $bin/$t ] || continue
  VFX_BINARY=$PWD/$bin/vfx VFX_SOURCE_DIR=$PWD timeout 45 $bin/$t --gtest_brief=1 > "$out/$t.log" 2>&1
  echo "$t: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/$t.log" | tr '\n' ' ')" |
    tee -a "$sum"
done

[ -f .media/4k-h264.mp4 ] || exit 0
log "headless 4K play, default chain, validation layer on"
timeout 60 $bin/vfx play --headless --validation --input .media/4k-h264.mp4 \
  --report "$out/play-validation.json" > "$out/play-validation.txt" 2>&1
echo "exit $?" | tee -a "$sum"
tail -4 "$out/play-validation.txt" | tee -a "$sum"
grep -oE '"(validation_errors|tier|staged_copies|frames_concealed|fps)": *[^,]*' \
  "$out/play-validation.json" | tee -a "$sum"
