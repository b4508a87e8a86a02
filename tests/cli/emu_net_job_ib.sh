#!/usr/bin/env bash
# `railtune emu net-job --transport ib` as a user runs it: 4 ranks on 2 hosts (RAIL_MAP: two trays of 2 GPUs and
# 2 NICs) over railtune's verbs transport on
# the verbs simulator, with NCCL_IB_QPS_PER_CONNECTION=4 in the launcher's environment. Every connect record
# of the path logs is transport "ib" with its verbs facts (an mlx5 HCA, a GID, 4 QPs with their QPNs and the
# peer's): the variable reached the ranks unchanged.
#   emu_net_job_ib.sh RAILTUNE PLUGIN_DIR RAIL_MAP WORK_DIR
set -euo pipefail
railtune=$1 plugins=$2 map=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
NCCL_IB_QPS_PER_CONNECTION=4 "$railtune" emu net-job --transport ib --ranks 4 --rail-map "$map" --no-mnnvl \
  --collectives all-reduce --bytes 100003 --iterations 1 --path-log-dir "$work/paths" --plugin-dir "$plugins" \
  >"$work/net-job.txt" 2>&1 || { cat "$work/net-job.txt"; echo "FAIL: emu net-job --transport ib"; exit 1; }
grep -q '^net transport: ib ' "$work/net-job.txt" || { cat "$work/net-job.txt"; echo "FAIL: the report names no ib transport"; exit 1; }
python3 - "$work/paths" <<'PY'
import glob, json, sys
records = []
for name in glob.glob(sys.argv[1] + "/*.jsonl"):
    with open(name) as f:
        records += [json.loads(line) for line in f if line.strip()]
connects = [r for r in records if r.get("record") == "connect"]
if not connects:
    sys.exit("FAIL: no connect record in the path logs")
for r in connects:
    where = "%s rank %s conn %s" % (r.get("host"), r.get("rank"), r.get("conn"))
    verbs = r.get("verbs")
    if r.get("transport") != "ib" or verbs is None:
        sys.exit("FAIL: %s: transport %s without verbs facts" % (where, r.get("transport")))
    if not r["local"]["hca"].startswith("mlx5_"):
        sys.exit("FAIL: %s: HCA %s" % (where, r["local"]["hca"]))
    if not verbs.get("gid"):
        sys.exit("FAIL: %s: no GID" % where)
    qps, peers = verbs.get("qps", []), verbs.get("peer_qps", [])
    if len(qps) != 4 or len(peers) != 4 or 0 in qps or 0 in peers:
        sys.exit("FAIL: %s: NCCL_IB_QPS_PER_CONNECTION=4 but QPs %s -> %s" % (where, qps, peers))
print("ok: %d connect records over ib, each with its HCA, GID and 4 QPs" % len(connects))
PY
