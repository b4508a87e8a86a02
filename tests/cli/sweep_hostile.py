#!/usr/bin/env python3
"""`railtune sweep parse|rules|compare` on hostile input, as an operator's bad day brings it (issue 28, items 7, 8
and 10; docs/sweep.md#impossible-values):

  parse        a table with every impossible value (extra text columns, a negative size, 2^64, NaN, inf, a negative
               and a 1e308 busbw, a zero time, a fractional #wrong) and a row glued to an INFO line without its
               newline: each bad row said as FILE:LINE and why and counted in the summary and in the dataset (its
               source line, which sweep rules reports), only the two real rows in the dataset, the glued one among
               them.
  rules        a dataset edited by hand (busbw 1e308, sizes 2^63 and -1, a key given twice): each line refused
               naming file, line and reason; no rule from them, no "inf", no null gain, no range past 2^48.
  compare      the same dataset and a default of almost nothing: no figure longer than a dozen digits.
  failed_runs  a sweep folder whose every run failed or was rejected: each run listed (id, choice, status, exit,
               file), exit status 1, no "no nccl-tests output files".
  memory       a 40 MB table parsed with the peak memory of the process within 64 MiB of a tiny file's: the rows
               are streamed, never held; every row in the dataset, in order.

    sweep_hostile.py RAILTUNE WORKDIR CASE
Exit status: 0 passed, 1 failed.
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys

HEADER = """# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 1048576 maxBytes 8388608 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4121 on gb300-r01-t05 device  0 [0000:04:00] NVIDIA GB300
#  Rank  1 Group  0 Pid   4122 on gb300-r01-t05 device  1 [0000:05:00] NVIDIA GB300
#  Rank  2 Group  0 Pid   4123 on gb300-r01-t05 device  2 [0000:06:00] NVIDIA GB300
#  Rank  3 Group  0 Pid   4124 on gb300-r01-t05 device  3 [0000:07:00] NVIDIA GB300
gb300-r01-t05:4121:4121 [0] NCCL INFO NCCL_ALGO set by environment to Ring
gb300-r01-t05:4121:4121 [0] NCCL INFO NCCL_PROTO set by environment to Simple
gb300-r01-t05:4121:4121 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
"""
GOOD = "     1048576        262144     float     sum      -1    20.00   52.43   78.64      0    19.90   52.69   79.04      0"
REST = "    29.80   70.37  105.56      0"
# (row, the reason the warning must give); line numbers follow HEADER's 16 lines.
BAD = [
    ("     2097152        524288     float     sum      -1    30.00   69.91  104.86      0" + REST + "  oops not numbers",
     "16 columns where the header has 13"),
    ("    -2097152       -524288     float     sum      -1    30.00   69.91  104.86      0" + REST, "size -2097152 is negative"),
    ("18446744073709551616  4611686018427387904  float  sum  -1  30.00   69.91  104.86      0" + REST,
     "size '18446744073709551616' is over 2\\^48 bytes"),
    ("     4194304       1048576     float     sum      -1    40.00  104.86     nan      0" + REST,
     "out-of-place busbw nan is not a number"),
    ("     4194304       1048576     float     sum      -1    40.00  104.86     inf      0" + REST,
     "out-of-place busbw inf is not finite"),
    ("     4194304       1048576     float     sum      -1    40.00  104.86  -94.94      0" + REST,
     "out-of-place busbw -94.94 is negative"),
    ("     4194304       1048576     float     sum      -1    40.00  104.86   1e308      0" + REST,
     "out-of-place busbw 1e\\+308 is over 100000 GB/s"),
    ("     4194304       1048576     float     sum      -1     0.00  104.86  157.29      0" + REST,
     "out-of-place time 0 is zero"),
    ("     4194304       1048576     float     sum      -1    40.00  104.86  157.29    1.5" + REST,
     "out-of-place #wrong 1.5 is not a whole count"),
]
# An INFO line that lost its newline, the row after it glued on.
GLUED = ("gb300-r01-t05:4121:4121 [0] NCCL INFO comm 0x55d0c0de0000 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 "
         "MNNVL 0 - Init COMPLETE     8388608       2097152     float     sum      -1    60.00  139.81  209.72      0    "
         "59.50  140.99  211.48      0")
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.0\n#\n# Collective test concluded: all_reduce_perf\n"


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, expect):
    print("+ " + " ".join(args), flush=True)
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    print(done.stdout)
    if done.returncode != expect:
        fail("exit status %d, expected %d" % (done.returncode, expect))
    return done.stdout


def must(pattern, text):
    if not re.search(pattern, text, re.MULTILINE):
        fail("the output does not say: " + pattern)


def must_not(pattern, text, why):
    found = re.search(pattern, text, re.MULTILINE)
    if found:
        fail("%s: %r" % (why, found.group(0)))


def case_parse(railtune, work):
    text = os.path.join(work, "impossible.txt")
    with open(text, "w") as f:
        f.write(HEADER + GOOD + "\n" + "\n".join(row for row, _ in BAD) + "\n" + GLUED + "\n" + FOOTER)
    dataset = os.path.join(work, "impossible.jsonl")
    out = run([railtune, "sweep", "parse", text, "-o", dataset, "--max-warnings", "50"], 0)
    must(r"^wrote .*impossible\.jsonl: 2 rows from 1 of 1 files \(1 runs\); %d bad rows dropped" % len(BAD), out)
    for index, (_, reason) in enumerate(BAD):
        must(r"impossible\.txt:%d: %s" % (18 + index, reason), out)
    lines = [json.loads(line) for line in open(dataset)]
    rows = [r for r in lines if r["schema"] == "railtune.sweep-dataset/1"]
    sources = [r for r in lines if r["schema"] == "railtune.sweep-dataset-source/1"]
    if len(sources) != 1 or lines[-1] is not sources[0]:
        fail("the dataset does not end with one line saying what was dropped: %s" % sources)
    if (sources[0]["bad_rows"], sources[0]["rows"]) != (len(BAD), 2) or \
            [b["line"] for b in sources[0]["bad"]] != list(range(18, 18 + len(BAD))):
        fail("the dataset's count of dropped rows is wrong: %s" % sources[0])
    if [r["line"] for r in rows] != [17, 18 + len(BAD)]:
        fail("the dataset's rows are at lines %s, expected the good row and the glued one" % [r["line"] for r in rows])
    if rows[1]["size"] != 8388608 or rows[1]["out_of_place"]["busbw"] != 209.72:
        fail("the row glued to the INFO line was not read as printed: %s" % rows[1])
    for r in rows:
        if not r["valid"] or r["choice"] != {"algorithm": "ring", "protocol": "simple"}:
            fail("a row of the dataset is not what the output says: %s" % r)
    # The count reaches whoever reads the dataset.
    out = run([railtune, "sweep", "rules", dataset, "-o", os.path.join(work, "rules.json")], 0)
    must(r"impossible\.jsonl: sweep parse dropped %d bad rows of .*impossible\.txt \(line 18: 16 columns where the "
         r"header has 13\)" % len(BAD), out)
    must(r"%d rows not used: dropped by sweep parse as impossible or malformed" % len(BAD), out)


def hand_edited_dataset(work, default_busbw=229.0):
    """The format's example rows, edited as a person might: the good ones, then the impossible ones."""
    base = {"schema": "railtune.sweep-dataset/1", "source": "edited.txt", "line": 1, "run": 0, "test": "all_reduce_perf",
            "collective": "allreduce", "size": 4194304, "count": 1048576, "type": "float", "redop": "sum",
            "root": -1, "choice": {}, "forced_by": "manifest", "env": {},
            "shape": {"ranks": 8, "hosts": 2, "nodes": 1, "nvl_domains": 1, "ranks_per_domain": 8},
            "out_of_place": {"time_us": 32.05, "algbw": 130.86, "busbw": default_busbw, "wrong": 0.0},
            "in_place": {"time_us": 31.71, "algbw": 132.29, "busbw": default_busbw, "wrong": 0.0},
            "valid": True, "repeat": 0}

    def row(**changes):
        r = json.loads(json.dumps(base))
        for key, value in changes.items():
            r[key] = value
        return json.dumps(r, separators=(",", ":"))

    ll128 = {"algorithm": "ring", "protocol": "ll128"}
    fast = {"time_us": 26.59, "algbw": 157.76, "busbw": 276.08, "wrong": 0.0}
    lines = [
        row(),                                                   # 1: the default
        row(choice=ll128, out_of_place=fast, in_place=fast),     # 2: ring/ll128, +20 %
        row(choice={"algorithm": "ring", "protocol": "simple"},  # 3: busbw 1e308
            out_of_place=dict(fast, busbw=1e308)),
        row(size=9223372036854775807, choice=ll128, out_of_place=fast, in_place=fast),  # 4: 2^63 bytes
        row(size=-1, choice=ll128, out_of_place=fast, in_place=fast),                   # 5: a negative size
        # 6: "busbw" twice: a reader would keep one of the two
        row(choice=ll128, out_of_place=fast, in_place=fast).replace('"busbw":276.08', '"busbw":276.08,"busbw":1e300', 1),
    ]
    path = os.path.join(work, "edited.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


EDITED_REASONS = [
    (3, r"impossible value: out-of-place busbw 1e\+308 is over 100000 GB/s \(100 TB/s\)"),
    (4, r"impossible value: size 9223372036854775807 is over 2\^48 bytes"),
    (5, r"\"size\" must be an integer >= 0"),
    (6, r"duplicate key \"busbw\""),
]


def case_rules(railtune, work):
    dataset = hand_edited_dataset(work)
    rules = os.path.join(work, "edited-rules.json")
    out = run([railtune, "sweep", "rules", dataset, "-o", rules], 0)
    for line, reason in EDITED_REASONS:
        must(r"edited\.jsonl:%d: %s; line skipped" % (line, reason), out)
    must(r"^wrote .*edited-rules\.json: 1 rule from 2 rows", out)
    must_not(r"\binf\b|\bnan\b", out, "a non-finite figure reached the output")
    document = json.load(open(rules))
    text = open(rules).read()
    must_not(r"null", text, "a rule carries a null")
    for rule in document["rules"]:
        evidence = rule["evidence"]
        if (rule["algorithm"], rule["protocol"]) != ("ring", "ll128"):
            fail("a rule for another choice than ring/ll128: %s" % rule)
        if rule["nBytes"] != {"min": 4194304, "max": 4194304}:
            fail("a rule range past the measured size: %s" % rule["nBytes"])
        for key in ("min_gain", "max_gain"):
            if not isinstance(evidence[key], float) or not 0.05 < evidence[key] < 1:
                fail("%s %s is not the measured +20 %%" % (key, evidence[key]))


def case_compare(railtune, work):
    dataset = hand_edited_dataset(work, default_busbw=1e-300)
    out = run([railtune, "sweep", "compare", dataset], 0)
    for line, reason in EDITED_REASONS:
        must(r"edited\.jsonl:%d: %s; line skipped" % (line, reason), out)
    table = "\n".join(line for line in out.splitlines() if not line.startswith("railtune: warning:"))
    must(r"^4 MiB +0\.0 +ring/ll128 +276\.1 ", table)
    must_not(r"[0-9]{13,}", table, "a figure of more than a dozen digits")
    must_not(r"\binf\b|\bnan\b", table, "a non-finite figure reached the output")
    report = os.path.join(work, "edited.html")
    run([railtune, "sweep", "compare", dataset, "-o", report], 0)
    must_not(r"[0-9]{13,}", open(report).read(), "a figure of more than a dozen digits in the HTML report")


def case_failed_runs(railtune, work):
    folder = os.path.join(work, "all-failed")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "runs"))
    entries = [
        ("allreduce.default.r0", {}, "failed", 1, "srun: error: Unable to allocate resources: Invalid account"),
        ("allreduce.ring-ll128.r0", {"algorithm": "ring", "protocol": "ll128"}, "failed", 137,
         "killed by signal 9 (Killed)"),
        ("allreduce.nvls-ll.r0", {"algorithm": "nvls", "protocol": "ll"}, "rejected", 3,
         "NCCL WARN no algorithm/protocol available"),
    ]
    with open(os.path.join(folder, "manifest.jsonl"), "w") as f:
        for run_id, choice, status, code, reason in entries:
            output = "runs/%s.txt" % run_id
            open(os.path.join(folder, output), "w").write(reason + "\n")
            f.write(json.dumps({"schema": "railtune.sweep-manifest/1", "id": run_id, "test": "all_reduce_perf",
                                "choice": choice, "repeat": 0, "command": ["all_reduce_perf", "-b", "8"],
                                "env": {}, "output": output, "status": status, "exit": code, "reason": reason,
                                "start": "2026-07-10T09:14:58.004Z", "end": "2026-07-10T09:14:59.004Z"}) + "\n")
    out = run([railtune, "sweep", "parse", folder, "-o", os.path.join(work, "none.jsonl")], 1)
    must_not(r"no nccl-tests output files", out, "the failed runs are not listed")
    must(r"manifest\.jsonl: allreduce\.default\.r0 \(default\): failed, exit 1: srun: error: Unable to allocate "
         r"resources: Invalid account; no rows \(runs/allreduce\.default\.r0\.txt\)", out)
    must(r"allreduce\.ring-ll128\.r0 \(ring/ll128\): failed, exit 137: killed by signal 9 \(Killed\); no rows "
         r"\(runs/allreduce\.ring-ll128\.r0\.txt\)", out)
    must(r"allreduce\.nvls-ll\.r0 \(nvls/ll\): rejected by NCCL, exit 3: .*; no rows", out)
    must(r"^nothing written: 0 rows .*; 1 runs NCCL rejected; 2 runs failed", out)
    must(r"^railtune sweep parse: no run of the sweep gave an output to read: 3 runs failed or were rejected", out)
    if os.path.exists(os.path.join(work, "none.jsonl")):
        fail("an empty dataset was left behind")


