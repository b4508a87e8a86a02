#!/usr/bin/env python3
"""Computes the x86-64 (LP64, SysV) layout of every NCCL plugin struct from the field lists of the
NCCL plugin ABI fact sheet, independently of any compiler, and writes the GoogleTest file that pins
our declarations in nccl/ to those numbers. Rerun only when the sheet (a new NCCL version) changes:
    python3 tests/abi/layout_from_sheet.py > tests/abi/layout_test.cc && clang-format -i tests/abi/layout_test.cc
"""

PRIM = {  # size == alignment on x86-64
    "ptr": 8, "u64": 8, "i64": 8, "size": 8, "double": 8,
    "int": 4, "u32": 4, "i32": 4, "float": 4, "enum": 4, "pid": 4,
    "i16": 2, "u8": 1, "bool": 1,
}


def arr(t, *dims):
    return ("array", t, dims)


def struct(*fields):
    return ("struct", list(fields))


def union(*fields):
    return ("union", list(fields))


def layout(t):
    """Returns (size, align, {path: offset}) for a type description."""
    if isinstance(t, str):
        return PRIM[t], PRIM[t], {}
    kind = t[0]
    if kind == "array":
        size, align, _ = layout(t[1])
        n = 1
        for d in t[2]:
            n *= d
        return size * n, align, {}
    members = {}
    off = size = 0
    align = 1
    for name, ft in t[1]:
        fsize, falign, sub = layout(ft)
        align = max(align, falign)
        if kind == "struct":
            off = (off + falign - 1) // falign * falign
            where = off
            off += fsize
            size = off
        else:
            where = 0
            size = max(size, fsize)
        if name:
            members[name] = where
            for path, o in sub.items():
                members[f"{name}.{path}"] = where + o
        else:  # anonymous union/struct: its members are reached directly
            for path, o in sub.items():
                members[path] = where + o
    size = (size + align - 1) // align * align
    return size, align, members


def fn_table(*names):
    return struct(*[(n, "ptr") for n in names])


# ---- tuner ----
TUNER_OLD = fn_table("name", "init", "getCollInfo", "destroy")
NVL = struct(("nNvlDomains", "int"), ("minRanksPerNvlDomain", "int"), ("maxRanksPerNvlDomain", "int"))
CONSTS = struct(("baseLatencies", arr("double", 7, 3)), ("hwLatencies", arr("double", 3, 7, 3)),
                ("llMaxBws", arr("double", 4, 3)), ("perChMaxRingLL128Bws", arr("double", 4, 3)),
                ("perChMaxTreeLL128Bws", arr("double", 4, 3)), ("perChMaxTreeBws", arr("double", 4, 3)),
                ("perChMaxNVLSTreeBws", arr("double", 4, 3)))
TUNER_V5 = fn_table("name", "init", "getCollInfo", "finalize")
TUNER_V6 = fn_table("name", "init", "getCollInfo", "finalize", "getChunkSize")
# v7: five compute-capability rows (NCCL_NUM_COMPCAPS_V7), the same entry points as v6.
CONSTS_V7 = struct(("baseLatencies", arr("double", 7, 3)), ("hwLatencies", arr("double", 3, 7, 3)),
                   ("llMaxBws", arr("double", 5, 3)), ("perChMaxRingLL128Bws", arr("double", 5, 3)),
                   ("perChMaxTreeLL128Bws", arr("double", 5, 3)), ("perChMaxTreeBws", arr("double", 5, 3)),
                   ("perChMaxNVLSTreeBws", arr("double", 5, 3)))

# ---- net ----
HEAD = [("name", "ptr"), ("pciPath", "ptr"), ("guid", "u64"), ("ptrSupport", "int")]
TAIL6 = [("speed", "int"), ("port", "int"), ("latency", "float"), ("maxComms", "int"), ("maxRecvs", "int")]
DEVT = [("netDeviceType", "enum"), ("netDeviceVersion", "int")]
VPROPS4 = struct(("ndevs", "int"), ("devs", arr("int", 4)))
VPROPS8 = struct(("ndevs", "int"), ("devs", arr("int", 8)))


