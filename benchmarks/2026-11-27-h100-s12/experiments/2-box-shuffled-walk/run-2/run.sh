source .devpack/env.sh
nvidia-smi -L
OUT=$OUT/k bash scripts/kernel-session.sh box > /dev/null 2>&1
grep -h 'box.cl' $OUT/k/tuned.txt | grep 3840 | tr ';' '\n' | grep -E 'SH=1|UT=1 .*NCH=8|chose|RADIUS'
grep -h ' 3840x2160 ' $OUT/k/kernels.txt
U="-DSW=1 -DST=1 -DUT=1 -DFM=1 -DPRMT=1 -DRG=1 -DCR=2 -DZZ=1 -DQW=1 -DLX=32 -DLY=8 -DPY=2 -DNCH=8 32x8 px4x16"
S="-DSW=1 -DSH=1"
T="-DFM=1 -DPRMT=1 -DQW=1 -DLX=32"
OUT=$OUT/fb bash scripts/forced-bench.sh box 'RADIUS=5]' 3 "$U" "$S $T -DLY=4 -DNS=18 32x4 px4x18" "$S -DSP=4 $T -DLY=4 -DNS=18 32x4 px4x18" "$S -DSP=8 $T -DLY=4 -DNS=18 32x4 px4x18" | grep -E 'round|radius=5'
OUT=$OUT/s bash scripts/sass-session.sh box > /dev/null 2>&1
VFX_TUNE=fixed VFX_SOURCE_DIR=$PWD timeout 300 .devpack/bin/test_filters_color --gtest_filter='*BoxEveryTunedVariant*' --gtest_brief=1 2>&1 | tail -3
