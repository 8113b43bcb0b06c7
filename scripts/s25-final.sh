#!/usr/bin/env bash
# The twenty-fifth session's closing call (issue 4), for an H200 (elsewhere it names the card and
# stops, unless --any): the bench with fresh tuning at 1080p and 4K, every filter (the table's
# figures) on the final build (demosaic's edge blocks from their rows), then the demosaic tests
# under NVIDIA's compiler.
#   source .devpack/env.sh && bash scripts/s25-final.sh --h200|--any
# Results under $OUT: summary.txt, bench.txt, tuned.txt and s25-final.tar.gz
# (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s25-final "${1:-}" || exit 0

fresh_bench 240
nvidia_tests test_filters_isp 'Isp.Demosaic*' 170
