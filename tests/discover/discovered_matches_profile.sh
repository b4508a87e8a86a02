#!/usr/bin/env bash
# The NCCL topology file of a host discovered from the synthetic GB300 fixtures equals the one the
# gb300-nvl72 profile gives the same host, apart from what only discovery knows (CPU affinity, NIC
# GUIDs): discovery and the profile describe the same tray.
#   discovered_matches_profile.sh RAILTUNE DISCOVERED_YAML HOST
set -euo pipefail
railtune=$1 discovered=$2 host=$3
strip() { sed -E 's/ (affinity|guid)="[^"]*"//g'; }
diff -u <("$railtune" topo nccl-xml --host "$host" | strip) \
        <("$railtune" topo nccl-xml --fabric "$discovered" --host "$host" | strip)
echo "ok: discovered $host gives the profile's NCCL topology"
