#!/usr/bin/env bash
# Hardware counters of the tuned kernels on the NVIDIA machine (issue 4): `vfx bench` tunes the
# named filters at 4K with every program dumped as PTX (VFX_DUMP_BINARIES); each chosen
# program's kernel is then run through the CUDA driver API (peers/ptx_profile.cu, built here
# with nvcc) under Nsight Compute, which does not profile OpenCL itself. Only kernels whose
# arguments the script knows are profiled (box_strip, gaussian_strip, sobel_apply, demosaic, the
# bench's fused point-wise run); others are listed.
#   source .devpack/env.sh && [REGCAPS="32 24"] [STRIP_LABEL=LABEL] [SMS=N] bash scripts/profile-session.sh FILTERS (names: box,unsharp) [NCU_SECTION_SET]
# Results under $OUT: profile.tar.gz holding kernels.txt (the bench table), tuned.txt, and per kernel
# <name>.time.txt (ptx_profile's own median, to compare with the bench), <name>.ncu.txt,
# <name>.stalls.txt (stall reasons) and <name>.pipes.txt (each pipe's busy share and
# instructions), all in profile.tar.gz too.
set -uo pipefail
final=${OUT:-$PWD/profile-out}; mkdir -p "$final"
filters=${1:?FILTERS}
set_name=${2:-full}
work=$(mktemp -d)
out=$work/out; mkdir -p "$out"
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
[ -n "$cap" ] || { echo "profile-session.sh: nvidia-smi gave no compute capability" >&2; exit 1; }
export PTX_PROFILE_PTXAS=sm_$cap
export PATH=$PATH:/usr/local/cuda/bin
W=3840 H=2160 P=$((3840 * 4))
export VFX_CACHE_DIR=$work/cache VFX_DUMP_BINARIES=$work/bin
mkdir -p "$VFX_DUMP_BINARIES"
nvcc -O2 -o "$work/ptx_profile" peers/ptx_profile.cu -lcuda || exit 1
.devpack/bin/vfx bench --size ${W}x${H} --retune --log-level debug --runs 50 \
  --filters "$filters" > "$out/kernels.txt" 2> "$work/bench.log" ||
  { cp "$work/bench.log" "$final/"; tail -5 "$work/bench.log"; exit 1; }
grep "tuned " "$work/bench.log" | grep " ${W}x${H} " > "$out/tuned.txt" ||
  echo "profile-session.sh: nothing was tuned at ${W}x${H} (filters: $filters)" >&2
cat "$out/kernels.txt"

# gaussian_strip's taps by value for radius r (sigma r / 3, what the bench's cases pass): the
# horizontal ones (v:, tap d at d), then the vertical ones, for unsharp (amount 0.5) times -0.5
# with 1.5 at component 15.
taps() {
  python3 -c "
import math,sys
r=int(sys.argv[1]); u=sys.argv[2]=='1'; s=r/3
w=[math.exp(-x*x/(2*s*s)) for x in range(-r,r+1)]; t=sum(w); h=[v/t for v in w[r:]]
v=[-0.5*x for x in h]+[0.0]*(15-len(h))+[1.5] if u else h
print('v:'+';'.join('%.9g'%x for x in h)+',v:'+';'.join('%.9g'%x for x in v))" "$1" "$2"
}

