#!/usr/bin/env bash
# The histogram (or another kernel of the default chain) against a base build on the GPU
# machine, in one run: scripts/ab-session.sh on FILTERS (default: `histogram` and the default
# chain's bench case; 3 alternating rounds, fresh tuning), the tests GTEST_FILTER of this build
# under NVIDIA's compiler (.devpack/bin/TEST_BINARY, default test_filters_isp and the histogram
# and processor tests), and 3 `vfx play --headless` runs of each build (.devpack/bin/vfx-base,
# .devpack/bin/vfx; one warm-up run each first, then the builds alternating) on
# .media/4k-h264-120.mp4 through the default chain, each stage's p50 in stages.txt. Everything
# in $OUT/hist.tar.gz. The clip, made here (the .devpack and the 300-frame clip together exceed
# what travels):
#   ffmpeg -f lavfi -i testsrc2=size=3840x2160:rate=60,format=yuv420p -frames:v 120 \
#     -c:v libx264 -preset veryfast -crf 38 .media/4k-h264-120.mp4
# Run (carry .devpack and .media):
#   bash scripts/histogram-ab-session.sh [FILTERS] [TEST_BINARY] [GTEST_FILTER]
set -uo pipefail
source .devpack/env.sh
r=$OUT/r; mkdir -p "$r"
nvidia-smi -L > "$r/gpu.txt"
filters=${1:-histogram,chain}
testbin=${2:-test_filters_isp}
gfilter=${3:-*Histogram*:*Processor*}
# ab-session.sh runs .devpack/bin/test_compute (where packed) with the filter itself, into
# tests.txt; another test binary's results go to tests-BINARY.txt.
OUT=$r bash scripts/ab-session.sh "$filters" 3 "$gfilter" > "$r/ab-stdout.txt" 2>&1
grep -h "tuned " "$r"/tuned-new-*.txt | sed "s/; /\n/g" > "$r/candidates.txt"
tests=$r/tests.txt
if [ "$testbin" != test_compute ]; then
  tests=$r/tests-$testbin.txt
  VFX_TUNE=fixed VFX_SOURCE_DIR=$PWD ".devpack/bin/$testbin" --gtest_filter="$gfilter" > "$tests" 2>&1
  echo "tests exit $?" >> "$tests"
fi
# Playback: each build warmed up once (tuning, kernel builds), then the builds alternate.
chain=median=radius=1,unsharp=sigma=1:amount=0.5,histogram
rm -rf /tmp/pc-vfx-base /tmp/pc-vfx
play() {  # build, report name
  VFX_CACHE_DIR=/tmp/pc-$1 ".devpack/bin/$1" play --headless --clock fast \
    --input .media/4k-h264-120.mp4 --chain "$chain" ${2:+--report "$r/$2.json"} > "$r/${2:-warm-$1}.txt" 2>&1
}
for b in vfx-base vfx; do play "$b"; done
for i in 1 2 3; do for b in vfx-base vfx; do play "$b" "play-$b-$i"; done; done
python3 - "$r" <<'PY' > "$r/stages.txt"
import json, sys
r = sys.argv[1]
for b in ("vfx-base", "vfx"):
    for i in (1, 2, 3):
        try:
            s = json.load(open(f"{r}/play-{b}-{i}.json"))["timing"]["summary_ms"]
            print(b, i, " ".join(f"{n} {s[n]['p50']:.4f}" for n in ("convert", "median", "unsharp", "histogram", "switch", "render") if n in s))
        except Exception as e:
            print(b, i, "error", e)
PY
tar -C "$r" -czf "$OUT/hist.tar.gz" .
grep -E "^\[debug\]|chose" "$r/candidates.txt" | cut -c1-200; cat "$r/stages.txt"; tail -3 "$tests"
grep -E "$(echo "$filters" | tr ',' '|')|round" "$r/ab.txt"
