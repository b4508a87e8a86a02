#!/usr/bin/python3
"""Writes the NCCL INFO logs of a synthetic job, one file per process as NCCL_DEBUG_FILE=%h.%p writes them,
in NCCL 2.27's formats (src/transport/net.cc, net_ib.cc, init.cc), for the scale benchmark of
`railtune paths import` (bench/run_nccl_import_scale.sh).

usage: gen_nccl_logs.py RAIL_MAP OUT_DIR RANKS [--bytes-per-rank N]

Ranks fill the rail map's hosts in order, one per GPU. Each rank prints what a real rank of a large
training job prints at NCCL_DEBUG=INFO with INIT,NET,GRAPH: its setup lines, its device list, its
ncclCommInitRank, ring connections over 16 channels, the network connections of an all-to-all within its
expert-parallel group of 64 ranks (2 channels per peer, connIndex 1, through PXN proxies), its NVLink connections, and the
other INFO lines of setup up to --bytes-per-rank. Rank 7's send on channel 3 leaves through another rail's
NIC: the one cross-rail connection the check must find.
"""
import argparse
import json
import os

EP_GROUP = 64
CHANNELS = 16


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rail_map")
    parser.add_argument("out")
    parser.add_argument("ranks", type=int)
    parser.add_argument("--bytes-per-rank", type=int, default=1_000_000)
    args = parser.parse_args()
    rail_map = json.load(open(args.rail_map))
    slots = [(host, gpu) for host in rail_map["hosts"] for gpu in host["gpus"]]
    if args.ranks > len(slots):
        raise SystemExit(f"{args.ranks} ranks need more GPUs than the rail map's {len(slots)}")
    placed = slots[: args.ranks]
    os.makedirs(args.out, exist_ok=True)
    total = 0
    for rank, (host, gpu) in enumerate(placed):
        total += write_rank(args, placed, rank, host, gpu)
    print(f"wrote {args.ranks} logs, {total / 1e9:.2f} GB, to {args.out}")


def nic_of(gpu):
    return gpu["nics"][0]


def write_rank(args, placed, rank, host, gpu):
    name = host["name"]
    pid = 10000 + rank
    g = gpu["index"]
    p = f"{name}:{pid}:{pid} [{g}] NCCL INFO "
    nics = [nic_of(x) for x in host["gpus"]]
    lines = [
        p + "cudaDriverVersion 13010",
        p + "Bootstrap: Using eth0:10.0.0.1<0>",
        p + "NCCL version 2.27.5+cuda12.9",
        p + "NET/Plugin: Could not find: libnccl-net.so.",
        p + "NET/IB : Using " + " ".join(f"[{i}]{n['hca']}:{n['port']}/IB" for i, n in enumerate(nics))
        + " [RO]; OOB eth0:10.0.0.1<0>",
        p + "Using network IB",
        p + f"ncclCommInitRank comm 0x55{rank:010x} rank {rank} nranks {args.ranks} cudaDev {g} nvmlDev {g} "
        f"busId {gpu['bus_id'][5:7]}000 commId 0x00c0ffee00c0ffee - Init START",
        p + f"comm 0x55{rank:010x} rank {rank} nRanks {args.ranks} nNodes {args.ranks // 4} localRanks 4 "
        f"localRank {g} MNNVL 0",
    ]
    ranks = len(placed)
    nxt, prv = (rank + 1) % ranks, (rank - 1) % ranks
    own = g
    for ch in range(CHANNELS):
        for peer, send in ((nxt, True), (prv, False)):
            peer_host, peer_gpu = placed[peer]
            if peer_host["name"] == name:
                if send:
                    lines.append(p + f"Channel {ch:02d}/0 : {rank}[{g}] -> {peer}[{peer_gpu['index']}] via P2P/CUMEM/read")
                continue
            pg = peer_gpu["index"]
            # A ring leaves its host on the receiving GPU's rail, through that rail's local GPU (PXN).
            via = f"{pg}({rank - g + pg})" if pg != g else f"{own}"
            if rank == 7 and ch == 3 and send:
                via = f"{(pg + 1) % len(nics)}"  # the injected cross-rail send
            if send:
                lines.append(p + f"Channel {ch:02d}/0 : {rank}[{g}] -> {peer}[{pg}] [send] via NET/IB/{via}/GDRDMA")
            else:
                lines.append(p + f"Channel {ch:02d}/0 : {peer}[{pg}] -> {rank}[{g}] [receive] via NET/IB/{own}/GDRDMA")
    group = rank // EP_GROUP * EP_GROUP
    for peer in range(group, min(group + EP_GROUP, ranks)):
        peer_host, peer_gpu = placed[peer]
        if peer_host["name"] == name:
            continue
        pg = peer_gpu["index"]
        # PXN (NCCL_PXN_DISABLE=0): a send to a GPU of another rail goes through the local GPU of that rail,
        # whose rank's proxy drives its NIC ("NET/IB/<dev>(<proxy rank>)"); every receive is on the own NIC.
        via = f"{pg}({rank - g + pg})" if pg != g else f"{own}"
        for ch in ((rank + peer) % 32, (rank + peer + 1) % 32):  # the same two channels on both sides
            lines.append(p + f"Channel {ch:02d}/1 : {rank}[{g}] -> {peer}[{pg}] [send] via NET/IB/{via}/GDRDMA/Shared")
            lines.append(p + f"Channel {ch:02d}/1 : {peer}[{pg}] -> {rank}[{g}] [receive] via NET/IB/{own}/GDRDMA/Shared")
    lines.append(p + "Connected all rings, use ring PXN 0 GDR 1")
    lines.append(p + "Connected all trees")
    text = "\n".join(lines) + "\n"
    filler = [
        p + "NCCL_IB_GID_INDEX set by environment to 3.",
        p + f"[Proxy Progress] Device {g} CPU core 45",
        p + "threadThresholds 8/8/64 | 128/8/64 | 512 | 512",
        p + "32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
        p + "Trees [0] 9/-1/-1->8->0 [1] -1/-1/-1->8->15 [2] 9/-1/-1->8->15 [3] 9/-1/-1->8->15",
        p + "Channel 00/32 : 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25",
    ]
    block = "\n".join(filler) + "\n"
    missing = args.bytes_per_rank - len(text)
    if missing > 0:
        text += block * (missing // len(block) + 1)
    text += p + f"ncclCommInitRank comm 0x55{rank:010x} rank {rank} nranks {ranks} cudaDev {g} nvmlDev {g} busId " \
        f"{gpu['bus_id'][5:7]}000 commId 0x00c0ffee00c0ffee localSize 280 used 1 bytes - Init COMPLETE\n"
    with open(os.path.join(args.out, f"{name}.{pid}.nccl.log"), "w") as f:
        f.write(text)
    return len(text)


if __name__ == "__main__":
    main()
