#!/usr/bin/env bash
# `railtune sweep run` as a user runs it, over the stand-in nccl-tests binary of tests/data/sweep (python3, no GPU).
#   sweep_run.sh SCENARIO RAILTUNE DATA_DIR WORK_DIR VALIDATE_JSONL MANIFEST_SCHEMA
# Scenarios: matrix (a real sweep, its manifest, then a resume that runs nothing), failing (a failed run: exit 1,
# then a resume that reruns it alone), timeout (a hung run killed), launcher (the launcher's words and the
# environment reach the binary, Open MPI's mpirun gets -x), interrupt (Ctrl-C: exit 130, recorded), chunk (a
# chunk size through a tuner rules file), dry_run (the plan, nothing written); over the misbehaving stand-in
# (stray_all_reduce_perf): orphan (SIGKILL of the sweep: the command dies with it, the resume kills what it left
# in its group), escaped (a process that left the run's group writes on: `sweep parse` reads the output as the run
# ended), flood (300 MiB of output: the file whole, its length recorded; under a 512 MiB address-space limit unless
# RAILTUNE_SANITIZED is set).
set -uo pipefail
scenario=$1 railtune=$2 data=$3 work=$4 validate=$5 schema=$6
standin=$data/fake_all_reduce_perf
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$work"

fail() { echo "FAIL: $*"; exit 1; }
# count PATTERN FILE: lines of FILE matching the extended regex
count() { grep -Ec -- "$1" "$2" || true; }
expect_count() {
  local n
  n=$(count "$2" "$3")
  [ "$n" -eq "$1" ] || fail "$3: $n lines match '$2', expected $1"
}
run() {
  out=$("$railtune" sweep run "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out"
}
has() { grep -Eq -- "$1" <<<"$out" || fail "output does not match: $1"; }
stray=$data/stray_all_reduce_perf
# alive PID: a process that runs (a zombie waiting for its reaping does not); gone PID SECONDS: it ends in time.
alive() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null)
  [ -n "$state" ] && [[ $state != Z* ]]
}
gone() {
  local _
  for _ in $(seq $(($2 * 10))); do alive "$1" || return 0; sleep 0.1; done
  ! alive "$1"
}

case "$scenario" in
matrix)
  args=(-o "$dir" --algos ring,nvls,pat,collnet_direct --protos ll128,simple --repeats 2 --nvl-domains 1 --mnnvl on
    -- "$standin" -b 1M -e 16M -f 2 -g 8)
  run "${args[@]}"
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  m=$dir/manifest.jsonl
  "$validate" "$schema" "$m" --min-records 15 || fail "the manifest does not fit its schema"
  expect_count 15 '"schema":"railtune.sweep-manifest/1"' "$m"
  expect_count 8 '"status":"ok"' "$m"
  expect_count 7 '"status":"rejected"' "$m"
  expect_count 3 '"reason":"not run: NCCL' "$m"
  expect_count 4 '"reason":"NCCL WARN Error : no algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to CollnetDirect\.' "$m"
  expect_count 15 '"nvl_domains":1,"mnnvl":"on"' "$m"
  expect_count 1 '"id":"allreduce.ring-ll128.r1".*"env":\{"NCCL_ALGO":"Ring","NCCL_DEBUG":"WARN","NCCL_PROTO":"LL128","RAILTUNE_SWEEP_RUN_ID":"allreduce.ring-ll128.r1"\}' "$m"
  # -J: the stand-in's help lists it, so every run that ran has its JSON beside its text.
  [ "$(ls "$dir"/runs/*.json | wc -l)" -eq 12 ] || fail "expected 12 JSON files"
  grep -Eq '^ +1048576 ' "$dir/runs/allreduce.ring-ll128.r0.txt" || fail "no table in the ring/ll128 output"
  ! grep -Eq '^ +33554432 ' "$dir/runs/allreduce.ring-ll128.r0.txt" || fail "sizes beyond -e 16M"
  # The repeats differ (the stand-in's jitter is seeded from RAILTUNE_SWEEP_RUN_ID).
  ! cmp -s <(grep '^ ' "$dir/runs/allreduce.default.r0.txt") <(grep '^ ' "$dir/runs/allreduce.default.r1.txt") ||
    fail "repeats have the same table"
  has '^\[1/12\] allreduce\.default\.r0 ok [0-9.]+ s · ETA '
  has '^\[12/12\] allreduce\.collnet_direct-simple\.r1 rejected [0-9.]+ s \(NCCL WARN Error : no algorithm/protocol'
  has '^sweep: 8 ok, 4 rejected by NCCL, 0 failed; 3 not run \(NCCL never offers them\); 0 already done$'
  has "^next: railtune sweep parse $dir -o $dir/dataset.jsonl$"
  # Resumed: nothing left to run, nothing appended.
  run "${args[@]}"
  [ $rc -eq 0 ] || fail "resume: exit status $rc, expected 0"
  has '^sweep: 0 ok, 0 rejected by NCCL, 0 failed; 3 not run \(NCCL never offers them\); 12 already done$'
  expect_count 15 '"schema"' "$m"
  # Another sweep into the same folder is refused; --restart starts over.
  run -o "$dir" --algos ring --protos simple -- "$standin" -b 1M -e 32M -f 2 -g 8
  [ $rc -eq 2 ] || fail "other command: exit status $rc, expected 2"
  has 'manifest.jsonl has allreduce.default.r0 run as .* pass --restart'
  run -o "$dir" --algos ring --protos simple --restart -- "$standin" -b 1M -e 32M -f 2 -g 8
  [ $rc -eq 0 ] || fail "--restart: exit status $rc"
  expect_count 2 '"schema"' "$m"
  ;;
