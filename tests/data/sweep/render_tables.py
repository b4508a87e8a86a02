#!/usr/bin/env python3
"""Renders the recorded nccl-tests tables of tests/data/sweep/recorded/ from the published figures below.

Each file is what nccl-tests v2.19.6 (NCCL 2.28.7) prints for `all_reduce_perf -b 256K -e 256M -f 2` on one
set of GB300 NVL72 trays with one forced choice: the version line, the nThread line, the device lines, the
table (float sum, out-of-place and in-place) and the footer, byte for byte in the format of
nccl-tests/src/util.cu@v2.19.6 (docs/sweep.md, "Every format in the wild"). busbw is the published figure; the
in-place half is 0.2 % above it; algbw = busbw / (2(n-1)/n) and time(us) = size / algbw / 1e3, as
all_reduce.cu's AllReduceGetBw computes them backwards.

Shapes: 4, 8 and 16 GPUs are trays of one NVLink domain (NCCL's nNodes 1); 144 GPUs are two NVLink domains of 72
(two racks, nNodes 2 under MNNVL), over the network, for `-b 512M -e 16G`, NCCL's own choice only (no forced choice
of that shape is published). A multi-node shape also has tables per published effect of NCCL's IB settings
(net_settings.py): recorded/g<N>/<effect id>/<choice>.txt, e.g. recorded/g144/ar1-split1/default.txt.

tests/data/sweep/fake_all_reduce_perf (the stand-in `railtune sweep run` drives in tests) reads these files and
prints them again with rendering functions of this module, restricted to -b..-e and with a small jitter.

usage: render_tables.py          write recorded/g{4,8,16,144}/[<effect id>/]<choice>.txt
       render_tables.py --check  exit 1 when a recorded file differs from what this script renders
       render_tables.py --explain GPUS [NAME=VALUE ...]
                                 which table NCCL's own choice prints on GPUS under those settings, and why
"""
import argparse
import hashlib
import json
import os
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import net_settings  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "recorded")

VERSION_LINE = "# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807"
SIZES = [256 << 10 << i for i in range(11)]  # 256K .. 256M
SIZES_TWO_RACKS = [512 << 20 << i for i in range(6)]  # 512M .. 16G, the published rows
# NVLink domains of each shape: NCCL's nNodes under MNNVL (one node per domain).
DOMAINS = {4: 1, 8: 1, 16: 1, 144: 2}
GPUS_PER_TRAY = 4
GPU_NAME = "NVIDIA GB300"
# The four GPUs of a Grace Blackwell compute tray, as domain:bus:device.
BUS_IDS = ["0008:01:00", "0009:01:00", "0018:01:00", "0019:01:00"]


def _scaled(values, factor):
    return [round(v * factor, 2) for v in values]


def _wobble(values):
    """The default's figures within +-0.5 % (a forced NVLS where NVLS is NCCL's own pick)."""
    steps = [0.004, -0.003, 0.002, -0.005, 0.001, -0.002, 0.005, -0.001, 0.003, -0.004, 0.0]
    return [round(v * (1 + s), 2) for v, s in zip(values, steps)]


