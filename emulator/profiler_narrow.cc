#include "emulator/profiler_narrow.h"

#include <cstring>

#include "nccl/tuner_common.h"

namespace railtune::emu {
namespace {

bool same(const char* a, const char* b) {
  return a != nullptr && std::strcmp(a, b) == 0;
}

template <typename Out>
void copyHeader(const ncclProfilerEventDescr_v6_t& in, Out* out) {
  out->type = static_cast<decltype(out->type)>(in.type);
  out->parentObj = in.parentObj;
  out->rank = in.rank;
}

template <typename Out>
void copyProxy(const ncclProfilerEventDescr_v6_t& in, Out* out) {
  if (in.type == ncclProfileProxyOp) {
    out->proxyOp.pid = in.proxyOp.pid;
    out->proxyOp.channelId = in.proxyOp.channelId;
    out->proxyOp.peer = in.proxyOp.peer;
    out->proxyOp.nSteps = in.proxyOp.nSteps;
    out->proxyOp.chunkSize = in.proxyOp.chunkSize;
    out->proxyOp.isSend = in.proxyOp.isSend;
  } else if (in.type == ncclProfileProxyStep) {
    out->proxyStep.step = in.proxyStep.step;
  }
}

// v2 and v3: string names, name/commHash zeroed (removed in v4), the legacy group as the parent (v5).
template <typename Out>
void copyCollP2pV23(const ncclProfilerEventDescr_v6_t& in, Out* out) {
  if (in.type == ncclProfileColl) {
    out->coll.name = nullptr;
    out->coll.commHash = 0;
    out->parentObj = in.coll.parentGroup;
    out->coll.seqNumber = in.coll.seqNumber;
    out->coll.func = in.coll.func;
    out->coll.sendBuff = in.coll.sendBuff;
    out->coll.recvBuff = in.coll.recvBuff;
    out->coll.count = in.coll.count;
    out->coll.root = in.coll.root;
    out->coll.datatype = in.coll.datatype;
    out->coll.nMaxChannels = in.coll.nChannels;
    out->coll.nWarps = in.coll.nWarps;
    out->coll.algo = in.coll.algo;
    out->coll.proto = in.coll.proto;
  } else if (in.type == ncclProfileP2p) {
    out->p2p.name = nullptr;
    out->p2p.commHash = 0;
    out->parentObj = in.p2p.parentGroup;
    out->p2p.func = in.p2p.func;
    out->p2p.buff = in.p2p.buff;
    out->p2p.count = in.p2p.count;
    out->p2p.datatype = in.p2p.datatype;
    out->p2p.peer = in.p2p.peer;
  }
}

bool isOneOf(uint64_t type, uint64_t mask) {
  return (type & mask) != 0 && (type & (type - 1)) == 0;
}

constexpr uint64_t kV1toV2Events = ncclProfileGroup | ncclProfileColl | ncclProfileP2p | ncclProfileProxyOp |
                                   ncclProfileProxyStep | ncclProfileProxyCtrl;
constexpr uint64_t kV3V4Events = kV1toV2Events | ncclProfileKernelCh | ncclProfileNetPlugin;

bool isProxyCtrlState(ncclProfilerEventState_t s) {
  return s >= ncclProfilerProxyCtrlIdle && s <= ncclProfilerProxyCtrlAppendEnd;
}
bool isProxyStepStateV1(ncclProfilerEventState_t s) {
  return s >= ncclProfilerProxyStepSendGPUWait && s <= ncclProfilerProxyStepRecvGPUWait;
}
bool isCeState(ncclProfilerEventState_t s) {
  return s >= ncclProfilerCeCollStart && s <= ncclProfilerCeBatchComplete;
}

// v1..v3 state arguments: only ProxyCtrl carries a value; ProxyStep states arrive with empty args.
template <typename Out>
bool narrowOldState(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in, Out* out) {
  std::memset(out, 0, sizeof(*out));
  if (isProxyCtrlState(state)) {
    if (in) out->proxyCtrl.appendedProxyOps = in->proxyCtrl.appendedProxyOps;
    return true;
  }
  return isProxyStepStateV1(state);
}

}  // namespace

bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v5_t* out) {
  if (isOneOf(in.type, ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch)) return false;
  static_assert(sizeof(ncclProfilerEventDescr_v5_t) == sizeof(ncclProfilerEventDescr_v6_t),
                "v6 only adds union members that fit in v5's union");
  std::memcpy(static_cast<void*>(out), &in, sizeof(*out));  // every v5 member sits where v6 has it
  return in.type <= ncclProfileKernelLaunch && in.type != 0;
}

bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v4_t* out) {
  if (!isOneOf(in.type, kV3V4Events)) return false;
  copyHeader(in, out);
  if (in.type == ncclProfileColl) {
    out->coll.seqNumber = in.coll.seqNumber;
    out->coll.func = in.coll.func;
    out->coll.sendBuff = in.coll.sendBuff;
    out->coll.recvBuff = in.coll.recvBuff;
    out->coll.count = in.coll.count;
    out->coll.root = in.coll.root;
    out->coll.datatype = in.coll.datatype;
    out->coll.nChannels = in.coll.nChannels;
    out->coll.nWarps = in.coll.nWarps;
    out->coll.algo = in.coll.algo;
    out->coll.proto = in.coll.proto;
    out->parentObj = in.coll.parentGroup;
  } else if (in.type == ncclProfileP2p) {
    out->p2p.func = in.p2p.func;
    out->p2p.buff = in.p2p.buff;
    out->p2p.count = in.p2p.count;
    out->p2p.datatype = in.p2p.datatype;
    out->p2p.peer = in.p2p.peer;
    out->parentObj = in.p2p.parentGroup;  // NCCL's v4 adapter leaves p2p.nChannels unset
  } else if (in.type == ncclProfileKernelCh) {
    out->kernelCh.channelId = in.kernelCh.channelId;
    out->kernelCh.pTimer = in.kernelCh.pTimer;
  } else if (in.type == ncclProfileNetPlugin) {
    out->netPlugin.id = in.netPlugin.id;
    out->netPlugin.data = in.netPlugin.data;
  }
  copyProxy(in, out);
  return true;
}

bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v3_t* out) {
  if (!isOneOf(in.type, kV3V4Events)) return false;
  copyHeader(in, out);
  copyCollP2pV23(in, out);
  if (in.type == ncclProfileKernelCh) {
    out->kernelCh.channelId = in.kernelCh.channelId;
  } else if (in.type == ncclProfileNetPlugin) {
    out->netPlugin.id = in.netPlugin.id;
    out->netPlugin.data = in.netPlugin.data;
  }
  copyProxy(in, out);
  return true;
}

bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v2_t* out) {
  if (!isOneOf(in.type, kV1toV2Events)) return false;
  copyHeader(in, out);
  copyCollP2pV23(in, out);
  if (in.type == ncclProfileColl) out->coll.trafficBytes = 0;  // removed in v3
  copyProxy(in, out);
  return true;
}

bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v1_t* out) {
  if (!isOneOf(in.type, kV1toV2Events)) return false;
  std::memset(static_cast<void*>(out), 0, sizeof(*out));
  copyHeader(in, out);
  if (in.type == ncclProfileColl) {
    out->parentObj = in.coll.parentGroup;
    out->coll.seqNumber = in.coll.seqNumber;
    out->coll.func = v1FuncCode(in.coll.func);
    out->coll.sendBuff = in.coll.sendBuff;
    out->coll.recvBuff = in.coll.recvBuff;
    out->coll.count = in.coll.count;
    out->coll.root = in.coll.root;
    out->coll.datatype = v1DatatypeCode(in.coll.datatype);
    out->coll.nMaxChannels = in.coll.nChannels;
    out->coll.nWarps = in.coll.nWarps;
    out->coll.algo = v1AlgoCode(in.coll.algo);
    out->coll.proto = v1ProtoCode(in.coll.proto);
  } else if (in.type == ncclProfileP2p) {
    out->parentObj = in.p2p.parentGroup;
    out->p2p.func = v1FuncCode(in.p2p.func);
    out->p2p.buff = in.p2p.buff;
    out->p2p.count = in.p2p.count;
    out->p2p.datatype = v1DatatypeCode(in.p2p.datatype);
    out->p2p.peer = in.p2p.peer;
  }
  copyProxy(in, out);
  return true;
}

bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v5_t* out) {
  std::memset(out, 0, sizeof(*out));
  if (in) *out = *in;
  return !isCeState(state);  // copy-engine states are v6's
}

bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v4_t* out) {
  std::memset(out, 0, sizeof(*out));
  if (isCeState(state)) return false;
  switch (state) {
    case ncclProfilerProxyOpInProgress_v4:
      return true;
    case ncclProfilerProxyStepSendGPUWait:
    case ncclProfilerProxyStepSendPeerWait_v4:
    case ncclProfilerProxyStepSendWait:
    case ncclProfilerProxyStepRecvWait:
    case ncclProfilerProxyStepRecvFlushWait:
    case ncclProfilerProxyStepRecvGPUWait:
      if (in) out->proxyStep.transSize = in->proxyStep.transSize;
      return true;
    case ncclProfilerNetPluginUpdate:
      if (in) out->netPlugin.data = in->netPlugin.data;
      return true;
    case ncclProfilerKernelChStop:
      if (in) out->kernelCh.pTimer = in->kernelCh.pTimer;
      return true;
    default:
      if (!isProxyCtrlState(state)) return false;
      if (in) out->proxyCtrl.appendedProxyOps = in->proxyCtrl.appendedProxyOps;
      return true;
  }
}

bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v3_t* out) {
  return narrowOldState(state, in, out);
}
bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v2_t* out) {
  return narrowOldState(state, in, out);
}
bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v1_t* out) {
  return narrowOldState(state, in, out);
}

uint8_t v1FuncCode(const char* func) {
  if (same(func, "AllGather")) return ncclFuncAllGather;
  if (same(func, "AllReduce")) return ncclFuncAllReduce;
  if (same(func, "Broadcast")) return ncclFuncBroadcast;
  if (same(func, "Recv")) return ncclFuncRecv;
  if (same(func, "Reduce")) return ncclFuncReduce;
  if (same(func, "ReduceScatter")) return ncclFuncReduceScatter;
  if (same(func, "SendRecv")) return ncclFuncSendRecv;
  return ncclFuncSend;
}

uint8_t v1AlgoCode(const char* algo) {
  if (same(algo, "TREE")) return NCCL_ALGO_TREE;
  if (same(algo, "RING")) return NCCL_ALGO_RING;
  if (same(algo, "COLLNET_DIRECT")) return NCCL_ALGO_COLLNET_DIRECT;
  if (same(algo, "COLLNET_CHAIN")) return NCCL_ALGO_COLLNET_CHAIN;
  if (same(algo, "NVLS")) return NCCL_ALGO_NVLS;
  if (same(algo, "NVLS_TREE")) return NCCL_ALGO_NVLS_TREE;
  return NCCL_ALGO_PAT;
}

uint8_t v1ProtoCode(const char* proto) {
  if (same(proto, "LL")) return NCCL_PROTO_LL;
  if (same(proto, "LL128")) return NCCL_PROTO_LL128;
  return NCCL_PROTO_SIMPLE;
}

uint8_t v1DatatypeCode(const char* dt) {
  if (same(dt, "ncclInt8")) return ncclInt8;
  if (same(dt, "ncclInt32")) return ncclInt32;
  if (same(dt, "ncclUint32")) return ncclUint32;
  if (same(dt, "ncclInt64")) return ncclInt64;
  if (same(dt, "ncclUint64")) return ncclUint64;
  if (same(dt, "ncclFloat16")) return ncclFloat16;
  if (same(dt, "ncclFloat32")) return ncclFloat32;
  if (same(dt, "ncclBfloat16")) return ncclBfloat16;  // NCCL checks this one only when built with bf16
  return ncclFloat64;
}

}  // namespace railtune::emu
