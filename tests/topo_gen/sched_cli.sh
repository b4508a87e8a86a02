#!/bin/sh
# railtune topo labels|hypernodes|kueue|slurm|env and railtune exec as a user runs them, on the
# built-in default cluster: each output equals its golden file (tests/data/golden/sched/), --out
# writes the same bytes, bad hosts exit 2 with a message, exec runs the command with the variables.
# Usage: sched_cli.sh RAILTUNE GOLDEN_DIR WORK_DIR
set -u
railtune=$1 golden=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

same() {  # same GOLDEN_NAME ARGS...: stdout of `railtune ARGS` equals the golden file
  name=$1; shift
  if ! "$railtune" "$@" > "$work/$name" 2> "$work/$name.err"; then fail "railtune $* exited non-zero: $(cat "$work/$name.err")"; return; fi
  cmp -s "$work/$name" "$golden/$name" || fail "railtune $* differs from $golden/$name"
}

same labels.json topo labels
same labels-topograph.json topo labels --compat topograph
same labels.sh topo labels --format kubectl
same hypernodes.yaml topo hypernodes
same kueue.yaml topo kueue
same kueue-v1beta1.yaml topo kueue --api-version v1beta1
"$railtune" topo kueue --api-version v1 > /dev/null 2> "$work/err"
[ $? -ne 0 ] || fail "topo kueue --api-version v1 exited 0"
grep -q "v1 not in {v1beta2,v1beta1}\|v1beta2" "$work/err" || fail "unclear --api-version message: $(cat "$work/err")"
same slurm-block.conf topo slurm
same slurm-tree.conf topo slurm --plugin tree
paths="--topo-file /etc/railtune/topo/{host}.xml --rail-map /etc/railtune/rail-map.json --plugin-dir /opt/railtune/lib"
# shellcheck disable=SC2086 # $paths is a list of words on purpose
same env.sh topo env $paths
# shellcheck disable=SC2086
same env-rank1-2.28.sh topo env --host rack01-tray17 --local-rank 1 --one-hca-per-rank --isolate-gpu --nccl-version 2.28 $paths
# A RoCE host: the QP policy's NCCL_IB_QPS_PER_CONNECTION, and with --why a comment per variable.
roce="$golden/../discover/roce-h100.yaml"
same env-roce.sh topo env --fabric "$roce" --plugin-dir /opt/railtune/lib
"$railtune" topo env --fabric "$roce" --plugin-dir /opt/railtune/lib --why > "$work/why" 2> "$work/err" ||
  fail "topo env --why exited non-zero: $(cat "$work/err")"
[ "$(grep -c '^# NCCL_IB_' "$work/why")" -eq 7 ] || fail "topo env --why did not write 7 comment lines"
grep -q '^# NCCL_IB_QPS_PER_CONNECTION=4: RoCE with ECMP: .*SIGCOMM 2024' "$work/why" || fail "--why names no source"
grep -v '^#' "$work/why" | cmp -s - "$golden/env-roce.sh" || fail "--why changed the exports"
RAILTUNE_NET_QPS=2 "$railtune" topo env --fabric "$roce" > "$work/qps" 2> "$work/err" || fail "RAILTUNE_NET_QPS=2 failed"
grep -qx "export NCCL_IB_QPS_PER_CONNECTION=2" "$work/qps" || fail "RAILTUNE_NET_QPS=2 was not exported"
RAILTUNE_NET_QPS=200 "$railtune" topo env --fabric "$roce" > "$work/qps" 2> "$work/err" || fail "RAILTUNE_NET_QPS=200 failed"
grep -q "warning: RAILTUNE_NET_QPS='200'" "$work/err" || fail "a bad RAILTUNE_NET_QPS gave no warning: $(cat "$work/err")"
grep -qx "export NCCL_IB_QPS_PER_CONNECTION=4" "$work/qps" || fail "a bad RAILTUNE_NET_QPS replaced the policy"

"$railtune" topo hypernodes --out "$work/out.yaml" > "$work/stdout" || fail "--out exited non-zero"
cmp -s "$work/out.yaml" "$golden/hypernodes.yaml" || fail "--out did not write the HyperNodes"
[ -s "$work/stdout" ] && fail "--out also wrote to stdout"

"$railtune" topo env --host nowhere > /dev/null 2> "$work/err"
[ $? -eq 2 ] || fail "topo env with an unknown host did not exit 2"
grep -q "host 'nowhere' is not in fabric 'railtune-demo'" "$work/err" || fail "unclear unknown-host message: $(cat "$work/err")"
"$railtune" topo env --isolate-gpu > /dev/null 2> "$work/err"
[ $? -eq 2 ] || fail "--isolate-gpu without a local rank did not exit 2"
"$railtune" topo env --nccl-version 3 > /dev/null 2> "$work/err"
[ $? -eq 2 ] || fail "a bad --nccl-version did not exit 2"

# exec: host from RAILTUNE_HOST, local rank from LOCAL_RANK, then SLURM_LOCALID.
RAILTUNE_HOST=rack01-tray03 LOCAL_RANK=2 "$railtune" exec --isolate-gpu --one-hca-per-rank -- /usr/bin/env > "$work/env1" ||
  fail "exec exited non-zero"
grep -qx 'CUDA_VISIBLE_DEVICES=2' "$work/env1" || fail "exec did not take LOCAL_RANK"
grep -qx 'NCCL_IB_HCA==mlx5_2:1:2' "$work/env1" || fail "exec did not set the local rank's HCA"
grep -qx 'NCCL_CROSS_NIC=0' "$work/env1" || fail "exec did not set NCCL_CROSS_NIC"
grep -q '^NCCL_NET=' "$work/env1" && fail "exec set NCCL_NET"
env -u LOCAL_RANK SLURM_LOCALID=3 "$railtune" exec --host rack00-tray00 --isolate-gpu -- /usr/bin/env > "$work/env2" ||
  fail "exec with SLURM_LOCALID exited non-zero"
grep -qx 'CUDA_VISIBLE_DEVICES=3' "$work/env2" || fail "exec did not take SLURM_LOCALID"
RAILTUNE_HOST=elsewhere "$railtune" exec -- /usr/bin/env > /dev/null 2> "$work/err"
[ $? -eq 2 ] || fail "exec on a host outside the fabric did not exit 2"
grep -q "host 'elsewhere' is not in fabric" "$work/err" || fail "unclear exec message: $(cat "$work/err")"
"$railtune" exec --host rack00-tray00 -- "$work/no-such-command" > /dev/null 2> "$work/err"
[ $? -eq 127 ] || fail "exec of a missing command did not exit 127"
"$railtune" exec --host rack00-tray00 -- /bin/sh -c 'exit 7'
[ $? -eq 7 ] || fail "exec did not hand over the command's exit status"

[ "$failures" -eq 0 ] && echo "all railtune topo scheduler outputs and exec behave"
exit "$failures"
