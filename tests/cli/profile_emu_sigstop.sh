#!/usr/bin/env bash
# The issue's hang as a user makes it: an 8-rank `railtune emu net-job` over 2 racks with the profiler,
# rank 5's process SIGSTOPped 2 s in, the watchdog's timeout 1 s. `profile hangs` must exit 1 and name
# rank 5 first (the first line under the job), with its pid and host, and no link; its JSON must fit the
# schema and carry the same root cause first.
#   profile_emu_sigstop.sh RAILTUNE PLUGIN_DIR VALIDATE FORMATS_DIR WORK_DIR
set -euo pipefail
railtune=$1 plugins=$2 validate=$3 formats=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
rc=0
RAILTUNE_HANG_TIMEOUT=1 "$railtune" emu net-job --ranks 8 --racks 2 --collectives all-reduce --bytes 65536 \
  --iterations 100000 --profile-dir "$work/profile" --job-dir "$work/job" --plugin-dir "$plugins" \
  --signal-rank 5 --signal STOP --signal-after 2 --timeout 6 >"$work/net-job.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$work/net-job.txt"; echo "FAIL: the stopped job exited $rc, expected 1"; exit 1; }

rc=0
"$railtune" profile hangs "$work/profile" >"$work/hangs.txt" 2>&1 || rc=$?
cat "$work/hangs.txt"
[ "$rc" -eq 1 ] || { echo "FAIL: profile hangs exited $rc, expected 1 (a hang)"; exit 1; }
second=$(sed -n 2p "$work/hangs.txt")
grep -Eq "^  root cause: rank 5 \(pid [0-9]+, host rack01-tray00\) stopped making progress at comm [0-9a-f]{16} AllReduce seq [0-9]+.*: 7 ranks wait on it, no hang record of its own" <<<"$second" ||
  { echo "FAIL: the first line under the job does not name rank 5: $second"; exit 1; }
! grep -q "root cause: link\|also: " "$work/hangs.txt" || { echo "FAIL: a link or a second cause was named"; exit 1; }

"$railtune" profile hangs "$work/profile" --json >"$work/hangs.json" || true
"$validate" "$formats/profile-hangs.schema.json" "$work/hangs.json" --min-records 1
python3 - "$work/hangs.json" <<'PY'
import json, sys
causes = json.load(open(sys.argv[1]))["jobs"][0]["root_causes"]
assert causes and causes[0]["kind"] == "rank" and causes[0]["rank"] == 5 and causes[0]["host"] == "rack01-tray00", causes
PY
echo "ok: the stopped rank is named first"
