#!/usr/bin/env bash
# The twenty-sixth session's tests call (issue 4): the Gaussian's and unsharp's tests that
# s26-final.sh's 150 seconds left unrun (the 1080p frame, every tuned candidate, the tuner's),
# under NVIDIA's compiler, on an H200 (elsewhere it names the card and stops, unless --any).
#   source .devpack/env.sh && bash scripts/s26-tests.sh --h200|--any
# Results under $OUT: summary.txt, s26-tests.tar.gz (scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
device_call s26-tests "${1:-}" || exit 0

nvidia_tests test_compute 'Filters.Gaussian1080p:*GaussianAndUnsharpEveryTunedVariant*:TunedKernel.*' 400
