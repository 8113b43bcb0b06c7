#!/usr/bin/env bash
# A short kernel-tuning session on the GPU machine: every tuned candidate of the named filters
# measured afresh at 4K (--retune, with the tuner's per-candidate times in the debug log), then
# the bench table. For iterating on kernels; the full session is bench-session.sh.
#   source .devpack/env.sh && bash scripts/kernel-session.sh [FILTERS] [SIZE]
# Results: $OUT/kernels.txt (table), $OUT/tuned.txt (every candidate's time), $OUT/kernels.json,
# $OUT/clocks.txt (the SM clock every 200 ms).
set -uo pipefail
out=${OUT:-$PWD/kernel-out}; mkdir -p "$out"
filters=${1:-}
size=${2:-3840x2160}
export VFX_CACHE_DIR=$out/cache
args=(--size "$size" --retune --json "$out/kernels.json" --log-level debug)
[ -n "$filters" ] && args+=(--filters "$filters")
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$out/gpu.txt"
# The SM clock while it runs (date and time, MHz), to turn times into cycles.
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 200 > "$out/clocks.txt" 2>&1 &
smi=$!
trap 'kill "$smi" 2>/dev/null' EXIT
.devpack/bin/vfx bench "${args[@]}" > "$out/kernels.txt" 2> "$out/bench.log"
echo "exit $?" >> "$out/kernels.txt"
kill "$smi" 2>/dev/null
grep "tuned " "$out/bench.log" > "$out/tuned.txt"
cat "$out/kernels.txt"
