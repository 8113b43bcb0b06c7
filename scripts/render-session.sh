#!/usr/bin/env bash
# The renderer's video pass on the GPU machine: GPU time of the render stage (the renderer's
# Vulkan timestamps, p50 over the frames) for the compute and the fragment pass, at several
# headless target sizes, through the default chain; then the renderer's tests on the device.
#   source .devpack/env.sh && bash scripts/render-session.sh [CLIP] [FRAMES]
# Expects .devpack/bin/vfx (and .devpack/bin/test_render to run the tests). Results: $OUT.
set -uo pipefail
out=${OUT:-$PWD/render-out}; mkdir -p "$out"
bin=.devpack/bin
clip=${1:-.media/4k-h264-300.mp4}
frames=${2:-200}
export VFX_CACHE_DIR=$out/cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
$bin/vfx play --headless --clock fast --input "$clip" --frames 30 > /dev/null 2>&1  # tuning
for size in 1280x720 1920x1080 3840x2160; do
  for pass in compute fragment auto; do
    r="$out/play-$size-$pass.json"
    $bin/vfx play --headless --clock fast --input "$clip" --frames "$frames" \
      --headless-size "$size" --video-pass "$pass" --report "$r" > "$out/play-$size-$pass.txt" 2>&1
    python3 - "$r" "$size" "$pass" <<'PY' | tee -a "$out/render.txt"
import json, statistics, sys
j = json.load(open(sys.argv[1]))
frames = j["timing"]["frames"][10:]
def p50(stage):
    v = [f["stages_ms"][stage] for f in frames if stage in f["stages_ms"]]
    return statistics.median(v) if v else float("nan")
gpu = ["convert", "median", "unsharp", "histogram", "switch", "render"]
c = j.get("video_pass_choice")
print(f"{sys.argv[2]:>9} {sys.argv[3]:>8} ({j['video_pass']}): render p50 {p50('render'):.4f} ms, "
      f"switch p50 {p50('switch'):.4f} ms, "
      f"chain + render p50s {sum(p50(s) for s in gpu):.4f} ms, {j['fps']:.1f} fps"
      + (f"; chosen by measurement: compute {c['compute_ms']:.4f}, fragment {c['fragment_ms']:.4f} ms" if c else ""))
PY
  done
done
gzip -f "$out"/play-*.json
if [ -x $bin/test_render ]; then
  timeout 300 $bin/test_render --gtest_brief=1 > "$out/test_render.log" 2>&1
  echo "test_render: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/test_render.log" | tr '\n' ' ')" | tee -a "$out/render.txt"
fi
