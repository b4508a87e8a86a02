#!/usr/bin/env bash
# The scale benchmark of `railtune paths import` (docs/performance.md, docs/paths.md "Paths of any NCCL job"):
# writes the NCCL INFO logs of a job of RANKS ranks on 114 GB300 NVL72 racks (bench/gen_nccl_logs.py: about
# 1 MB per rank, one cross-rail send), then, each under /usr/bin/time -v: reads every byte (the baseline),
# imports them, checks the imported path logs, and checks the NCCL logs directly (imported on the fly).
# Prints a table (step, seconds, peak MiB) and exits 1 when the import exceeds 10 s or 1 GiB or a check does not
# find the one cross-rail send; 2 when it could not run. Works in a temporary folder (under TMPDIR) removed at the end.
#   bench/run_nccl_import_scale.sh BUILD_DIR [RANKS=1024]   (RAILTUNE_BENCH_BYTES_PER_RANK: default 1000000)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [RANKS=1024]" >&2; exit 2; }
build=$1 ranks=${2:-1024}
. "$here/timed_steps.sh"
timed_steps_init "$build" nccl-import
echo "nproc: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

"$railtune" topo rail-map --fabric "$here/data/gb300-114-racks.yaml" --out "$work/rail-map.json" >/dev/null || exit 2
python3 "$here/gen_nccl_logs.py" "$work/rail-map.json" "$work/logs" "$ranks" \
  --bytes-per-rank "${RAILTUNE_BENCH_BYTES_PER_RANK:-1000000}" || exit 2


# The baseline: every byte read by two readers, as the import reads its files on two threads here.
run read "0" /dev/null bash -c 'find "$1" -type f -print0 | xargs -0 -P 2 -n 256 cat' _ "$work/logs"
run import "0" "$work/import.txt" "$railtune" paths import "$work/logs" -o "$work/paths" --rail-map "$work/rail-map.json"
# paths check exits 1 on violations: the one injected cross-rail send is one.
run check_imported "1" "$work/check_imported.txt" "$railtune" paths check "$work/paths" --rail-map "$work/rail-map.json"
run check_nccl_logs "1" "$work/check_nccl_logs.txt" "$railtune" paths check "$work/logs" --rail-map "$work/rail-map.json"

bytes=$(du -sb "$work/logs" | cut -f1)
lines=$(awk '/^read / {print $2}' "$work/import.txt")
printf '%s ranks: %.2f GB of NCCL INFO logs, %s lines, %s network connections (%s connection ends)\n' "$ranks" \
  "$(awk -v b="$bytes" 'BEGIN {print b / 1e9}')" "$lines" "$(awk '/^network connections:/ {print $3}' "$work/import.txt")" \
  "$(awk '/^network connections:/ {sub(/^\(/, "", $4); print $4}' "$work/import.txt")"
printf '%-34s %8s %10s\n' step seconds "peak MiB"
for step in read import check_imported check_nccl_logs; do
  printf '%-34s %8s %10s\n' "$step" "$(seconds $step)" "$(mib $step)"
done
failed=0
for check in check_imported check_nccl_logs; do
  if ! grep -q "^job nccl: .* 1 violation," "$work/$check.txt" || ! grep -q "cross-rail: rank 7 on " "$work/$check.txt"; then
    echo "FAIL: $check did not find exactly the injected cross-rail send:"; head -n 5 "$work/$check.txt"; failed=1
  fi
done
awk -v s="$(seconds import)" 'BEGIN {exit !(s > 10)}' && { echo "FAIL: the import took over 10 s"; failed=1; }
[ "$(mib import)" -gt 1024 ] && { echo "FAIL: the import's peak memory is over 1 GiB"; failed=1; }
exit $failed