failing)
  args=(-o "$dir" --algos ring --protos ll128,simple --json off -- "$standin" -b 1M -e 4M -f 2 -g 4)
  RAILTUNE_FAKE_FAIL_RUNS=ring-simple run "${args[@]}"
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  has '^\[3/3\] allreduce\.ring-simple\.r0 failed [0-9.]+ s \(exit status 3: gb300-r01-t01: Test CUDA failure'
  has '^sweep: 2 ok, 0 rejected by NCCL, 1 failed; 0 not run .*; 0 already done$'
  has '^  failed: allreduce\.ring-simple\.r0: exit status 3: '
  has 'run the same command again to retry the failed runs'
  "$validate" "$schema" "$dir/manifest.jsonl" --min-records 3 || fail "schema"
  expect_count 1 '"status":"failed","exit":3,"reason":"exit status 3: gb300-r01-t01: Test CUDA failure' "$dir/manifest.jsonl"
  [ ! -e "$dir/runs/allreduce.default.r0.json" ] || fail "--json off wrote JSON"
  # Resumed: the failed run alone runs again.
  run "${args[@]}"
  [ $rc -eq 0 ] || fail "resume: exit status $rc, expected 0"
  has '^\[1/1\] allreduce\.ring-simple\.r0 ok '
  has '^sweep: 1 ok, 0 rejected by NCCL, 0 failed; 0 not run .*; 2 already done$'
  ;;
timeout)
  start=$(date +%s)
  RAILTUNE_FAKE_HANG_RUNS=ring-simple RAILTUNE_FAKE_HANG_SECONDS=60 \
    run -o "$dir" --algos ring --protos simple --timeout 1 -- "$standin" -b 1M -e 4M -f 2 -g 4
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  [ $(($(date +%s) - start)) -lt 20 ] || fail "the hung run was not killed in time"
  has '^\[2/2\] allreduce\.ring-simple\.r0 failed [0-9.]+ s \(timed out after 1 s \(--timeout\): killed\)'
  expect_count 1 '"status":"failed","exit":143,"reason":"timed out after 1 s \(--timeout\): killed"' "$dir/manifest.jsonl"
  ;;
