#!/usr/bin/env bash
# The documented truth.json example (docs/formats/synth-truth.example.json) is what `railtune paths
# synth` writes for a small two-plane job; RAILTUNE_UPDATE_GOLDEN=1 rewrites it instead of comparing.
#   paths_synth_golden.sh <railtune> <fabric> <golden> <scratch>
set -euo pipefail
railtune=$1 fabric=$2 golden=$3 scratch=$4
rm -rf "$scratch"
"$railtune" paths synth --ranks 16 --collectives 12 --stragglers 1 --slow-trays 1 --slow-racks 1 --cross-rail 1 \
  --seed 42 --job 48213 --fabric "$fabric" --out "$scratch/logs" --truth "$scratch/truth.json" >/dev/null
if [ "${RAILTUNE_UPDATE_GOLDEN:-0}" = 1 ]; then
  cp "$scratch/truth.json" "$golden"
  echo "updated $golden"
  exit 0
fi
if ! diff -u "$golden" "$scratch/truth.json"; then
  echo "FAIL: truth.json differs from $golden (regenerate with RAILTUNE_UPDATE_GOLDEN=1 if the change is intended)"
  exit 1
fi
echo "ok: truth.json matches $golden"
