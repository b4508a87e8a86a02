# Sourced by the scale benchmarks (run_paths_scale.sh, run_nccl_import_scale.sh): the railtune binary of a build,
# a scratch folder removed at exit, and each step timed under /usr/bin/time -v.
#   timed_steps_init BUILD_DIR NAME   sets $railtune and $work (a folder under TMPDIR), or exits 2
#   run NAME EXPECTED_STATUSES OUTPUT COMMAND...   the command under time -v, its stdout to OUTPUT; exit 2 otherwise
#   seconds NAME, mib NAME                         wall seconds and peak resident MiB of a step

timed_steps_init() {
  local build=$1 name=$2
  railtune=$build/bin/railtune
  [ -x "$railtune" ] || { echo "$0: $railtune not found; build it with: ninja -C $build railtune" >&2; exit 2; }
  [ -x /usr/bin/time ] || { echo "$0: /usr/bin/time is missing (Debian package: time)" >&2; exit 2; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/railtune-$name.XXXXXX") || exit 2
  trap 'rm -rf "$work"' EXIT
}

run() {
  local name=$1 statuses=$2 output=$3
  shift 3
  /usr/bin/time -v -o "$work/$name.time" "$@" >"$output" 2>"$work/$name.err"
  local rc=$?
  if [[ " $statuses " != *" $rc "* ]]; then
    echo "$0: $name exited with status $rc:" >&2
    tail -n 20 "$work/$name.err" >&2
    exit 2
  fi
}

seconds() {
  awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' \
    "$work/$1.time"
}

mib() {
  awk '/Maximum resident set size/ {printf "%.0f", $NF / 1024}' "$work/$1.time"
}
