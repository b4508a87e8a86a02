#!/bin/bash
# `sweep run --rail-map` and the probe run, end to end on the stand-in (tests/data/sweep_cluster/info_all_reduce_perf:
# NCCL's INFO lines under NCCL_DEBUG=INFO only): the manifest records the rail map, only the first default run gets
# NCCL_DEBUG=INFO, and `sweep parse` gives every run NCCL's node count and network, over the rail map's one domain
# (NCCL ran without MNNVL: its count wins, and the warning says so).
set -u
railtune=$1 data=$2 work=$3 validate=$4 schema=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
PATH=$data:$PATH "$railtune" sweep run -o "$work/s" --rail-map "$data/gb300-two-trays.rail-map.json" --algos ring \
  --protos simple --json off -- info_all_reduce_perf -b 1M -e 4M -f 2 -g 8 >"$work/run.out" 2>&1 ||
  fail "sweep run: $(cat "$work/run.out")"
m=$work/s/manifest.jsonl
[ "$(grep -c '"fabric":{"from":"rail-map","file":"[^"]*gb300-two-trays.rail-map.json","name":"gb300-lab","link_layer":"RoCE","nic_gbps":400,"nics_per_gpu":1}' "$m")" -eq 2 ] ||
  fail "the manifest does not record the rail map: $(cat "$m")"
grep -q '"id":"allreduce.default.r0".*"NCCL_DEBUG":"INFO","NCCL_DEBUG_SUBSYS":"INIT,ENV"' "$m" || fail "no probe: $(cat "$m")"
grep -q '"id":"allreduce.ring-simple.r0".*"NCCL_DEBUG":"WARN"' "$m" || fail "the forced run is not quiet"
grep -q 'NCCL INFO' "$work/s/runs/allreduce.ring-simple.r0.txt" && fail "the forced run printed INFO lines"
"$validate" "$schema" "$m" --min-records 2 || fail "the manifest breaks its schema"

"$railtune" sweep parse "$work/s" -o "$work/d.jsonl" >"$work/parse.out" 2>&1 || fail "sweep parse: $(cat "$work/parse.out")"
grep -q "NCCL says nNodes 2 (MNNVL 0) where the rail-map gives 1 nodes: NCCL's count is kept" "$work/parse.out" ||
  fail "NCCL's count against the rail map is not said: $(cat "$work/parse.out")"
grep -q "no MNNVL information" "$work/parse.out" && fail "flagged although NCCL said: $(cat "$work/parse.out")"
# Every row, the forced run's too (its own output has no INFO line), has NCCL's nodes and network.
rows=$(grep -c '"collective":"allreduce"' "$work/d.jsonl")
want='"shape":{"ranks":8,"hosts":2,"nodes":2,"nvl_domains":1,"ranks_per_domain":8,"fabric":{"transport":"IB","link_layer":"RoCE","nic_gbps":400,"nics_per_gpu":1,"name":"gb300-lab"},"source":"nccl-log"}'
[ "$rows" -gt 0 ] && [ "$(grep -cF "$want" "$work/d.jsonl")" -eq "$rows" ] || fail "rows without NCCL's shape: $(head -3 "$work/d.jsonl")"
grep -q '"choice":{"algorithm":"ring","protocol":"simple"}' "$work/d.jsonl" || fail "no forced rows"
echo ok
