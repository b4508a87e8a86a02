#!/usr/bin/env python3
"""nccl-tests outputs for the sweep scale benchmark (bench/run_sweep_scale.sh).

Writes FILES outputs of all_reduce_perf in nccl-tests 2.19.6's text format (version line, device lines, NCCL INFO
lines as NCCL_DEBUG=INFO prints them, the table of 8 B to 16 GiB, the footer), each padded with INFO lines to
BYTES_PER_FILE, forcing one (NCCL_ALGO, NCCL_PROTO) per file in turn, on 16 ranks of 2 hosts. Deterministic.
Also writes a sweep dataset of ROWS rows (railtune.sweep-dataset/1) when --dataset is given, and with --long-output
FILE --long-bytes N one output of N bytes (bench/run_sweep_parse_scale.sh): a single run whose table goes round the
32 sizes until the file is that long (as a benchmark looping over its sizes prints), an NCCL INFO line every 1000 rows.

    gen_nccl_tests_outputs.py OUTDIR FILES [--bytes-per-file N] [--dataset FILE --rows N]
                              [--long-output FILE --long-bytes N]
"""
import argparse
import os

CHOICES = [(None, None), ("Ring", "LL"), ("Ring", "LL128"), ("Ring", "Simple"), ("Tree", "LL"), ("Tree", "LL128"),
           ("Tree", "Simple"), ("NVLS", "Simple"), ("NVLSTree", "Simple")]
SIZES = [8 << i for i in range(32)]  # 8 B .. 16 GiB
RANKS = 16


