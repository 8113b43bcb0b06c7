#!/usr/bin/env bash
# Builds peers/npp_bench.cu with nvcc alone (no CMake needed): what the GPU machine runs.
#
#   peers/build.sh [OUTDIR]        -> OUTDIR/npp_bench (default: a new temporary directory)
#
# nvcc is taken from $NVCC, else PATH, else $CUDA_HOME/bin, /usr/local/cuda/bin or the newest
# /usr/local/cuda-*/bin. NPP's headers and libraries are looked for next to that nvcc
# (include/ and lib64/, or targets/<arch>-linux/); set NPP_INCLUDE / NPP_LIB to override.
# Prints the path of the binary on its last line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$(mktemp -d /tmp/npp_bench.XXXXXX)}
mkdir -p "$out"

nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
    nvcc=$(command -v nvcc || true)
fi
if [ -z "$nvcc" ]; then
    for d in "${CUDA_HOME:-}" /usr/local/cuda $(ls -d /usr/local/cuda-* 2>/dev/null | sort -V -r); do
        if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then nvcc=$d/bin/nvcc; break; fi
    done
fi
if [ -z "$nvcc" ]; then
    echo "peers/build.sh: nvcc not found (looked at \$NVCC, PATH, \$CUDA_HOME, /usr/local/cuda*)" >&2
    exit 1
fi
cuda=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)

inc=${NPP_INCLUDE:-}
if [ -z "$inc" ]; then
    for d in "$cuda/include" "$cuda"/targets/*-linux/include; do
        if [ -f "$d/npp.h" ]; then inc=$d; break; fi
    done
fi
if [ -z "$inc" ] || [ ! -f "$inc/npp.h" ]; then
    echo "peers/build.sh: NPP headers (npp.h) not found under $cuda (set NPP_INCLUDE)" >&2
    exit 1
fi
lib=${NPP_LIB:-}
if [ -z "$lib" ]; then
    for d in "$cuda/lib64" "$cuda"/targets/*-linux/lib "$cuda/lib"; do
        if ls "$d"/libnppif.so* >/dev/null 2>&1; then lib=$d; break; fi
    done
fi
if [ -z "$lib" ]; then
    echo "peers/build.sh: NPP libraries (libnppif.so) not found under $cuda (set NPP_LIB)" >&2
    exit 1
fi

# NV12 -> RGBA (nppiNV12ToRGB_8u_P2C4R_Ctx) exists only in newer NPPs: build it where declared.
defs=()
if grep -q "nppiNV12ToRGB_8u_P2C4R_Ctx" "$inc"/nppi_color_conversion.h 2>/dev/null; then
    defs+=(-DVFX_NPP_HAS_NV12_RGBA)
fi

echo "peers/build.sh: nvcc $("$nvcc" --version | grep -o "release [0-9.]*" || true) at $nvcc; NPP from $inc ${defs[*]:-}" >&2
"$nvcc" -O2 -std=c++17 -Xcompiler -Wall,-Wextra -I"$inc" "${defs[@]}" \
    "$here/npp_bench.cu" -o "$out/npp_bench" \
    -L"$lib" -Xlinker -rpath -Xlinker "$lib" -lnppif -lnppicc -lnppc -lcudart
echo "$out/npp_bench"
