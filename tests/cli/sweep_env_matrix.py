#!/usr/bin/env python3
"""`railtune sweep run --env` end to end over the stand-in all_reduce_perf (docs/sweep.md, "Environment matrices"):

  1. sweep run -g 144 (two NVLink domains of 72, --nvl-domains 2 --mnnvl on), NCCL's own choice only, under
     NCCL_IB_ADAPTIVE_ROUTING=0,1 x NCCL_IB_SPLIT_DATA_ON_QPS=0,1: four runs, ids and manifest lines carrying the
     setting, in name order, each exported to the run.
  2. sweep parse of the folder: every row carries its run's setting as net_env; the ar1-split1 rows are the
     published x1.70 of the ar0-split0 rows at every size (the stand-in's one published effect, net_settings.py),
     the two other settings x1.00.
  3. sweep parse of an output the sweep did not make, run with NCCL_DEBUG=INFO: net_env from NCCL's own
     "NAME set by environment to V." lines (the known network settings only).
  4. sweep rules: without --net-env-rows no row of a setting makes an algorithm rule (and it says why); with
     --net-env-rows the rows of that one setting are used.
  5. sweep rules --net-env: the winners of the matrix (AR=1 with SPLIT=1, +70 % over NCCL's defaults on RoCE,
     AR=0 SPLIT=0, with "1 run" evidence), beside a one-NVLink-domain sweep of the same matrix (one node: "not
     network-bound", never a winner); then railtune topo env --measured on a GB300 RoCE fabric exports them with the
     source word "measured" in --why. The file is left in WORKDIR/net-env.json for the schema check.
  6. The same sweep resumed with another matrix stops, naming the run.

    sweep_env_matrix.py RAILTUNE SWEEP_DATA WORKDIR
Exit status: 0 passed, 1 failed.
"""
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict

AR, SPLIT = "NCCL_IB_ADAPTIVE_ROUTING", "NCCL_IB_SPLIT_DATA_ON_QPS"
PUBLISHED = 1.70  # NVIDIA cluster-readiness-engine PR #287, the stand-in's ar1-split1 tables
TOLERANCE = 0.025  # the stand-in moves every value by at most 1 %: a ratio of two moves by at most about 2 %
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def run(args, expect=0, env=None):
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    if done.returncode != expect:
        failures.append("%s: exit %d (expected %d)\n%s%s" % (" ".join(args[:4]), done.returncode, expect,
                                                             done.stdout, done.stderr))
    return done