launcher)
  export FAKE_LAUNCHER_LOG=$dir.log
  rm -f "$FAKE_LAUNCHER_LOG"
  run -o "$dir" --launcher "'$data/fake_launcher' --ntasks 2" --algos ring --protos ll128 --json off \
    -- fake_all_reduce_perf -b 1M -e 4M -f 2 -g 4
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  # The binary is put as given after the launcher's words: the launcher finds it where the ranks run.
  expect_count 2 '^argv: --ntasks 2 fake_all_reduce_perf -b 1M -e 4M -f 2 -g 4$' "$FAKE_LAUNCHER_LOG"
  expect_count 1 '^env: NCCL_ALGO=Ring NCCL_PROTO=LL128 NCCL_DEBUG=WARN RAILTUNE_SWEEP_RUN_ID=allreduce.ring-ll128.r0$' "$FAKE_LAUNCHER_LOG"
  # The first default run is the probe: NCCL's INFO lines for `sweep parse` (NCCL_DEBUG_SUBSYS=INIT,ENV).
  expect_count 1 '^env: NCCL_ALGO= NCCL_PROTO= NCCL_DEBUG=INFO RAILTUNE_SWEEP_RUN_ID=allreduce.default.r0$' "$FAKE_LAUNCHER_LOG"
  expect_count 2 '"status":"ok"' "$dir/manifest.jsonl"
  # Open MPI's mpirun passes a variable to the ranks only when named with -x (the stand-in mpirun clears the rest):
  # the rejected CollNet run shows NCCL_ALGO arrived.
  rm -f "$FAKE_LAUNCHER_LOG"
  run -o "$dir-mpi" --restart --launcher "$data/launchers/mpirun -np 2" --algos ring,collnet_direct --protos simple \
    --json off -- fake_all_reduce_perf -b 1M -e 4M -f 2 -g 4
  [ $rc -eq 0 ] || fail "mpirun: exit status $rc, expected 0"
  expect_count 2 '^mpirun -x: NCCL_ALGO NCCL_DEBUG NCCL_PROTO RAILTUNE_SWEEP_RUN_ID$' "$FAKE_LAUNCHER_LOG"
  expect_count 1 '^mpirun -x: NCCL_DEBUG NCCL_DEBUG_SUBSYS RAILTUNE_SWEEP_RUN_ID$' "$FAKE_LAUNCHER_LOG"
  expect_count 1 '"id":"allreduce.collnet_direct-simple.r0".*"status":"rejected"' "$dir-mpi/manifest.jsonl"
  expect_count 2 '"command":\[".*/mpirun","-np","2","-x","NCCL_ALGO","-x","NCCL_DEBUG","-x","NCCL_PROTO","-x","RAILTUNE_SWEEP_RUN_ID","fake_all_reduce_perf",' "$dir-mpi/manifest.jsonl"
  ;;
interrupt)
  RAILTUNE_FAKE_HANG_RUNS='*' RAILTUNE_FAKE_HANG_SECONDS=60 \
    "$railtune" sweep run -o "$dir" --algos ring --protos simple -- "$standin" -b 1M -e 4M -f 2 -g 4 >"$dir.out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    grep -q 'table' "$dir/runs/allreduce.default.r0.txt" 2>/dev/null && break
    grep -q '#wrong' "$dir/runs/allreduce.default.r0.txt" 2>/dev/null && break
    sleep 0.1
  done
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  cat "$dir.out"
  [ $rc -eq 130 ] || fail "exit status $rc, expected 130"
  grep -q '^interrupted: run the same command again to resume$' "$dir.out" || fail "no resume hint"
  expect_count 1 '"id":"allreduce.default.r0".*"status":"failed".*"reason":"interrupted"' "$dir/manifest.jsonl"
  expect_count 1 '"schema"' "$dir/manifest.jsonl"
  ;;
