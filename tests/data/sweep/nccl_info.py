"""The NCCL INFO lines the stand-in all_reduce_perf prints under NCCL_DEBUG=INFO, in NCCL 2.28.7's own formats, so
that a parser can learn the communicator's nNodes, MNNVL, network and IB settings from them as from a real run.

Prefix (src/debug.cc:349-363@v2.28.7-1): "HOST:PID:TID [CUDADEV] NCCL INFO " with no timestamp (by default only
WARN lines carry one, debug.cc:135-137). Default subsystems INIT, BOOTSTRAP and ENV (debug.cc:48); each line
below belongs to one of them. Per process (one per tray of 4 GPUs), in NCCL's order:
  at ncclIbInit (net_ib.cc:797-799, :839-840): "NCCL_IB_ADAPTIVE_ROUTING set by environment to V." when set
    (param.cc:89), then "NET/IB : Using [0]mlx5_0:1/RoCE ... [RO]; OOB eth0:ADDR<0>"
  per rank: "Using network IB" (init.cc:428), then "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d
    MNNVL %d" (init.cc:1170-1171), localRanks counting the ranks of NCCL's node (init.cc:1146-1156), which under
    MNNVL is the whole NVLink domain; MNNVL is checked only with more than one host (init.cc:915)
  once data crosses the network (multi-node shapes only), after the table's header: NCCL_IB_QPS_PER_CONNECTION,
    NCCL_IB_SPLIT_DATA_ON_QPS and NCCL_IB_AR_THRESHOLD "set by environment" when set (net_settings.py says where
    NCCL reads each)
"""
import net_settings

NIC_NAMES = ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]  # one 800G NIC per GPU of a tray


# NCCL's subsystem bits (src/include/nccl_common.h:27-43@v2.28.9-1).
SUBSYSTEMS = {"INIT": 0x1, "COLL": 0x2, "P2P": 0x4, "SHM": 0x8, "NET": 0x10, "GRAPH": 0x20, "TUNING": 0x40,
              "ENV": 0x80, "ALLOC": 0x100, "CALL": 0x200, "PROXY": 0x400, "NVLS": 0x800, "BOOTSTRAP": 0x1000,
              "REG": 0x2000, "PROFILE": 0x4000, "RAS": 0x8000}
ALL = (1 << 64) - 1
INIT, NET, ENV = SUBSYSTEMS["INIT"], SUBSYSTEMS["NET"], SUBSYSTEMS["ENV"]


def enabled(env):
    """The subsystem mask INFO lines print under, 0 when they do not: NCCL_DEBUG=INFO or TRACE (strcasecmp,
    debug.cc:61-66), NCCL_DEBUG_SUBSYS parsed as ncclDebugInit does (debug.cc:69-122@v2.28.9-1: a comma list,
    case-insensitive, a leading ^ inverts, unknown names ignored; default INIT, BOOTSTRAP and ENV)."""
    if env.get("NCCL_DEBUG", "").upper() not in ("INFO", "TRACE"):
        return 0
    text = env.get("NCCL_DEBUG_SUBSYS")
    if text is None:
        return INIT | SUBSYSTEMS["BOOTSTRAP"] | ENV
    invert = text.startswith("^")
    mask = ALL if invert else 0
    for name in (text[1:] if invert else text).split(","):
        bit = ALL if name.upper() == "ALL" else SUBSYSTEMS.get(name.upper(), 0)
        mask = mask & ~bit if invert else mask | bit
    return mask


def param_flags(message):
    """A parameter's INFO line is NCCL_ENV when read, NCCL_ALL when its value is invalid (param.cc:87-89@v2.28.9-1)."""
    return ALL if message.startswith("Invalid value") else ENV


def prefix(host, pid, tid, device):
    return "%s:%d:%d [%d] NCCL INFO " % (host, pid, tid, device)


def comm_pointer(rank):
    """A distinct, stable %p per rank's communicator."""
    return "0x%x" % (0xaaaad1a40000 + rank * 0x2c000)


def net_ib_line(process):
    devices = "".join(" [%d]%s:1/%s" % (d, name, net_settings.LINK_LAYER) for d, name in enumerate(NIC_NAMES))
    return "NET/IB : Using%s %s; OOB eth0:10.16.%d.%d<0>" % (devices, "[RO]", process // 200, process % 200 + 10)


def init_lines(processes, gpus_per_process, nodes, env, mask):
    """processes: [(host, pid)]. Every process's init lines that MASK prints (debug.cc:298), process after process."""
    ranks = len(processes) * gpus_per_process
    ranks_per_node = ranks // nodes
    mnnvl = 1 if len(processes) > 1 else 0
    lines = []
    for p, (host, pid) in enumerate(processes):
        for name in net_settings.READ_AT_INIT:
            message = net_settings.read_param(env, name)[1]
            if message and param_flags(message) & mask:
                lines.append(prefix(host, pid, pid, 0) + message)
        if (INIT | NET) & mask:
            lines.append(prefix(host, pid, pid, 0) + net_ib_line(p))
        for d in range(gpus_per_process):
            rank = p * gpus_per_process + d
            tid = pid + 31 + d  # the init runs on NCCL's own thread per device
            if not INIT & mask:
                continue
            lines.append(prefix(host, pid, tid, d) + "Using network IB")
            lines.append(prefix(host, pid, tid, d) +
                         "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d" %
                         (comm_pointer(rank), rank, ranks, nodes, ranks_per_node, rank % ranks_per_node, mnnvl))
    return lines


def data_path_lines(processes, nodes, env, mask):
    """The settings NCCL reads once the network carries data: none on one node."""
    if nodes <= 1:
        return []
    names = list(net_settings.READ_WHEN_DATA_FLOWS)
    if net_settings.effective(env)["NCCL_IB_ADAPTIVE_ROUTING"] != 1:
        names.remove("NCCL_IB_AR_THRESHOLD")  # read only for a port with adaptive routing (net_ib.cc:2100)
    lines = []
    for host, pid in processes:
        for name in names:
            message = net_settings.read_param(env, name)[1]
            if message and param_flags(message) & mask:
                lines.append(prefix(host, pid, pid + 47, 0) + message)  # NCCL's proxy thread
    return lines
