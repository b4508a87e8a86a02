#!/usr/bin/env python3
"""`railtune sweep parse` of one output longer than the rows written on the reading thread (65,536, then a
second thread writes the dataset lines, nccl-tests-integration/dataset/row_text.h): a recorded table repeated
until the output holds 132,000 rows. Each copy's dataset lines must be the single table's lines, in order, with
only the line numbers, the run index and the source moved on: a batch lost, written twice or out of order fails.

Usage: sweep_parse_long_output.py RAILTUNE WORK_DIR TABLE.txt
"""
import json
import os
import subprocess
import sys

COPIES = 12000  # x 11 rows: about twice the rows the reading thread writes itself


def parse(railtune, source, output):
    done = subprocess.run([railtune, "sweep", "parse", source, "-o", output], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: sweep parse {source} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    with open(output, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def main():
    railtune, work, table = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    with open(table, encoding="utf-8") as text:
        one = text.read()
    lines_per_copy = one.count("\n")
    small, big = os.path.join(work, "one.txt"), os.path.join(work, "long.txt")
    with open(small, "w", encoding="utf-8") as out:
        out.write(one)
    with open(big, "w", encoding="utf-8") as out:
        out.write(one * COPIES)
    single = parse(railtune, small, os.path.join(work, "one.jsonl"))
    rows = parse(railtune, big, os.path.join(work, "long.jsonl"))
    if not single or len(rows) != len(single) * COPIES:
        sys.exit(f"FAIL: {len(rows)} rows from {COPIES} copies of a table of {len(single)}")
    for i, row in enumerate(rows):
        copy, expected = divmod(i, len(single))
        want = dict(single[expected], source=big, run=copy, line=single[expected]["line"] + copy * lines_per_copy)
        if row != want:
            sys.exit(f"FAIL: row {i} (copy {copy}) is\n{json.dumps(row)}\nnot\n{json.dumps(want)}")
    print(f"ok: {len(rows)} rows from {COPIES} copies, each copy's rows in order and whole")


if __name__ == "__main__":
    main()