chunk)
  run -o "$dir" --algos ring --protos simple --chunk-sizes 128K,512K --json off -- "$standin" -b 1M -e 4M -f 2 -g 8
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  rules=$dir/tuner-rules/allreduce.ring-simple-chunk512K.json
  grep -q '"rules":\[{"collective":"allreduce","algorithm":"ring","protocol":"simple","chunkSize":524288}\]' "$rules" ||
    fail "$rules"
  python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
    "$rules" "$(dirname "$schema")/tuner-rules.schema.json" || fail "$rules does not fit the tuner rules schema"
  expect_count 1 "\"id\":\"allreduce.ring-simple-chunk512K.r0\".*\"NCCL_TUNER_PLUGIN\":\"[^\"]*/lib/libnccl-tuner-railtune.so\",\"RAILTUNE_SWEEP_CHUNK_SIZE\":\"524288\",.*\"RAILTUNE_TUNER_CONFIG\":\"$rules\"" "$dir/manifest.jsonl"
  expect_count 3 '"status":"ok"' "$dir/manifest.jsonl"
  ;;
dry_run)
  run --dry-run -o "$dir" --algos ring,pat --protos ll128,simple --channels 0,16 --repeats 2 \
    -- "$standin" -b 1M -e 4M -f 2 -g 8
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  [ ! -e "$dir" ] || fail "a dry run created $dir"
  has "^sweep plan: all_reduce_perf \\(allreduce\\), 10 runs \\(4 not run: NCCL never offers them\\), text output, folder $dir$"
  has '^# --json auto: -J is added when .* -h` lists it \(not probed in a dry run\)$'
  has "^allreduce\\.default\\.r0: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV RAILTUNE_SWEEP_RUN_ID=allreduce\\.default\\.r0 $standin -b 1M -e 4M -f 2 -g 8$"
  has "^allreduce\\.default\\.r1: NCCL_DEBUG=WARN RAILTUNE_SWEEP_RUN_ID=allreduce\\.default\\.r1 $standin -b 1M -e 4M -f 2 -g 8$"
  has "^allreduce\\.ring-simple-ch16\\.r1: NCCL_ALGO=Ring NCCL_DEBUG=WARN NCCL_MAX_NCHANNELS=16 NCCL_MIN_NCHANNELS=16 NCCL_PROTO=Simple RAILTUNE_SWEEP_RUN_ID=allreduce\\.ring-simple-ch16\\.r1 $standin "
  has '^allreduce\.pat-simple\.r0: not run: NCCL never runs AllReduce with PAT \(src/graph/tuning\.cc:298@v2\.30\.7\)$'
  [ "$(grep -c '^allreduce\.' <<<"$out")" -eq 14 ] || fail "expected 14 plan lines"
  # The user's own forcing is taken out of every run, and said so; the user's NCCL_DEBUG is kept.
  NCCL_ALGO=Tree NCCL_DEBUG=INFO run --dry-run -o "$dir" --algos ring --protos ll -- "$standin" -g 4
  has '^railtune sweep run: NCCL_ALGO=Tree is removed from every run.s environment'
  has "^allreduce\\.default\\.r0: RAILTUNE_SWEEP_RUN_ID=allreduce\\.default\\.r0 $standin -g 4$"
  ;;
