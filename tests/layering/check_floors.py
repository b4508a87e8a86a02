#!/usr/bin/env python3
"""The floors of docs/design.md, checked on the include graph of the sources.

Every quoted include that names a project folder ("formats/path_log.h") is an edge from the
including file's top-level folder to that folder. An edge is allowed when the target folder is
on a lower floor, or is the same folder, or is one of the few same-floor uses the table names.
The three plugins meet only through NCCL and files: none includes another's code; the emulator, the
analyses and the CLI meet them the same way (through nccl/ and formats/), the CLI but for the few uses
CLI_PLUGIN_USES names, each with its reason.

Also checks that the README's "Layout" table lists exactly the top-level folders.

Usage: check_floors.py SOURCE_ROOT        exit 0 when clean; otherwise one line per offending
                                          include, FILE:LINE: folder -> folder (why), and exit 1.
"""
import os
import re
import subprocess
import sys

# Floor of each product folder; tests/ and bench/ sit above everything and may include anything.
FLOORS = {
    "nccl": 0, "common": 0,
    "formats": 1,
    "fabric": 2, "topo_gen": 2, "tuner_plugin": 2, "net_plugin": 2, "profiler_plugin": 2,
    "env_plugin": 2,
    "emulator": 3, "analysis": 3, "nccl-tests-integration": 3, "eval": 3, "doctor": 3,
    "cli": 4,
}
PLUGINS = {"tuner_plugin", "net_plugin", "profiler_plugin", "env_plugin"}
# Uses within one floor that the design allows (docs/design.md, "Floors"):
#  topo_gen renders the fabric model; common's log is told its NCCL logger type by nccl/; the sweep tools
#  read their many files through the analyses' ingest stack (analysis/ingest); the evaluations drive the
#  analyses and the emulator they score, and `sweep fit` (nccl-tests-integration/fit's entry points); the
#  doctor checks plugins against the emulator's NCCL loader rules (plugin names, symbol versions per release)
#  and opens them with it in its probe child.
SAME_FLOOR = {("topo_gen", "fabric"), ("common", "nccl"), ("nccl-tests-integration", "analysis"),
              ("eval", "analysis"), ("eval", "emulator"), ("doctor", "emulator"),
              ("nccl-tests-integration", "emulator"), ("eval", "nccl-tests-integration")}
