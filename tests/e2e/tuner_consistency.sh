#!/usr/bin/env bash
# Every rank decides the same (architecture rule 2): three "ranks" with different local inputs
# (host name, NCCL_HOSTID, LOCAL_RANK, NCCL_IB_HCA as --one-hca-per-rank sets it, the rules and the
# rail map at different paths, another working directory) and the same communicator inputs print
# identical decisions over the probe's grid, and the same configuration digest.
# With FITTED, the same again with that fitted model (RAILTUNE_TUNER_MODEL_FILE) at a different path on each rank.
#   tuner_consistency.sh PROBE PLUGIN RAILTUNE WORKDIR [FITTED]
set -euo pipefail
probe=$1 plugin=$2 railtune=$3 work=$4
rm -rf "$work" && mkdir -p "$work/a" "$work/b" "$work/c"
rules='# size- and scale-dependent rules
allreduce,0,65535,ring,ll,-1,-1,4
allreduce,0,1048575,nvls,simple,-1,1,-1
allreduce,1048576,-1,ring,simple,24,2,-1
allgather,0,-1,pat,simple,-1,36,-1
reducescatter,65536,-1,ring,ll128,8,-1,-1
'
fit=${5:-}  # the golden fitted model (docs/formats/tuner-model.example.json): GB300, IB 800G, 1 node usable
for d in a b c; do
  printf '%s' "$rules" >"$work/$d/rules.conf"; "$railtune" topo rail-map --out "$work/$d/rail-map.json"
  [ -z "$fit" ] || cp "$fit" "$work/$d/model.json"
done
rank() {  # DIR HOST LOCAL_RANK HCA NCCL VERSION
  (cd "$work/$1" && env -u NCCL_IB_HCA RAILTUNE_HOST="$2" NCCL_HOSTID="$2" LOCAL_RANK="$3" ${4:+NCCL_IB_HCA="$4"} \
     RAILTUNE_TUNER_MODEL="$model" RAILTUNE_TUNER_CONFIG="$work/$1/rules.conf" \
     ${modelfile:+RAILTUNE_TUNER_MODEL_FILE="$work/$1/model.json"} \
     RAILTUNE_RAIL_MAP="$work/$1/rail-map.json" "$probe" "$plugin" "$5" "$6")
}
# With the model on, what no rule covers is decided from the rail map: its cluster-wide part only.
# With a fitted model (at a different path on each rank) the tuner writes its constants where the rail map
# says the fit applies: every rank must leave NCCL the same constants and decide the same.
runs=("advise 2.28 5" "advise 2.30 6" "on 2.28 5" "on 2.30 6")
[ -z "$fit" ] || runs+=("advise 2.28 5 fit" "on 2.30 6 fit")
for run in "${runs[@]}"; do
  set -- $run
  model=$1 modelfile=${4:-}
  shift
  rank a rack00-tray00 0 "=mlx5_0:1" "$1" "$2" >"$work/a.out"
  rank b rack01-tray17 3 "=mlx5_3:1" "$1" "$2" >"$work/b.out"
  rank c rack00-tray09 2 "" "$1" "$2" >"$work/c.out"
  grep -q "config digest [0-9a-f]\{16\}" "$work/a.out" || { echo "FAIL: no digest"; tail -1 "$work/a.out"; exit 1; }
  # The rules must have changed something, or the comparison proves nothing.
  grep -q "channels 24" "$work/a.out" || { echo "FAIL: the rules did not apply"; exit 1; }
  if [ -n "$modelfile" ]; then  # the fit must have changed the constants at 1 node, or the run proves nothing
    fitted=$(grep -m1 '^4/1 constants' "$work/a.out")
    [ "$fitted" != "$(grep -m1 '^4/1 constants' "$work/nofit-$1.out")" ] || { echo "FAIL: the fit did not apply"; exit 1; }
  else
    cp "$work/a.out" "$work/nofit-$1.out"
  fi
  for r in b c; do
    if ! cmp -s "$work/a.out" "$work/$r.out"; then
      echo "FAIL: NCCL $1 rank $r decided differently:"; diff "$work/a.out" "$work/$r.out" | head; exit 1
    fi
  done
  echo "ok: model $model${modelfile:+, fitted model}, NCCL $1 (tuner v$2): $(grep -c algo "$work/a.out") identical" \
    "decisions, constants and digest on 3 ranks"
done
