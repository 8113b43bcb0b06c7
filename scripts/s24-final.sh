#!/usr/bin/env bash
# The twenty-fourth session's closing call (issue 4), for an H200 (elsewhere it names the card
# and stops, unless --any):
#  1. the bench with fresh tuning, 1080p and 4K, every filter (the table's figures), the tuner's
#     cache eviction a copy;
#  2. under NVIDIA's compiler, every candidate forced: the Gaussian's and unsharp's tests (PG as
#     a grid of columns x strips among them), the tuner's tests and the demosaic tests (NC).
#   source .devpack/env.sh && bash scripts/s24-final.sh --h200|--any
# Results under $OUT: summary.txt, bench.txt, tuned.txt and s24-final.tar.gz
# (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s24-final "${1:-}" || exit 0

fresh_bench 220
nvidia_tests test_compute '*GaussianAndUnsharpEveryTunedVariant*:TunedKernel.*:Tuner.*' 100
nvidia_tests test_filters_isp 'Isp.Demosaic*' 150
