#!/usr/bin/env bash
# Kernel anatomy on the NVIDIA machine: every program `vfx bench` builds (all tuner candidates,
# --retune) is dumped as PTX (VFX_DUMP_BINARIES), assembled with ptxas for the GPU's
# architecture (-v: registers, spills, shared memory per kernel) and disassembled to SASS, so
# instruction mixes can be read off-line. Also the per-candidate times (the tuner's debug log).
#   source .devpack/env.sh && bash scripts/sass-session.sh [FILTERS]
# Results: $OUT/anatomy.tar.gz (ptx, sass, ptxas-v per program), $OUT/tuned.txt, $OUT/kernels.txt
set -uo pipefail
out=${OUT:-$PWD/sass-out}; mkdir -p "$out"
work=$(mktemp -d)
filters=${1:-}
export PATH=$PATH:/usr/local/cuda/bin
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
export VFX_CACHE_DIR=$work/cache VFX_DUMP_BINARIES=$work/bin
mkdir -p "$VFX_DUMP_BINARIES"
args=(--size 3840x2160 --retune --log-level debug --runs 50)
[ -n "$filters" ] && args+=(--filters "$filters")
.devpack/bin/vfx bench "${args[@]}" > "$out/kernels.txt" 2> "$work/bench.log"
grep "tuned " "$work/bench.log" > "$out/tuned.txt"
for b in "$VFX_DUMP_BINARIES"/*.bin; do
  s=${b%.bin}
  cp "$b" "$s.ptx"
  ptxas -arch="$arch" -v "$s.ptx" -o "$s.cubin" > "$s.ptxas.txt" 2>&1
  cuobjdump -sass "$s.cubin" > "$s.sass" 2>&1
  rm -f "$s.cubin" "$b"
done
tar -C "$work" -czf "$out/anatomy.tar.gz" bin
ls "$VFX_DUMP_BINARIES" | wc -l
cat "$out/kernels.txt"
