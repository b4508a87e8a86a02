#!/usr/bin/env bash
# docs/config.md must be exactly what `railtune config --markdown` generates from the parameter table.
#   config_doc_current.sh <railtune binary> <docs/config.md>
set -euo pipefail
railtune=$1 doc=$2
if ! diff -u "$doc" <("$railtune" config --markdown); then
  echo "FAIL: $doc is stale; regenerate it: railtune config --markdown > docs/config.md"
  exit 1
fi
echo "ok: $doc matches the parameter table"
