source .devpack/env.sh
nvidia-smi -L
export PATH=$PATH:/usr/local/cuda/bin
W=$(mktemp -d)
export VFX_CACHE_DIR=$W/cache VFX_DUMP_BINARIES=$W/bin
mkdir -p $VFX_DUMP_BINARIES
.devpack/bin/vfx bench --size 3840x2160 --retune --log-level debug --filters box > $OUT/kernels.txt 2> $W/bench.log
grep 'tuned ' $W/bench.log > $OUT/tuned.txt
grep -h 'box.cl' $OUT/tuned.txt | grep 3840 | tr ';' '\n' | grep -E 'SH=1|UT=1 .*NCH=8|chose|RADIUS'
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
mkdir -p $W/sh
for b in $VFX_DUMP_BINARIES/*.bin; do s=${b%.bin}; grep -q 'SH=1' $s.txt 2>/dev/null || continue; grep -q 'RADIUS=5' $s.txt || continue
  cp $b $W/sh/$(basename $s).ptx; cp $s.txt $W/sh/; ptxas -arch=$arch -v $b -o $W/x.cubin > $W/sh/$(basename $s).ptxas.txt 2>&1; cuobjdump -sass $W/x.cubin > $W/sh/$(basename $s).sass; done
tar -C $W -czf $OUT/sh-anatomy.tgz sh
grep -h registers $W/sh/*.ptxas.txt
U="-DSW=1 -DST=1 -DUT=1 -DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1 -DQW=1 -DLX=32 -DLY=8 -DPY=2 -DNCH=8 32x8 px4x16"
T="-DFM=1 -DPRMT=1 -DQW=1 -DLX=32"
OUT=$OUT/fb bash scripts/forced-bench.sh box "RADIUS=5]" 3 "$U" "-DSW=1 -DSH=1 $T -DLY=4 -DNS=18 32x4 px4x18" "-DSW=1 -DSH=1 $T -DLY=8 -DNS=18 32x8 px4x18" | grep -E "radius=5"
VFX_TUNE=fixed VFX_SOURCE_DIR=$PWD timeout 300 .devpack/bin/test_filters_color --gtest_filter="*Box*" --gtest_brief=1 2>&1 | tail -2
