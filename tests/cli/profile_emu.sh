#!/usr/bin/env bash
# `railtune profile` on the logs of a real emulated job: `railtune emu net-job --ranks 16 --racks 2`
# writes every rank's profiler and path logs; `profile stragglers` must analyse them (exit 0, the job
# and its 16 ranks named, one clock for the one machine, JSON that fits its schema) and `profile hangs` must find no hang (exit 0).
#   profile_emu.sh RAILTUNE PLUGIN_DIR VALIDATE FORMATS_DIR WORK_DIR
set -euo pipefail
railtune=$1 plugins=$2 validate=$3 formats=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
"$railtune" emu net-job --ranks 16 --racks 2 --profile-dir "$work/profile" --path-log-dir "$work/paths" \
  --plugin-dir "$plugins" >"$work/net-job.txt" 2>&1 || { cat "$work/net-job.txt"; echo "FAIL: emu net-job"; exit 1; }

"$railtune" profile stragglers "$work/profile" >"$work/stragglers.txt" 2>"$work/stragglers.err" ||
  { cat "$work/stragglers.txt" "$work/stragglers.err"; echo "FAIL: profile stragglers exited non-zero"; exit 1; }
cat "$work/stragglers.txt"
grep -Eq "^job net-job: 16 ranks, 16 processes on 4 trays" "$work/stragglers.txt" ||
  { echo "FAIL: the table does not name the job and its 16 ranks"; exit 1; }
grep -Eq "comm [0-9a-f]{16}: 16 of 16 ranks wrote records" "$work/stragglers.txt" ||
  { echo "FAIL: the table does not account for every rank"; exit 1; }
# Every emulated "host" is a process on this one machine: one boot id, one clock, offsets exactly 0.
if [ -r /proc/sys/kernel/random/boot_id ]; then
  grep -q "host clocks: 1 clock (by boot id): every host reads one clock, offsets 0" "$work/stragglers.txt" ||
    { echo "FAIL: the ranks of one machine were not given one clock"; exit 1; }
fi
[ ! -s "$work/stragglers.err" ] || { cat "$work/stragglers.err"; echo "FAIL: messages on stderr"; exit 1; }

"$railtune" profile stragglers "$work/profile" --json >"$work/stragglers.json"
"$validate" "$formats/profile-stragglers.schema.json" "$work/stragglers.json" --min-records 1

"$railtune" profile hangs "$work/profile" --path-logs "$work/paths" >"$work/hangs.txt" ||
  { cat "$work/hangs.txt"; echo "FAIL: profile hangs found a hang in a healthy job"; exit 1; }
grep -q "^job net-job: no hung collectives" "$work/hangs.txt" || { cat "$work/hangs.txt"; echo "FAIL: hangs table"; exit 1; }
"$railtune" profile hangs "$work/profile" --json >"$work/hangs.json"
"$validate" "$formats/profile-hangs.schema.json" "$work/hangs.json" --min-records 1
echo "ok: stragglers and hangs on the emulated job"
