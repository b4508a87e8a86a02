#!/usr/bin/env bash
# `railtune paths synth --late ... --silent-ranks ...` then `railtune profile stragglers` on its logs: the
# named offender is the one found, by about its delay, and the silent rank is named as missing.
#   paths_synth_late.sh RAILTUNE WORKDIR
set -euo pipefail
railtune=$1
work=$2
rm -rf "$work"
"$railtune" paths synth --ranks 16 --collectives 20 --cross-rail 0 --late rank:5:1500 --silent-ranks 3 \
  --end-jitter-us 0 --out "$work/logs" >"$work.synth.txt"
grep -q "injected slow rank: rank 5 on" "$work.synth.txt" || { cat "$work.synth.txt"; echo "FAIL: plan"; exit 1; }
grep -q '"silent_ranks": \[' "$work/logs/truth.json" || { echo "FAIL: truth lacks silent_ranks"; exit 1; }
if ls "$work/logs" | grep -- "-20003\." >/dev/null; then echo "FAIL: the silent rank 3 wrote a file"; exit 1; fi
"$railtune" profile stragglers "$work/logs" >"$work.stragglers.txt" || true
out=$(cat "$work.stragglers.txt")
grep -q "15 of 16 ranks wrote records" <<<"$out" || { echo "$out"; echo "FAIL: rank 3 not missing"; exit 1; }
grep -qE "^  rank +rank 5 on " <<<"$out" || { echo "$out"; echo "FAIL: rank 5 not an offender"; exit 1; }
echo "ok: rank 5 found late, rank 3 missing"
