#!/usr/bin/env bash
# `railtune demo` as a user runs it, from a fresh folder with no options: it must find the plugins
# beside its binary, write ./railtune-demo/bindings.jsonl, and that file must fit its schema and say
# that NCCL 2.28 binds net v11 / tuner v5 / profiler v5 and NCCL 2.30 net v12 / tuner v6 / profiler v6.
#   demo_output.sh <railtune binary> <validate_jsonl.py> <schema> <scratch folder>
set -euo pipefail
railtune=$1 validate=$2 schema=$3 scratch=$4

rm -rf "$scratch"
mkdir -p "$scratch"
cd "$scratch"
"$railtune" demo
"$validate" "$schema" railtune-demo/bindings.jsonl --min-records 6 \
  --expect 2.28/net=11 --expect 2.28/tuner=5 --expect 2.28/profiler=5 \
  --expect 2.30/net=12 --expect 2.30/tuner=6 --expect 2.30/profiler=6
leftovers=$(find . -mindepth 1 -maxdepth 1 ! -name railtune-demo)
[ -z "$leftovers" ] || { echo "FAIL: demo wrote outside its output folder: $leftovers"; exit 1; }