def props9(vprops, extra=()):
    return struct(*HEAD, ("regIsGlobal", "int"), ("forceFlush", "int"), *TAIL6, *DEVT, ("vProps", vprops),
                  ("maxP2pBytes", "size"), ("maxCollBytes", "size"), *extra)


PROPS = {
    6: struct(*HEAD, *TAIL6),
    7: struct(*HEAD, *TAIL6, *DEVT),
    8: struct(*HEAD, ("regIsGlobal", "int"), *TAIL6, *DEVT),
    9: props9(VPROPS4),
    10: props9(VPROPS4),
    11: props9(VPROPS4, [("maxMultiRequestSize", "int")]),
    12: props9(VPROPS8, [("maxMultiRequestSize", "int"), ("railId", "i16"), ("planeId", "i16")]),
}
DEVHANDLE = struct(("netDeviceType", "enum"), ("netDeviceVersion", "int"), ("handle", "ptr"), ("size", "size"),
                   ("needsProxyProgress", "int"))
COMMCFG = struct(("trafficClass", "int"))
COMMATTR = struct(("maxConcurrentPeers", "i32"), ("minConcurrentPeers", "i32"), ("maxFlowsPerPeer", "i32"),
                  ("minFlowsPerPeer", "i32"))
NETATTR = struct(("sendCommAttr", COMMATTR), ("recvCommAttr", COMMATTR), ("op", "u32"), ("algo", "u32"),
                 ("proto", "u32"))
NET6 = ["name", "init", "devices", "getProperties", "listen", "connect", "accept", "regMr", "regMrDmaBuf",
        "deregMr", "isend", "irecv", "iflush", "test", "closeSend", "closeRecv", "closeListen"]
NET7 = NET6 + ["getDeviceMr", "irecvConsumed"]
NET9 = NET7 + ["makeVDevice"]
NET11 = NET9 + ["finalize", "setNetAttr"]
NETS = {6: NET6, 7: NET7, 8: NET7, 9: NET9, 10: NET9, 11: NET11, 12: NET11}

# ---- profiler ----
PROXYOP = struct(("pid", "pid"), ("channelId", "u8"), ("peer", "int"), ("nSteps", "int"), ("chunkSize", "int"),
                 ("isSend", "int"))
PROXYSTEP = struct(("step", "int"))
NETPLUGIN = struct(("id", "i64"), ("data", "ptr"))
COLL_V1 = struct(("name", "ptr"), ("commHash", "u64"), ("seqNumber", "u64"), ("func", "u8"), ("sendBuff", "ptr"),
                 ("recvBuff", "ptr"), ("count", "size"), ("root", "int"), ("datatype", "u8"), ("op", "u32"),
                 ("trafficBytes", "size"), ("nMaxChannels", "u8"), ("nWarps", "u8"), ("algo", "u8"),
                 ("proto", "u8"), ("isCollnet", "int"), ("isNvls", "int"))
P2P_V1 = struct(("name", "ptr"), ("commHash", "u64"), ("func", "u8"), ("buff", "ptr"), ("datatype", "u8"),
                ("count", "size"), ("peer", "int"))
COLL_V2 = struct(("name", "ptr"), ("commHash", "u64"), ("seqNumber", "u64"), ("func", "ptr"), ("sendBuff", "ptr"),
                 ("recvBuff", "ptr"), ("count", "size"), ("root", "int"), ("datatype", "ptr"),
                 ("trafficBytes", "size"), ("nMaxChannels", "u8"), ("nWarps", "u8"), ("algo", "ptr"),
                 ("proto", "ptr"))
COLL_V3 = struct(("name", "ptr"), ("commHash", "u64"), ("seqNumber", "u64"), ("func", "ptr"), ("sendBuff", "ptr"),
                 ("recvBuff", "ptr"), ("count", "size"), ("root", "int"), ("datatype", "ptr"),
                 ("nMaxChannels", "u8"), ("nWarps", "u8"), ("algo", "ptr"), ("proto", "ptr"))
P2P_V2 = struct(("name", "ptr"), ("commHash", "u64"), ("func", "ptr"), ("buff", "ptr"), ("datatype", "ptr"),
                ("count", "size"), ("peer", "int"))
COLL_V4 = struct(("seqNumber", "u64"), ("func", "ptr"), ("sendBuff", "ptr"), ("recvBuff", "ptr"), ("count", "size"),
                 ("root", "int"), ("datatype", "ptr"), ("nChannels", "u8"), ("nWarps", "u8"), ("algo", "ptr"),
                 ("proto", "ptr"))
