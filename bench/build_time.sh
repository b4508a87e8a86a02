#!/usr/bin/env bash
# Full-build time of one configuration with and without unity builds, side by side in the same run
# (docs/performance.md, "CI time"). Each build starts from an empty folder with the compiler cache
# off, as on a fresh CI clone.
#   bench/build_time.sh [release|asan|tsan] [jobs]
# Prints one line per build: wall seconds, CPU seconds (user+sys of the build and its children), steps.
set -euo pipefail
cd "$(dirname "$0")/.."

config=${1:-release}
jobs=${2:-$(nproc)}
case $config in
  release) flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan | tsan)
    sanitizer=address extra=(-DRAILTUNE_FUZZ=ON)
    [ "$config" = tsan ] && sanitizer=thread extra=(-DRAILTUNE_TESTS=threads)
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG"
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DRAILTUNE_SANITIZE=$sanitizer
      -DRAILTUNE_BENCH=OFF "${extra[@]}")
    export CC=clang-14 CXX=clang++-14
    ;;
  *) echo "usage: $0 [release|asan|tsan] [jobs]" >&2; exit 2 ;;
esac

# User plus system seconds of everything this shell has waited for (bash's `times`, second line), into
# the file named. Called directly, never in $(...): a subshell starts its own count at zero.
children_cpu() {  # <file>
  times >"$1.times"
  tail -n 1 "$1.times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d", t }' >"$1"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-8s %-6s %8s %8s %6s\n' config unity wall_s cpu_s steps
for unity in OFF ON; do
  dir=$work/$unity
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" -DRAILTUNE_UNITY_BUILD=$unity >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; exit 1; }
  steps=$(ninja -C "$dir" -n | grep -c '^\[')
  children_cpu "$work/cpu.before"
  start=$SECONDS
  CCACHE_DISABLE=1 ninja -C "$dir" -j "$jobs" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; exit 1; }
  wall=$((SECONDS - start))
  children_cpu "$work/cpu.after"
  cpu=$(($(<"$work/cpu.after") - $(<"$work/cpu.before")))
  printf '%-8s %-6s %8d %8d %6d\n' "$config" "$unity" "$wall" "$cpu" "$steps"
  rm -rf "$dir"
done
