#!/usr/bin/env bash
# The whole test suite: set up (packages, configure, build), then every test under a virtual X
# server (windowed tests need one), on whatever OpenCL and Vulkan devices the machine has
# (PoCL and lavapipe without a GPU). Extra arguments go to ctest (e.g. -R decode).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$top/scripts/setup.sh" "$top/build" >&2
cd "$top/build"
jobs=$(nproc)
exec xvfb-run -a -s "-screen 0 1280x720x24" ctest --output-on-failure -j"$jobs" --timeout 900 "$@"