P2P_V4 = struct(("func", "ptr"), ("buff", "ptr"), ("datatype", "ptr"), ("count", "size"), ("peer", "int"),
                ("nChannels", "u8"))
COLL_V5 = struct(*COLL_V4[1], ("parentGroup", "ptr"))
P2P_V5 = struct(*P2P_V4[1], ("parentGroup", "ptr"))
KCH_V3 = struct(("channelId", "u8"))
KCH_V4 = struct(("channelId", "u8"), ("pTimer", "u64"))
GROUPAPI = struct(("graphCaptured", "bool"), ("groupDepth", "int"))
COLLAPI = struct(("func", "ptr"), ("count", "size"), ("datatype", "ptr"), ("root", "int"), ("stream", "ptr"),
                 ("graphCaptured", "bool"))
P2PAPI = struct(("func", "ptr"), ("count", "size"), ("datatype", "ptr"), ("stream", "ptr"), ("graphCaptured", "bool"))
KLAUNCH = struct(("stream", "ptr"))
CECOLL = struct(("seqNumber", "u64"), ("func", "ptr"), ("sendBuff", "ptr"), ("recvBuff", "ptr"), ("count", "size"),
                ("root", "int"), ("datatype", "ptr"), ("syncStrategy", "ptr"), ("intraBatchSync", "bool"),
                ("batchSize", "u32"), ("numBatches", "u32"), ("ceSeqNum", "u32"), ("stream", "ptr"))
CESYNC = struct(("isComplete", "bool"), ("nRanks", "int"))
CEBATCH = struct(("numOps", "int"), ("totalBytes", "size"), ("useIntraSync", "bool"))


def descr(type_t, *members):
    return struct(("type", type_t), ("parentObj", "ptr"), ("rank", "int"), (None, union(*members)))


V5_MEMBERS = [("groupApi", GROUPAPI), ("collApi", COLLAPI), ("p2pApi", P2PAPI), ("kernelLaunch", KLAUNCH),
              ("coll", COLL_V5), ("p2p", P2P_V5), ("proxyOp", PROXYOP), ("proxyStep", PROXYSTEP),
              ("kernelCh", KCH_V4), ("netPlugin", NETPLUGIN)]
DESCR = {
    1: descr("u8", ("coll", COLL_V1), ("p2p", P2P_V1), ("proxyOp", PROXYOP), ("proxyStep", PROXYSTEP)),
    2: descr("u8", ("coll", COLL_V2), ("p2p", P2P_V2), ("proxyOp", PROXYOP), ("proxyStep", PROXYSTEP)),
    3: descr("u8", ("coll", COLL_V3), ("p2p", P2P_V2), ("proxyOp", PROXYOP), ("proxyStep", PROXYSTEP),
             ("kernelCh", KCH_V3), ("netPlugin", NETPLUGIN)),
    4: descr("u8", ("coll", COLL_V4), ("p2p", P2P_V4), ("proxyOp", PROXYOP), ("proxyStep", PROXYSTEP),
             ("kernelCh", KCH_V4), ("netPlugin", NETPLUGIN)),
    5: descr("u64", *V5_MEMBERS),
    6: descr("u64", *V5_MEMBERS, ("ceColl", CECOLL), ("ceCollSync", CESYNC), ("ceCollBatch", CEBATCH)),
}
ARGS_OLD = union(("proxyOp", struct(("transSize", "size"), ("steps", "int"))),
                 ("proxyCtrl", struct(("appendedProxyOps", "int"))))
ARGS_NEW = union(("proxyStep", struct(("transSize", "size"))), ("proxyCtrl", struct(("appendedProxyOps", "int"))),
                 ("netPlugin", struct(("data", "ptr"))), ("kernelCh", struct(("pTimer", "u64"))))
PROFILER_FNS = fn_table("name", "init", "startEvent", "stopEvent", "recordEventState", "finalize")
IBDESCR = struct(("type", "u8"), (None, union(("qp", struct(("device", "int"), ("wr_id", "u64"), ("opcode", "int"),
                                                             ("qpNum", "int"), ("length", "size"))))))
