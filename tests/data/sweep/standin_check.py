#!/usr/bin/env python3
"""Checks what the stand-in all_reduce_perf (fake_all_reduce_perf) does with NCCL's IB settings and NCCL_DEBUG=INFO,
reading its output as a user's parser would and the published ratio from net_settings.py:

- on two NVLink domains (-g 144) NCCL_IB_ADAPTIVE_ROUTING=1 with NCCL_IB_SPLIT_DATA_ON_QPS=1 multiplies every busbw
  by the published ratio; either alone, NCCL_IB_QPS_PER_CONNECTION and NCCL_IB_AR_THRESHOLD change nothing;
- on one NVLink domain (-g 4, 8, 16) no IB setting changes the output;
- NCCL_DEBUG=INFO prints, per rank, "Using network IB" and NCCL's comm line with the shape's nRanks, nNodes,
  localRanks, localRank and MNNVL; per process the settings "set by environment" (those read on the data path only
  on two domains) and the NET/IB line naming the link layer; nothing of it without NCCL_DEBUG=INFO; each line only
  where NCCL_DEBUG_SUBSYS lets its subsystem through;
- a forced choice on -g 144 (no published figure) exits 2.

usage: standin_check.py     exit 0 when every check holds, else 1 with one line per failure
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import net_settings  # noqa: E402

STANDIN = os.path.join(HERE, "fake_all_reduce_perf")
ARGS = {144: ["-b", "512M", "-e", "16G", "-f", "2"], 4: ["-b", "256K", "-e", "256M", "-f", "2"]}
AR_SPLIT = {"NCCL_IB_ADAPTIVE_ROUTING": "1", "NCCL_IB_SPLIT_DATA_ON_QPS": "1"}
# NCCL's format strings (init.cc:1170-1171@v2.28.7-1, param.cc:89, net_ib.cc:839-840) as patterns.
COMM = re.compile(r"^\S+:\d+:\d+ \[(\d)\] NCCL INFO comm 0x[0-9a-f]+ rank (\d+) nRanks (\d+) nNodes (\d+) "
                  r"localRanks (\d+) localRank (\d+) MNNVL (\d)$")
SET_BY_ENV = re.compile(r"^\S+:\d+:\d+ \[\d\] NCCL INFO (NCCL_\w+) set by environment to (-?\d+)\.$")
NET_IB = re.compile(r"^\S+:\d+:\d+ \[\d\] NCCL INFO NET/IB : Using( \[\d\]\w+:\d+/(IB|RoCE))+ (\[RO\])?; OOB \S+$")
failures = []


def run(gpus, env=None, expect=0):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "RAILTUNE_"))}
    full.update(env or {})
    done = subprocess.run([STANDIN, "-g", str(gpus)] + ARGS.get(gpus, ARGS[4]), env=full, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    if done.returncode != expect:
        failures.append("-g %d %s: exit %d, expected %d" % (gpus, env, done.returncode, expect))
    return done.stdout


def busbw(text):
    return [float(line.split()[7]) for line in text.splitlines() if line[:1] == " " and line.split()[0].isdigit()]


def check_tables():
    base = busbw(run(144))
    tuned = busbw(run(144, AR_SPLIT))
    ratio = net_settings.ratio_of("ar1-split1")
    if len(base) != 6 or any(abs(t / b - ratio) > 0.005 for b, t in zip(base, tuned)):
        failures.append("-g 144: AR=1 SPLIT=1 busbw %s against %s, expected x%.2f" % (tuned, base, ratio))
    for env in ({"NCCL_IB_ADAPTIVE_ROUTING": "1"}, {"NCCL_IB_SPLIT_DATA_ON_QPS": "1"},
                {"NCCL_IB_QPS_PER_CONNECTION": "8"}, {"NCCL_IB_AR_THRESHOLD": "0"}):
        if busbw(run(144, env)) != base:
            failures.append("-g 144 %s: the table moved, though nothing is published for it" % env)
    for gpus in (4, 8, 16):
        if run(gpus, dict(AR_SPLIT, NCCL_IB_QPS_PER_CONNECTION="4")) != run(gpus):
            failures.append("-g %d: an IB setting changed the output of one NVLink domain" % gpus)
    run(144, {"NCCL_ALGO": "ring"}, expect=2)


def check_info(gpus, nodes, mnnvl):
    env = dict(AR_SPLIT, NCCL_IB_QPS_PER_CONNECTION="4", NCCL_DEBUG="INFO")
    lines = run(gpus, env).splitlines()
    comms = [m.groups() for m in map(COMM.match, lines) if m]
    per_node = gpus // nodes
    want = [(str(r % 4), str(r), str(gpus), str(nodes), str(per_node), str(r % per_node), str(mnnvl))
            for r in range(gpus)]
    if sorted(comms, key=lambda c: int(c[1])) != want:
        failures.append("-g %d: comm lines %s..., expected %s..." % (gpus, comms[:2], want[:2]))
    if sum(line.endswith("NCCL INFO Using network IB") for line in lines) != gpus:
        failures.append("-g %d: not one \"Using network IB\" per rank" % gpus)
    processes = gpus // 4
    if sum(1 for line in lines if NET_IB.match(line) and "/RoCE" in line) != processes:
        failures.append("-g %d: not one NET/IB line over RoCE per process" % gpus)
    counts = {}
    for m in filter(None, map(SET_BY_ENV.match, lines)):
        counts[m.groups()] = counts.get(m.groups(), 0) + 1
    expected = {("NCCL_IB_ADAPTIVE_ROUTING", "1"): processes}
    if nodes > 1:
        expected.update({("NCCL_IB_SPLIT_DATA_ON_QPS", "1"): processes, ("NCCL_IB_QPS_PER_CONNECTION", "4"): processes})
    if counts != expected:
        failures.append("-g %d: \"set by environment\" lines %s, expected %s" % (gpus, counts, expected))
    header = next(i for i, line in enumerate(lines) if line.startswith("#        (B)"))
    if any(COMM.match(line) for line in lines[header:]):
        failures.append("-g %d: a comm line after the table's header" % gpus)
    if "NCCL INFO" in run(gpus, dict(AR_SPLIT, NCCL_DEBUG="WARN")):
        failures.append("-g %d: INFO lines under NCCL_DEBUG=WARN" % gpus)
    check_subsystems(gpus, env, lines)


def check_subsystems(gpus, env, default_lines):
    """NCCL_DEBUG_SUBSYS filters lines by their subsystem as NCCL does (debug.cc:69-122, :298@v2.28.9-1): INIT,ENV
    (what `sweep run`'s probe sets) keeps every line; ENV keeps only the settings; ^INIT,ENV keeps none of the comm
    or network lines but the NET/IB one (INIT|NET)."""
    def info(subsys):
        return [line for line in run(gpus, dict(env, NCCL_DEBUG_SUBSYS=subsys)).splitlines() if "NCCL INFO" in line]
    every = [line for line in default_lines if "NCCL INFO" in line]
    if info("INIT,ENV") != every or info("init,env") != every:
        failures.append("-g %d: NCCL_DEBUG_SUBSYS=INIT,ENV does not print every INFO line" % gpus)
    if any(not SET_BY_ENV.match(line) for line in info("ENV")) or not info("ENV"):
        failures.append("-g %d: NCCL_DEBUG_SUBSYS=ENV printed other lines than the settings" % gpus)
    if [line for line in info("^INIT,ENV") if not NET_IB.match(line)]:
        failures.append("-g %d: NCCL_DEBUG_SUBSYS=^INIT,ENV printed more than the NET/IB lines" % gpus)


def main():
    check_tables()
    for gpus, nodes, mnnvl in ((4, 1, 0), (8, 1, 1), (16, 1, 1), (144, 2, 1)):
        check_info(gpus, nodes, mnnvl)
    for failure in failures:
        print("FAIL: " + failure)
    if not failures:
        print("ok: the stand-in honours NCCL's IB settings and prints NCCL's INFO lines")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
