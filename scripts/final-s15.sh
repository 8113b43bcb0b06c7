#!/usr/bin/env bash
# The fifteenth session's closing device call (issue 4), on whichever card comes: the bench table
# with fresh tuning, the peers and the strips' lengths forced (scripts/h200-session.sh), then the
# bench with demosaic MHC's DI=3 and DI=5 forms and the fused run with and without its table in
# __local memory (LT) forced, in alternating rounds (scripts/forced-bench.sh).
#   source .devpack/env.sh && bash scripts/final-s15.sh
# Results: $OUT/final.tar.gz (h200-session's bench/ and forced-*/, forced-mhc/, forced-fused/:
# the device tool brings back 8 files) and $OUT/summary.txt (also on stdout).
set -uo pipefail
source scripts/s15-parts.sh
final=${OUT:-$PWD/final-out}; mkdir -p "$final"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$tmp/final; mkdir -p "$out"
OUT=$out timeout 330 bash scripts/h200-session.sh > "$out/h200-session.txt" 2>&1
s15_forced "$out" 100 "${S15_MHC[@]}" -- "${S15_FUSED[@]}"
tar -C "$tmp" -czf "$final/final.tar.gz" final
{
  cat "$out/gpu-l.txt"
  grep -h ' 3840x2160 ' "$out"/bench/summary.txt | head -40
  grep -hE '== round|mhc|\(fused|unsharp|gaussian' "$out"/forced-*/forced.txt
} | cut -c1-160 | tee "$final/summary.txt"
