#!/usr/bin/env bash
# The fifteenth session's closing device call (issue 4), on whichever card comes: the bench table
# with fresh tuning, the peers and the strips' lengths forced (scripts/h200-session.sh), then the
# bench with demosaic MHC's DI=3 and DI=5 forms and the fused run with and without its table in
# __local memory (LT) forced, in alternating rounds (scripts/forced-bench.sh).
#   source .devpack/env.sh && bash scripts/final-s15.sh
# Results: $OUT/final.tar.gz (h200-session's bench/ and forced-*/, forced-mhc/, forced-fused/:
# the device tool brings back 8 files) and $OUT/summary.txt (also on stdout).
set -uo pipefail
final=${OUT:-$PWD/final-out}; mkdir -p "$final"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$tmp/final; mkdir -p "$out"
OUT=$out timeout 330 bash scripts/h200-session.sh > "$out/h200-session.txt" 2>&1
# The fused run's program (bench.cpp's run): its tuning key names it by the hash of its text,
# the first point-wise program a bench of `fused` tunes.
fused=$(VFX_CACHE_DIR=$(mktemp -d) .devpack/bin/vfx bench --size 256x64 --filters fused \
  --log-level debug 2>&1 | grep -o 'tuned pointwise-[0-9a-f]*' | head -1 | cut -d' ' -f2)
[ -n "$fused" ] || { echo "no fused run's program in a bench of 'fused'" >&2; exit 1; }
OUT=$out/forced-mhc timeout 100 bash scripts/forced-bench.sh demosaic 'METHOD=0' 3 \
  "-DPY=2 -DDI=3 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=4 -DDI=5 -DPRMT=1 -DLX=32 -DLP=1024 32x4 px4x4" > /dev/null 2>&1
OUT=$out/forced-fused timeout 100 bash scripts/forced-bench.sh fused "$fused" 3 \
  "-DPX=4 -DQW=3 64x4 px4x1" "-DPX=4 -DQW=3 -DLT=1 64x4 px4x1" > /dev/null 2>&1
tar -C "$tmp" -czf "$final/final.tar.gz" final
{
  cat "$out/gpu-l.txt"
  grep -h ' 3840x2160 ' "$out"/bench/summary.txt | head -40
  grep -hE '== round|mhc|\(fused|unsharp|gaussian' "$out"/forced-*/forced.txt
} | cut -c1-160 | tee "$final/summary.txt"
