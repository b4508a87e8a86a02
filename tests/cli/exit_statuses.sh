#!/usr/bin/env bash
# Every subcommand follows the one exit-status table of docs/design.md ("Exit status"): on input it cannot use
# it exits 2 and its message starts with `railtune <subcommand>:`; a usage error exits 2; a gate's finding is 1.
#   exit_statuses.sh RAILTUNE SOURCE_ROOT
set -uo pipefail
railtune=$(realpath "$1")
root=$(realpath "$2")
bad_fabric=$root/tests/data/fabric/unknown_key.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir empty
printf 'not a file of any format railtune reads\n' >garbage.txt
printf 'nothing;here\n' >garbage.conf

failures=0
cases=0
# expect STATUS PREFIX-REGEX -- ARGS...: the status, and stderr's first line starting with PREFIX-REGEX.
expect() {
  local want=$1 prefix=$2
  shift 3
  cases=$((cases + 1))
  "$railtune" "$@" >stdout.txt 2>stderr.txt </dev/null
  local rc=$?
  local first
  first=$(grep -v '^railtune: warning: ' stderr.txt | grep -m1 -v '^ *$')
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: railtune $*: exit status $rc, expected $want; stderr: $first"
    failures=$((failures + 1))
  elif [ -n "$prefix" ] && ! grep -Eq -- "$prefix" stderr.txt; then
    echo "FAIL: railtune $*: no stderr line matches '$prefix'; first: $first"
    failures=$((failures + 1))
  else
    echo "ok: railtune $*: $rc: $first"
  fi
}

# Input that cannot be used: status 2, the subcommand's words first.
for sub in nccl-xml rail-map labels hypernodes kueue slurm env; do
  expect 2 "^railtune topo $sub: .*unknown_key.yaml:4:1: error: cluster: unknown key 'rials'" -- topo $sub --fabric "$bad_fabric"
done
expect 2 "^railtune topo nccl-xml: no host named 'nope'" -- topo nccl-xml --host nope
expect 2 "^railtune topo expand: 1 error\(s\), nothing written" -- topo expand --fabric "$bad_fabric"
expect 2 "^railtune topo merge: 1 error\(s\), nothing written" -- topo merge "$bad_fabric"
expect 2 "^railtune topo discover: " -- topo discover --hwloc-xml garbage.txt
expect 2 "^railtune demo: .*unknown_key.yaml:4:1" -- demo --fabric "$bad_fabric" --out demo-out
expect 2 "^railtune exec: .*unknown_key.yaml:4:1" -- exec --fabric "$bad_fabric" -- true
expect 2 "^railtune paths check: no path log in empty" -- paths check empty
expect 2 "^railtune paths import: no NCCL log line" -- paths import empty --output paths.jsonl
expect 2 "^railtune paths synth: " -- paths synth --ranks 8 --out synth --rail-map garbage.txt
expect 2 "^railtune profile hangs: no readable collective records in empty" -- profile hangs empty
expect 2 "^railtune profile stragglers: no readable collective records in empty" -- profile stragglers empty
expect 2 "^railtune profile stragglers: .*garbage.txt" -- profile stragglers empty --rail-map garbage.txt
expect 2 "^railtune sweep parse: no nccl-tests output files among the inputs" -- sweep parse empty --output d.jsonl
expect 2 "^railtune sweep rules: " -- sweep rules garbage.txt --output rules.json
expect 2 "^railtune sweep compare: " -- sweep compare garbage.txt
expect 2 "^railtune sweep fit: " -- sweep fit garbage.txt --output model.json
expect 2 "^railtune tuner decisions: " -- tuner decisions --nodes 2 --ranks 8 --plugin garbage.txt
expect 2 "^railtune emu net-job: " -- emu net-job --ranks 8 --rail-map garbage.txt
expect 2 "^railtune eval: no suite 'nope'" -- eval nope
# Usage errors: status 2 whatever CLI11's own code.
expect 2 "" -- topo nccl-xml --no-such-option
expect 2 "" -- sweep parse
expect 2 "" -- frobnicate
# A gate's finding: status 1.
expect 1 "unknown key 'rials'" -- topo check --fabric "$bad_fabric"

echo "$cases cases, $failures failed"
[ "$failures" -eq 0 ]
