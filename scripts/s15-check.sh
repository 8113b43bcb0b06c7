#!/usr/bin/env bash
# The fifteenth session's last device call (issue 4): the demosaic and point-wise tests under
# NVIDIA's compiler with the final build (every candidate forced: DI=5 with PY 4 and the LT
# forms included), then, if the card is an H200, scripts/s15-h200.sh (the bench table with
# fresh tuning, the peers, and the session's candidates forced) on it.
#   source .devpack/env.sh && bash scripts/s15-check.sh
# Needs .devpack/bin/{vfx,test_filters_isp,test_compute}. Results: $OUT/tests.tar.gz, and with an
# H200 s15-h200.sh's $OUT/h200.tar.gz and $OUT/summary.txt.
set -uo pipefail
source scripts/s15-parts.sh
final=${OUT:-$PWD/s15-check-out}; mkdir -p "$final"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t=$tmp/tests; mkdir -p "$t"
nvidia-smi -L | tee "$t/gpu.txt"
s15_tests "$t"
tar -C "$tmp" -czf "$final/tests.tar.gz" tests
if grep -q H200 "$t/gpu.txt"; then
  OUT=$final timeout 260 bash scripts/s15-h200.sh
fi
