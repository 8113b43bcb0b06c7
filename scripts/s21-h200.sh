#!/usr/bin/env bash
# The twenty-first session's H200 call (issue 4): L2 prefetches ahead of the loads where the
# H200 leaves kernels under the 70 % line. On an H200 (elsewhere it names the card and stops,
# unless --any):
#  1. the tuner's per-candidate times at 4K (fresh cache, debug log) for the fused point-wise
#     run, the Gaussian, the unsharp and demosaic: every new candidate (point-wise -DPF=R, the
#     strips' -DPF=1, demosaic LP 512) beside the ones it would displace;
#  2. the bench with the shipped form and the prefetching ones forced in three alternating
#     rounds (scripts/forced-bench.sh);
#  3. the point-wise, Gaussian/unsharp and demosaic tests under NVIDIA's compiler (every
#     candidate forced), where the pack holds test_compute and test_filters_isp.
#   source .devpack/env.sh && bash scripts/s21-h200.sh [--any]
# (Run once, before bd1f3bc, with the strips' PF candidates too: they lost on the H200 and were
# not committed; see BENCHMARKS.md, twenty-first session.)
# Results under $OUT: summary.txt (written as the call goes) and s21.tar.gz (everything;
# scripts/device-call.sh).
set -uo pipefail
source scripts/device-call.sh
source scripts/s15-parts.sh
device_call s21 "${1:-}" || exit 0

tuner_times fused,gaussian,unsharp,demosaic 'PF=|LP=512|NS=1[37] |NS=8 |QW=3 (64|128)'
fused=$(s15_fused_program)
forced fused fused "$fused" 90 \
  "-DPX=4 -DQW=3 64x4 px4x1" "-DPX=4 -DQW=3 -DPF=128 64x4 px4x1" \
  "-DPX=4 -DQW=3 -DPF=256 64x4 px4x1" "-DPX=4 -DQW=3 -DPF=512 64x4 px4x1"
forced gaussian gaussian 'UNSHARP=0' 60 \
  "-DMMA=1 -DMW=4 -DNS=17 32x4 px2x68" "-DMMA=1 -DMW=4 -DNS=17 -DPF=1 32x4 px2x68"
forced unsharp unsharp 'UNSHARP=1' 70 \
  "-DMMA=1 -DMW=4 -DNS=13 32x4 px2x52" "-DMMA=1 -DMW=4 -DNS=13 -DPF=1 32x4 px2x52" \
  "-DMMA=1 -DMW=4 -DNS=8 -DPF=1 32x4 px2x32"
forced mhc demosaic 'METHOD=0' 60 \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=1024 16x8 px4x2" \
  "-DPY=2 -DDI=5 -DPRMT=1 -DLX=16 -DLP=512 16x8 px4x2"
if [ -x "$bin/test_compute" ]; then
  nvidia_tests test_compute 'Pointwise*:*Gaussian*:*Unsharp*' 100
  nvidia_tests test_filters_isp 'Isp.Demosaic*' 60
fi
