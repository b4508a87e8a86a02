#!/usr/bin/env bash
# `railtune demo` as a user runs it, from a fresh folder with no options: it must find the plugins
# beside its binary, write ./railtune-demo/bindings.jsonl, and that file must fit its schema and say
# that NCCL 2.28 binds net v11 / tuner v5 / profiler v5, NCCL 2.30 net v12 / tuner v6 / profiler v6 and
# NCCL 2.31 net v12 / tuner v6 / profiler v7.
# It must also write the built-in cluster's topology outputs under ./railtune-demo/topology/: every
# file present and non-empty, one NCCL topology file per host (2 racks x 18 trays), a rail map that
# fits its schema, a passing check, and a launcher env whose files exist and which never sets NCCL_NET.
# The net job's paths check must fail on the injected misbinding and its page must highlight it.
#   demo_output.sh <railtune binary> <validate_jsonl.py> <schema> <scratch folder>
#                  <rail_map_schema_check.py> <rail map schema>
set -euo pipefail
railtune=$1 validate=$2 schema=$3 scratch=$4 rail_map_check=$5 rail_map_schema=$6

rm -rf "$scratch"
mkdir -p "$scratch"
cd "$scratch"
"$railtune" demo | tee demo.out
"$validate" "$schema" railtune-demo/bindings.jsonl --min-records 6 \
  --expect 2.28/net=11 --expect 2.28/tuner=5 --expect 2.28/profiler=5 \
  --expect 2.30/net=12 --expect 2.30/tuner=6 --expect 2.30/profiler=6 \
  --expect 2.31/net=12 --expect 2.31/tuner=6 --expect 2.31/profiler=7
leftovers=$(find . -mindepth 1 -maxdepth 1 ! -name railtune-demo ! -name demo.out)
[ -z "$leftovers" ] || { echo "FAIL: demo wrote outside its output folder: $leftovers"; exit 1; }

fail() { echo "FAIL: $*"; exit 1; }
topology=railtune-demo/topology
for file in fabric.yaml rail-map.json labels.json label-nodes.sh hypernodes.yaml kueue-topology.yaml \
  slurm-topology-block.conf slurm-topology-tree.conf env/rack00-tray00.sh check.txt; do
  [ -s "$topology/$file" ] || fail "$topology/$file missing or empty"
done
hosts=$(find "$topology/nccl-topo" -name '*.xml' -size +0 | wc -l)
[ "$hosts" -eq 36 ] || fail "$hosts NCCL topology files, expected 36 (2 racks x 18 trays)"
"$rail_map_check" "$rail_map_schema" "$topology/rail-map.json" || fail "rail-map.json does not fit its schema"
tail -n 1 "$topology/check.txt" | grep -E ': ok$' >/dev/null || fail "the topology check did not pass: $(cat "$topology/check.txt")"
grep -Eq '^Topology of the built-in cluster railtune-demo: 2 NVLink domains, 36 hosts, 144 GPUs, 4 rails' demo.out ||
  fail "no topology summary in the demo's output"

env_file=$topology/env/rack00-tray00.sh
! grep -q '^export NCCL_NET=' "$env_file" || fail "$env_file sets NCCL_NET"
(
  # shellcheck disable=SC1090
  source "$env_file"
  [ -f "$NCCL_TOPO_FILE" ] || fail "NCCL_TOPO_FILE=$NCCL_TOPO_FILE does not exist"
  [ -f "$RAILTUNE_RAIL_MAP" ] || fail "RAILTUNE_RAIL_MAP=$RAILTUNE_RAIL_MAP does not exist"
  [ -f "$NCCL_NET_PLUGIN" ] || fail "NCCL_NET_PLUGIN=$NCCL_NET_PLUGIN does not exist"
)
# The net job's path logs went through `railtune paths check` (which fails on the injected misbinding,
# the expected finding) and `railtune paths render`.
grep -Eq '^Expected finding: `railtune paths check` exits 1 on this job \([0-9]+ violations\)' demo.out ||
  fail "the demo did not report the paths check's expected finding"
grep -Eq '^  cross-rail: rank [0-9]+ on rack00-tray00 GPU 0 \(rail 0\) sends through mlx5_1 \(rail 1\)' demo.out ||
  fail "the paths check table does not name the misbound NIC"
grep -q 'class="link violation' railtune-demo/net/paths.html || fail "railtune-demo/net/paths.html highlights no violation"
# The verbs job: each connection's HCA, GID and QPs from its path log.
grep -Eq '^  rank [0-9]+ \([^ ]+ mlx5_[0-9]+\) -> rank [0-9]+ \([^ ]+ mlx5_[0-9]+\): InfiniBand, GID [0-9a-f:]+, [0-9]+ QPs? 0x[0-9a-f]+->0x[0-9a-f]+' demo.out ||
  fail "the demo's verbs job shows no connection with its HCA, GID and QPs"
ls railtune-demo/verbs/paths/*.jsonl >/dev/null 2>&1 || fail "no path log under railtune-demo/verbs/paths"
echo "ok: demo outputs present and valid"
