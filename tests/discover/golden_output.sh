#!/usr/bin/env bash
# Runs a command that must succeed and compares its standard output with a golden file.
#   golden_output.sh GOLDEN -- CMD [ARGS...]
# RAILTUNE_UPDATE_GOLDEN=1 rewrites GOLDEN instead. Standard error is shown, not compared.
set -uo pipefail
golden=$1
shift 2
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$@" >"$actual"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: exit status $rc"; exit 1; fi
if [ "${RAILTUNE_UPDATE_GOLDEN:-}" = 1 ]; then cp "$actual" "$golden"; echo "updated $golden"; exit 0; fi
if ! diff -u "$golden" "$actual"; then echo "FAIL: output differs from $golden (RAILTUNE_UPDATE_GOLDEN=1 regenerates)"; exit 1; fi
echo "ok: output equals $golden"
