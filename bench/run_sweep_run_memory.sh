#!/usr/bin/env bash
# The memory of `railtune sweep run` against a benchmark's output size (docs/performance.md, "Issue 28: sweep run
# memory"): one run of a stand-in nccl-tests binary (tests/data/sweep/stray_all_reduce_perf, STRAY_MODE=flood) that
# prints MB MiB of NCCL INFO lines before its table, under /usr/bin/time -v (the peak resident set of railtune and
# the stand-in's processes, the largest of them), beside the stand-in alone writing the same output to a file. With
# a second railtune binary (an earlier build), the same sweep by it too. Prints a table (step, seconds, peak MiB);
# exits 1 when the run is not recorded ok with the output's full length or the sweep's peak is over 200 MiB, 2 when
# it could not run. Works in a temporary folder removed at the end (it holds MB MiB per step).
#   bench/run_sweep_run_memory.sh BUILD_DIR [MB=500] [BASELINE_RAILTUNE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [MB=500] [BASELINE_RAILTUNE]" >&2; exit 2; }
build=$1 mb=${2:-500} baseline=${3:-}
. "$here/timed_steps.sh"
timed_steps_init "$build" sweep-run-memory
standin=$(cd "$here/../tests/data/sweep" && pwd)/stray_all_reduce_perf
echo "nproc: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
export STRAY_MODE=flood STRAY_FLOOD_MB=$mb
args=(--algos any --protos any --json off -- "$standin" -b 1M -e 32M -f 2 -g 4)

run write_output "0" "$work/alone.txt" "$standin" -b 1M -e 32M -f 2 -g 4
rm -f "$work/alone.txt"
run sweep_run "0" /dev/null "$railtune" sweep run -o "$work/sweep" "${args[@]}"
steps=(write_output sweep_run)
if [ -n "$baseline" ]; then
  run sweep_run_baseline "0" /dev/null "$baseline" sweep run -o "$work/baseline" "${args[@]}"
  rm -rf "$work/baseline"
  steps+=(sweep_run_baseline)
fi

output=$work/sweep/runs/allreduce.default.r0.txt
bytes=$(stat -c %s "$output")
printf 'one run printing %s MiB (%s bytes of output)\n' "$mb" "$bytes"
printf '%-24s %8s %10s\n' step seconds "peak MiB"
for step in "${steps[@]}"; do
  printf '%-24s %8s %10s\n' "$step" "$(seconds "$step")" "$(mib "$step")"
done
failed=0
grep -q "\"output_bytes\":$bytes,.*\"status\":\"ok\"" "$work/sweep/manifest.jsonl" ||
  { echo "FAIL: the run is not recorded ok with output_bytes $bytes:"; cat "$work/sweep/manifest.jsonl"; failed=1; }
[ "$(mib sweep_run)" -le 200 ] || { echo "FAIL: sweep run peaked at $(mib sweep_run) MiB (over 200)"; failed=1; }
exit $failed
