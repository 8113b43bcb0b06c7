# SASS of box's SH programs for each binary: shuffles, barriers, branches per program.
set -u
export PATH=$PATH:/usr/local/cuda/bin
for b in "$@"; do
  w=$(mktemp -d); mkdir -p $w/bin
  VFX_CACHE_DIR=$w/cache VFX_DUMP_BINARIES=$w/bin .devpack/bin/$b bench --size 3840x2160 --filters box --runs 5 > /dev/null 2>&1
  for t in $(grep -l -- "-DSH=1" $w/bin/*.txt); do
    s=${t%.txt}; cp $s.bin $s.ptx
    ptxas -arch=sm_90 -v $s.ptx -o $s.cubin > $s.v 2>&1; cuobjdump -sass $s.cubin > $s.sass
    echo "$b $(sed -n 2p $t | grep -o -- '-DRADIUS=[0-9]*.*-DNS=[0-9]*' | tr -d '\n') SHFL=$(grep -c SHFL $s.sass) BAR=$(grep -c 'BAR' $s.sass) LDG=$(grep -c LDG $s.sass) STG=$(grep -c STG $s.sass) instr=$(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $s.sass) $(grep -o 'Used [0-9]* registers' $s.v | head -1)"
  done
done
