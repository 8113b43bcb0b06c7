#!/usr/bin/env bash
# The main job: set up (packages, configure, build), then play the bundled sample through the
# default chain: in a window when a display exists, headless with a report otherwise.
# Extra arguments go to `vfx play` (e.g. --chain gaussian=sigma=3 --frames 100).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$top/scripts/setup.sh" "$top/build" >&2
vfx="$top/build/ui/vfx"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$vfx" play "$@"
fi
echo "no display: playing headless; report in build/report.json" >&2
exec "$vfx" play --headless --report "$top/build/report.json" "$@"