def rows_of(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [r for r in lines if r.get("schema") == "railtune.sweep-dataset/1"]


def sweep_and_manifest(railtune, standin, out):
    args = [railtune, "sweep", "run", "-o", out, "--algos", "any", "--protos", "any", "--nvl-domains", "2", "--mnnvl",
            "on", "--env", AR + "=0,1", "--env", SPLIT + "=0,1", "--", standin, "-b", "512M", "-e", "16G", "-f", "2",
            "-g", "144"]
    run(args)
    with open(os.path.join(out, "manifest.jsonl")) as f:
        manifest = [json.loads(line) for line in f if line.strip()]
    ids = [e["id"] for e in manifest]
    expected = ["allreduce.default.%s.r0" % s for s in ("ar0-split0", "ar0-split1", "ar1-split0", "ar1-split1")]
    check(ids == expected, "run ids %s, expected %s" % (ids, expected))
    for e in manifest:
        setting = e.get("net_env", {})
        check(e["status"] == "ok", "%s: %s" % (e["id"], e["status"]))
        check(sorted(setting) == [AR, SPLIT], "%s: net_env %s" % (e["id"], setting))
        check(all(e["env"].get(k) == v for k, v in setting.items()), "%s: env lacks its setting" % e["id"])
        check(e["id"].split(".")[2] == "ar%s-split%s" % (setting.get(AR), setting.get(SPLIT)),
              "%s: the id does not say net_env %s" % (e["id"], setting))
    return args


def parsed_ratios(railtune, out):
    dataset = os.path.join(out, "dataset.jsonl")
    run([railtune, "sweep", "parse", out, "-o", dataset])
    busbw = defaultdict(dict)  # setting tag -> size -> out-of-place busbw
    for row in rows_of(dataset):
        setting = row.get("net_env", {})
        tag = "ar%s-split%s" % (setting.get(AR), setting.get(SPLIT))
        check(tag in row["source"], "%s:%d: net_env %s is not its run's" % (row["source"], row["line"], setting))
        busbw[tag][row["size"]] = row["out_of_place"]["busbw"]
    check(len(busbw) == 4, "settings in the dataset: %s" % sorted(busbw))
    base = busbw.get("ar0-split0", {})
    check(len(base) == 6, "sizes of ar0-split0: %d, expected 6 (512M..16G)" % len(base))
    for tag, want in (("ar1-split1", PUBLISHED), ("ar1-split0", 1.0), ("ar0-split1", 1.0)):
        for size, value in sorted(busbw.get(tag, {}).items()):
            ratio = value / base[size]
            check(abs(ratio / want - 1) <= TOLERANCE, "%s at %d: x%.3f of ar0-split0, expected x%.2f" %
                  (tag, size, ratio, want))
    return dataset


def parsed_from_nccl_lines(railtune, standin, work):
    output = os.path.join(work, "info.txt")
    env = dict(os.environ, NCCL_DEBUG="INFO", NCCL_IB_ADAPTIVE_ROUTING="1", NCCL_IB_SPLIT_DATA_ON_QPS="1",
               NCCL_IB_QPS_PER_CONNECTION="0x4")
    with open(output, "w") as f:
        subprocess.run([standin, "-b", "512M", "-e", "1G", "-f", "2", "-g", "144"], stdout=f, env=env, check=True)
    dataset = os.path.join(work, "info.jsonl")
    run([railtune, "sweep", "parse", output, "--nvl-domains", "2", "-o", dataset])
    want = {AR: "1", SPLIT: "1", "NCCL_IB_QPS_PER_CONNECTION": "4"}  # as NCCL prints it (%lld of strtoll)
    rows = rows_of(dataset)
    check(len(rows) == 2, "rows from NCCL's lines: %d, expected 2" % len(rows))
    for row in rows:
        check(row.get("net_env") == want, "net_env from NCCL's lines: %s, expected %s" % (row.get("net_env"), want))


def rules_use_one_setting(railtune, dataset, work):
    rules = os.path.join(work, "rules.json")
    refused = run([railtune, "sweep", "rules", dataset, "-o", rules], expect=2)
    check("--net-env-rows" in refused.stderr, "sweep rules without --net-env-rows: %s" % refused.stderr.strip())
    chosen = run([railtune, "sweep", "rules", dataset, "-o", rules, "--net-env-rows", AR + "=1," + SPLIT + "=1"])
    check("NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1" in chosen.stdout,
          "sweep rules --net-env-rows does not say the setting: %s" % chosen.stdout)
    check("18 rows of other --env settings left out" in chosen.stdout,
          "sweep rules --net-env-rows does not count the others: %s" % chosen.stdout)
    # The file records the setting in its description (NCCL's own choice only was run here, so there is no rule
    # whose evidence carries it: SweepRules.TheFileRecordsTheNetworkSettingOfItsRows holds that).
    check("measured under NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1\n" in chosen.stdout,
          "sweep rules' wrote line does not say the setting: %s" % chosen.stdout)
    with open(rules) as f:
        document = json.load(f)
    check("the rows measured under NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1" in document["description"],
          "the rules file's description does not say the setting: %s" % document["description"])


# A GB300 cluster of two NVL72 racks on four 800 Gb/s RoCE rails (the stand-in's NICs, net_settings.py LINK_LAYER).
FABRIC = """cluster: oci-gb300
profile: gb300-nvl72
domains: 2
rails: 4
linkLayer: Ethernet
"""


def one_domain_dataset(railtune, standin, work):
    out = os.path.join(work, "one-domain")
    run([railtune, "sweep", "run", "-o", out, "--algos", "any", "--protos", "any", "--nvl-domains", "1", "--mnnvl",
         "on", "--env", AR + "=0,1", "--env", SPLIT + "=0,1", "--", standin, "-b", "64M", "-e", "256M", "-f", "2",
         "-g", "8"])
    dataset = os.path.join(out, "dataset.jsonl")
    run([railtune, "sweep", "parse", out, "-o", dataset])
    return dataset


def check_net_env_file(path):
    with open(path) as f:
        doc = json.load(f)
    entries, undecided = doc.get("entries", []), doc.get("not_decided", [])
    check(len(entries) == 1, "net-env entries: %d, expected 1 (the 144-GPU shape)" % len(entries))
    check([u["shape"]["nodes"] for u in undecided] == [1], "net-env not_decided: %s, expected the one-node shape" %
          undecided)
    check(all("not network-bound" in u["why"] for u in undecided), "one-node why: %s" % undecided)
    if not entries:
        return
    e = entries[0]
    check(e["env"] == {AR: "1", SPLIT: "1"}, "winner %s, expected AR=1 SPLIT=1" % e["env"])
    check((e["shape"]["ranks"], e["shape"]["nodes"], e["shape"]["fabric"]["link_layer"]) == (144, 2, "RoCE"),
          "winner's shape %s" % e["shape"])
    ev = e["evidence"]
    check(abs(ev["median_gain"] / (PUBLISHED - 1) - 1) <= 0.05, "median gain %s, expected +70 %%" % ev["median_gain"])
    check(ev["runs"] == 1 and ev["baseline_runs"] == 1, "runs %s / %s, expected 1 / 1" % (ev["runs"],
                                                                                        ev["baseline_runs"]))
    check(len(ev["sizes"]) == 6, "judged sizes %s, expected 512M..16G" % ev["sizes"])
    check("1 run against 1" in e["description"], "description lacks '1 run': %s" % e["description"])


def net_env_winners(railtune, standin, dataset, work):
    net_env = os.path.join(work, "net-env.json")
    neither = run([railtune, "sweep", "rules", dataset], expect=2)
    check("give -o RULES.json, --net-env NET-ENV.json or both" in neither.stderr, "sweep rules with neither -o nor "
          "--net-env: %s" % neither.stderr.strip())
    other = one_domain_dataset(railtune, standin, work)
    done = run([railtune, "sweep", "rules", dataset, other, "--net-env", net_env])
    check("won: NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1" in done.stdout, "--net-env stdout lacks the "
          "winner: %s" % done.stdout)
    check("not decided: not network-bound" in done.stdout, "--net-env stdout lacks the one-node shape: %s" % done.stdout)
    check("baseline: NCCL's defaults (NCCL_IB_ADAPTIVE_ROUTING=0 NCCL_IB_SPLIT_DATA_ON_QPS=0)" in done.stdout,
          "--net-env baseline: %s" % done.stdout)
    if not os.path.exists(net_env):
        return
    check_net_env_file(net_env)
    fabric = os.path.join(work, "oci-gb300.yaml")
    with open(fabric, "w") as f:
        f.write(FABRIC)
    env = run([railtune, "topo", "env", "--fabric", fabric, "--measured", net_env, "--why"])
    lines = env.stdout.splitlines()
    for name in (AR, SPLIT):
        check("export %s=1" % name in lines, "topo env --measured does not export %s=1:\n%s" % (name, env.stdout))
        check(any(line.startswith("# %s=1: measured: net-env.json, allreduce on 144 ranks" % name) for line in lines),
              "topo env --why does not name %s=1 measured:\n%s%s" % (name, env.stdout, env.stderr))


def main():
    railtune, data, work = sys.argv[1:4]
    standin = os.path.join(data, "fake_all_reduce_perf")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "run")
    args = sweep_and_manifest(railtune, standin, out)
    dataset = parsed_ratios(railtune, out)
    parsed_from_nccl_lines(railtune, standin, work)
    rules_use_one_setting(railtune, dataset, work)
    net_env_winners(railtune, standin, dataset, work)
    other = [a if a != AR + "=0,1" else "NCCL_IB_QPS_PER_CONNECTION=1,4" for a in args]
    resumed = run(other, expect=2)
    check("allreduce.default.ar0-split0.r0 run with NCCL_IB_ADAPTIVE_ROUTING=0" in resumed.stderr and
          "--restart" in resumed.stderr, "resume with another matrix: %s" % resumed.stderr.strip())
    for f in failures:
        print(f, file=sys.stderr)
    print("sweep_env_matrix: %s" % ("failed" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
