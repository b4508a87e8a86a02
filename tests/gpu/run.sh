#!/usr/bin/env bash
# Real NCCL with the railtune plugins, on a machine with an NVIDIA GPU and PyTorch (whose bundled
# libnccl is the NCCL under test). Two processes share one GPU, each its own "host" (NCCL_HOSTID) so
# that NCCL accepts them as two nodes (NCCL_MNNVL_ENABLE=0 keeps them apart); each loads our three
# plugins by absolute path with NCCL_DEBUG=INFO and runs one AllReduce. The check reads NCCL's log
# lines: which plugin versions NCCL bound, compared with what that NCCL release binds; that the net
# plugin carries the AllReduce between the two "hosts" over its socket transport and writes a path
# log; that the profiler records the AllReduce; that the net plugin steps aside when told to; that injected faults leave the job running; and that a rules
# file changes the algorithm NCCL runs.
#
#   tests/gpu/run.sh <plugin dir> [sanitized]
# Exit 0 pass, 1 fail, 77 skipped (no GPU, no PyTorch with CUDA, or a sanitizer build).
set -uo pipefail

plugin_dir=$(cd "${1:?usage: run.sh <plugin dir> [sanitized]}" && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "${2:-}" = sanitized ] && skip "sanitizer builds need their runtime preloaded into Python; run on a release build"
command -v nvidia-smi >/dev/null 2>&1 || skip "nvidia-smi not found: no NVIDIA driver on this machine"
nvidia-smi -L 2>/dev/null | grep '^GPU ' >/dev/null || skip "nvidia-smi lists no GPU"
python=${RAILTUNE_GPU_PYTHON:-python3}
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() and torch.distributed.is_nccl_available() else 1)' \
  2>/dev/null || skip "$python has no PyTorch with CUDA and NCCL (set RAILTUNE_GPU_PYTHON to one that has)"
for kind in net tuner profiler; do
  [ -f "$plugin_dir/libnccl-$kind-railtune.so" ] || fail "$plugin_dir/libnccl-$kind-railtune.so missing"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/allreduce.py" <<'PY'
