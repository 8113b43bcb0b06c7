#!/usr/bin/env bash
# Headless 4K playback against the decode-only rate of the same clip, on the GPU machine
# (issue 4). Each round runs, back to back: `vfx bench --decode CLIP` (the same demuxer,
# decoder, threads and direct-decode pool as play), `vfx play --headless --clock fast` through
# the default chain, and the same with --no-direct-decode (the copy into staging, for
# comparison). The decode-only rate moves from run to run on a shared 16-core machine, so the
# ratio is taken per round and the median over the rounds is the figure. Each round's GPU time
# per frame of the default chain (every stage's p50 over the frames) follows.
#   source .devpack/env.sh && bash scripts/playback-session.sh [CLIP] [ROUNDS]
# Default clip: .media/4k-h264-long.mp4 (see BENCHMARKS.md for how it is made).
set -uo pipefail
out=${OUT:-$PWD/playback-out}; mkdir -p "$out"
bin=.devpack/bin
clip=${1:-.media/4k-h264-long.mp4}
rounds=${2:-5}
chain="median=radius=1,unsharp=sigma=1:amount=0.5,histogram"
export VFX_CACHE_DIR=${VFX_CACHE_DIR:-$out/cache}
log() { echo "== $*" | tee -a "$out/playback.txt"; }
log "warm-up: tuning and kernel builds for this clip's size"
$bin/vfx play --headless --clock fast --input "$clip" --chain "$chain" > /dev/null 2>&1
for i in $(seq 1 "$rounds"); do
  log "round $i"
  $bin/vfx bench --decode "$clip" --json "$out/decode-$i.json" 2>&1 | tail -1 | tee -a "$out/playback.txt"
  $bin/vfx play --headless --clock fast --input "$clip" --chain "$chain" \
    --report "$out/play-$i.json" 2>&1 | grep -E "fps" | tee -a "$out/playback.txt"
  $bin/vfx play --headless --clock fast --input "$clip" --chain "$chain" --no-direct-decode \
    --report "$out/copy-$i.json" 2>&1 | grep -E "fps" | tee -a "$out/playback.txt"
done
python3 - "$out" "$rounds" <<'PY' | tee -a "$out/playback.txt"
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def fps(path):
    with open(path) as f:
        j = json.load(f)
    return j["fps"] if "fps" in j else j["run"]["fps"]
rows = []
for i in range(1, rounds + 1):
    try:
        d, p, c = fps(f"{out}/decode-{i}.json"), fps(f"{out}/play-{i}.json"), fps(f"{out}/copy-{i}.json")
    except (OSError, KeyError, ValueError) as e:
        print(f"round {i}: incomplete ({e})"); continue
    rows.append((d, p, c))
    print(f"round {i}: decode only {d:.1f} fps, play {p:.1f} fps ({p / d:.0%}), "
          f"play without direct decode {c:.1f} fps ({c / d:.0%})")
if rows:
    print(f"median ratio over {len(rows)} rounds: direct {statistics.median(p / d for d, p, c in rows):.0%}, "
          f"copy {statistics.median(c / d for d, p, c in rows):.0%}")
# The default chain's GPU time per frame: each stage's p50 over the frames of each round's play.
# "switch" (the GPU changing from OpenCL's context to Vulkan's before the video pass) is there
# since the seventh 2026-11-26 session; runs before it counted none.
stages = ["convert", "median", "unsharp", "histogram", "switch", "render"]
for i in range(1, rounds + 1):
    try:
        with open(f"{out}/play-{i}.json") as f:
            s = json.load(f)["timing"]["summary_ms"]
        v = [s[n]["p50"] if n in s else 0.0 for n in stages]
    except (OSError, KeyError, ValueError) as e:
        print(f"round {i}: no stage times ({e})"); continue
    print(f"round {i} p50 ms: " + " ".join(f"{n} {x:.4f}" for n, x in zip(stages, v))
          + f" sum {sum(v):.3f}")
PY
