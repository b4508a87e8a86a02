#!/usr/bin/env python3
"""Compares what `railtune paths check --json` and `railtune profile stragglers --json` found with the
truth.json of `railtune paths synth`, and reports time and memory (from /usr/bin/time -v) against the
issue's limits. Called by bench/run_paths_scale.sh with its work folder, which holds truth.json,
check.json, stragglers.json and NAME.time for synth, check and stragglers.

Exit status 0 when both found exactly what was injected within the limits, 1 otherwise.
"""
import json
import os
import re
import sys

LIMIT_SECONDS = 10.0
LIMIT_MIB = 2048.0


def usage(path):
    """(wall seconds, peak MiB) from a `/usr/bin/time -v` report."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text).group(1)
    seconds = 0.0
    for part in clock.split(":"):
        seconds = seconds * 60 + float(part)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    return seconds, peak_kb / 1024.0


def expected_cross_rail(truth):
    """{(sender path log, connect line)}: a send connect record sits on the line of its conn id."""
    out = set()
    for c in truth["cross_rail"]:
        name = re.sub(r"[^A-Za-z0-9._-]", "_", f"{truth['job']}-{c['host']}-{c['pid']}.jsonl")
        out.add(f"{name}:{c['conn']}")
    return out


def found_cross_rail(check, job):
    """[(finding, {basename:line of its records})] of the job's cross_rail findings, and every violation."""
    findings, violations = [], 0
    for j in check["jobs"]:
        if j["job"] != job:
            continue
        for f in j["findings"]:
            if f["severity"] == "violation":
                violations += 1
            if f["kind"] == "cross_rail":
                findings.append((f, {os.path.basename(r) for r in f["records"]}))
    return findings, violations


def compare_paths(truth, check):
    expected = expected_cross_rail(truth)
    findings, violations = found_cross_rail(check, truth["job"])
    problems = []
    matched = set()
    for finding, records in findings:
        hit = expected & records
        if not hit:
            problems.append(f"paths check: a cross-rail finding that was not injected: {finding['message']}")
        matched |= hit
    for missing in sorted(expected - matched):
        problems.append(f"paths check: the injected cross-rail connection {missing} was not found")
    if len(findings) != len(expected):
        problems.append(f"paths check: {len(findings)} cross-rail findings, {len(expected)} injected")
    if violations != len(findings):
        problems.append(f"paths check: {violations - len(findings)} violations other than the cross-rail ones")
    return len(matched), len(expected), problems


def offender_key(o):
    level = o["level"]
    if level == "rank":
        return ("rank", str(o["rank"]))
    if level == "tray":
        return ("tray", o["host"])
    return ("rack", o.get("rack", o.get("domain")))


def compare_stragglers(truth, report):
    expected = {offender_key(o): o for o in truth["offenders"]}
    found = {}
    for j in report["jobs"]:
        if j["job"] == truth["job"]:
            found.update({offender_key(o): o for o in j["offenders"]})
    problems = [f"profile stragglers: found {k[0]} {k[1]}, which was not injected" for k in sorted(found.keys() - expected.keys())]
    problems += [f"profile stragglers: the injected {k[0]} {k[1]} was not found" for k in sorted(expected.keys() - found.keys())]
    for key in sorted(found.keys() & expected.keys()):
        print(f"  {key[0]:5} {key[1]:16} late in {found[key]['collectives_late']:4} collectives "
              f"(injected: {expected[key]['late_collectives']}, {expected[key]['delay_us']['min']:.0f}.."
              f"{expected[key]['delay_us']['max']:.0f} us)")
    return len(found.keys() & expected.keys()), len(expected), problems


def main():
    work = sys.argv[1]
    def load(name):
        with open(os.path.join(work, name), encoding="utf-8") as f:
            return json.load(f)
    truth = load("truth.json")
    print(f"job {truth['job']}: {truth['ranks']} ranks, {truth['hosts']} hosts, {truth['racks']} racks, "
          f"{truth['collectives']} collectives, {truth['connections']} connections")
    results = [("paths synth", usage(os.path.join(work, "synth.time")), None, None, []),
               ("read every byte", usage(os.path.join(work, "read.time")), None, None, [])]
    found, expected, problems = compare_paths(truth, load("check.json"))
    results.append(("paths check", usage(os.path.join(work, "check.time")), found, expected, problems))
    found, expected, problems = compare_stragglers(truth, load("stragglers.json"))
    results.append(("profile stragglers", usage(os.path.join(work, "stragglers.time")), found, expected, problems))

    print(f"\n{'command':20} {'seconds':>8} {'peak MiB':>9} {'found/expected':>15}")
    failures = []
    for name, (seconds, mib), found, expected, problems in results:
        verdict = "-" if found is None else f"{found}/{expected}"
        print(f"{name:20} {seconds:8.1f} {mib:9.0f} {verdict:>15}")
        failures += problems
        if found is not None and seconds > LIMIT_SECONDS:
            failures.append(f"{name}: {seconds:.1f} s, over the limit of {LIMIT_SECONDS:.0f} s")
        if found is not None and mib > LIMIT_MIB:
            failures.append(f"{name}: {mib:.0f} MiB, over the limit of {LIMIT_MIB:.0f} MiB")
    for failure in failures:
        print(f"FAIL: {failure}")
    print("ok: both found exactly what was injected, within the limits" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
