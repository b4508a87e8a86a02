#!/usr/bin/env bash
# The full truth-scored evaluation (docs/accuracy.md): every suite's full set of seeded scenarios
# (`railtune eval --set full`), hundreds per suite, emulated jobs and synthetic logs at 8 to 512 ranks.
# CI runs only the fixed seeds of `--set ci` (tests/eval); this is the run whose table docs/accuracy.md
# shows. Prints the machine, then each suite's table (scenarios, correct, targets, every miss with the
# command that replays it), and writes the JSON report beside it. Exit 0 when every target is met, 1 when
# one is missed, 2 when it could not run.
#   bench/eval_full.sh BUILD_DIR [SUITE...]     e.g. bench/eval_full.sh build hangs stragglers
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [SUITE...]" >&2; exit 2; }
build=$1
shift
railtune=$build/bin/railtune
[ -x "$railtune" ] || { echo "$0: $railtune not found: build first (make build)" >&2; exit 2; }
out=${EVAL_REPORT:-$build/eval-full.json}
echo "railtune $("$railtune" --version | cut -d' ' -f2), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: bench/eval_full.sh BUILD_DIR $*"
start=$SECONDS
rc=0
"$railtune" eval "$@" --set full --json >"$out" || rc=$?
[ "$rc" -le 1 ] || { echo "$0: railtune eval failed to run (exit $rc)" >&2; exit 2; }
python3 - "$out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for s in report["suites"]:
    t = s["total"]
    print(f"suite {s['suite']}: {int(t.get('scenarios', 0))} scenarios, {int(t.get('correct', 0))} correct, "
          f"{len(s['misses'])} missed, {s['seconds']:.0f} s")
    print(f"  {'kind':30} {'scenarios':>9} {'correct':>8}")
    for k in s["kinds"]:
        print(f"  {k['kind']:30} {k['scenarios']:9d} {k['correct']:8d}")
    for g in s["targets"]:
        v, th = g["value"], g["threshold"]
        fmt = (lambda x: "n/a" if x is None else f"{x * 100:.1f} %") if g["unit"] == "%" else \
              (lambda x: "n/a" if x is None else f"{x:.4g} {g['unit']}".strip())
        print(f"  target {g['name']}: {fmt(v)} {'>=' if g['at_least'] else '<='} {fmt(th)}  "
              f"{'met' if g['met'] else 'NOT MET'}")
    for m in s["misses"]:
        ranks = f" --ranks {m['ranks']}" if m["ranks"] else ""
        print(f"  miss: railtune eval {s['suite']} --kind {m['kind']} --seed {m['seed']}{ranks} ({m['shape']}): {m['miss']}")
PY
echo "wall: $((SECONDS - start)) s; JSON report: $out"
exit "$rc"