def _figures():
    sets = {}
    # 8 GPUs: 2 trays x 4 of one GB300 NVL72 (one NVLink domain, MNNVL).
    d8 = [60, 95, 140, 190, 230, 260, 320, 420, 560, 650, 700]
    sets[8] = {
        "hosts": ["gb300-r01-t01", "gb300-r01-t02"],
        "default": d8,
        # +20/+42/+35/+30 % at 4-32 MiB (the published GB300 result); worse from 64 MiB.
        "ring/ll128": [61, 97, 143, 193, 276, 369, 432, 546, 500, 520, 530],
        # +9/+6 % at 64/128 MiB; +2 % at 256 MiB (noise).
        "ring/simple": [40, 70, 110, 160, 210, 250, 300, 400, 610, 689, 714],
        "ring/ll": [61, 94, 120, 130, 110, 90, 80, 70, 60, 55, 50],
        "tree/ll": [55, 85, 110, 115, 100, 85, 75, 65, 55, 50, 45],
        "tree/ll128": [50, 80, 120, 170, 200, 220, 260, 340, 420, 480, 500],
        "tree/simple": [45, 75, 115, 165, 205, 230, 280, 360, 470, 540, 580],
        "nvls/simple": _wobble(d8),
    }
    # 4 GPUs: one tray; NCCL's default mis-picks the protocol at 4-32 MiB.
    d4 = [70, 110, 160, 210, 250, 280, 330, 430, 580, 660, 720]
    sets[4] = {
        "hosts": ["gb300-r01-t01"],
        "default": d4,
        # +20/+21/+21/+16 % at 4-32 MiB.
        "ring/simple": [50, 85, 130, 190, 300, 340, 400, 500, 590, 670, 730],
        "ring/ll128": [72, 112, 162, 212, 255, 285, 335, 430, 560, 640, 700],
        "ring/ll": [71, 108, 140, 150, 130, 110, 95, 80, 70, 65, 60],
        "tree/ll": _scaled(d4, 0.85),
        "tree/ll128": _scaled(d4, 0.85),
        "tree/simple": _scaled(d4, 0.85),
        "nvls/simple": _wobble(d4),
    }
    # 16 GPUs: 4 trays of one NVL72; NVLS (NCCL's default) is best, forcing ring loses up to 58 %.
    d16 = [80, 130, 190, 260, 330, 420, 520, 620, 700, 760, 800]
    sets[16] = {
        "hosts": ["gb300-r01-t01", "gb300-r01-t02", "gb300-r01-t03", "gb300-r01-t04"],
        "default": d16,
        "ring/simple": [40, 60, 90, 120, 150, 180, 230, 300, 380, 460, 520],
        # -58 % at 16 MiB against the default.
        "ring/ll128": [50, 75, 100, 130, 140, 176, 220, 260, 300, 330, 340],
        "ring/ll": [45, 60, 70, 70, 60, 50, 40, 35, 30, 28, 25],
        "tree/ll": _scaled(d16, 0.70),
        "tree/ll128": _scaled(d16, 0.70),
        "tree/simple": _scaled(d16, 0.70),
        "nvls/simple": _wobble(d16),
    }
    # 144 GPUs: 2 racks (NVLink domains) of 18 trays. NCCL's own choice under NCCL's IB defaults: the "ar1-split1"
    # table below divided by the one published ratio of that effect (x1.70, net_settings.EFFECTS).
    ratio = net_settings.ratio_of("ar1-split1")
    sets[144] = {
        "hosts": ["gb300-r%02d-t%02d" % (rack, tray) for rack in (1, 2) for tray in range(1, 19)],
        "default": [(round(oop / ratio, 2), round(ip / ratio, 2)) for oop, ip in TWO_RACKS_PUBLISHED],
    }
    return sets


# The only published all-reduce table of two NVLink domains of 72 joined by a network that we know of:
# github.com/coreweave/nccl-tests README.md @cb86553 (2026-05-27), "Expected Performance > GB200 > 2 Racks": GB200
# NVL72, NCCL 2.26.2, all_reduce_perf -b 16M -e 16G -f 2 -g 1, rows from 512 MiB only; busbw out-of-place, in-place
# (GB/s). Its fabric is InfiniBand, where NCCL's adaptive routing is on by default (net_ib.cc:797@v2.28.7-1): traffic
# already spread over the paths, the state PR #287 reached on RoCE with NCCL_IB_ADAPTIVE_ROUTING=1 and
# NCCL_IB_SPLIT_DATA_ON_QPS=1. So these figures are that effect's table, and NCCL's RoCE defaults (the stand-in's
# NICs) get them divided by its ratio. The absolute GB/s are GB200's on InfiniBand, not a measurement of GB300 on
# RoCE: only the ratio between the two tables is published for this effect. (The published busbw/algbw is
# all-reduce's factor for 128 ranks; busbw is taken as published and algbw recomputed for 144.)
TWO_RACKS_PUBLISHED = [(493.94, 508.83), (596.10, 597.59), (680.30, 680.91), (743.09, 745.36), (793.06, 791.88),
                       (810.41, 820.36)]
# (GPUs, effect id) -> {choice: figures}: the tables of a published effect of NCCL's IB settings.
NET_FIGURES = {(144, "ar1-split1"): {"default": TWO_RACKS_PUBLISHED}}


FIGURES = _figures()


def file_name(choice):
    return choice.replace("/", "-") + ".txt"


def recorded_path(gpus, choice, effect=None):
    return os.path.join(RECORDED, "g%d" % gpus, effect or "", file_name(choice))


def sizes_of(gpus):
    return SIZES_TWO_RACKS if gpus == 144 else SIZES


def table_for(gpus, choice, env):
    """(recorded path, why) of the table a run of CHOICE on GPUS prints under the environment ENV."""
    effect, why = net_settings.variant(env, DOMAINS[gpus])
    if effect and (gpus, effect) in NET_FIGURES:
        return recorded_path(gpus, choice, effect), why
    return recorded_path(gpus, choice), why


