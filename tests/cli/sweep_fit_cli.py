#!/usr/bin/env python3
"""`railtune sweep fit` and `sweep compare --fitted` on the loop's dataset (sweep_loop.py: the recorded GB300
all-reduce tables of 4, 8 and 16 GPUs on one NVL72), as a user runs them (docs/sweep.md "Fitting NCCL's model").

Checks: the model file is written and validates against docs/formats/tuner-model.schema.json; stdout has the
constants, the validation table (in-sample, leave one size out, leave one shape out beside NCCL default's) and a
verdict per scale; --no-validate writes a file whose every scale is not usable; nothing fittable exits 1; bad
options and inputs exit 2; compare --fitted scores the file in the model columns. The validation table is printed
(the regret figures docs/sweep.md quotes).

usage: sweep_fit_cli.py RAILTUNE WORKDIR DATASET REPO_ROOT
"""
import json
import os
import shutil
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, expect):
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    if proc.returncode != expect:
        print(proc.stdout)
        fail("%s: exit %d, expected %d" % (" ".join(args[1:4]), proc.returncode, expect))
    return proc.stdout


def validate(root, path):
    schema = os.path.join(root, "docs", "formats", "tuner-model.schema.json")
    run([sys.executable, os.path.join(root, "tests", "support", "validate_schema.py"), schema, path], 0)


def main():
    railtune, work, dataset, root = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(work, "model.json")
    out = run([railtune, "sweep", "fit", dataset, "-o", model, "--threads", "2", "--max-seconds", "300"], 0)
    print(out)
    for needed in ("NVIDIA GB300", "constants moved", "in-sample", "leave one size out", "leave one shape out",
                   "verdict:", "1 node", "wrote " + model):
        if needed not in out:
            fail("sweep fit's output lacks '%s'" % needed)
    validate(root, model)
    # Every line of the recorded tables is poor: no constant is identified, and none is "kept" by count either.
    if "constants kept at NCCL's" not in out or "identify them): 0" in out:
        fail("the constants kept at NCCL's are miscounted:\n" + out)
    with open(model) as f:
        written = json.load(f)
    fit = written["fits"][0]
    if fit["applies_to"]["gpu"] != "NVIDIA GB300" or fit["basis"]["profile"] != "gb300-nvl72":
        fail("the fit does not apply to the recorded GB300: " + json.dumps(fit["applies_to"]))
    if [s["ranks"] for s in fit["data"]["shapes"]] != [4, 8, 16]:
        fail("the fit's shapes are not 4, 8 and 16 ranks: " + json.dumps(fit["data"]["shapes"]))
    if not fit["data"]["datasets"] or fit["data"]["datasets"][0]["rows"] <= 0:
        fail("the fit does not record its dataset")
    if fit["validation"]["status"] != "complete" or fit["validation"]["leave_one_shape_out"]["points"] == 0:
        fail("the validation is not complete: " + json.dumps(fit["validation"]))
    if fit["usable"]["2nodes"]["usable"] or "no data" not in fit["usable"]["2nodes"]["why"]:
        fail("2 nodes was never measured, yet: " + json.dumps(fit["usable"]["2nodes"]))

    unvalidated = os.path.join(work, "unvalidated.json")
    run([railtune, "sweep", "fit", dataset, "-o", unvalidated, "--no-validate"], 0)
    validate(root, unvalidated)
    with open(unvalidated) as f:
        fit = json.load(f)["fits"][0]
    if fit["validation"]["status"] != "skipped" or any(v["usable"] for v in fit["usable"].values()):
        fail("--no-validate must leave every scale not usable: " + json.dumps(fit["usable"]))

    # Nothing fittable: the same rows on a GPU no hardware profile models.
    other = os.path.join(work, "h200.jsonl")
    with open(dataset) as f, open(other, "w") as g:
        g.write(f.read().replace("NVIDIA GB300", "NVIDIA H200"))
    out = run([railtune, "sweep", "fit", other, "-o", os.path.join(work, "none.json")], 1)
    if "no hardware profile models GPU 'NVIDIA H200'" not in out or os.path.exists(os.path.join(work, "none.json")):
        fail("an unmodelled GPU must say why and write nothing:\n" + out)
    # A dataset none of whose rows a fit used is named all the same, with 0 rows.
    both = os.path.join(work, "both.json")
    run([railtune, "sweep", "fit", dataset, other, "-o", both, "--no-validate"], 0)
    validate(root, both)
    with open(both) as f:
        named = {d["path"]: d["rows"] for d in json.load(f)["fits"][0]["data"]["datasets"]}
    if named.get(other) != 0 or not named.get(dataset):
        fail("each dataset given must be named with the rows used: " + json.dumps(named))
    run([railtune, "sweep", "fit", dataset, "-o", model, "--nccl", "2.99"], 2)
    run([railtune, "sweep", "fit", os.path.join(work, "missing.jsonl"), "-o", model], 2)
    run([railtune, "sweep", "fit", dataset], 2)

    out = run([railtune, "sweep", "compare", dataset, "--fitted", model, "-o", os.path.join(work, "fitted.html")], 0)
    if "the fitted model" not in out or "model regret" not in out:
        print(out)
        fail("compare --fitted does not show the fitted model's picks and regret")
    print(out[-1500:])
    run([railtune, "sweep", "compare", dataset, "--fitted", model, "--model"], 2)
    print("sweep fit: file, validation, exit statuses and compare --fitted as documented")


if __name__ == "__main__":
    main()
