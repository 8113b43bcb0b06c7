#!/usr/bin/env bash
# Installs every Debian 12 package vfx needs to build, run and test, then configures and builds.
# Safe to re-run: packages already present are skipped and the build is incremental.
#   scripts/setup.sh [BUILD_DIR] [CMAKE_BUILD_TYPE]
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$top/build}
type=${2:-RelWithDebInfo}

pkgs=(
  build-essential cmake ninja-build pkg-config git
  libvulkan-dev vulkan-validationlayers glslc spirv-tools mesa-vulkan-drivers vulkan-tools
  opencl-headers opencl-clhpp-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libglfw3-dev libimgui-dev
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libavdevice-dev libavfilter-dev ffmpeg
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libpng-dev
  libgtest-dev libgmock-dev
  xvfb xauth xdotool imagemagick x11-utils
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$type" >/dev/null
cmake --build "$build" -j"$(nproc)"
