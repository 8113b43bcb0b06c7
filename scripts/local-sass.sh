#!/usr/bin/env bash
# A kernel's sm_90 instruction mix and register count on the build machine, without the GPU
# machine (issue 4): an approximation for comparing two forms of a kernel before spending device
# time on them (BENCHMARKS.md, twenty-second session).
#   scripts/local-sass.sh FILE.cl KERNEL [BUILD OPTIONS...]   clang's PTX of kernels/FILE.cl
#   scripts/local-sass.sh --ptx PROGRAM KERNEL                NVIDIA's PTX (VFX_DUMP_BINARIES' .bin)
# SEQ=1 also prints the opcodes in order; PTXAS_OPTS are added to ptxas's options (e.g.
# --maxrregcount=128, which ptxas ignores for a kernel with a required work-group
# size). Needs Debian's clang-14, llvm-14 and libclc-14
# (apt-get install clang-14 llvm-14 libclc-14) and the CUDA toolkit's ptxas ($PTXAS, else
# /usr/local/cuda/bin/ptxas). The opcode table is built once from the SASS listings in
# benchmarks/ (scripts/sass_mix.py), into ${XDG_CACHE_HOME:-~/.cache}/vfx/sass-opcodes.json.
# clang's PTX is not NVIDIA's: registers can differ by tens, instruction counts by a few percent;
# what a change adds or removes came out alike on both in the sessions that checked.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
command -v "$ptxas" > /dev/null || { echo "local-sass.sh: no ptxas at $ptxas (set PTXAS)" >&2; exit 1; }
table=${XDG_CACHE_HOME:-$HOME/.cache}/vfx/sass-opcodes.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# (Built again when a listing archive is newer than the table.)
if [ ! -s "$table" ] || [ -n "$(find "$root/benchmarks" -name '*.tar.gz' -newer "$table" -print -quit)" ]; then
  mkdir -p "$(dirname "$table")" "$work/listings"
  find "$root/benchmarks" -name '*.tar.gz' | while read -r t; do
    tar -C "$work/listings" -xzf "$t" --wildcards '*.sass' 2>/dev/null || true
  done
  mapfile -t listings < <(find "$work/listings" -name '*.sass')
  [ "${#listings[@]}" -gt 0 ] || { echo "local-sass.sh: no SASS listings under benchmarks/" >&2; exit 1; }
  python3 "$root/scripts/sass_mix.py" table "$table" "${listings[@]}"
fi

if [ "${1:-}" = --ptx ]; then
  ptx=${2:?PROGRAM}; kernel=${3:?KERNEL}
else
  file=${1:?usage: local-sass.sh FILE.cl KERNEL [OPTIONS...] | --ptx PROGRAM KERNEL}
  kernel=${2:?KERNEL}; shift 2
  cat "$root/kernels/common.h" "$root/kernels/$file" > "$work/k.cl"
  # NVIDIA's paths on an sm_90 (__NV_CL_C_VERSION, VFX_NV_SM: what the host passes there),
  # inline PTX as clang spells it, and every helper inlined
  # (OpenCL C's inline leaves a call to an external function otherwise).
  clang-14 -x cl -cl-std=CL2.0 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header -O3 \
    -D__NV_CL_C_VERSION=300 -DVFX_NV_SM=90 -Dasm=__asm__ \
    '-Dinline=__attribute__((always_inline)) inline' \
    -emit-llvm -c -o "$work/k.bc" "$work/k.cl" "$@"
  # (libclc's triple is nvptx64-unknown-nvidiacl: the warning that it differs is dropped.)
  llvm-link-14 --only-needed "$work/k.bc" /usr/lib/clc/nvptx64--nvidiacl.bc -o "$work/l.bc" 2>&1 |
    grep -v "Linking two modules of different target triples" >&2 || true
  [ -s "$work/l.bc" ] || { echo "local-sass.sh: llvm-link failed" >&2; exit 1; }
  opt-14 -O3 "$work/l.bc" -o "$work/o.bc"
  llc-14 -mcpu=sm_80 -mattr=+ptx75 "$work/o.bc" -o "$work/k.ptx"
  ptx=$work/k.ptx
fi
"$ptxas" -arch=sm_90 -v ${PTXAS_OPTS:-} "$ptx" -o "$work/k.cubin" > "$work/ptxas.txt" 2>&1 || { cat "$work/ptxas.txt" >&2; exit 1; }
grep -A2 "properties for $kernel\$" "$work/ptxas.txt" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' |
  paste -sd ' ' - || echo "local-sass.sh: no ptxas report for $kernel" >&2
python3 "$root/scripts/sass_mix.py" mix "$table" "$work/k.cubin" "$kernel" ${SEQ:+--seq}
