#!/usr/bin/env bash
# The plugins' WARNs in an emulated job reach the user (docs/net-job.md, "Plugin WARNs"): every WARN of
# every rank on stderr, once each, alike lines of several ranks as one "WARN (ranks A-B): ..." line, the
# count in the report's summary line, and the exit status unchanged (0: every byte arrived).
#   net_job_warnings.sh CASE RAILTUNE AS_UNPRIVILEGED SCRATCH
# CASE
#   clean       a healthy 4-rank job with the profiler: "plugin WARNs: none", nothing on stderr
#   unwritable  --profile-dir a folder the ranks may not write (mode 555; run as user 65534 through
#               AS_UNPRIVILEGED when the test runs as root, where permissions deny nothing)
#   prometheus  RAILTUNE_PROFILE_PROMETHEUS below a regular file: unwritable for root too
#   demo        `railtune demo` with that RAILTUNE_PROFILE_PROMETHEUS: its profiled job's 16 ranks
set -uo pipefail
case_=$1 railtune=$2 as_unprivileged=$3 scratch=$4
rm -rf "$scratch"
mkdir -p "$scratch/tmp"
chmod 755 "$scratch"
chmod 1777 "$scratch/tmp"  # the job folder (TMPDIR) must be writable for user 65534 too
export TMPDIR=$scratch/tmp
touch "$scratch/regular-file"
out=$scratch/out.txt err=$scratch/err.txt

fail() {
  echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"
  echo "FAIL: $*"
  exit 1
}
run() {
  "$@" >"$out" 2>"$err"
  rc=$?
  [ $rc -ne 77 ] || { cat "$out"; exit 77; }  # as_unprivileged.sh: skipped, the reason printed
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0: WARNs do not fail the job"
}
# Each regex must match a line of stderr; stderr's WARN lines are exactly `count` and none repeats;
# stdout has no WARN line of its own.
expect_warnings() {
  local count=$1
  shift
  for pattern in "$@"; do grep -Eq -- "$pattern" "$err" || fail "stderr does not match: $pattern"; done
  local lines
  lines=$(grep -c '^WARN (' "$err")
  [ "$lines" -eq "$count" ] || fail "$lines WARN line(s) on stderr, expected $count"
  [ -z "$(grep '^WARN (' "$err" | sort | uniq -d)" ] || fail "a WARN line is printed twice"
  ! grep -q '^WARN' "$out" || fail "a WARN line on stdout: they belong on stderr"
}

case $case_ in
  clean)
    run "$railtune" emu net-job --ranks 4 --collectives all-reduce --profile-dir "$scratch/profile"
    grep -q '^plugin WARNs: none$' "$out" || fail "no 'plugin WARNs: none' in the summary"
    [ ! -s "$err" ] || fail "stderr is not empty for a healthy job"
    ;;
  unwritable)
    mkdir -p "$scratch/read-only"
    chmod 555 "$scratch/read-only"
    run "$as_unprivileged" "$railtune" emu net-job --ranks 8 --racks 2 --collectives all-reduce \
      --profile-dir "$scratch/read-only"
    # The profiler's file names carry each rank's pid and start tag: 2 hosts, so 2 distinct lines.
    expect_warnings 2 "^WARN \(ranks 0-3\): .*railtune profiler: .*read-only.*<pid>\.<tag>.*Permission denied" \
      "^WARN \(ranks 4-7\): .*railtune profiler: .*read-only.*<pid>\.<tag>.*Permission denied"
    grep -Eq '^plugin WARNs: 8 from 8 rank\(s\), 2 distinct \(printed on stderr\)$' "$out" ||
      fail "the summary does not count 8 WARNs of 8 ranks"
    ;;
  prometheus)
    RAILTUNE_PROFILE_PROMETHEUS=$scratch/regular-file/metrics.prom \
      run "$railtune" emu net-job --ranks 4 --collectives all-reduce --profile-dir "$scratch/profile"
    expect_warnings 1 "^WARN \(ranks 0-3\): .*railtune profiler: .*regular-file/metrics\.prom.*Not a directory"
    grep -Eq '^plugin WARNs: 4 from 4 rank\(s\), 1 distinct \(printed on stderr\)$' "$out" ||
      fail "the summary does not count 4 WARNs of 4 ranks"
    ;;
  demo)
    cd "$scratch" || exit 1
    RAILTUNE_PROFILE_PROMETHEUS=$scratch/regular-file/metrics.prom run "$railtune" demo
    # The 16 ranks' profiler WARN once, and the net plugin's WARNs about the NIC miswired on purpose.
    grep -Eq "^WARN \(ranks 0-15\): .*railtune profiler: .*regular-file/metrics\.prom.*Not a directory" "$err" ||
      fail "the profiled job's 16 ranks' WARN is not on stderr once with its ranks"
    grep -Eq "^WARN \(rank [0-9]+\): .*railtune net: RAILTUNE_NET_FAULT_MISBIND" "$err" ||
      fail "the injected misbinding's WARN is not on stderr"
    [ -z "$(grep '^WARN (' "$err" | sort | uniq -d)" ] || fail "a WARN line is printed twice"
    total=$(grep -Eo '^plugin WARNs: [0-9]+' "$out" | awk '{s += $3} END {print s + 0}')
    [ "$total" -ge 17 ] || fail "the jobs' summaries count $total WARNs, expected at least 17"
    grep -Eq "^railtune demo: the plugins logged $total WARN\(s\) in the emulated jobs \(printed on stderr above\)$" \
      "$out" || fail "the demo's last lines do not count the $total WARNs"
    ;;
  *)
    echo "unknown case $case_"
    exit 2
    ;;
esac
echo "ok: $case_"
