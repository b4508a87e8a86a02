#!/usr/bin/env bash
# Peak memory of the log readers on a file without a newline (docs/formats.md, "Line length"): a file of
# SIZE_MIB MiB of NUL bytes beside one good path log and one good collective log. With the line cap and
# streaming, `railtune paths check` and `railtune profile stragglers` should stay near one 8 MiB block
# per reading thread, whatever SIZE_MIB is (before, a file cost about three times its size). BASELINE, a
# railtune binary built before the line cap, is measured in the same run for comparison (not checked).
#   bench/run_line_cap_memory.sh RAILTUNE [SIZE_MIB (default 1024)] [LIMIT_MIB (default 128)] [BASELINE]
set -euo pipefail
railtune=$1 size=${2:-1024} limit=${3:-128} baseline=${4:-}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/paths" "$work/profile"
cp "$here/tests/data/paths/misbound/"*.jsonl "$work/paths/"
head -c "$((size << 20))" /dev/zero >"$work/paths/zeros.jsonl"
cp "$here/docs/formats/profile-collectives.example.jsonl" "$work/profile/good.collectives.jsonl"
ln "$work/paths/zeros.jsonl" "$work/profile/zeros.collectives.jsonl"
status=0
measure() {
  local name=$1 checked=1
  shift
  if [ "$1" = --baseline ]; then checked=0; shift; fi
  /usr/bin/time -f '%M' "$@" >/dev/null 2>"$work/err" || true  # its exit status is not measured here
  local rss
  rss=$(tail -n 1 "$work/err")  # KiB, written by time after the command's own stderr
  echo "$name: peak RSS $((rss / 1024)) MiB for a ${size} MiB file without a newline"
  [ $checked -eq 1 ] || return 0
  grep -m1 'zeros' "$work/err" || { echo "FAIL: $name did not name the file without a newline"; status=1; }
  if [ "$((rss / 1024))" -gt "$limit" ]; then echo "FAIL: $name above ${limit} MiB"; status=1; fi
}
measure "paths check" "$railtune" paths check "$work/paths"
measure "profile stragglers" "$railtune" profile stragglers "$work/profile"
if [ -n "$baseline" ]; then
  measure "baseline paths check" --baseline "$baseline" paths check "$work/paths"
  measure "baseline profile stragglers" --baseline "$baseline" profile stragglers "$work/profile"
fi
exit $status
