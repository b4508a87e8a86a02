#!/usr/bin/env python3
"""docs/design.md's Layout and Floors tables against the tree.

Layout: each row's first cell names folders (`name/`); every one exists, every top-level folder of the
tree is named by a row, and every file or folder a row names in backquotes (`params.h`, `rules/`,
`doctor/probe.h`, `profiles/*.yaml`) exists, from the repository root or inside one of the row's folders.
Floors: each folder the table names sits on the floor check_floors.py gives it, and every folder of the
floors is named.

Usage: check_design_tables.py SOURCE_ROOT   exit 0 when the tables match; otherwise one line per
                                            mismatch, and exit 1.
"""
import fnmatch
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_floors import FLOORS, report, source_files, source_root_argument  # noqa: E402  (one list of floors, one list of files)

DESIGN = "docs/design.md"
TICKED = re.compile(r"`([^`]+)`")
# A backquoted word is a path when it holds a slash or ends as the sources do; targets, variables,
# commands and runtime files (`railtune_common`, `running.json`, `<build>/lib/`) are not.
PATH_SUFFIXES = (".h", ".cc", ".c", ".cmake", ".yaml", ".py", ".sh", ".md", ".map")
NOT_A_PATH = re.compile(r"[<>{}\s=:,()]|^\.\.\.|^-|^lib.*\.so")


def table_rows(lines, section):
    """The cells of each row of the first table under `## section`."""
    rows, inside = [], False
    for line in lines:
        if line.startswith("## "):
            inside = line.strip() == "## " + section
            continue
        if inside and line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[1:]  # the header row


def looks_like_path(word):
    if NOT_A_PATH.search(word):
        return False
    return "/" in word or word.endswith(PATH_SUFFIXES)


def exists(word, bases, files, folders):
    """word from the root, inside a base, or anywhere below a base (`verbs_abi.h` in net_plugin/)."""
    name = word.rstrip("/")
    wanted_folder = word.endswith("/")
    candidates = folders if wanted_folder else files | folders
    for base in [""] + bases:
        full = base + name
        if "*" in name:
            if fnmatch.filter(files, full) or any(fnmatch.fnmatch(f, base + "*/" + name) for f in files):
                return True
            continue
        if full in candidates:
            return True
        if base and any(c.startswith(base) and c.endswith("/" + name) for c in candidates):
            return True
    return False


def check_layout(rows, files, folders):
    problems, named = [], set()
    for cells in rows:
        if len(cells) < 2:
            continue
        bases = [w for w in TICKED.findall(cells[0]) if w.endswith("/")]
        for base in bases:
            named.add(base.split("/", 1)[0])
            if base.rstrip("/") not in folders:
                problems.append(f"{DESIGN}: Layout row `{base}`: no such folder")
        for cell in cells[1:]:
            for word in TICKED.findall(cell):
                if looks_like_path(word) and not exists(word, bases, files, folders):
                    where = ", ".join(f"`{b}`" for b in bases) or cells[0]
                    problems.append(f"{DESIGN}: Layout row {where} names `{word}`, which does not exist")
    top = {f.split("/", 1)[0] for f in files if "/" in f and not f.startswith(".")}
    for name in sorted(top - named):
        problems.append(f"{DESIGN}: Layout table lacks a row for `{name}/`")
    return problems


def check_floors_table(rows):
    problems, named = [], {}
    for cells in rows:
        if len(cells) < 2 or not cells[0].isdigit():
            continue
        for word in TICKED.findall(cells[1]):
            if word.endswith("/"):
                named[word.rstrip("/")] = int(cells[0])
    for folder, floor in sorted(FLOORS.items()):
        if folder not in named:
            problems.append(f"{DESIGN}: Floors table lacks `{folder}/` (floor {floor})")
        elif named[folder] != floor:
            problems.append(f"{DESIGN}: Floors table puts `{folder}/` on floor {named[folder]}; the check says {floor}")
    for folder in sorted(set(named) - set(FLOORS)):
        problems.append(f"{DESIGN}: Floors table names `{folder}/`, which has no floor in the check")
    return problems


def main():
    root = source_root_argument(__doc__)
    if root is None:
        return 2
    path = os.path.join(root, DESIGN)
    if not os.path.exists(path):
        print(f"{DESIGN}: missing")
        return 1
    files = set(source_files(root))
    folders = {os.path.dirname(f) for f in files}
    folders |= {"/".join(f.split("/")[:i]) for f in folders for i in range(1, f.count("/") + 1)}
    with open(path, encoding="utf-8") as text:
        lines = text.readlines()
    problems = check_layout(table_rows(lines, "Layout"), files, folders)
    problems += check_floors_table(table_rows(lines, "Floors"))
    return report(problems, "{count} mismatch(es) between " + DESIGN + "'s tables and the tree",
                  f"{DESIGN}: the Layout and Floors tables match the tree")


if __name__ == "__main__":
    sys.exit(main())
