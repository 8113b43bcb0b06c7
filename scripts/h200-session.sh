#!/usr/bin/env bash
# What an H200 call measures, in one go (issue 4: the targets are the H100's and the H200's, and
# the device tool mostly lends H100s, so a call that gets an H200 must measure everything at once):
#   nvidia-smi -L | grep -q H200 || exit 0; source .devpack/env.sh && bash scripts/h200-session.sh
# 1. scripts/bench-session.sh --no-play (the table with fresh tuning, the peers, traffic shapes);
# 2. the bench of the tensor-core strips with each strip length forced (scripts/forced-bench.sh):
#    the tuner, whose bursts then found the frame in L2, ranked the unsharp's strips otherwise
#    than the bench on the eighth 2026-11-26 session's H200 (it took strips of 7 steps, 0.0318
#    ms in the bench); its runs now read from DRAM (compute/tuner.cpp), and this checks that its
#    pick is the bench's best there too.
# Results under $OUT: bench/ and forced-*/.
set -uo pipefail
out=${OUT:-$PWD/h200-out}; mkdir -p "$out"
nvidia-smi -L | tee "$out/gpu-l.txt"
OUT="$out/bench" bash scripts/bench-session.sh --no-play > "$out/bench-session.log" 2>&1
echo "bench-session exit $?"
mmas() { for ns in "$@"; do echo "-DMMA=1 -DMW=4 -DNS=$ns 32x4 px2x$((4 * ns))"; done; }
mapfile -t unsharp < <(mmas 7 8 13 17)
OUT="$out/forced-unsharp" bash scripts/forced-bench.sh unsharp 'UNSHARP=1' 3 "${unsharp[@]}" \
  > /dev/null 2>&1
mapfile -t gauss < <(mmas 8 9 17)
OUT="$out/forced-gaussian" bash scripts/forced-bench.sh gaussian 'UNSHARP=0' 3 "${gauss[@]}" \
  > /dev/null 2>&1
grep -h ' 3840x2160 ' "$out"/bench/summary.txt | head -40
grep -hE '== round|unsharp|gaussian' "$out"/forced-*/forced.txt