def header(index, algo, proto):
    lines = ["# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807",
             "# Collective test starting: all_reduce_perf",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
             "validation: 1 graph: 0 unalign: 0", "#", "# Using devices"]
    for rank in range(RANKS):
        host = "gb300-r01-t%02d" % (1 + rank // 8)
        lines.append("#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] NVIDIA GB300" %
                     (rank, 4000 + index % 50000, host, rank % 8, 4 + rank % 8))
    for rank in range(RANKS):
        prefix = "gb300-r01-t%02d:%d:%d [%d] NCCL INFO " % (1 + rank // 8, 4000 + rank, 4100 + rank, rank % 8)
        if algo:
            lines.append(prefix + "NCCL_ALGO set by environment to " + algo)
            lines.append(prefix + "NCCL_PROTO set by environment to " + proto)
        lines.append(prefix + "comm 0x55d0c0de%04x rank %d nRanks %d nNodes 2 localRanks 8 localRank %d MNNVL 0" %
                     (rank, rank, RANKS, rank % 8))
    lines += ["#", "#                                                              out-of-place                       "
              "in-place          ",
              "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
              "busbw  #wrong ",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  "
              "(GB/s)         "]
    return lines


def row(size, scale):
    busbw = min(450.0, 0.0001 * size ** 0.55) * scale + 0.01
    algbw = busbw / (2.0 * (RANKS - 1) / RANKS)
    time_us = size / (algbw * 1e3)
    return "%12d  %12d  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6d  %7.2f  %6.2f  %6.2f  %6d" % (
        size, size // 4, "float", "sum", -1, time_us, algbw, busbw, 0, time_us * 0.99, algbw * 1.01, busbw * 1.01, 0)


def output(index, target):
    algo, proto = CHOICES[index % len(CHOICES)]
    scale = 0.8 + 0.05 * (index % len(CHOICES))
    lines = header(index, algo, proto)
    table = [row(s, scale) for s in SIZES]
    footer = ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 123.45 ", "#",
              "# Collective test concluded: all_reduce_perf", ""]
    text = "\n".join(lines + table + footer)
    filler = []
    length = len(text)
    n = 0
    while length < target:
        filler.append("gb300-r01-t01:4000:4100 [0] NCCL INFO Channel %02d/32 : %d[%d] -> %d[%d] via P2P/CUMEM/read" %
                      (n % 32, n % 8, n % 8, (n + 1) % 8, (n + 1) % 8))
        length += len(filler[-1]) + 1
        n += 1
    # NCCL's INFO lines come during init, between the device lines and the table.
    at = len(lines) - 4
    return "\n".join(lines[:at] + filler + lines[at:] + table + footer)


def dataset(path, rows):
    template = ('{"schema":"railtune.sweep-dataset/1","source":"runs/%s.txt","line":%d,"run":0,"test":"all_reduce_perf",'
                '"collective":"allreduce","size":%d,"count":%d,"type":"float","redop":"sum","root":-1,"choice":%s,'
                '"forced_by":"manifest","env":%s,"shape":{"ranks":%d,"hosts":%d,"nodes":1,"nvl_domains":1,'
                '"ranks_per_domain":%d},"out_of_place":{"time_us":%.2f,"algbw":%.2f,"busbw":%.2f,"wrong":0},'
                '"in_place":{"time_us":%.2f,"algbw":%.2f,"busbw":%.2f,"wrong":0},"valid":true,"repeat":%d}\n')
    with open(path, "w") as out:
        written = 0
        shape = 0
        while written < rows:
            ranks = 4 * (1 + shape % 18)
            for repeat in range(3):
                for c, (algo, proto) in enumerate(CHOICES):
                    choice = "{}" if algo is None else '{"algorithm":"%s","protocol":"%s"}' % (
                        algo.lower().replace("nvlstree", "nvls_tree"), proto.lower())
                    env = "{}" if algo is None else '{"NCCL_ALGO":"%s","NCCL_PROTO":"%s"}' % (algo, proto)
                    scale = 0.8 + 0.05 * ((c + shape) % len(CHOICES)) + 0.002 * repeat
                    lines = []
                    for i, size in enumerate(SIZES):
                        busbw = min(450.0, 0.0001 * size ** 0.55) * scale + 0.01
                        algbw = busbw / (2.0 * (ranks - 1) / ranks)
                        t = size / (algbw * 1e3)
                        lines.append(template % ("s%d-c%d-r%d" % (shape, c, repeat), 30 + i, size, size // 4, choice, env,
                                                 ranks, max(1, ranks // 4), ranks, t, algbw, busbw, t, algbw, busbw,
                                                 repeat))
                    take = min(len(lines), rows - written)
                    out.write("".join(lines[:take]))
                    written += take
                    if written >= rows:
                        return
            shape += 1


def long_output(path, target):
    """One run of all_reduce_perf, its table going round the sizes until the file holds target bytes. Prints the
    number of table rows written."""
    lines = header(7, "Ring", "LL128")
    footer = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 123.45 \n#\n# Collective test concluded: all_reduce_perf\n"
    block = "\n".join(row(s, 0.85) for s in SIZES) + "\n"
    info = "gb300-r01-t01:4000:4100 [0] NCCL INFO Channel 00/32 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    chunk = (block * 31 + block[:block.index("\n", len(block) // 4) + 1] + info)  # about 1000 rows, then one INFO line
    rows_per_chunk = 32 * 31 + block[:block.index("\n", len(block) // 4) + 1].count("\n")
    rows = 0
    with open(path, "w") as out:
        written = out.write("\n".join(lines) + "\n")
        while written + len(chunk) + len(footer) <= target:
            written += out.write(chunk)
            rows += rows_per_chunk
        out.write(footer)
    print(rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("files", type=int)
    parser.add_argument("--bytes-per-file", type=int, default=107374)
    parser.add_argument("--dataset")
    parser.add_argument("--rows", type=int, default=1000000)
    parser.add_argument("--long-output")
    parser.add_argument("--long-bytes", type=int, default=500 * 1000 * 1000)
    args = parser.parse_args()
    if args.long_output:
        long_output(args.long_output, args.long_bytes)
    os.makedirs(args.outdir, exist_ok=True)
    for i in range(args.files):
        with open(os.path.join(args.outdir, "run%05d.txt" % i), "w") as f:
            f.write(output(i, args.bytes_per_file))
    if args.dataset:
        dataset(args.dataset, args.rows)


if __name__ == "__main__":
    main()
