#!/usr/bin/env bash
# The L2 prefetch candidates against the kernels they extend, by the bench's own timing (rotating
# buffers, DRAM to DRAM: the tuner's bursts re-read a frame that is partly in L2, which hides what
# a prefetch into L2 can give), in alternating rounds (scripts/forced-bench.sh), on the GPU
# machine:
#   source .devpack/env.sh && bash scripts/prefetch-ab.sh [ROUNDS] [KERNELS]
# KERNELS (default all): any of mhc bilinear gaussian unsharp box5. Demosaic -DLP=D: the rows of
# the work-group D places ahead in launch order fetched into L2; Gaussian/unsharp (tensor-core
# strips) -DPF=k: chunk s + 2 + k at step s; box radius 5 (streaming strips) -DPF=k: chunk
# ch + k's rows at chunk ch; -DPFK=1: one bulk prefetch per row (cp.async.bulk.prefetch.L2)
# instead of one per 32-byte sector. Results: $OUT/prefetch-ab.txt and, with every run's output,
# $OUT/prefetch-ab.tar.gz.
set -uo pipefail
final=${OUT:-$PWD/prefetch-out}; mkdir -p "$final"
rounds=${1:-3}
kernels=${2:-mhc bilinear gaussian unsharp box5}
work=$(mktemp -d)
run() {  # NAME FILTER CASE LABEL...
  local name=$1; shift
  mkdir -p "$work/$name"
  OUT="$work/$name" bash scripts/forced-bench.sh "$@" > /dev/null 2> "$work/$name/stderr.txt"
  { echo "## $name"; cat "$work/$name/forced.txt"; cat "$work/$name/stderr.txt"; echo; } \
    >> "$final/prefetch-ab.txt"
}
d="-DPY=2 -DDI=3 -DPRMT=1"
dl=("$d 16x8 px4x2" "$d -DLX=16 -DLP=1024 16x8 px4x2" "$d -DLX=16 -DLP=2048 16x8 px4x2"
    "$d -DLX=16 -DLP=1024 -DPFK=1 16x8 px4x2" "$d -DLX=16 -DLP=1024 16x16 px4x2")
g="-DMMA=1 -DMW=4"
b() { echo "-DSW=1 -DST=1 -DUT=1$1 -DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1 -DQW=1 -DLX=32 -DLY=8 -DPY=2 -DNCH=8 32x8 px4x16"; }
for k in $kernels; do
  case $k in
    mhc) run mhc demosaic 'METHOD=0' "$rounds" "${dl[@]}" ;;
    bilinear) run bilinear demosaic 'METHOD=1' "$rounds" "${dl[@]}" ;;
    gaussian) run gaussian gaussian 'RADIUS=6 -DUNSHARP=0' "$rounds" "$g -DNS=17 32x4 px2x68" \
      "$g -DNS=17 -DPF=1 32x4 px2x68" "$g -DNS=17 -DPF=1 -DPFK=1 32x4 px2x68" \
      "$g -DNS=17 -DPF=2 -DPFK=1 32x4 px2x68" ;;
    unsharp) run unsharp unsharp 'RADIUS=3 -DUNSHARP=1' "$rounds" "$g -DNS=13 32x4 px2x52" \
      "$g -DNS=13 -DPF=1 32x4 px2x52" "$g -DNS=13 -DPF=1 -DPFK=1 32x4 px2x52" ;;
    box5) run box5 box 'RADIUS=5]' "$rounds" "$(b '')" "$(b ' -DPF=1')" "$(b ' -DPF=1 -DPFK=1')" \
      "$(b ' -DPF=2 -DPFK=1')" ;;
  esac
done
tar -C "$work" -czf "$final/prefetch-ab.tar.gz" .
grep -E "^##|^== |3840x2160|did not run|failed" "$final/prefetch-ab.txt" | grep -v "copy bandwidth"