def peak_rss_mib(args):
    """The peak resident memory of one run of args (a fresh process: RUSAGE_CHILDREN of a child that runs it)."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", probe] + args, stdout=subprocess.PIPE, text=True, timeout=600)
    if done.returncode != 0:
        fail("%s exited with %d" % (" ".join(args[:3]), done.returncode))
    return int(done.stdout.split()[-1]) / 1024


def case_memory(railtune, work):
    small, big = os.path.join(work, "small.txt"), os.path.join(work, "big.txt")
    with open(small, "w") as f:
        f.write(HEADER + GOOD + "\n" + FOOTER)
    rows = 40 * 1000 * 1000 // (len(GOOD) + 1)
    with open(big, "w") as f:
        f.write(HEADER)
        chunk = (GOOD + "\n") * 1000
        for _ in range(rows // 1000):
            f.write(chunk)
        f.write(FOOTER)
    baseline = peak_rss_mib([railtune, "sweep", "parse", small, "-o", os.path.join(work, "small.jsonl")])
    peak = peak_rss_mib([railtune, "sweep", "parse", big, "-o", os.path.join(work, "big.jsonl")])
    print("peak RSS: %.1f MiB for 40 MB of rows, %.1f MiB for one row" % (peak, baseline))
    # Every row, in the order of the output (past 65536 rows a second thread writes them, in batches).
    numbers = [json.loads(line)["line"] for line in open(os.path.join(work, "big.jsonl"))]
    if numbers != list(range(17, 17 + rows // 1000 * 1000)):
        fail("%d rows in the dataset, expected %d in order from line 17" % (len(numbers), rows // 1000 * 1000))
    # Several files at once: each file's rows together, in the order of the inputs, the long one among them.
    mixed = os.path.join(work, "mixed.jsonl")
    run([railtune, "sweep", "parse", small, big, small, big, small, "-o", mixed], 0)
    order = []
    for line in open(mixed):
        source = os.path.basename(json.loads(line)["source"])
        if not order or order[-1][0] != source:
            order.append([source, 0])
        order[-1][1] += 1
    expected = [["small.txt", 1], ["big.txt", len(numbers)]] * 2 + [["small.txt", 1]]
    if order != expected:
        fail("the rows of several files are not in the order of the inputs: %s" % order)
    # Under a sanitizer freed memory sits in its quarantine (ASan keeps up to 256 MiB): no bound there.
    if os.environ.get("RAILTUNE_SANITIZED"):
        print("memory bound not checked: sanitizer build (freed memory is quarantined, not returned)")
    elif peak - baseline > 64:
        fail("parsing 40 MB took %.0f MiB more than one row: the rows are held, not streamed" % (peak - baseline))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    railtune, work, case = sys.argv[1:]
    work = os.path.join(work, case)
    os.makedirs(work, exist_ok=True)
    {"parse": case_parse, "rules": case_rules, "compare": case_compare, "failed_runs": case_failed_runs,
     "memory": case_memory}[case](railtune, work)
    print("ok: " + case)


if __name__ == "__main__":
    main()
