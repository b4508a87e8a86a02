#!/usr/bin/env bash
# The scale benchmark of the log analyses (docs/performance.md, docs/paths.md, "railtune paths synth"): synthesizes the logs of a
# job of RANKS ranks on 114 GB300 NVL72 racks (`railtune paths synth`: 3 stragglers, 1 slow tray, 1 slow
# rack, 1 cross-rail connection), then runs `railtune paths check` and `railtune profile stragglers` on
# them under /usr/bin/time -v and compares what they found with the synth's truth.json. Prints a table
# (command, seconds, peak MiB, found/expected) and exits 1 when a finding differs from the truth or an
# analysis exceeds 10 s or 2 GiB; 2 when it could not run. Everything is written into a temporary
# folder (under TMPDIR) that is removed at the end: 8,192 ranks need about 5 GB there.
#   bench/run_paths_scale.sh BUILD_DIR [RANKS=8192]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [RANKS=8192]" >&2; exit 2; }
build=$1 ranks=${2:-8192}
. "$here/timed_steps.sh"
timed_steps_init "$build" paths-scale
need_kb=$((ranks * 620 + 1048576))  # ~600 KB per rank of 1,000 collectives, and 1 GB to spare
free_kb=$(df -Pk "$work" | awk 'NR==2 {print $4}')
echo "nproc: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg); free in $(dirname "$work"): $((free_kb / 1048576)) GiB, needed: about $((need_kb / 1048576)) GiB"
[ "$free_kb" -ge "$need_kb" ] || { echo "$0: not enough free space" >&2; exit 2; }

"$railtune" topo rail-map --fabric "$here/data/gb300-114-racks.yaml" --out "$work/rail-map.json" || exit 2
run synth "0" "$work/synth.out" "$railtune" paths synth --ranks "$ranks" --rail-map "$work/rail-map.json" \
  --out "$work/logs" --truth "$work/truth.json"
cat "$work/synth.out"
# The baseline, in the same run: reading every byte of the logs with two readers, as the analyses read
# them on two threads (the page cache is as warm for it as for them).
run read "0" /dev/null bash -c 'find "$1" -type f -print0 | xargs -0 -P 2 -n 1024 cat' _ "$work/logs"
# paths check exits 1 when it finds violations, which the injected cross-rail connection is.
run check "0 1" "$work/check.json" "$railtune" paths check "$work/logs" --rail-map "$work/rail-map.json" --json
run stragglers "0" "$work/stragglers.json" "$railtune" profile stragglers "$work/logs" --rail-map "$work/rail-map.json" --json
python3 "$here/paths_scale_compare.py" "$work"
