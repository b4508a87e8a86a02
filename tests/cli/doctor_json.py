#!/usr/bin/env python3
"""Runs `railtune doctor --json ARGS...` and checks the document against docs/doctor.md ("JSON output"):
the fields and their types, statuses from the four words, unique ids, a summary that counts the
checks, and an exit_status equal to the command's own exit status (1 iff a check failed).

Usage: doctor_json.py RAILTUNE [ARGS...]
"""
import json
import subprocess
import sys

STATUSES = {"ok", "warn", "fail", "skip"}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main(argv):
    run = subprocess.run([argv[1], "doctor", "--json"] + argv[2:], capture_output=True, text=True, timeout=120)
    print(run.stdout)
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError as e:
        fail("not one JSON document: %s" % e)
    want = {"schema": str, "railtune_version": str, "host": str, "exit_status": int, "summary": dict, "checks": list}
    if set(doc) != set(want):
        fail("top-level keys %s, expected %s" % (sorted(doc), sorted(want)))
    for key, kind in want.items():
        if not isinstance(doc[key], kind):
            fail("%s is not a %s" % (key, kind.__name__))
    if doc["schema"] != "railtune.doctor.v1":
        fail("schema is %r" % doc["schema"])
    seen = set()
    counts = dict.fromkeys(STATUSES, 0)
    for check in doc["checks"]:
        if set(check) != {"id", "status", "message", "fix"} or not all(isinstance(v, str) for v in check.values()):
            fail("bad check %r" % check)
        if check["status"] not in STATUSES:
            fail("bad status %r" % check["status"])
        if check["id"] in seen:
            fail("duplicate id %s" % check["id"])
        if "\n" in check["message"] or "\n" in check["fix"]:
            fail("multi-line text in %s" % check["id"])
        seen.add(check["id"])
        counts[check["status"]] += 1
    if doc["summary"] != counts:
        fail("summary %r does not count the checks %r" % (doc["summary"], counts))
    expected_exit = 1 if counts["fail"] else 0
    if doc["exit_status"] != expected_exit or run.returncode != expected_exit:
        fail("exit_status %d, command exited %d, expected %d" % (doc["exit_status"], run.returncode, expected_exit))
    for required in ("host.platform", "nccl.library", "plugin.net.abi", "plugin.tuner.load", "env.railtune"):
        if required not in seen:
            fail("no %s check" % required)
    print("ok: %d checks, %r" % (len(doc["checks"]), counts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
