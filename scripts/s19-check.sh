#!/usr/bin/env bash
# The nineteenth session's device call (2026-11-27): the build that publishes a run's files
# together (output, report, preset, screenshot) checked under NVIDIA's OpenCL and Vulkan.
#   source .devpack/env.sh && bash scripts/s19-check.sh
# carry: .devpack, .media (4k-h264.mp4), build-gpu/tests/media (the player tests' clips).
# The interop and player tests; headless 4K playback with the validation layer on, a screenshot
# and a report; a 4K process run with a report and a saved preset; the 4K bench of the filters
# the targets name (fresh tuning). Results: $OUT/summary.txt and $OUT/s19.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/s19-out}; mkdir -p "$final"
tmp=$(mktemp -d); out=$tmp/s19; mkdir -p "$out"
sum=$final/summary.txt
trap 'tar -C "$tmp" -czf "$final/s19.tar.gz" s19' EXIT
log() { echo "== $*" | tee -a "$sum"; }
bin=.devpack/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$sum"

log "tests (NVIDIA OpenCL + Vulkan)"
for t in test_interop test_player; do
  VFX_BINARY=$PWD/$bin/vfx VFX_SOURCE_DIR=$PWD timeout 150 $bin/$t --gtest_brief=1 > "$out/$t.log" 2>&1
  echo "$t: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/$t.log" | tr '\n' ' ')" |
    tee -a "$sum"
done

log "headless 4K play, default chain, validation layer on, screenshot and report"
timeout 60 $bin/vfx play --headless --validation --input .media/4k-h264.mp4 \
  --headless-size 3840x2160 --screenshot "$out/shot.png" --report "$out/play.json" \
  > "$out/play.txt" 2>&1
echo "exit $?" | tee -a "$sum"
tail -3 "$out/play.txt" | tee -a "$sum"
ls -la "$out" | grep -E 'shot.png|play.json' | tee -a "$sum"
grep -oE '"(validation_errors|tier|staged_copies|fps)": *[^,]*' "$out/play.json" | tee -a "$sum"

log "4K process: output, report and preset published together"
timeout 90 $bin/vfx process --input .media/4k-h264.mp4 --frames 30 --output "$out/o.mp4" \
  --report "$out/r.json" --save-preset "$out/p.json" > "$out/process.txt" 2>&1
echo "exit $?" | tee -a "$sum"
head -1 "$out/process.txt" | tee -a "$sum"
ls "$out" | grep -E '^(o.mp4|r.json|p.json)$' | tr '\n' ' ' | tee -a "$sum"; echo | tee -a "$sum"

log "vfx bench 4K, fresh tuning"
VFX_CACHE_DIR=$tmp/cache timeout 200 $bin/vfx bench --size 3840x2160 --retune \
  --json "$out/ours.json" > "$out/bench.txt" 2> "$out/bench.log"
echo "exit $?" >> "$out/bench.txt"
grep -E 'copy bandwidth| 3840x2160 |^exit' "$out/bench.txt" | cut -c1-150 | tee -a "$sum"
