#!/usr/bin/env bash
# Runs a command as a user would and checks how it ends.
#   expect.sh ok|fail|<status> <extended regex>... -- <command> [args...]
# "fail" means a non-zero exit status; a number means exactly that status (for commands whose
# statuses mean different things, e.g. `paths check`: 0 clean, 1 violations, 2 bad usage). Each regex must match some line of stdout+stderr (the
# message is what the user gets to act on).
set -uo pipefail
want=$1
shift
patterns=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  patterns+=("$1")
  shift
done
shift

output=$("$@" 2>&1)
rc=$?
printf '%s\n' "$output"
if [ "$want" = ok ] && [ $rc -ne 0 ]; then echo "FAIL: exit status $rc, expected 0"; exit 1; fi
if [ "$want" = fail ] && [ $rc -eq 0 ]; then echo "FAIL: exit status 0, expected an error"; exit 1; fi
if [[ "$want" =~ ^[0-9]+$ ]] && [ $rc -ne "$want" ]; then echo "FAIL: exit status $rc, expected $want"; exit 1; fi
for pattern in "${patterns[@]}"; do
  grep -Eq -- "$pattern" <<<"$output" || { echo "FAIL: output does not match: $pattern"; exit 1; }
done
echo "ok: exit status $rc; output matches: ${patterns[*]}"
