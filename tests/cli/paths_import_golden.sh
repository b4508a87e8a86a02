#!/usr/bin/env bash
# paths_import_golden.sh <railtune> <validate_jsonl.py> <path-log schema> <case folder> <golden folder> <work> [args...]
# `railtune paths import` of one test case (tests/data/nccl_logs/) compared file by file with its golden output,
# and every record validated against the path-log schema. RAILTUNE_UPDATE_GOLDEN=1 rewrites the golden files.
set -euo pipefail
railtune=$1 validate=$2 schema=$3 case=$4 golden=$5 work=$6
shift 6
rm -rf "$work" && mkdir -p "$work"
"$railtune" paths import "$case" -o "$work/out" "$@" >"$work/full.txt"
cat "$work/full.txt"
# The lines naming the paths read and written depend on where the test runs: the summary is compared without them.
grep -v -e '^read ' -e '^wrote ' "$work/full.txt" >"$work/stdout.txt" || true
"$validate" "$schema" "$work"/out/*.jsonl
if [ "${RAILTUNE_UPDATE_GOLDEN:-0}" = 1 ]; then
  rm -rf "$golden" && mkdir -p "$golden" && cp "$work"/out/*.jsonl "$work/stdout.txt" "$golden/"
  echo "golden files rewritten in $golden"
  exit 0
fi
diff "$golden/stdout.txt" "$work/stdout.txt"
diff -r -x stdout.txt "$golden" "$work/out"
echo "ok: $(ls "$work/out" | wc -l) files as golden"
