#!/usr/bin/env python3
"""`railtune eval fit`'s report holds what docs/accuracy.md ("fit") says it holds, whatever the fit's quality.

Runs `RAILTUNE eval fit --set ci --json` and checks: every kind ran its CI seeds; every scenario's counters are
there; the scorer's sums are consistent (a false all-clear is a usable verdict, a missed fit a refusal at a scale
with data, the held-out points are the size and shape points); each target's value is the one its counters give;
the exit status is 0 exactly when every target is met; and the first miss, replayed with its --kind and --seed,
is the same miss (a scenario follows from its seed alone). Whether the fit meets its targets is eval.fit's test.

Usage: fit_report_check.py RAILTUNE        exit 0 when the report holds, else 1 with what does not
"""
import json
import subprocess
import sys

KINDS = ["constants", "graph-error", "ll-decay", "ring-simple", "mixed", "inexpressible", "unmeasured-ranks",
         "one-node-to-two", "domains"]
CI_SEEDS = 4
COUNTERS = ["perturbed_constants", "perturbed_identified", "perturbed_within", "other_identified", "other_within",
            "size_points", "size_fit_regret", "size_default_regret", "shape_points", "shape_fit_regret",
            "shape_default_regret", "held_out_points", "applied_regret", "default_regret", "judged_scales",
            "usable_scales", "false_all_clears", "missed_fits", "no_data_scales", "no_data_usable", "must_refuse",
            "refused", "no_pick", "fit_failures"]


def run(railtune, *args):
    done = subprocess.run([railtune, "eval", "fit", "--json", *args], capture_output=True, text=True, timeout=600)
    if done.returncode not in (0, 1):
        sys.exit(f"railtune eval fit {' '.join(args)}: exit {done.returncode}: {done.stderr}")
    return done.returncode, json.loads(done.stdout)


def ratio(c, hits, chances, none):
    return c[hits] / c[chances] if c[chances] else none


def expected_targets(c):
    held = c["held_out_points"]
    applied = (c["applied_regret"] - c["default_regret"]) / held if held else 0
    return {
        "false all-clears (usable, truth misses the target at held-out points)": c["false_all_clears"],
        "usable at a scale with no data": c["no_data_usable"],
        "inexpressible truths not usable": ratio(c, "refused", "must_refuse", 1),
        "perturbed constants identified within 10 % of truth": ratio(c, "perturbed_within", "perturbed_identified", 1),
        "fits that failed": c["fit_failures"],
        "missed fits (not usable, truth within the targets), of the scales with data":
            ratio(c, "missed_fits", "judged_scales", 0),
        "held-out mean regret as applied, minus NCCL default's": applied,
    }


def check(rc, report, railtune):
    errors = []
    suite = report["suites"][0] if len(report.get("suites", [])) == 1 else None
    if report.get("schema") != "railtune.eval_report.v1" or suite is None or suite["suite"] != "fit":
        return [f"not one fit suite: {list(report)}"]
    ran = {k["kind"]: k for k in suite["kinds"]}
    if list(ran) != KINDS:
        errors.append(f"kinds {list(ran)}, expected {KINDS}")
    for name, kind in ran.items():
        c = kind["counters"]
        missing = [key for key in COUNTERS if key not in c]
        if kind["scenarios"] != CI_SEEDS or missing:
            errors.append(f"{name}: {kind['scenarios']} scenarios, counters missing {missing}")
            continue
        if c["held_out_points"] != c["size_points"] + c["shape_points"] or c["held_out_points"] == 0:
            errors.append(f"{name}: held-out points {c['held_out_points']} != sizes + shapes")
        if c["false_all_clears"] > c["usable_scales"] + c["no_data_usable"]:
            errors.append(f"{name}: more false all-clears than usable verdicts")
        if c["missed_fits"] > c["judged_scales"] - c["usable_scales"]:
            errors.append(f"{name}: more missed fits than refusals")
        if c["perturbed_within"] > c["perturbed_identified"] or c["refused"] > c["must_refuse"]:
            errors.append(f"{name}: a rate above 1")
    if ran.get("inexpressible", {}).get("counters", {}).get("must_refuse") != CI_SEEDS:
        errors.append("the inexpressible kind did not ask for a refusal in every scenario")
    expected = expected_targets(suite["total"])
    for target in suite["targets"]:
        want = expected.pop(target["name"], None)
        if want is None or target["value"] is None or abs(target["value"] - want) > 1e-9:
            errors.append(f"target {target['name']}: value {target['value']}, counters give {want}")
    if expected:
        errors.append(f"targets not reported: {list(expected)}")
    met = all(t["met"] for t in suite["targets"])
    if suite["met"] != met or rc != (0 if met else 1):
        errors.append(f"exit status {rc} and met {suite['met']} disagree with the targets (all met: {met})")
    if suite["misses"]:
        first = suite["misses"][0]
        _, again = run(railtune, "--kind", first["kind"], "--seed", str(first["seed"]))
        replayed = again["suites"][0]["misses"]
        if len(replayed) != 1 or replayed[0]["miss"] != first["miss"]:
            errors.append(f"replaying {first['kind']} seed {first['seed']} gave {replayed}, not {first['miss']}")
    return errors


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rc, report = run(sys.argv[1], "--set", "ci")
    errors = check(rc, report, sys.argv[1])
    for e in errors:
        print(e)
    suite = report["suites"][0]
    print(f"fit report: {int(suite['total'].get('scenarios', 0))} scenarios, exit {rc}, "
          f"{'every target met' if suite['met'] else 'a target missed'}; {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
