#!/usr/bin/env bash
# Two trays of one rack discovered separately, merged into one description that checks clean and
# gives each tray its NCCL topology file: the per-host workflow of docs/fabric.md.
#   discover_merge.sh RAILTUNE FAKE_NVML WORKDIR   (run in tests/data/discover)
set -euo pipefail
railtune=$1 nvml=$2 work=$3
mkdir -p "$work"
for tray in 00 01; do
  FAKE_NVML_CONFIG=nvml/gb300-tray.json "$railtune" topo discover --host "rack00-tray$tray" \
    --hwloc-xml hwloc/gb300-tray-synthetic.xml --sysfs-root sysfs/gb300-1plane --nvml-library "$nvml" \
    --out "$work/tray$tray.yaml"
done
"$railtune" topo merge "$work/tray00.yaml" "$work/tray01.yaml" --cluster lab --out "$work/lab.yaml"
"$railtune" topo check --fabric "$work/lab.yaml" | grep "ok (1 NVLink domains, 2 hosts, 4 rails x 1 planes)" >/dev/null
grep -q "cliqueId: \"3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40.32766\"" "$work/lab.yaml"
"$railtune" topo nccl-xml --fabric "$work/lab.yaml" --host rack00-tray01 | grep '<net name="mlx5_3"' >/dev/null
# The same tray twice is an error naming both files.
if "$railtune" topo merge "$work/tray00.yaml" "$work/tray00.yaml" 2>"$work/dup.txt"; then
  echo "FAIL: merged a host with itself"; exit 1
fi
grep -q "host 'rack00-tray00' is also declared at" "$work/dup.txt"
echo "ok: two discovered trays merge into one checked description"
