#!/usr/bin/env bash
# The peer benchmarks on the GPU machine, in one go (issue 4): builds peers/npp_bench with nvcc
# into a temporary directory, runs it and peers/opencv_bench.py on the same GPU, writes their
# JSON under $OUT (or ./peers-out) and prints their tables. With --ours FILE (what
# `vfx bench --json FILE` wrote in the same session) it also writes the side-by-side table.
#
#   scripts/peers-session.sh [--ours OURS.json] [--size WxH]... [extra harness options: --runs N]
#
# Files written: npp.json, opencv.json, peers.log (both tables and every message) and, with
# --ours, peers-table.md. Needs nvcc with NPP (CUDA toolkit) and a python3 with cv2 and numpy
# ($PYTHON overrides which python3). OpenCV's OpenCL reaches NVIDIA's driver through an ICD
# loader: sourcing .devpack/env.sh first (../shared/device/prepare) provides one.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$PWD/peers-out}
mkdir -p "$out"
log="$out/peers.log"
: > "$log"
say() { echo "== $*" | tee -a "$log"; }
die() { echo "peers-session.sh: $*" | tee -a "$log" >&2; exit 1; }

ours=""
harness_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) [ $# -ge 2 ] || die "--ours needs a file"; ours=$2; shift 2 ;;
        --ours=*) ours=${1#--ours=}; shift ;;
        --size|--runs|--warmup|--input) [ $# -ge 2 ] || die "$1 needs a value"
            harness_args+=("$1" "$2"); shift 2 ;;
        -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
[ -z "$ours" ] || [ -r "$ours" ] || die "--ours: cannot read '$ours'"

# --- what is missing, said plainly, before anything runs ---
nvcc=${NVCC:-$(command -v nvcc || true)}
if [ -z "$nvcc" ]; then
    for d in "${CUDA_HOME:-}" /usr/local/cuda $(ls -d /usr/local/cuda-* 2>/dev/null | sort -V -r); do
        if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then nvcc=$d/bin/nvcc; break; fi
    done
fi
[ -z "$nvcc" ] || [ -x "$nvcc" ] || die "nvcc is missing: '$nvcc' (from \$NVCC) is not an executable"
[ -n "$nvcc" ] || die "nvcc is missing (not on PATH, not under \$CUDA_HOME or /usr/local/cuda*): cannot build the NPP benchmark"
python=${PYTHON:-$(command -v python3 || true)}
[ -n "$python" ] || die "python3 is missing: cannot run the OpenCV benchmark"
"$python" -c "import cv2" 2>/dev/null || die "cv2 (OpenCV's Python module) is missing for $python: cannot run the OpenCV benchmark"
"$python" -c "import numpy" 2>/dev/null || die "numpy is missing for $python: cannot run the OpenCV benchmark"

# NVIDIA's OpenCL driver, for OpenCV (as .devpack/env.sh does), unless already arranged.
if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ]; then
    mkdir -p /tmp/ocl-vendors
    echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /tmp/ocl-vendors/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/ocl-vendors
fi
# The ICD loader OpenCV opens: name it outright when it is only on LD_LIBRARY_PATH as .so.1.
if [ -z "${OPENCV_OPENCL_RUNTIME:-}" ]; then
    IFS=: read -ra dirs <<< "${LD_LIBRARY_PATH:-}"
    for d in "${dirs[@]}"; do
        if [ -n "$d" ] && [ -e "$d/libOpenCL.so.1" ]; then
            export OPENCV_OPENCL_RUNTIME="$d/libOpenCL.so.1"; break
        fi
    done
    ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
    if [ -z "${OPENCV_OPENCL_RUNTIME:-}" ] && ! "$ldconfig" -p 2>/dev/null | grep -q 'libOpenCL\.so'; then
        echo "peers-session.sh: warning: no OpenCL ICD loader (libOpenCL.so.1) found; OpenCV will not reach the GPU (source .devpack/env.sh first)" | tee -a "$log" >&2
    fi
fi

status=0
if command -v nvidia-smi >/dev/null; then
    say "GPU"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,temperature.gpu \
        --format=csv,noheader 2>&1 | tee -a "$log"
fi

say "build npp_bench ($nvcc)"
build=$(mktemp -d /tmp/npp_bench.XXXXXX)
if NVCC="$nvcc" "$top/peers/build.sh" "$build" >> "$log" 2>&1; then
    say "NPP (peers/npp_bench)"
    "$build/npp_bench" --json "$out/npp.json" "${harness_args[@]}" 2>&1 | tee -a "$log"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || { echo "peers-session.sh: npp_bench exited with $rc" | tee -a "$log" >&2; status=1; }
else
    echo "peers-session.sh: building npp_bench failed (the compiler's messages are in $log):" >&2
    tail -20 "$log" >&2
    status=1
fi

say "OpenCV T-API (peers/opencv_bench.py, $python)"
PYTHONUNBUFFERED=1 "$python" "$top/peers/opencv_bench.py" --json "$out/opencv.json" \
    "${harness_args[@]}" 2>&1 | tee -a "$log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "peers-session.sh: opencv_bench.py exited with $rc" | tee -a "$log" >&2; status=1; }

if [ -n "$ours" ]; then
    peers=()
    for f in "$out/npp.json" "$out/opencv.json"; do [ -s "$f" ] && peers+=("$f"); done
    if [ ${#peers[@]} -gt 0 ]; then
        say "side by side ($ours)"
        "$python" "$top/peers/compare.py" "$ours" "${peers[@]}" --out "$out/peers-table.md" 2>&1 \
            | tee -a "$log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    fi
fi
rm -rf "$build"
say "done: results in $out (status $status)"
exit $status
