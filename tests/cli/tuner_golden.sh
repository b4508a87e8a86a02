#!/usr/bin/env bash
# Runs `railtune tuner decisions` and compares its standard output byte for byte with a golden file,
# after replacing what differs between machines: the source tree (<src>) and the plugin's folder (<lib>).
# The configuration digest stays: tests/cli/tuner.cmake clears every variable it covers.
# Standard error is shown, not compared. RAILTUNE_UPDATE_GOLDEN=1 rewrites the golden file instead.
#   tuner_golden.sh <golden> <source dir> <plugin dir> -- <command> [args...]
set -uo pipefail
golden=$1 src=$2 lib=$3
shift 3
[ "$1" = "--" ] && shift

output=$("$@")
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
output=${output//"$lib"/<lib>}
output=${output//"$src"/<src>}

if [ "${RAILTUNE_UPDATE_GOLDEN:-0}" = 1 ]; then
  mkdir -p "$(dirname "$golden")"
  printf '%s\n' "$output" >"$golden"
  echo "updated $golden"
  exit 0
fi
[ -f "$golden" ] || { echo "FAIL: $golden is missing; run with RAILTUNE_UPDATE_GOLDEN=1 to create it"; exit 1; }
if ! diff -u "$golden" <(printf '%s\n' "$output"); then
  echo "FAIL: output differs from $golden (regenerate with RAILTUNE_UPDATE_GOLDEN=1 if the change is intended)"
  exit 1
fi
echo "ok: output matches $golden"
