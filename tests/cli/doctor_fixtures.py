#!/usr/bin/env python3
"""Writes the files `railtune doctor`'s CLI tests feed it (tests/cli/doctor.cmake), into OUT:

  aarch64/     libnccl-{net,tuner,profiler}-railtune.so: a valid ELF64 header for EM_AARCH64 (a
               shared object's header, no sections), as a foreign-architecture build looks to doctor
  truncated/   the first 4 KiB of each real plugin in PLUGIN_DIR, as a copy cut short looks
  empty/       no plugin at all
  topo.fifo    a FIFO where NCCL_TOPO_FILE should be a file (doctor must not block on it)
  topo-dir/    a directory in its place
  topo-bad.xml a topology file NCCL's parser rejects
  topo-unreadable.xml  a topology file of mode 000 (as_unprivileged.sh runs doctor where that denies reads)

Usage: doctor_fixtures.py OUT PLUGIN_DIR
"""
import os
import shutil
import struct
import sys

KINDS = ("net", "tuner", "profiler")
EM_AARCH64 = 183
ET_DYN = 3


def elf64_header(machine):
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # ELF64, little-endian, version 1
    # e_type, e_machine, e_version, e_entry, e_phoff, e_shoff, e_flags, e_ehsize,
    # e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx
    return ident + struct.pack("<HHIQQQIHHHHHH", ET_DYN, machine, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


def main(out, plugin_dir):
    os.makedirs(out, exist_ok=True)
    for sub in ("aarch64", "truncated", "empty", "topo-dir"):
        fresh(os.path.join(out, sub))
    for kind in KINDS:
        name = "libnccl-%s-railtune.so" % kind
        with open(os.path.join(out, "aarch64", name), "wb") as f:
            f.write(elf64_header(EM_AARCH64))
        with open(os.path.join(plugin_dir, name), "rb") as src, open(os.path.join(out, "truncated", name), "wb") as dst:
            dst.write(src.read(4096))
    fifo = os.path.join(out, "topo.fifo")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    with open(os.path.join(out, "topo-bad.xml"), "w") as f:
        f.write('<system version="1">\n  <cpu numaid="0"\n')
    unreadable = os.path.join(out, "topo-unreadable.xml")
    if os.path.exists(unreadable):
        os.remove(unreadable)  # its mode 000 would refuse the rewrite to anyone but root
    with open(unreadable, "w") as f:
        f.write('<system version="1">\n</system>\n')
    os.chmod(unreadable, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
