#!/usr/bin/env bash
# Two builds of vfx, each tuning from an empty cache and then running the bench, in alternating
# rounds, on the GPU machine: what a change of the tuner's measuring does to its choices and to
# the bench's figures (the tuner's choices are only as good as the bench says they are).
#   source .devpack/env.sh && bash scripts/tuner-ab.sh ROUNDS SIZE FILTERS BIN...
# Run from the repository root. BIN: programs under .devpack/bin (e.g. vfx-base vfx), run in
# this order in odd rounds and in the reverse order in even ones; SIZE e.g. 3840x2160; FILTERS
# as `vfx bench --filters` takes them, or `all`. Results: $OUT/ab.txt (every bench line at
# SIZE, by round and build), $OUT/ab.tar.gz (the benches' output and the tuner's per-candidate
# times). Exits non-zero when a bench failed. (The first start of each program also pays the
# driver's compiles: the seconds "with tuning" are not comparable across builds in round 1.)
set -uo pipefail
out=${OUT:-$PWD/ab-out}; mkdir -p "$out"
rounds=${1:?usage: tuner-ab.sh ROUNDS SIZE FILTERS BIN...}; size=${2:?}; filters=${3:?}
shift 3
[ $# -gt 0 ] || { echo "tuner-ab.sh: no BIN given" >&2; exit 2; }
for b in "$@"; do
  [ -x ".devpack/bin/$b" ] || { echo "tuner-ab.sh: no .devpack/bin/$b" >&2; exit 2; }
done
sel=(--filters "$filters"); [ "$filters" = all ] && sel=()
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$out/ab.txt"
failed=0
for r in $(seq 1 "$rounds"); do
  order=("$@")
  if (( r % 2 == 0 )); then
    order=(); for (( i = $#; i >= 1; i-- )); do order+=("${!i}"); done
  fi
  for b in "${order[@]}"; do
    d=$work/$r-$b; mkdir -p "$d"
    start=$(date +%s)
    VFX_CACHE_DIR=$d/cache .devpack/bin/"$b" bench --size "$size" ${sel[@]+"${sel[@]}"} \
      --log-level debug > "$d/bench.txt" 2> "$d/bench.log"
    rc=$?
    [ $rc -eq 0 ] || failed=1
    grep "tuned " "$d/bench.log" > "$d/tuned.txt"
    { echo "== round $r: $b (exit $rc, $(( $(date +%s) - start )) s with tuning)"
      grep -E "copy bandwidth| $size " "$d/bench.txt"; } | tee -a "$out/ab.txt"
  done
done
tar -C "$work" -czf "$out/ab.tar.gz" --exclude=cache .
exit $failed