def pids(gpus):
    """One process per tray (mpirun -np <trays> all_reduce_perf_mpi -g 4): a pid per host."""
    return [41230 + 1117 * i for i in range(len(FIGURES[gpus]["hosts"]))]


def float_str(value, width):
    """nccl-tests' getFloatStr (src/util.cu:487-492@v2.19.6)."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        text = fmt % (width, value)
        if len(text) <= width:
            return text
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, value)


def format_g(value):
    return "%g" % value


def bus_factor(ranks):
    return 2.0 * (ranks - 1) / ranks


def row_values(size, busbw, ranks):
    """(time us, algbw, busbw) of one half as nccl-tests computes them."""
    algbw = busbw / bus_factor(ranks)
    time_us = size / algbw / 1e3
    return time_us, algbw, busbw


def header_lines(gpus, min_bytes, max_bytes, step_factor, program="all_reduce_perf"):
    hosts = FIGURES[gpus]["hosts"]
    lines = [VERSION_LINE, "# Collective test starting: %s" % program]
    lines.append(
        "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d "
        "validation: %d graph: %d unalign: %d" % (1, GPUS_PER_TRAY, min_bytes, max_bytes, step_factor, "factor", 1, 20, 1, 1, 0, 0))
    lines.append("#")
    lines.append("# Using devices")
    for h, host in enumerate(hosts):
        for d in range(GPUS_PER_TRAY):
            rank = h * GPUS_PER_TRAY + d
            lines.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s" %
                         (rank, 0, pids(gpus)[h], host, d, BUS_IDS[d], GPU_NAME))
    return lines


def table_header_lines():
    return [
        "#",
        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" %
        ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
         0, ""),
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" %
        ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, ""),
    ]


def table_body(gpus, rows, program="all_reduce_perf"):
    """The rows ((size, out-of-place busbw, in-place busbw)) and the footer, as lines."""
    ranks = len(FIGURES[gpus]["hosts"]) * GPUS_PER_TRAY
    lines = []
    total, count = 0.0, 0
    for size, oop, ip in rows:
        line = "%12d  %12d  %8s  %6s  %6s" % (size, size // 4, "float", "sum", "%6i" % -1)
        for busbw in (oop, ip):
            time_us, algbw, bus = row_values(size, busbw, ranks)
            line += "  %7s  %6s  %6s  %6s" % (float_str(time_us, 7), float_str(algbw, 6), float_str(bus, 6), format_g(0))
            total += bus
            count += 1
        lines.append(line)
    average = total / count if count else 0.0
    lines.append("# %-20s : %d %s" % ("Out of bounds values", 0, "OK"))
    lines.append("# %-20s : %s %s" % ("Avg bus bandwidth", format_g(average), ""))
    lines.append("#")
    lines.append("# Collective test concluded: %s" % program)
    lines.append("#")
    lines.append("")  # writeErrors: no NCCL error, an empty line
    return lines


def render_text(gpus, rows, min_bytes, max_bytes, step_factor, program="all_reduce_perf"):
    """rows: [(size, out-of-place busbw, in-place busbw)]. Returns the whole output, as nccl-tests prints it."""
    lines = header_lines(gpus, min_bytes, max_bytes, step_factor, program) + table_header_lines()
    return "\n".join(lines + table_body(gpus, rows, program)) + "\n"


def render_json(gpus, rows, args, env, min_bytes, max_bytes, step_factor, start_time, end_time):
    """nccl-tests' -J file (JSON version 3, src/util.cu@v2.19.6): one line, doubles as %lf, booleans as strings."""
    ranks = len(FIGURES[gpus]["hosts"]) * GPUS_PER_TRAY

    def num(value):
        return "%f" % value

    def string(value):
        return json.dumps(value)

    devices = []
    for h, host in enumerate(FIGURES[gpus]["hosts"]):
        for d in range(GPUS_PER_TRAY):
            devices.append('{"rank":%d,"group":0,"pid":%d,"hostname":%s,"device":%d,"device_hex":%s,"device_info":%s}' %
                           (h * GPUS_PER_TRAY + d, pids(gpus)[h], string(host), d,
                            string(BUS_IDS[d]), string(GPU_NAME)))
    results = []
    total, count = 0.0, 0
    for size, oop, ip in rows:
        halves = []
        for key, busbw in (("out_of_place", oop), ("in_place", ip)):
            time_us, algbw, bus = row_values(size, busbw, ranks)
            halves.append('"%s":{"time":%s,"alg_bw":%s,"bus_bw":%s,"nwrong":%s}' %
                          (key, num(time_us), num(algbw), num(bus), num(0)))
            total += bus
            count += 1
        results.append('{"size":%d,"count":%d,"type":"float","redop":"sum","root":"    -1",%s,'
                       '"actual_iterations":20,"experiment_name":""}' % (size, size // 4, ",".join(halves)))
    config = ('{"nthreads":1,"ngpus":%d,"minimum_bytes":%d,"maximum_bytes":%d,"step_factor":%d,"warmup_iters":1,'
              '"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,"blocking_collectives":"false",'
              '"per_iter_timing":"false","per_iter_skip":0,"parallel_init":"false","devices":[%s]}' %
              (GPUS_PER_TRAY, min_bytes, max_bytes, step_factor, ",".join(devices)))
    average = total / count if count else 0.0
    return ('{"version":3,"start_time":%s,"args":[%s],"env":[%s],"nccl_version":22807,"config":%s,"results":[%s],'
            '"out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":%s,"okay":"unchecked"},'
            '"errors":[""],"end_time":%s}' %
            (string(start_time), ",".join(string(a) for a in args), ",".join(string(e) for e in env), config,
             ",".join(results), num(average), string(end_time)))


def recorded_rows(gpus, choice, effect=None):
    figures = NET_FIGURES[(gpus, effect)][choice] if effect else FIGURES[gpus][choice]
    rows = []
    for size, busbw in zip(sizes_of(gpus), figures):
        oop, ip = busbw if isinstance(busbw, tuple) else (float(busbw), round(busbw * 1.002, 2))
        rows.append((size, oop, ip))
    return rows


def read_recorded_rows(path):
    """The rows of a recorded file: (size, out-of-place busbw, in-place busbw)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            words = line.split()
            rows.append((int(words[0]), float(words[7]), float(words[11])))
    return rows


def choices(gpus):
    return [c for c in FIGURES[gpus] if c != "hosts"]


def expected_files():
    files = {}
    for gpus in sorted(FIGURES):
        sizes = sizes_of(gpus)
        for choice in choices(gpus):
            files[recorded_path(gpus, choice)] = render_text(gpus, recorded_rows(gpus, choice), sizes[0], sizes[-1], 2)
    for (gpus, effect), figures in sorted(NET_FIGURES.items()):
        sizes = sizes_of(gpus)
        for choice in figures:
            files[recorded_path(gpus, choice, effect)] = render_text(gpus, recorded_rows(gpus, choice, effect),
                                                                     sizes[0], sizes[-1], 2)
    return files


def jitter(seed, size, half):
    """A deterministic factor within +-1 % for one value of one run (seeded from RAILTUNE_SWEEP_RUN_ID)."""
    digest = hashlib.sha256(("%s/%d/%d" % (seed, size, half)).encode()).digest()
    return 1.0 + (int.from_bytes(digest[:4], "big") / 0xFFFFFFFF * 2.0 - 1.0) * 0.01


def explain(words):
    """Prints the table NCCL's own choice prints on a shape under NCCL_IB_* settings, and why."""
    try:
        gpus = int(words[0])
        env = dict(word.split("=", 1) for word in words[1:])
    except ValueError:
        print("usage: render_tables.py --explain GPUS [NAME=VALUE ...]")
        return 2
    if gpus not in FIGURES:
        print("no recorded table for %d GPUs (%s)" % (gpus, ", ".join(str(g) for g in sorted(FIGURES))))
        return 2
    path, why = table_for(gpus, "default", env)
    print("%s: %s" % (os.path.relpath(path, HERE), why))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--explain", nargs="+", metavar="ARG", help="GPUS [NAME=VALUE ...]")
    args = parser.parse_args()
    if args.explain:
        return explain(args.explain)
    stale = []
    for path, text in expected_files().items():
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    current = f.read()
            except OSError:
                current = None
            if current != text:
                stale.append(os.path.relpath(path, HERE))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if args.check:
        known = set(expected_files())
        for root, _, names in os.walk(RECORDED):
            for name in names:
                if os.path.join(root, name) not in known:
                    stale.append(os.path.relpath(os.path.join(root, name), HERE) + " (not rendered by this script)")
        if stale:
            print("recorded tables are not current (run tests/data/sweep/render_tables.py):\n  " + "\n  ".join(stale))
            return 1
        print("recorded tables are current: %d files" % len(known))
    return 0


if __name__ == "__main__":
    sys.exit(main())