import os, sys, torch, torch.distributed as dist
rank = int(sys.argv[1])
dist.init_process_group("nccl", init_method="tcp://127.0.0.1:" + sys.argv[2], world_size=2, rank=rank)
torch.cuda.set_device(0)
x = torch.full((1 << 20,), float(rank + 1), device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
assert x[0].item() == 3.0, x[0].item()
print("rank", rank, "nccl", ".".join(map(str, torch.cuda.nccl.version())), "allreduce ok", flush=True)
dist.destroy_process_group()
PY

# run_pair <label> [VAR=value ...]: the two ranks, with extra environment; logs in $work/<label>.rank<r>.log.
run_pair() {
  local label=$1 rank status=0 port=$((20000 + RANDOM % 20000))
  shift
  local pids=()
  for rank in 0 1; do
    env CUDA_VISIBLE_DEVICES=0 NCCL_HOSTID="railtune-gpu-host-$rank" NCCL_MNNVL_ENABLE=0 \
      NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET,TUNING \
      NCCL_NET_PLUGIN="$plugin_dir/libnccl-net-railtune.so" \
      NCCL_TUNER_PLUGIN="$plugin_dir/libnccl-tuner-railtune.so" \
      NCCL_PROFILER_PLUGIN="$plugin_dir/libnccl-profiler-railtune.so" "$@" \
      timeout 300 "$python" "$work/allreduce.py" "$rank" "$port" >"$work/$label.rank$rank.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for rank in 0 1; do
    echo "--- $label, rank $rank (plugin lines)"
    grep -E 'NCCL version|Plugin|plugin|railtune' "$work/$label.rank$rank.log"
  done
  [ $status -eq 0 ] || { tail -n 40 "$work/$label".rank*.log; fail "$label: the two-process AllReduce did not complete"; }
}

# expect <log> <extended regex> <what>: one line of the log must match.
expect() { grep -Eq "$2" "$1" || fail "$(basename "$1"): $3 (no line matching: $2)"; }

# 1. Plain: NCCL binds every plugin, and calls them with this communicator's real arguments (our
#    INFO lines echo what init received: 2 ranks, 2 nodes, the rank). The net plugin carries the
#    traffic between the two "hosts" over loopback (forced: the machine may have RDMA ports), with a
#    path log per process.
run_pair plain RAILTUNE_NET_TRANSPORT=socket NCCL_SOCKET_IFNAME=lo RAILTUNE_PATH_LOG_DIR="$work/paths" \
  RAILTUNE_PROFILE_DIR="$work/profile" RAILTUNE_JOB_ID=gpu-check
declare -A expected=([2.28]="11 5 5" [2.29]="11 5 6" [2.30]="12 6 6")
for rank in 0 1; do
  log="$work/plain.rank$rank.log"
  release=$(sed -n 's/.*NCCL version \([0-9]*\.[0-9]*\)\..*/\1/p' "$log" | head -n 1)
  release=${release:-unknown}
  net=$(sed -n 's/.*NET\/Plugin: Loaded net plugin .* (v\([0-9]*\)).*/\1/p' "$log" | head -n 1)
  tuner=$(sed -n 's/.*TUNER\/Plugin: Using .* (v\([0-9]*\)).*/\1/p' "$log" | head -n 1)
  profiler=$(sed -n 's/.*PROFILER\/Plugin: Loaded .* (v\([0-9]*\)).*/\1/p' "$log" | head -n 1)
  echo "rank $rank: NCCL $release bound net v${net:-none}, tuner v${tuner:-none}, profiler v${profiler:-none}"
  [ -n "$net" ] && [ -n "$tuner" ] && [ -n "$profiler" ] || fail "rank $rank: NCCL did not bind all three plugins"
  want=${expected[$release]:-}
  if [ -z "$want" ]; then
    echo "note: NCCL $release is not a supported release (2.28.x, 2.30.x); versions not compared"
  elif [ "$net $tuner $profiler" != "$want" ]; then
    fail "rank $rank: NCCL $release should bind net, tuner, profiler versions $want"
  fi
  expect "$log" "railtune tuner: ABI v$tuner, comm 0x[0-9a-f]+, engine [^,]+, 2 ranks on 2 nodes" \
    "the tuner's init did not receive nRanks=2, nNodes=2"
  expect "$log" "railtune profiler: ABI v$profiler, comm 0x[0-9a-f]+ .* rank $rank of 2 on 2 nodes" \
    "the profiler's init did not receive rank $rank of 2 on 2 nodes"
  expect "$log" "Using network railtune" "NCCL did not use the railtune net plugin for the communicator"
  expect "$log" "railtune net: socket transport, 2 streams per connection" "the net plugin did not report its transport"
  expect "$log" "railtune net: connection (send to|receive from) .*digests match" \
    "the net plugin logged no connection whose configuration digests match"
done
paths=$(ls "$work"/paths/gpu-check-*.jsonl 2>/dev/null | wc -l)
[ "$paths" -eq 2 ] || fail "expected one path log per process, found $paths"
connects=$(cat "$work"/paths/*.jsonl | grep -c '"record":"connect"')
[ "$connects" -ge 2 ] || fail "the path logs hold $connects connect records (at least one each way expected)"
grep -h '"record":"close"' "$work"/paths/*.jsonl | grep '"bytes_sent":[1-9]' >/dev/null \
  || fail "no close record in the path logs counted any bytes sent"
echo "path logs: $paths files, $connects connect records"
# The profiler recorded the 4 MiB AllReduce in each process, with NCCL's algorithm and a timing source.
for log in "$work"/profile/gpu-check-*.collectives.jsonl; do
  [ -f "$log" ] || fail "no collective log under $work/profile"
  grep -q '"op":"AllReduce"' "$log" && grep -q '"bytes":4194304' "$log" \
    || fail "$(basename "$log"): no AllReduce record of 4194304 bytes"
done
profiles=$(ls "$work"/profile/gpu-check-*.collectives.jsonl | wc -l)
[ "$profiles" -eq 2 ] || fail "expected one collective log per process, found $profiles"
echo "profiles: $profiles collective logs with the AllReduce"

# 1b. Told to step aside, the net plugin's init fails with one WARN and NCCL runs on its own transport.
run_pair aside RAILTUNE_NET_TRANSPORT=none
for rank in 0 1; do
  expect "$work/aside.rank$rank.log" "railtune net: stepping aside: RAILTUNE_NET_TRANSPORT=none" \
    "the net plugin did not step aside with a WARN"
done

# 2. Failure table with real NCCL: faults injected into the tuner's getCollInfo and the profiler's
#    init must leave the job running (tuner disables itself, profiler turns itself off for the communicator).
run_pair faults RAILTUNE_INJECT_FAULT=tuner.getCollInfo,profiler.init
for rank in 0 1; do
  log="$work/faults.rank$rank.log"
  expect "$log" "railtune tuner: getCollInfo failed: injected fault" "no WARN for the tuner's injected fault"
  expect "$log" "railtune profiler: .*injected fault" "no WARN for the profiler's injected fault"
done
# 3. Rules with real NCCL: NCCL's example-tuner CSV, unchanged format, forcing Tree/Simple for every
#    AllReduce. Rank 0's TUNING line shows what NCCL ran; both ranks log the same config digest.
printf '# force Tree/Simple\nallreduce,0,-1,tree,simple,-1,-1,-1\n' >"$work/rules.conf"
run_pair rules RAILTUNE_TUNER_CONFIG="$work/rules.conf"
expect "$work/rules.rank0.log" "AllReduce: 4194304 Bytes -> Algo (TREE|Tree) proto (SIMPLE|Simple)" \
  "NCCL did not run the rule's Tree/Simple for the 4 MiB AllReduce"
digest0=$(grep -Eo "config digest [0-9a-f]{16}" "$work/rules.rank0.log" | head -n 1)
digest1=$(grep -Eo "config digest [0-9a-f]{16}" "$work/rules.rank1.log" | head -n 1)
[ -n "$digest0" ] && [ "$digest0" = "$digest1" ] || fail "the two ranks logged different config digests: '$digest0' '$digest1'"
echo "ok: NCCL bound the railtune plugins in both processes, the net plugin carried the AllReduce and logged its paths, it stepped aside when told, injected faults left the job running, and a rule chose NCCL's algorithm"
