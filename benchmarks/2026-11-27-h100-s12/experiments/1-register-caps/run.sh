source .devpack/env.sh
if nvidia-smi -L | grep -q H200; then bash scripts/h200-session.sh; exit; fi
nvidia-smi -L
OUT=$OUT/k bash scripts/kernel-session.sh gaussian,unsharp > /dev/null 2>&1
grep -h 'gaussian_strip' $OUT/k/tuned.txt | grep 3840 | tr ';' '\n' | grep -E 'MMA|chose|RADIUS'
grep -h 'registers' $OUT/k/bench.log | sort | uniq -c | head -20
L="-DMMA=1 -DMW=4"
OUT=$OUT/fu bash scripts/forced-bench.sh unsharp 'UNSHARP=1' 3 "$L -DNS=13 32x4 px2x52" "$L -DNS=13 -DNRQ=1 -cl-nv-maxrregcount=96 -cl-nv-verbose 32x4 px2x52" "$L -DNS=11 -DNRQ=1 -cl-nv-maxrregcount=80 -cl-nv-verbose 32x4 px2x44" | grep -E 'round|unsharp'
OUT=$OUT/fg bash scripts/forced-bench.sh gaussian 'UNSHARP=0' 3 "$L -DNS=17 32x4 px2x68" "$L -DNS=13 -DNRQ=1 -cl-nv-maxrregcount=96 -cl-nv-verbose 32x4 px2x52" "$L -DNS=17 -DNRQ=1 -cl-nv-maxrregcount=128 -cl-nv-verbose 32x4 px2x68" | grep -E 'round|gaussian'