# Floor 3 meets the plugins the way NCCL does: the emulator loads the .so files through the NCCL ABI
# (nccl/), the analyses and the sweep tools read the files they write (formats/), the doctor reads their ELF
# files and loads them in a child. None includes a plugin's code.
THROUGH_ABI_AND_FILES = {"emulator", "analysis", "nccl-tests-integration", "eval", "doctor"}
# ABI declarations that live in a plugin but describe another project's interface, which floor 3 may
# implement: the verbs simulator (emulator/verbs_sim) is a libibverbs, declared by the verbs transport's
# copy of rdma-core's structs. Only these headers, and only for these folders.
FOREIGN_ABI_HEADERS = {("emulator", "net_plugin/transports/ib/verbs_abi.h")}
# The CLI (floor 4) meets the plugins as floor 3 does, through formats/ and the NCCL ABI (it loads the .so files
# in the emulator or in `doctor probe`). These are the only uses of a plugin's code it has, each with its reason
# (docs/design.md, "Floors"); a key is (file, included header or folder/ prefix). Any other include of
# tuner_plugin/, net_plugin/ or profiler_plugin/ from cli/ fails, and so does an entry whose file no longer
# makes the include. The tuner's rules files are a format (formats/tuner_rules/) that the sweep tools and
# `tuner decisions` read without the tuner's code; what remains is the tuner's own engine.
CLI_PLUGIN_USES = {
    ("cli/tuner/compute.cc", "tuner_plugin/"):
        "`tuner decisions` asks the tuner's own rules index and cost model what the plugin would choose",
    ("cli/tuner/fit_column.cc", "tuner_plugin/"):
        "`tuner decisions --model-file` asks the tuner's own fit coverage which fit covers the communicator",
}
# The net plugin's transports stand side by side: neither includes the other's files. What both need (the TCP
# setup stream: listen handle, hellos, preambles) is a module of its own beside them, net_plugin/transports/tcp_setup/.
SIDE_BY_SIDE_TRANSPORTS = ("net_plugin/transports/socket/", "net_plugin/transports/ib/")
# Folders outside the floors: test and benchmark code, and the build's own helpers.
UNCHECKED = {"tests", "bench", "cmake", "scripts", "docs", "generated"}
SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def source_files(root):
    """Tracked files when ROOT is a git work tree's top level, else every file under ROOT."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, check=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath(root):
            listed = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                                     "--exclude-standard"], capture_output=True, text=True,
                                    check=True).stdout.split("\n")
            return [f for f in listed if f and os.path.exists(os.path.join(root, f))]
    except (subprocess.CalledProcessError, FileNotFoundError):
        pass
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not d.startswith("build")]
        for name in filenames:
            found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return found


def cli_plugin_use(path, header):
    """The CLI_PLUGIN_USES key that allows PATH to include HEADER, or None."""
    for (allowed_path, allowed_header) in CLI_PLUGIN_USES:
        if path == allowed_path and (header == allowed_header or
                                     (allowed_header.endswith("/") and header.startswith(allowed_header))):
            return (allowed_path, allowed_header)
    return None


def transports_problem(path, header):
    mine = [t for t in SIDE_BY_SIDE_TRANSPORTS if path.startswith(t)]
    if mine and header.startswith(SIDE_BY_SIDE_TRANSPORTS) and not header.startswith(mine[0]):
        return "the transports stand side by side; what both need is in net_plugin/transports/tcp_setup/"
    return None


def edge_problem(source_folder, target_folder, header="", path=""):
    if transports_problem(path, header):
        return transports_problem(path, header)
    if source_folder == target_folder or source_folder in UNCHECKED:
        return None
    if (source_folder, header) in FOREIGN_ABI_HEADERS:
        return None
    if target_folder not in FLOORS:
        return None  # a generated header or a system-style path: not a project folder
    if source_folder in PLUGINS and target_folder in PLUGINS:
        return "the plugins meet only through NCCL and files"
    if source_folder == "cli" and target_folder in PLUGINS and not cli_plugin_use(path, header):
        return "cli meets the plugins through formats/ and the NCCL ABI; its few uses of plugin code are CLI_PLUGIN_USES"
    if source_folder in THROUGH_ABI_AND_FILES and target_folder in PLUGINS:
        return f"{source_folder} meets the plugins only through the NCCL ABI and their files"
    if (source_folder, target_folder) in SAME_FLOOR:
        return None
    source_floor, target_floor = FLOORS[source_folder], FLOORS[target_folder]
    if target_floor > source_floor:
        return f"floor {source_floor} may not use floor {target_floor}"
    if target_floor == source_floor:
        return f"sideways on floor {source_floor}"
    return None


def check_includes(root, files):
    problems = []
    used = set()
    for path in files:
        if not path.endswith(SOURCE_SUFFIXES):
            continue
        folder = path.split("/", 1)[0]
        if folder not in FLOORS and folder not in UNCHECKED:
            problems.append(f"{path}: folder '{folder}' has no floor in tests/layering/check_floors.py")
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                match = INCLUDE.match(line)
                if not match or "/" not in match.group(1):
                    continue
                target = match.group(1).split("/", 1)[0]
                why = edge_problem(folder, target, match.group(1), path)
                if why:
                    problems.append(f"{path}:{number}: {folder} -> {target} ({why}): {match.group(1)}")
                elif folder == "cli" and target in PLUGINS:
                    used.add(cli_plugin_use(path, match.group(1)))
    for (allowed_path, allowed_header) in sorted(CLI_PLUGIN_USES):
        if allowed_path in files and (allowed_path, allowed_header) not in used:
            problems.append(f"{allowed_path}: CLI_PLUGIN_USES allows it {allowed_header}, which it no longer "
                            "includes: remove the entry")
    return problems


def check_readme_layout(root, files):
    """The README's Layout table names each top-level folder once, and no other."""
    readme = os.path.join(root, "README.md")
    if not os.path.exists(readme):
        return [f"README.md: missing"]
    listed, in_layout = [], False
    with open(readme, encoding="utf-8") as text:
        for line in text:
            if line.startswith("## "):
                in_layout = line.strip() == "## Layout"
                continue
            match = re.match(r"^\|\s*`([^`/]+)/`", line) if in_layout else None
            if match:
                listed.append(match.group(1))
    folders = {f.split("/", 1)[0] for f in files if "/" in f and not f.startswith(".")}
    problems = []
    if not listed:
        problems.append("README.md: no '## Layout' table of `folder/` rows")
    for name in sorted(folders - set(listed)):
        problems.append(f"README.md: Layout table lacks `{name}/`")
    for name in sorted(set(listed) - folders):
        problems.append(f"README.md: Layout table lists `{name}/`, which does not exist")
    for name in sorted({n for n in listed if listed.count(n) > 1}):
        problems.append(f"README.md: Layout table lists `{name}/` twice")
    return problems


def source_root_argument(doc):
    """The one argument, SOURCE_ROOT; None, with the usage of DOC (its last paragraph) printed, otherwise."""
    if len(sys.argv) != 2:
        print(doc.strip().split("\n\n")[-1], file=sys.stderr)
        return None
    return sys.argv[1]


def report(problems, failure, success):
    """Prints each problem and, on stderr, `failure` (a format with {count}); else `success`. The exit status."""
    for problem in problems:
        print(problem)
    if problems:
        print(failure.format(count=len(problems)), file=sys.stderr)
        return 1
    print(success)
    return 0


def main():
    root = source_root_argument(__doc__)
    if root is None:
        return 2
    files = source_files(root)
    problems = check_includes(root, files) + check_readme_layout(root, files)
    return report(problems, "{count} layering problem(s); the floors are in docs/design.md",
                  f"layering: {len(files)} files, every include keeps to its floor")


if __name__ == "__main__":
    sys.exit(main())
