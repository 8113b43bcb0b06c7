#!/usr/bin/env bash
# The sixteenth session's A/Bs of the tensor-core blur (issue 4) on the GPU machine: the Gaussian
# and unsharp tests under NVIDIA's compiler (every candidate forced), the registers of every
# build's tensor-core programs, then the bench with fresh tuning in three alternating rounds
# (scripts/ab-session.sh).
#   source .devpack/env.sh && bash scripts/s16-ab.sh FILTERS BUILD...
# e.g. `unsharp vfx-base vfx-k8n vfx`: programs under .devpack/bin (extra ones may travel
# xz-compressed, as BUILD.xz). Results: $OUT/ab.txt, $OUT/ab.tar.gz, $OUT/tests.txt,
# $OUT/ptxas.txt (this build's programs), $OUT/registers.txt (every build's MMA programs).
set -uo pipefail
out=${OUT:-$PWD/s16-out}; mkdir -p "$out"
filters=${1:?usage: s16-ab.sh FILTERS BUILD...}; shift
nvidia-smi -L
for f in .devpack/bin/*.xz; do [ -e "$f" ] && xz -d "$f"; done
export PATH=$PATH:/usr/local/cuda/bin
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
for b in "$@"; do
  d=$(mktemp -d)
  VFX_CACHE_DIR=$d/c VFX_DUMP_BINARIES=$d .devpack/bin/"$b" bench --size 3840x2160 \
    --filters "$filters" --retune --runs 5 > /dev/null 2>&1
  for p in "$d"/*.bin; do
    grep -q MMA "${p%.bin}.txt" 2>/dev/null || continue
    echo "$b: $(tr '\n' ' ' < "${p%.bin}.txt" | grep -o '\-DRADIUS.*') \
$(cp "$p" "$d/p.ptx" && ptxas -arch="$arch" -v "$d/p.ptx" -o /dev/null 2>&1 |
      awk '/entry function .gaussian_strip/ {f = 1} f && /Used/ {print; exit}')"
  done
  rm -rf "$d"
done | tee "$out/registers.txt"
AB_BUILDS="$*" OUT=$out timeout 480 bash scripts/ab-session.sh "$filters" 3 \
  'Filters.Gaussian*:Filters.Unsharp*' | grep -E '==|unsharp|gaussian'