while IFS= read -r line; do
  file=$(sed -E 's/.*tuned ([^:]+):.*/\1/' <<<"$line")
  kernel=$(sed -E 's/.*tuned [^:]+:([a-z_0-9]+) .*/\1/' <<<"$line")
  base=$(sed -E 's/.*tuned [^[]*\[([^]]*)\].*/\1/' <<<"$line" | sed 's/ *$//')
  chose=$(sed -E 's/.*chose (.*)$/\1/; s/ \([0-9]+ rounds\)$//' <<<"$line")
  # STRIP_LABEL: the gaussian_strip candidate to profile in place of the tuner's pick.
  [ "$kernel" = gaussian_strip ] && [ -n "${STRIP_LABEL:-}" ] && chose=$STRIP_LABEL
  # The label: options, the group's shape, and its pixels per work-item where not 1 x 1.
  opts=$(sed -E 's/ [0-9]+x[0-9]+( px[0-9]+x[0-9]+)?$//' <<<"$chose")
  read -r lx ly <<<"$(sed -E 's/.* ([0-9]+)x([0-9]+)( px[0-9]+x[0-9]+)?$/\1 \2/' <<<"$chose")"
  pw=1 ph=1
  [[ "$chose" =~ px([0-9]+)x([0-9]+)$ ]] && pw=${BASH_REMATCH[1]} ph=${BASH_REMATCH[2]}
  radius=$(grep -oE -- '-DRADIUS=[0-9]+' <<<"$base" | cut -d= -f2)
  case $kernel in
    box_strip)
      args="in,i:$P,out,i:$P,i:$W,i:$H"
      grep -q -- '-DSHARPEN=1' <<<"$base" && args+=",f:0.5" ;;
    gaussian_strip)
      unsharp=$(grep -oE -- '-DUNSHARP=[01]' <<<"$base" | cut -d= -f2)
      args="in,i:$P,out,i:$P,i:$W,i:$H,$(taps "$radius" "$unsharp")" ;;
    sobel_apply)
      args="in,i:$P,out,i:$P,i:$W,i:$H" ;;
    demosaic)  # a mono mosaic in (pitch W), RGBA out
      args="in,i:$W,out,i:$P,i:$W,i:$H" ;;
    pointwise)
      # The bench's fused run (kPointwiseRun): colour rows, the gamma table (random bytes:
      # random table values, the same gather pattern), ccm rows; sepia has none.
      [[ "$file" == pointwise-* ]] || continue
      args="in,i:$P,out,i:$P,i:$W,i:$H,v:1.21;-0.13;-0.08;0,v:-0.04;1.12;-0.08;0,v:-0.04;-0.13;1.17;0"
      args+=",in,v:1.2;-0.1;-0.1;0,v:-0.05;1.1;-0.05;0,v:0;-0.2;1.2;0" ;;
    *) echo "== $file:$kernel: arguments not known to this script, skipped"; continue ;;
  esac
  txt=$(grep -lxF -- "$file" "$VFX_DUMP_BINARIES"/*.txt | while read -r t; do
          l2=$(sed -n 2p "$t"); [[ "$l2" == *" ${base:+$base }${opts}" ]] && echo "$t"; done | head -1)
  [ -n "$txt" ] || { echo "== $file $base $opts: no dump found"; continue; }
  ptx=${txt%.txt}.bin
  gx=$(( ( (W + pw - 1) / pw + lx - 1) / lx * lx ))
  # box.cl's SH: a group of 32 work-items makes 28 quads across (filters_convolution.cpp's
  # kShOutputQuads, KernelVariant::group_px).
  grep -q -- '-DSH=1' <<<"$opts" && gx=$(( (W + 111) / 112 * 32 ))
  gy=$(( ( (H + ph - 1) / ph + ly - 1) / ly * ly ))
  # gaussian.cl's PG=N (TunedKernel's launch): G = N groups per SM (at least one per column of
  # 16 MW pixels) as columns x ceil(G / columns), G the last argument.
  pg=$(grep -oE -- '-DPG=[0-9]+' <<<"$opts" | cut -d= -f2)
  if [ -n "$pg" ]; then
    mw=$(grep -oE -- '-DMW=[0-9]+' <<<"$opts" | cut -d= -f2)
    sms=${SMS:-132}  # the H100 and H200 SXM; SMS=N for a card with another count (H100 PCIe: 114)
    cols=$(( (W + 16 * mw - 1) / (16 * mw) )); groups=$(( pg * sms ))
    [ "$groups" -lt "$cols" ] && groups=$cols
    gx=$(( cols * lx )); gy=$(( (groups + cols - 1) / cols * ly ))
    args+=",i:$groups"
  fi
  name=$(tr -c 'A-Za-z0-9\n' '_' <<<"${kernel}${base}" | tr -s _)
  # Generated point-wise programs share their kernel's name: tell them apart by file.
  [ "$kernel" = pointwise ] && name="${name}_${file%%.cl}"
  echo "== $name: $opts ${lx}x${ly} grid ${gx}x${gy}"
  "$work/ptx_profile" "$ptx" "$kernel" --grid ${gx}x${gy} --block ${lx}x${ly} --args "$args" \
    < /dev/null | tee "$out/$name.time.txt"
  # REGCAPS="32 24": the same PTX again with ptxas capped at each register count (timing only).
  for cap in ${REGCAPS:-}; do
    echo "-- --maxrregcount=$cap: $(PTX_PROFILE_PTXAS_OPTS="--maxrregcount=$cap -v" "$work/ptx_profile" \
      "$ptx" "$kernel" --grid ${gx}x${gy} --block ${lx}x${ly} --args "$args" < /dev/null 2>&1 |
      grep -E 'Used|median' | sed -E 's/.*(Used [0-9]+ registers).*/\1/; s/.*(median.*)/\1/' |
      tr '\n' ' ')"
  done | tee -a "$out/$name.time.txt"
  cp "$ptx" "$out/$name.ptx"
  PTX_PROFILE_KEEP="$out/$name.adapted.ptx" "$work/ptx_profile" "$ptx" "$kernel" --grid ${gx}x${gy} --block ${lx}x${ly} --args "$args" --runs 1 --warmup 0 > /dev/null < /dev/null
  ncu --clock-control none --set "$set_name" --import-source no -k "$kernel" --launch-skip 3 \
    --launch-count 1 "$work/ptx_profile" "$ptx" "$kernel" --grid ${gx}x${gy} \
    --block ${lx}x${ly} --args "$args" --runs 1 --warmup 3 > "$out/$name.ncu.txt" 2>&1 < /dev/null
  echo "ncu exit $?"
  # Why warps wait: cycles per issued instruction, by stall reason.
  ncu --clock-control none -k "$kernel" --launch-skip 3 --launch-count 1 \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$' \
    "$work/ptx_profile" "$ptx" "$kernel" --grid ${gx}x${gy} --block ${lx}x${ly} \
    --args "$args" --runs 1 --warmup 3 > "$out/$name.stalls.txt" 2>&1 < /dev/null
  # Which pipes the instructions keep busy (and how many each executes).
  ncu --clock-control none -k "$kernel" --launch-skip 3 --launch-count 1 \
    --metrics 'regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$,regex:sm__inst_executed_pipe_[a-z_]+\.sum$' \
    "$work/ptx_profile" "$ptx" "$kernel" --grid ${gx}x${gy} --block ${lx}x${ly} \
    --args "$args" --runs 1 --warmup 3 > "$out/$name.pipes.txt" 2>&1 < /dev/null
  grep -E "issue_stalled" "$out/$name.stalls.txt" | sort -k3 -g -r | head -8
  grep -E "pct_of_peak" "$out/$name.pipes.txt" | sort -k3 -g -r | head -6
  grep -E "Duration|DRAM Throughput|Memory Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|L2 Hit Rate|L1/TEX Hit" "$out/$name.ncu.txt" | head -20
done < "$out/tuned.txt"
# One archive (the device tool brings back a limited number of files).
tar -C "$out" -czf "$final/profile.tar.gz" . && cp "$out/kernels.txt" "$out/tuned.txt" "$final/"
