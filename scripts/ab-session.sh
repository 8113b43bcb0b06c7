#!/usr/bin/env bash
# A kernel change against its base on the GPU machine, in one run: the named filters' bench at 4K
# with this build (.devpack/bin/vfx) and with a base build (.devpack/bin/vfx-base, e.g. the last
# commit built the same way), alternating over ROUNDS rounds, each start with a fresh tuning cache
# (every candidate measured), so both are judged on the same card, clocks and run. Before that:
# the kernel tests of this build with NVIDIA's compiler (every tuned candidate forced) where
# .devpack/bin/test_compute is packed, and registers and spills of this build's programs for
# the filters (ptxas -v on their PTX).
#   source .devpack/env.sh && bash scripts/ab-session.sh FILTERS [ROUNDS] [GTEST_FILTER]
# Results under $OUT: ab.txt (every round's 4K rows of both builds) and ab.tar.gz (the benches'
# output and the tuner's per-candidate times) from scripts/tuner-ab.sh, tests.txt, ptxas.txt.
set -uo pipefail
out=${OUT:-$PWD/ab-out}; mkdir -p "$out"
filters=${1:?usage: ab-session.sh FILTERS [ROUNDS] [GTEST_FILTER]}
rounds=${2:-3}
gfilter=${3:-*}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$out/gpu.txt"
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)

if [ -x .devpack/bin/test_compute ]; then
  VFX_TUNE=fixed VFX_SOURCE_DIR=$PWD .devpack/bin/test_compute --gtest_filter="$gfilter" \
    > "$out/tests.txt" 2>&1
  echo "test_compute exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/tests.txt" | tr '\n' ' ')"
fi

# Registers and spills of every program this build compiles for the filters.
mkdir -p "$work/bin"
VFX_CACHE_DIR=$work/c0 VFX_DUMP_BINARIES=$work/bin .devpack/bin/vfx bench --size 3840x2160 \
  --filters "$filters" --retune --runs 5 > /dev/null 2>&1
for b in "$work"/bin/*.bin; do
  [ -e "$b" ] || continue
  echo "== $(tr '\n' ' ' < "${b%.bin}.txt")"
  cp "$b" "$work/p.ptx"
  ptxas -arch="$arch" -v "$work/p.ptx" -o /dev/null 2>&1 | grep -E 'entry|registers|spill'
done > "$out/ptxas.txt"

# The A/B itself: scripts/tuner-ab.sh, base first in each round (a missing base is skipped).
# AB_BUILDS (e.g. "vfx-base vfx-x vfx"): other programs under .devpack/bin, in that order.
builds=(vfx); [ -x .devpack/bin/vfx-base ] && builds=(vfx-base vfx)
[ -n "${AB_BUILDS:-}" ] && read -r -a builds <<< "$AB_BUILDS"
OUT="$out" bash scripts/tuner-ab.sh "$rounds" 3840x2160 "$filters" "${builds[@]}" > /dev/null
cat "$out/ab.txt"
