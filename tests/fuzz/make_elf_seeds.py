#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_elf_info (corpus/fuzz_elf_info/): small ELF files built here from
the ELF specification, not copied from anywhere: a shared object with .dynstr, .dynsym, .dynamic and
.gnu.version_r (ELF64 little-endian and ELF32 big-endian), a header-only aarch64 object, a truncated
copy and a non-ELF file. Run from anywhere; rewrites the folder's seed_* files.
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_elf_info")


def build(is64, big, machine):
    e = ">" if big else "<"
    strtab = bytearray(b"\0")

    def s(name):
        at = len(strtab)
        strtab.extend(name.encode() + b"\0")
        return at

    sym_size, dyn_size = (24, 16) if is64 else (16, 8)
    dynsym = bytearray(sym_size)
    for name in ("ncclNetPlugin_v11", "ncclNetPlugin_v12", "ncclTunerPlugin_v6"):
        if is64:
            dynsym += struct.pack(e + "IBBHQQ", s(name), 0x11, 0, 7, 0, 8)
        else:
            dynsym += struct.pack(e + "IIIBBH", s(name), 0, 8, 0x11, 0, 7)
    dynamic = bytearray()
    for tag, value in ((1, s("libc.so.6")), (14, s("libnccl-net-railtune.so")), (0, 0)):
        dynamic += struct.pack(e + ("qQ" if is64 else "iI"), tag, value)
    verneed = struct.pack(e + "HHIII", 1, 2, s("libc.so.6"), 16, 0)
    verneed += struct.pack(e + "IHHII", 0, 0, 2, s("GLIBC_2.34"), 16)
    verneed += struct.pack(e + "IHHII", 0, 0, 3, s("GLIBC_2.17"), 0)
    header_size = 64 if is64 else 52
    body = bytearray(header_size)
    offsets = []
    for part in (strtab, dynsym, dynamic, verneed):
        while len(body) % 8:
            body.append(0)
        offsets.append(len(body))
        body += part
    while len(body) % 8:
        body.append(0)
    shoff = len(body)
    sections = [(0, 0, 0, 0, 0, 0), (3, offsets[0], len(strtab), 0, 0, 0), (11, offsets[1], len(dynsym), 1, 1, sym_size),
                (6, offsets[2], len(dynamic), 1, 0, dyn_size), (0x6FFFFFFE, offsets[3], len(verneed), 1, 1, 0)]
    for typ, off, size, link, info, ent in sections:
        if is64:
            body += struct.pack(e + "IIQQQQIIQQ", 0, typ, 0, 0, off, size, link, info, 8, ent)
        else:
            body += struct.pack(e + "IIIIIIIIII", 0, typ, 0, 0, off, size, link, info, 4, ent)
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 2 if big else 1, 1, 0]) + bytes(8)
    if is64:
        head = struct.pack(e + "HHIQQQIHHHHHH", 3, machine, 1, 0, 0, shoff, 0, 64, 56, 0, 64, len(sections), 0)
    else:
        head = struct.pack(e + "HHIIIIIHHHHHH", 3, machine, 1, 0, 0, shoff, 0, 52, 32, 0, 40, len(sections), 0)
    body[0:header_size] = ident + head
    return bytes(body)


def main():
    os.makedirs(OUT, exist_ok=True)
    x86 = build(True, False, 62)
    seeds = [x86, build(False, True, 20), build(True, False, 183)[:64], x86[: len(x86) // 2], b"#!/bin/sh\nexit 0\n"]
    for i, seed in enumerate(seeds, 1):
        with open(os.path.join(OUT, "seed_%02d" % i), "wb") as f:
            f.write(seed)


if __name__ == "__main__":
    main()
