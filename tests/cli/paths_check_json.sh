#!/usr/bin/env bash
# `railtune paths check --json` on a folder: stdout is one document that fits the schema, the exit
# status is the one expected, and the document counts as many violations as it lists.
#   paths_check_json.sh RAILTUNE VALIDATE_SCHEMA SCHEMA OUT_FILE STATUS LOGDIR [options...]
set -uo pipefail
railtune=$1 validate=$2 schema=$3 out=$4 want=$5
shift 5
"$railtune" paths check "$@" --json >"$out"
rc=$?
if [ "$rc" -ne "$want" ]; then echo "FAIL: exit status $rc, expected $want"; exit 1; fi
"$validate" "$schema" "$out" || exit 1
python3 - "$out" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
listed = sum(1 for job in doc["jobs"] for f in job["findings"] if f["severity"] == "violation")
if listed != doc["violations"]:
    sys.exit(f"FAIL: {doc['violations']} violations counted, {listed} listed")
print(f"ok: {listed} violation(s), schema {doc['schema']}")
PY