SOCKDESCR = struct(("type", "u8"), (None, union(("sock", struct(("fd", "int"), ("op", "int"), ("length", "size"))))))
ENV_FNS = fn_table("name", "init", "finalize", "getEnv")

CHECKS = []  # (test name, C type, layout)
for v in (2, 3, 4):
    CHECKS.append((f"TunerV{v}", f"ncclTuner_v{v}_t", TUNER_OLD))
CHECKS += [("NvlDomainInfoV5", "ncclNvlDomainInfo_v5_t", NVL), ("TunerConstantsV5", "ncclTunerConstants_v5_t", CONSTS),
           ("TunerV5", "ncclTuner_v5_t", TUNER_V5), ("TunerV6", "ncclTuner_v6_t", TUNER_V6),
           ("TunerConstantsV7", "ncclTunerConstants_v7_t", CONSTS_V7), ("TunerV7", "ncclTuner_v7_t", TUNER_V6)]
for v in range(6, 13):
    CHECKS.append((f"NetPropertiesV{v}", f"ncclNetProperties_v{v}_t", PROPS[v]))
    CHECKS.append((f"NetV{v}", f"ncclNet_v{v}_t", fn_table(*NETS[v])))
CHECKS += [("NetVDevicePropsV9", "ncclNetVDeviceProps_v9_t", VPROPS4),
           ("NetVDevicePropsV12", "ncclNetVDeviceProps_v12_t", VPROPS8),
           ("NetDeviceHandleV7", "ncclNetDeviceHandle_v7_t", DEVHANDLE),
           ("NetCommConfigV10", "ncclNetCommConfig_v10_t", COMMCFG),
           ("NetCommConfigV11", "ncclNetCommConfig_v11_t", COMMCFG),
           ("NetCommConfigV12", "ncclNetCommConfig_v12_t", COMMCFG),
           ("NetAttrV11", "ncclNetAttr_v11_t", NETATTR), ("NetAttrV12", "ncclNetAttr_v12_t", NETATTR)]
for v in range(1, 7):
    CHECKS.append((f"ProfilerDescrV{v}", f"ncclProfilerEventDescr_v{v}_t", DESCR[v]))
    CHECKS.append((f"ProfilerStateArgsV{v}", f"ncclProfilerEventStateArgs_v{v}_t", ARGS_OLD if v < 4 else ARGS_NEW))
    CHECKS.append((f"ProfilerV{v}", f"ncclProfiler_v{v}_t", PROFILER_FNS))
CHECKS += [("ProfilerNetIbDescrV1", "ncclProfilerNetIbDescr_v1_t", IBDESCR),
           ("ProfilerNetSockDescrV1", "ncclProfilerNetSockDescr_v1_t", SOCKDESCR),
           ("EnvV1", "ncclEnv_v1_t", ENV_FNS), ("EnvV2", "ncclEnv_v2_t", ENV_FNS)]


def main():
    print("// Generated by tests/abi/layout_from_sheet.py from the NCCL plugin ABI fact sheet's field lists")
    print("// (x86-64 LP64 layout rules, computed without a compiler). Every sizeof and offsetof of our")
    print("// declarations in nccl/ must equal these numbers: a moved, resized or dropped field fails here.")
    print("#include <gtest/gtest.h>\n\n#include <cstddef>\n")
    for h in ["tuner_v2", "tuner_v3", "tuner_v4", "tuner_v5", "tuner_v6", "tuner_v7"] + [f"net_v{v}" for v in range(6, 13)] + \
             [f"profiler_v{v}" for v in range(1, 7)] + ["env_v1", "env_v2"]:
        print(f'#include "nccl/{h}.h"')
    print("\n// offsetof on members of anonymous unions and nested structs is what we want to pin.")
    print("#pragma GCC diagnostic ignored \"-Winvalid-offsetof\"\n")
    for name, ctype, t in CHECKS:
        size, _, members = layout(t)
        print(f"TEST(AbiLayout, {name}) {{")
        print(f"  EXPECT_EQ(sizeof({ctype}), {size}u);")
        for path, off in members.items():
            print(f"  EXPECT_EQ(offsetof({ctype}, {path}), {off}u);")
        print("}\n")


if __name__ == "__main__":
    main()
