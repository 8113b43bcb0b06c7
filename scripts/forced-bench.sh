#!/usr/bin/env bash
# The bench of one filter with each of several tuner candidates forced, in alternating rounds
# (the bench's back-to-back runs, not the tuner's interleaved ones), on the GPU machine:
#   source .devpack/env.sh && bash scripts/forced-bench.sh FILTER CASE ROUNDS LABEL...
# FILTER: a bench filter name (box); CASE: what the tuning key of the kernel holds besides the
# size (e.g. 'RADIUS=5]'); each LABEL a candidate's label as the tuner logs it. The first start
# tunes (fresh cache); then, per round and label, the cache's entry for CASE at the size is set to
# LABEL and the bench runs again (it measures nothing, takes the cached choice). Results:
# $OUT/forced.txt.
# FORCED_SIZE (default 3840x2160) sets the size of every run, FORCED_ARGS (e.g. --cache-resident)
# is added to the forced runs (the tuning run measures as the tuner always does).
set -uo pipefail
out=${OUT:-$PWD/forced-out}; mkdir -p "$out"
filter=${1:?usage: forced-bench.sh FILTER CASE ROUNDS LABEL...}; case_=${2:?}; rounds=${3:?}
shift 3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export VFX_CACHE_DIR=$work
size=${FORCED_SIZE:-3840x2160}
read -r -a extra <<< "${FORCED_ARGS:-}"
.devpack/bin/vfx bench --size "$size" --filters "$filter" --retune > "$out/forced-tune.txt" 2>&1 \
  || { echo "forced-bench: the tuning run failed (see $out/forced-tune.txt)" >&2; exit 1; }
cache=$(ls "$work"/tuning-*.json) || exit 1
for r in $(seq 1 "$rounds"); do
  for label in "$@"; do
    python3 - "$cache" "$case_" "$label" "$size" <<'PY'
import json, sys
path, case, label, size = sys.argv[1:]
j = json.load(open(path))
keys = [k for k in j["entries"] if case in k and size in k]
assert len(keys) == 1, keys
j["entries"][keys[0]] = label
json.dump(j, open(path, "w"), indent=2)
PY
    [ $? -eq 0 ] || { echo "forced-bench: no single $size entry for '$case_' in the cache" >&2; exit 1; }
    echo "== round $r: $label" >> "$out/forced.txt"
    res=$(.devpack/bin/vfx bench --size "$size" "${extra[@]}" --filters "$filter" 2>&1)
    # A label that is not one of the kernel's candidates is not taken (the tuner measures again):
    # the bench line names the variant that ran.
    grep -qF -- "$label" <<< "$res" || echo "forced-bench: '$label' did not run" >&2
    grep -E "copy bandwidth|$filter" <<< "$res" >> "$out/forced.txt"
  done
done
cat "$out/forced.txt"
