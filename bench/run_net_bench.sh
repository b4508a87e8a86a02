#!/bin/sh
# Runs bench_net_socket the way docs/performance.md ("Net plugin: socket transport vs raw TCP")
# reports it, after printing what the figures depend on: CPUs, CPU model, kernel, load average.
#   bench/run_net_bench.sh [BUILD_DIR] [bench_net_socket options...]
# BUILD_DIR defaults to build; further options go to the benchmark (--rounds=N, --streams=1,2,4,
# --benchmark_filter=..., see bench/net_bench.cc).
set -eu
build=build
if [ $# -gt 0 ] && [ -d "$1" ]; then
  build=$1
  shift
fi
bench="$build/bin/bench_net_socket"
if [ ! -x "$bench" ]; then
  echo "run_net_bench.sh: $bench not found; build it with: ninja -C $build bench_net_socket" >&2
  exit 2
fi
echo "nproc: $(nproc)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "kernel: $(uname -r)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exec "$bench" --benchmark_counters_tabular=true "$@"
