#!/usr/bin/env bash
# The twenty-second session's closing call (issue 4), for an H200 (on any other card it names
# the card and stops, unless --any):
#  1. the bench with fresh tuning, 1080p and 4K, every filter (the table's figures);
#  2. under NVIDIA's compiler, every candidate forced: the Gaussian's and unsharp's tests (LV=1
#     among them) and the demosaic tests (FP=1 among them, the prefetching ones on frames of
#     more than 2048 groups).
#   source .devpack/env.sh && bash scripts/s22-final.sh --h200|--any
# Results under $OUT: summary.txt (written as the call goes) and s22-final.tar.gz
# (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s22-final "${1:-}" || exit 0

fresh_bench 200

nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*' 120
nvidia_tests test_filters_isp 'Isp.Demosaic*' 240
