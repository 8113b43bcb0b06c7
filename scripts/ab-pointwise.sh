#!/usr/bin/env bash
# One device call for point-wise kernel work: the programs' SASS (sass-session.sh), two more
# tuning rounds with every candidate's time, the bench at both sizes and the point-wise tests
# under NVIDIA's compiler (every variant exact).
#   source .devpack/env.sh && bash scripts/ab-pointwise.sh [FILTERS]   (default fused,gamma)
# Results: everything in $OUT/ab.tar.gz (the device tool brings back a few files), the bench
# table and the tests' verdict on stdout.
set -uo pipefail
final=${OUT:-$PWD/ab-out}; mkdir -p "$final"
filters=${1:-fused,gamma}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$tmp/ab; mkdir -p "$out"
OUT=$out/sass bash scripts/sass-session.sh "$filters" > "$out/sass.log" 2>&1
for r in 1 2; do
  VFX_CACHE_DIR=$tmp/cache-$r .devpack/bin/vfx bench --size 3840x2160 --retune --filters "$filters" \
    --log-level debug > "$out/round$r.txt" 2> "$out/round$r.log"
  grep "tuned " "$out/round$r.log" > "$out/tuned-$r.txt"
done
VFX_CACHE_DIR=$tmp/cache .devpack/bin/vfx bench --filters "$filters" > "$out/bench.txt" 2>&1
VFX_SOURCE_DIR=$PWD .devpack/bin/test_compute --gtest_filter='Pointwise*' --gtest_brief=1 \
  > "$out/tests.txt" 2>&1
tar -C "$tmp" -czf "$final/ab.tar.gz" ab
tail -3 "$out/tests.txt"
cat "$out/bench.txt"
