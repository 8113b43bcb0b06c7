#!/usr/bin/env bash
# The sixteenth session's demosaic MHC candidates (issue 4) on the GPU machine: the registers of
# every MHC program the tuner builds (ptxas -v on its PTX), then the bench with each named form
# forced in three alternating rounds (scripts/forced-bench.sh), the shipped PY 2 form first.
#   source .devpack/env.sh && bash scripts/s16-mhc.sh [LABEL...]
# Results: $OUT/registers.txt, $OUT/forced/forced.txt (and the tuner's run: forced-tune.txt).
set -uo pipefail
out=${OUT:-$PWD/s16-mhc-out}; mkdir -p "$out"
nvidia-smi -L
export PATH=$PATH:/usr/local/cuda/bin
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
VFX_CACHE_DIR=$d/c VFX_DUMP_BINARIES=$d .devpack/bin/vfx bench --size 3840x2160 \
  --filters demosaic --retune --runs 5 > /dev/null 2>&1
for p in "$d"/*.bin; do
  grep -q 'METHOD=0' "${p%.bin}.txt" 2>/dev/null || continue
  cp "$p" "$d/p.ptx"
  echo "$(tr '\n' ' ' < "${p%.bin}.txt" | grep -o '\-DPY.*') \
$(ptxas -arch="$arch" -v "$d/p.ptx" -o /dev/null 2>&1 | awk '/Used/ {print; exit}')"
done | sort | tee "$out/registers.txt"
labels=("$@")
[ ${#labels[@]} -gt 0 ] || labels=(
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2"
  "-DPY=8 -DDI=5 -DPRMT=1 -DWK=1 -DLX=16 -DLP=256 16x8 px4x8"
  "-DPY=16 -DDI=5 -DPRMT=1 -DWK=1 -DLX=16 -DLP=128 16x8 px4x16"
  "-DPY=8 -DDI=5 -DPRMT=1 -DWK=1 16x8 px4x8"
  "-DPY=16 -DDI=5 -DPRMT=1 -DWK=1 -DLX=32 -DLP=128 32x4 px4x16")
OUT=$out/forced timeout 300 bash scripts/forced-bench.sh demosaic 'METHOD=0' 3 "${labels[@]}" \
  > /dev/null 2>&1
grep -E 'mhc|== round' "$out/forced/forced-tune.txt" "$out/forced/forced.txt" | cut -c1-170