orphan)
  args=(-o "$dir" --algos ring --protos simple --json off -- "$stray" -b 1M -e 32M -f 2 -g 4)
  pids=$dir.pids
  rm -f "$pids"
  STRAY_MODE=hang STRAY_PIDS=$pids "$railtune" sweep run "${args[@]}" >"$dir.out" 2>&1 &
  sweep=$!
  for _ in $(seq 300); do grep -q '^child ' "$pids" 2>/dev/null && break; sleep 0.1; done
  command=$(awk '$1 == "command" {print $2}' "$pids" 2>/dev/null)
  child=$(awk '$1 == "child" {print $2}' "$pids" 2>/dev/null)
  [ -n "$command" ] && [ -n "$child" ] || fail "the stand-in did not start"
  trap 'kill -KILL "$command" "$child" 2>/dev/null' EXIT
  grep -q "\"id\":\"allreduce.default.r0\",\"group\":$command," "$dir/running.json" ||
    fail "running.json does not name the run's process group $command"
  "$validate" "$(dirname "$schema")/sweep-running.schema.json" "$dir/running.json" --min-records 1 ||
    fail "running.json does not fit its schema"
  kill -KILL "$sweep"
  wait "$sweep" 2>/dev/null
  # The command dies with the sweep: PR_SET_PDEATHSIG (no timing asserted: within 30 s).
  gone "$command" 30 || fail "the run's command (pid $command) outlived the sweep's SIGKILL"
  # What it started in its group lives on (as a launcher's ranks may) until the sweep resumes.
  alive "$child" || fail "the child in the run's group (pid $child) ended before the resume"
  STRAY_MODE=table run "${args[@]}"
  [ $rc -eq 0 ] || fail "resume: exit status $rc, expected 0"
  ! alive "$child" || fail "the resume ran beside the earlier run's child (pid $child)"
  has "^railtune sweep run: run allreduce\.default\.r0 of an earlier sweep \(started [0-9T:.-]+Z\) was still running: process group $command \(1 process\) killed$"
  has '^sweep: 2 ok, 0 rejected by NCCL, 0 failed; 0 not run .*; 0 already done$'
  [ ! -e "$dir/running.json" ] || fail "running.json left after the sweep ended"
  expect_count 2 '"status":"ok"' "$dir/manifest.jsonl"
  ;;
escaped)
  rm -f "$dir.done."*
  STRAY_MODE=escape STRAY_MANIFEST=$dir/manifest.jsonl STRAY_DONE=$dir.done \
    run -o "$dir" --algos any --protos any --json off -- "$stray" -b 1M -e 32M -f 2 -g 4
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  output=$dir/runs/allreduce.default.r0.txt
  for _ in $(seq 300); do [ -e "$dir.done.allreduce.default.r0" ] && break; sleep 0.1; done
  [ -e "$dir.done.allreduce.default.r0" ] || fail "the escaped writer did not finish"
  recorded=$(grep -Eo '"output_bytes":[0-9]+' "$dir/manifest.jsonl" | cut -d: -f2)
  size=$(stat -c %s "$output")
  [ -n "$recorded" ] && [ "$size" -gt "$recorded" ] || fail "the escaped writer added nothing ($size bytes, recorded $recorded)"
  # The recorded length ends where the stand-in's own output ended.
  head -c "$recorded" "$output" | tail -n 3 | grep -x '# Collective test concluded: all_reduce_perf' >/dev/null ||
    fail "the recorded length does not end the stand-in's own output"
  out=$("$railtune" sweep parse "$dir" -o "$dir/dataset.jsonl" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || fail "sweep parse: exit status $rc"
  has "^wrote $dir/dataset\.jsonl: 6 rows from 1 of 1 files \(1 runs\)$"
  has "^railtune: warning: $output: $((size - recorded)) bytes written after the run ended, ignored$"
  ! grep -q '9999' "$dir/dataset.jsonl" || fail "a row written after the run ended is in the dataset"
  ;;
flood)
  limit="ulimit -v 524288"
  [ -n "${RAILTUNE_SANITIZED:-}" ] && limit=:  # sanitizers reserve terabytes of address space
  out=$(
    $limit
    STRAY_MODE=flood STRAY_FLOOD_MB=300 "$railtune" sweep run -o "$dir" --algos any --protos any --json off \
      -- "$stray" -b 1M -e 32M -f 2 -g 4 2>&1
  )
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
  output=$dir/runs/allreduce.default.r0.txt
  size=$(stat -c %s "$output")
  [ "$size" -gt $((300 * 1048576)) ] || fail "the output holds $size bytes, fewer than the stand-in printed"
  tail -n 3 "$output" | grep '^# Collective test concluded: all_reduce_perf$' >/dev/null || fail "the output's end is missing"
  expect_count 1 "\"output_bytes\":$size,.*\"status\":\"ok\"" "$dir/manifest.jsonl"
  rm -rf "$dir"
  ;;
*)
  fail "unknown scenario $scenario"
  ;;
esac
echo "ok: $scenario"
