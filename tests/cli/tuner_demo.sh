#!/usr/bin/env bash
# `railtune demo`'s tuner part: one decisions table per communicator of the default cluster (one tray;
# one rack and two racks, each with and without MNNVL) under railtune-demo/tuner/, each with every
# collective at every power of two from 8 B to 16 GiB (5 x 32 rows), and a summary line each on stdout.
#   tuner_demo.sh <railtune binary> <scratch folder>
set -euo pipefail
railtune=$1 scratch=$2
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$scratch"
mkdir -p "$scratch"
cd "$scratch"
"$railtune" demo --out railtune-demo | tee demo.out
for spec in one-tray:4:1 one-rack-mnnvl:72:1 one-rack-no-mnnvl:72:18 two-racks-mnnvl:144:2 two-racks-no-mnnvl:144:36; do
  IFS=: read -r name ranks nodes <<<"$spec"
  file=railtune-demo/tuner/$name.txt
  [ -s "$file" ] || fail "$file missing or empty"
  head -n 1 "$file" | grep -E "gb300-nvl72, $ranks ranks on $nodes nodes? " >/dev/null || fail "$file: header names the wrong communicator"
  rows=$(grep -Ec '^(AllReduce|AllGather|ReduceScatter|Broadcast|Reduce) ' "$file")
  [ "$rows" -eq 160 ] || fail "$file: $rows decision rows, expected 160"
  grep -Eq '^AllReduce +8 ' "$file" && grep -Eq '^Reduce +16G ' "$file" || fail "$file: sizes do not run from 8 B to 16 GiB"
  ! grep -q MISMATCH "$file" || fail "$file: the plugin disagreed with its rules"
  grep -Eq "tuner/$name.txt$" demo.out || fail "no summary line for $name"
done
echo "ok: 5 decisions tables"
