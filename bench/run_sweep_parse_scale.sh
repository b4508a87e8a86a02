#!/usr/bin/env bash
# `railtune sweep parse` of one long nccl-tests output (docs/performance.md, "Issue 28: sweep parse memory and
# speed"): MB megabytes of all_reduce_perf 2.19.6 text, one run whose table goes round 32 sizes with an NCCL INFO line
# every 1000 rows (bench/gen_nccl_tests_outputs.py --long-output), parsed by this build and, when BASELINE (another
# railtune binary, e.g. of main) is given, by it in the same run, each under /usr/bin/time -v beside `cat` of the
# output. Prints a table (step, wall seconds, MB/s of input, CPU seconds (user + system) and MB/s per CPU second,
# peak MiB, dataset MB) and exits 1 when this build's parse holds over 200 MiB, reads under 50 MB/s of wall time,
# or writes another number of rows than the table holds; 2 when it could not run. On a shared machine the wall
# time is the other sessions' as much as ours: the CPU column is what the parse itself costs. Works in a temporary folder removed at the end (the dataset is about 5 bytes per byte of input).
#   bench/run_sweep_parse_scale.sh BUILD_DIR [MB=500] [BASELINE_RAILTUNE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [MB=500] [BASELINE_RAILTUNE]" >&2; exit 2; }
build=$1 mb=${2:-500} baseline=${3:-}
. "$here/timed_steps.sh"
timed_steps_init "$build" sweep-parse-scale
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "$0: $baseline is not an executable" >&2; exit 2; }
echo "nproc: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg); $(grep -m1 'model name' /proc/cpuinfo)"

cpu() {
  awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$work/$1.time"
}

rows=$(python3 "$here/gen_nccl_tests_outputs.py" "$work/unused" 0 --long-output "$work/long.txt" \
  --long-bytes $((mb * 1000 * 1000))) || exit 2
bytes=$(stat -c %s "$work/long.txt")

run read_output "0" /dev/null cat "$work/long.txt"
run parse "0" "$work/parse.txt" "$railtune" sweep parse "$work/long.txt" -o "$work/dataset.jsonl"
dataset_bytes=$(stat -c %s "$work/dataset.jsonl")
dataset_rows=$(wc -l <"$work/dataset.jsonl")
rm -f "$work/dataset.jsonl"
steps="read_output parse"
if [ -n "$baseline" ]; then
  run baseline_parse "0" "$work/baseline.txt" "$baseline" sweep parse "$work/long.txt" -o "$work/baseline.jsonl"
  baseline_bytes=$(stat -c %s "$work/baseline.jsonl")
  rm -f "$work/baseline.jsonl"
  steps="$steps baseline_parse"
fi

printf '%s: %.1f MB of nccl-tests output, %s table rows\n' "$(basename "$railtune")" "$(awk -v b="$bytes" 'BEGIN {print b / 1e6}')" "$rows"
printf '%-16s %8s %8s %8s %10s %10s %12s\n' step seconds "MB/s" "CPU s" "MB/CPU s" "peak MiB" "dataset MB"
for step in $steps; do
  s=$(seconds $step)
  case $step in
    parse) out=$(awk -v b="$dataset_bytes" 'BEGIN {printf "%.0f", b / 1e6}') ;;
    baseline_parse) out=$(awk -v b="$baseline_bytes" 'BEGIN {printf "%.0f", b / 1e6}') ;;
    *) out=- ;;
  esac
  c=$(cpu $step)
  printf '%-16s %8s %8.0f %8s %10.0f %10s %12s\n' "$step" "$s" "$(awk -v b="$bytes" -v s="$s" 'BEGIN {print (s > 0 ? b / 1e6 / s : 0)}')" \
    "$c" "$(awk -v b="$bytes" -v s="$c" 'BEGIN {print (s > 0 ? b / 1e6 / s : 0)}')" "$(mib $step)" "$out"
done
failed=0
if [ "$dataset_rows" -ne "$rows" ] || ! grep -q "^wrote .*: $rows rows from 1 of 1 files (1 runs)$" "$work/parse.txt"; then
  echo "FAIL: sweep parse did not write the $rows rows (dataset: $dataset_rows lines):"; cat "$work/parse.txt"; failed=1
fi
awk -v m="$(mib parse)" 'BEGIN {exit !(m > 200)}' && { echo "FAIL: the parse held over 200 MiB"; failed=1; }
awk -v b="$bytes" -v s="$(seconds parse)" 'BEGIN {exit !(b / 1e6 / s < 50)}' && { echo "FAIL: the parse read under 50 MB/s"; failed=1; }
exit $failed
