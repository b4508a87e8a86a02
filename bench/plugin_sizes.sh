#!/usr/bin/env bash
# The three plugin .so files' sizes and exported symbols in two build folders, side by side: what a
# change to the layout costs or saves in what every training image carries (docs/performance.md,
# "Plugin sizes").
#   bench/plugin_sizes.sh BASELINE_BUILD CHANGED_BUILD
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BASELINE_BUILD CHANGED_BUILD (folders with lib/libnccl-*-railtune.so)" >&2
  exit 2
fi
printf '| plugin | %s (bytes) | %s (bytes) | change | exports equal |\n|---|---|---|---|---|\n' "$1" "$2"
for kind in tuner net profiler; do
  a="$1/lib/libnccl-$kind-railtune.so"
  b="$2/lib/libnccl-$kind-railtune.so"
  for f in "$a" "$b"; do
    [ -f "$f" ] || { echo "missing: $f" >&2; exit 1; }
  done
  size_a=$(stat -c %s "$a")
  size_b=$(stat -c %s "$b")
  exports() { nm -D --defined-only "$1" | awk '{print $NF}' | sort; }
  same=$(cmp -s <(exports "$a") <(exports "$b") && echo yes || echo NO)
  printf '| libnccl-%s-railtune.so | %s | %s | %+d | %s |\n' "$kind" "$size_a" "$size_b" $((size_b - size_a)) "$same"
done
