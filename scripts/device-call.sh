# Pieces the device scripts of a session share (issue 4), sourced by them; each writes under
# $OUT (the device tool's folder) and keeps going past a failed step.
#   device_call NAME [--any]   sets final ($OUT), tmp, out ($tmp/NAME), sum (summary.txt), bin
#                              (.devpack/bin, or $VFX_BIN_DIR); archives $out as
#                              $final/NAME.tar.gz at exit; writes the card to summary.txt;
#                              fails (the caller exits) unless the card is an H200 or --any
#   log TEXT...                "== TEXT" to stdout and summary.txt
#   tuner_times FILTERS PATTERN [LIMIT]
#                              `vfx bench` at 4K with fresh tuning of FILTERS (debug log in
#                              $out/tune.txt): its table, and the tuner's per-candidate times of
#                              the candidates matching PATTERN (grep -E), into summary.txt
#   tuner_times_ptx FILTERS PATTERN LIMIT PROGRAMS
#                              tuner_times with every program dumped (VFX_DUMP_BINARIES), and
#                              NVIDIA's PTX of those whose build options match PROGRAMS
#                              (grep -E) into $OUT/ptx.tar.gz, for ptxas's register counts here
#   forced NAME FILTER CASE LIMIT LABEL...
#                              scripts/forced-bench.sh: the bench with each LABEL forced, three
#                              alternating rounds, into $out/forced-NAME and summary.txt
#   fresh_bench LIMIT          `vfx bench` at 1080p and 4K with fresh tuning (the table's run):
#                              bench.txt, tuned.txt (also copied to $OUT), ours.json, bench.log;
#                              its 4K rows into summary.txt
#   nvidia_tests BINARY FILTER LIMIT
#                              a test binary of the pack with --gtest_filter=FILTER, line-buffered
#                              (a run cut at LIMIT seconds keeps what it printed)
device_call() {
  local name=$1
  final=${OUT:-$PWD/$name-out}; mkdir -p "$final"
  tmp=$(mktemp -d); out=$tmp/$name; mkdir -p "$out"
  sum=$final/summary.txt
  bin=${VFX_BIN_DIR:-.devpack/bin}
  trap "tar -C '$tmp' -czf '$final/$name.tar.gz' '$name'" EXIT
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader |
    tee "$sum"
  local gpus
  gpus=$(nvidia-smi -L)  # once: `nvidia-smi -L | grep -q` can fail by SIGPIPE under pipefail
  [[ $gpus == *H200* || ${2:-} == --any ]]
}

log() { echo "== $*" | tee -a "$sum"; }

tuner_times() {
  local filters=$1 pattern=$2 limit=${3:-90}
  log "tuner, 4K, fresh cache: $filters"
  VFX_CACHE_DIR=$tmp/cache timeout "$limit" "$bin/vfx" bench --size 3840x2160 --retune \
    --log-level debug --filters "$filters" > "$out/tune.txt" 2>&1
  grep -E 'copy bandwidth|3840x2160 ' "$out/tune.txt" | grep -vE '^\[' | cut -c1-150 |
    tee -a "$sum"
  grep -oE 'tuned [^ ]+ .*' "$out/tune.txt" | tr ';' '\n' | grep -E "$pattern|chose" |
    tee -a "$sum"
}

tuner_times_ptx() {
  local programs=$4
  mkdir -p "$tmp/bin"
  VFX_DUMP_BINARIES=$tmp/bin tuner_times "$1" "$2" "$3"
  (cd "$tmp/bin" && grep -lE "$programs" *.txt | while read -r t; do echo "$t" "${t%.txt}.bin"; done |
    xargs tar -czf "$final/ptx.tar.gz")
}

forced() {
  local name=$1 filter=$2 case_=$3 limit=$4
  shift 4
  log "$filter forced, three alternating rounds"
  OUT=$out/forced-$name timeout "$limit" bash scripts/forced-bench.sh "$filter" "$case_" 3 "$@" \
    > /dev/null 2>&1
  grep -hE "== round|${FORCED_SIZE:-3840x2160}" "$out/forced-$name/forced.txt" | grep -v '^copy ' |
    cut -c1-150 | tee -a "$sum"
}

fresh_bench() {
  local limit=$1
  log "vfx bench, fresh tuning (1080p and 4K)"
  VFX_CACHE_DIR=$tmp/cache timeout "$limit" "$bin/vfx" bench --retune --log-level debug \
    --json "$out/ours.json" > "$out/bench.txt" 2> "$out/bench.log"
  echo "exit $?" >> "$out/bench.txt"
  grep -oE 'tuned [^ ]+ .*' "$out/bench.log" > "$out/tuned.txt"
  grep -E 'copy bandwidth| 3840x2160 |^exit' "$out/bench.txt" | cut -c1-150 | tee -a "$sum"
  cp "$out/bench.txt" "$out/tuned.txt" "$final/"
}
nvidia_tests() {
  local binary=$1 filter=$2 limit=$3
  log "$binary $filter under NVIDIA's compiler"
  VFX_SOURCE_DIR=$PWD timeout "$limit" stdbuf -oL "$bin/$binary" --gtest_filter="$filter" \
    > "$out/tests-$binary.txt" 2>&1
  echo "exit $?" >> "$out/tests-$binary.txt"
  grep -hE '^\[  (PASSED|FAILED|SKIPPED)|^\[       OK|^exit|Failure' "$out/tests-$binary.txt" |
    tee -a "$sum"
}
