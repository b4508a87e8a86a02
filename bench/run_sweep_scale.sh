#!/usr/bin/env bash
# The scale benchmark of `railtune sweep` (docs/performance.md, "nccl-tests sweeps at scale"): FILES nccl-tests outputs
# (bench/gen_nccl_tests_outputs.py: 2.19.6 text with NCCL INFO lines, 32 sizes each, about 107 KB per file: 10,000
# files are 1 GiB) parsed into a dataset, and rules derived from a dataset of ROWS rows. Each step under
# /usr/bin/time -v beside its baseline (every byte read by two readers, as `sweep parse` reads on two threads here;
# the dataset read once), and `sweep fit` on the same rows. Prints a table (step, seconds, peak MiB) and exits 1 when
# the parse takes over 10 s, the rules over 5 s, the fit over 30 s or 1 GiB, or a count is wrong; 2 when it could
# not run. Works in a temporary folder removed at the end.
#   bench/run_sweep_scale.sh BUILD_DIR [FILES=10000] [ROWS=1000000]   (RAILTUNE_BENCH_BYTES_PER_FILE: default 107374)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [FILES=10000] [ROWS=1000000]" >&2; exit 2; }
build=$1 files=${2:-10000} rows=${3:-1000000}
. "$here/timed_steps.sh"
timed_steps_init "$build" sweep-scale
echo "nproc: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 "$here/gen_nccl_tests_outputs.py" "$work/outputs" "$files" \
  --bytes-per-file "${RAILTUNE_BENCH_BYTES_PER_FILE:-107374}" --dataset "$work/rows.jsonl" --rows "$rows" || exit 2

run read_outputs "0" /dev/null bash -c 'find "$1" -type f -print0 | xargs -0 -P 2 -n 256 cat' _ "$work/outputs"
run parse "0" "$work/parse.txt" "$railtune" sweep parse "$work/outputs" -o "$work/dataset.jsonl"
run read_dataset "0" /dev/null cat "$work/rows.jsonl"
run rules "0" "$work/rules.txt" "$railtune" sweep rules "$work/rows.jsonl" -o "$work/rules.json"
# The generated rows name no GPU: the fit models them with the GB300 profile (validation included, 2 threads).
run fit "0" "$work/fit.txt" "$railtune" sweep fit "$work/rows.jsonl" -o "$work/model.json" --profile gb300-nvl72 \
  --threads 2 --max-seconds 60

printf '%s files: %.2f GB of nccl-tests output; a dataset of %s rows: %.2f GB\n' "$files" \
  "$(awk -v b="$(du -sb "$work/outputs" | cut -f1)" 'BEGIN {print b / 1e9}')" "$rows" \
  "$(awk -v b="$(stat -c %s "$work/rows.jsonl")" 'BEGIN {print b / 1e9}')"
printf '%-34s %8s %10s\n' step seconds "peak MiB"
for step in read_outputs parse read_dataset rules fit; do
  printf '%-34s %8s %10s\n' "$step" "$(seconds $step)" "$(mib $step)"
done
failed=0
expected_rows=$((files * 32))
if ! grep -q "^wrote .*: $expected_rows rows from $files of $files files ($files runs)" "$work/parse.txt"; then
  echo "FAIL: sweep parse did not read $expected_rows rows from $files files:"; cat "$work/parse.txt"; failed=1
fi
if ! grep -q "^wrote .* from $rows rows" "$work/rules.txt"; then
  echo "FAIL: sweep rules did not use all $rows rows:"; tail -n 3 "$work/rules.txt"; failed=1
fi
awk -v s="$(seconds parse)" 'BEGIN {exit !(s > 10)}' && { echo "FAIL: the parse took over 10 s"; failed=1; }
awk -v s="$(seconds rules)" 'BEGIN {exit !(s > 5)}' && { echo "FAIL: the rules took over 5 s"; failed=1; }
if ! grep -q "^wrote .* from $rows rows" "$work/fit.txt"; then
  echo "FAIL: sweep fit did not use all $rows rows:"; tail -n 3 "$work/fit.txt"; failed=1
fi
awk -v s="$(seconds fit)" 'BEGIN {exit !(s > 30)}' && { echo "FAIL: the fit took over 30 s"; failed=1; }
awk -v m="$(mib fit)" 'BEGIN {exit !(m > 1024)}' && { echo "FAIL: the fit took over 1 GiB"; failed=1; }
exit $failed
