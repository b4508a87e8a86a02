// Conversions from NCCL's per-version event descriptors and state arguments to the engine's types.
// The versions share member names, so one template reads them all; `requires` picks the members a
// version has, and a member a version lacks stays at its default. Only profiler v1 (numeric
// func/datatype/algo/proto) needs its own code: convertDescriptorV1, at the end.
#pragma once

#include <cstddef>
#include <type_traits>

#include "nccl/profiler_v1.h"
#include "nccl/profiler_v7.h"
#include "profiler_plugin/engine.h"

namespace railtune::profiler {

template <typename Coll>
void copyCollFields(const Coll& in, EventDescriptor& out) {
  out.coll.seqNumber = in.seqNumber;
  out.coll.func = in.func;
  out.coll.count = in.count;
  out.coll.root = in.root;
  out.coll.datatype = in.datatype;
  if constexpr (requires { in.nChannels; }) out.coll.nChannels = in.nChannels;
  if constexpr (requires { in.nMaxChannels; }) out.coll.nChannels = in.nMaxChannels;  // v1..v3 name
  out.coll.nWarps = in.nWarps;
  out.coll.algo = in.algo;
  out.coll.proto = in.proto;
  if constexpr (requires { in.userTag; }) {  // v7
    out.coll.kernelVariant = in.kernelVariant;
    out.coll.isSymColl = in.isSymColl;
    out.coll.userTag = in.userTag;
  }
}

template <typename P2p>
void copyP2pFields(const P2p& in, EventDescriptor& out) {
  out.p2p.func = in.func;
  out.p2p.count = in.count;
  out.p2p.datatype = in.datatype;
  out.p2p.peer = in.peer;
  if constexpr (requires { in.nChannels; }) out.p2p.nChannels = in.nChannels;
  if constexpr (requires { in.userTag; }) out.p2p.userTag = in.userTag;  // v7
}

template <typename CeColl>
void copyCeCollFields(const CeColl& in, EventDescriptor& out) {
  out.ceColl.seqNumber = in.seqNumber;
  out.ceColl.func = in.func;
  out.ceColl.count = in.count;
  out.ceColl.root = in.root;
  out.ceColl.datatype = in.datatype;
  if constexpr (requires { in.userTag; }) out.ceColl.userTag = in.userTag;  // v7
}

// Members whose layout never changed across versions (proxy op/step); present in all of them.
template <typename Descr>
void copyProxyFields(const Descr& in, EventDescriptor& out) {
  out.proxyOp.pid = in.proxyOp.pid;
  out.proxyOp.channelId = in.proxyOp.channelId;
  out.proxyOp.peer = in.proxyOp.peer;
  out.proxyOp.nSteps = in.proxyOp.nSteps;
  out.proxyOp.chunkSize = in.proxyOp.chunkSize;
  out.proxyOp.isSend = in.proxyOp.isSend != 0;
}

// Reads only the union member that the event type says is active.
template <typename Descr>
EventDescriptor convertDescriptor(const Descr& in) {
  EventDescriptor out;
  out.type = static_cast<EventType>(static_cast<uint64_t>(in.type));
  out.parent = in.parentObj;
  out.rank = in.rank;
  switch (out.type) {
    case EventType::Coll:
      if constexpr (std::is_same_v<decltype(in.coll.func), const char*>) copyCollFields(in.coll, out);
      break;
    case EventType::P2p:
      if constexpr (std::is_same_v<decltype(in.p2p.func), const char*>) copyP2pFields(in.p2p, out);
      break;
    case EventType::ProxyOp:
      copyProxyFields(in, out);
      break;
    case EventType::ProxyStep:
      out.proxyStep.step = in.proxyStep.step;
      break;
    case EventType::KernelCh:
      if constexpr (requires { in.kernelCh.channelId; }) out.kernelCh.channelId = in.kernelCh.channelId;
      if constexpr (requires { in.kernelCh.pTimer; }) out.kernelCh.pTimer = in.kernelCh.pTimer;
      break;
    case EventType::NetPlugin:
      if constexpr (requires { in.netPlugin.id; }) out.netPlugin = {in.netPlugin.id, in.netPlugin.data};
      break;
    case EventType::CeColl:
      if constexpr (requires { in.ceColl; }) copyCeCollFields(in.ceColl, out);
      break;
    case EventType::KernelPhase:  // a version without the member has no such event: the type alone says so
      if constexpr (requires { in.kernelPhase; }) {
        out.kernelPhase.channelId = in.kernelPhase.channelId;
        out.kernelPhase.phaseId = in.kernelPhase.phaseId;
        out.kernelPhase.pTimer = in.kernelPhase.pTimer;
      }
      break;
    default:  // Group, API, kernel-launch, CE sync/batch and ProxyCtrl events: type, parent and rank say it all
      break;
  }
  return out;
}

// Whether a version's state arguments belong to an ABI with KernelPhase events (v7+): only v7 declares
// its own union, identical in shape to v5's.
template <typename Args>
inline constexpr bool kHasKernelPhase = false;
template <>
inline constexpr bool kHasKernelPhase<ncclProfilerEventStateArgs_v7_t> = true;

// State arguments: a union in every version; the state code says which member NCCL filled.
template <typename Args>
StateArgs convertStateArgs(EventState state, const Args* in) {
  StateArgs out;
  if (in == nullptr) return out;
  const int code = static_cast<int>(state);
  const bool proxyStep = (code >= 8 && code <= 12) || code == 20;
  const bool proxyOp = code <= 7 || code == 19;
  if constexpr (requires { in->proxyStep.transSize; }) {  // v4+
    if (proxyStep) out.transSize = in->proxyStep.transSize;
    if (state == EventState::NetPluginUpdate) out.netPluginData = in->netPlugin.data;
    if (state == EventState::KernelChStop) out.pTimer = in->kernelCh.pTimer;
    // v7's phase stop reuses kernelCh (profiler_v7.h@v2.31.2); through an older table it is an unknown
    // state, whose arguments are not read (the engine counts it).
    if (state == EventState::KernelPhaseStop && kHasKernelPhase<Args>) out.pTimer = in->kernelCh.pTimer;
  } else {  // v1..v3
    if (proxyOp) {
      out.transSize = in->proxyOp.transSize;
      out.steps = in->proxyOp.steps;
    }
  }
  if (state == EventState::ProxyCtrlAppend || state == EventState::ProxyCtrlAppendEnd) {
    out.appendedProxyOps = in->proxyCtrl.appendedProxyOps;
  }
  return out;
}

// Profiler v1 numbers func, datatype, algo and proto; these are NCCL's own spellings of them, so that
// the engine sees the strings every later version passes. A number past the list is "unknown".
namespace v1_names {
inline constexpr const char* kFunc[] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv",
                                        "Send",      "Recv",   "AlltoAll",  "Scatter",       "Gather"};
inline constexpr const char* kDatatype[] = {"ncclInt8",    "ncclUint8",    "ncclInt32",      "ncclUint32",
                                            "ncclInt64",   "ncclUint64",   "ncclFloat16",    "ncclFloat32",
                                            "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
inline constexpr const char* kAlgo[] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
inline constexpr const char* kProto[] = {"LL", "LL128", "Simple"};

template <size_t N>
const char* nameAt(const char* const (&names)[N], unsigned index) {
  return index < N ? names[index] : "unknown";
}
}  // namespace v1_names

inline EventDescriptor convertDescriptorV1(const ncclProfilerEventDescr_v1_t& in) {
  using v1_names::nameAt;
  EventDescriptor out = convertDescriptor(in);  // type, parent, rank, proxy members
  if (out.type == EventType::Coll) {
    out.coll.seqNumber = in.coll.seqNumber;
    out.coll.func = nameAt(v1_names::kFunc, in.coll.func);
    out.coll.count = in.coll.count;
    out.coll.root = in.coll.root;
    out.coll.datatype = nameAt(v1_names::kDatatype, in.coll.datatype);
    out.coll.nChannels = in.coll.nMaxChannels;
    out.coll.nWarps = in.coll.nWarps;
    out.coll.algo = nameAt(v1_names::kAlgo, in.coll.algo);
    out.coll.proto = nameAt(v1_names::kProto, in.coll.proto);
  } else if (out.type == EventType::P2p) {
    out.p2p.func = nameAt(v1_names::kFunc, in.p2p.func);
    out.p2p.count = in.p2p.count;
    out.p2p.datatype = nameAt(v1_names::kDatatype, in.p2p.datatype);
    out.p2p.peer = in.p2p.peer;
  }
  return out;
}

}  // namespace railtune::profiler
