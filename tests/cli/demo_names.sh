#!/usr/bin/env bash
# `railtune demo --fabric F --out out` where F names a host `../../../escaped`: the check reports the
# name, the demo fails, and nothing is written outside out/ (docs/fabric.md, "Names").
#   demo_names.sh <railtune binary> <fabric file> <scratch folder>
set -uo pipefail
railtune=$1 fabric=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch/a/b/c"
cd "$scratch/a/b/c" || exit 1
"$railtune" demo --fabric "$fabric" --out out >demo.log 2>&1
rc=$?
cat demo.log
[ $rc -ne 0 ] || { echo "FAIL: the demo accepted a host named ../../../escaped"; exit 1; }
grep -q "host name '../../../escaped' has an empty part" demo.log || { echo "FAIL: the name is not reported"; exit 1; }
escaped=$(find "$scratch" -name '*escaped*' -not -path "$scratch/a/b/c/out/topology/fabric.yaml")
[ -z "$escaped" ] || { echo "FAIL: written for the escaping name: $escaped"; exit 1; }
outside=$(find "$scratch" -mindepth 1 -not -path "$scratch/a*" ; find "$scratch/a/b/c" -mindepth 1 -maxdepth 1 ! -name out ! -name demo.log)
[ -z "$outside" ] || { echo "FAIL: written outside out/: $outside"; exit 1; }
echo "ok: the name is refused and nothing is written outside out/"
