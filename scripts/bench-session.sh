#!/usr/bin/env bash
# The speed session on the GPU machine (issue 4), in one go: `vfx bench` (every filter, the
# conversions, a fused run, the default chain; JSON + table), the NPP and OpenCV peers on the
# same GPU with the side-by-side table, and headless 4K playback against the decode-only rate
# of the same clip.
#   source .devpack/env.sh && bash scripts/bench-session.sh [--quick] [--no-play]
#   (--quick: no peers; --no-play: no decode/playback part, see playback-session.sh for that)
# The peers part also runs peers/traffic_probe.cu (the ceiling of each traffic shape).
# Expects .devpack/bin/vfx (and test_* binaries, run at the end) and .media/4k-h264.mp4 (see
# BENCHMARKS.md). Results: $OUT/summary.txt and everything in $OUT/session.tar.gz (the device
# tool brings back only a few files).
set -uo pipefail
final=${OUT:-$PWD/bench-out}; mkdir -p "$final"
out=$(mktemp -d)
log() { echo "== $*" | tee -a "$out/summary.txt"; }
bin=.devpack/bin
quick=""; play=1
for a in "$@"; do
  case "$a" in --quick) quick=--quick ;; --no-play) play=0 ;; esac
done
pack() { cp "$out/summary.txt" "$final/" 2>/dev/null; tar -C "$out" -czf "$final/session.tar.gz" .; }
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$out/gpu.txt"
export VFX_CACHE_DIR=$out/cache   # a fresh tuning cache: this run measures every choice

log "vfx bench (first start: tunes, writes the cache)"
start=$(date +%s%N)
$bin/vfx bench --json "$out/ours.json" --log-level debug > "$out/bench.txt" 2> "$out/bench.log"; echo "exit $?" >> "$out/bench.txt"
echo "vfx bench wall time, first start (compiles and tunes every kernel at both sizes, then times every case): $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/summary.txt"
grep "tuned " "$out/bench.log" > "$out/tuned.txt"
cat "$out/bench.txt" | tee -a "$out/summary.txt"
log "vfx bench again (second start: the cache is reused, no measuring)"
( time $bin/vfx bench --size 3840x2160 --filters median,gaussian --runs 20 --log-level debug ) > "$out/bench-cached.txt" 2>&1
grep -c "tuned " "$out/bench-cached.txt" | sed 's/^/kernels measured on the second start: /' | tee -a "$out/summary.txt"
grep real "$out/bench-cached.txt" | tee -a "$out/summary.txt"

if [ "$quick" != "--quick" ]; then
  log "peers (NPP, OpenCV) on the same GPU"
  OUT="$out" bash scripts/peers-session.sh --ours "$out/ours.json" > "$out/peers-stdout.txt" 2>&1
  echo "peers exit $?" | tee -a "$out/summary.txt"
  cat "$out/peers-table.md" 2>/dev/null | tee -a "$out/summary.txt"
  log "traffic shapes: the DRAM ceiling of each kernel shape (peers/traffic_probe.cu, CUDA)"
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if "$nvcc" -O3 -arch=native -o "$out/traffic_probe" peers/traffic_probe.cu > "$out/traffic-build.log" 2>&1; then
    for size in 3840x2160 1920x1080; do "$out/traffic_probe" --size $size; done 2>&1 | tee -a "$out/summary.txt"
    rm -f "$out/traffic_probe"
  else
    echo "traffic_probe: build failed (traffic-build.log)" | tee -a "$out/summary.txt"
  fi
fi

[ "$play" = 1 ] || exit 0
clip=.media/4k-h264.mp4
log "decode only: vfx bench --decode (the same demuxer, decoder and threads as play)"
for i in 1 2; do $bin/vfx bench --decode "$clip" 2>&1 | tail -1 | tee -a "$out/summary.txt"; done
for chain in "" "median=radius=1,unsharp=sigma=1:amount=0.5,histogram"; do
  for i in 1 2; do
    log "headless 4K play --clock fast, chain '$chain' (run $i)"
    $bin/vfx play --headless --clock fast --input "$clip" --chain "$chain" --report "$out/play-4k-$i-${#chain}.json" 2>&1 | tail -22 | tee -a "$out/summary.txt"
  done
done

for threads in 12 14; do
  log "headless 4K play --clock fast, default chain, --decode-threads $threads; decode only with as many"
  $bin/vfx bench --decode "$clip" --decode-threads $threads 2>&1 | tail -1 | tee -a "$out/summary.txt"
  $bin/vfx play --headless --clock fast --input "$clip" --decode-threads $threads --report "$out/play-4k-t$threads.json" 2>&1 | grep -E "fps|render|frame |decode|queue" | tee -a "$out/summary.txt"
done

log "kernel tests with NVIDIA's compiler (every tuned variant forced in turn)"
for t in $bin/test_*; do
  name=$(basename "$t")
  VFX_TUNE=fixed VFX_SOURCE_DIR=$PWD timeout 300 "$t" --gtest_brief=1 > "$out/$name.log" 2>&1
  echo "$name: exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/$name.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
done
