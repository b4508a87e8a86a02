// NCCL 2.31.2's v6 adapter (src/plugin/profiler/profiler_v6.cc@v2.31.2), and the widening of a v6
// descriptor for callers that build v6 events.
#include <cstring>

#include "emulator/profiler_narrow.h"

namespace railtune::emu {
namespace {

void copyCollV6(const ncclProfilerEventDescr_v7_t& in, ncclProfilerEventDescr_v6_t* out) {
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
  out->coll.parentGroup = in.coll.parentGroup;
}

void copyCeCollV6(const ncclProfilerEventDescr_v7_t& in, ncclProfilerEventDescr_v6_t* out) {
  out->ceColl.seqNumber = in.ceColl.seqNumber;
  out->ceColl.func = in.ceColl.func;
  out->ceColl.sendBuff = in.ceColl.sendBuff;
  out->ceColl.recvBuff = in.ceColl.recvBuff;
  out->ceColl.count = in.ceColl.count;
  out->ceColl.root = in.ceColl.root;
  out->ceColl.datatype = in.ceColl.datatype;
  out->ceColl.syncStrategy = in.ceColl.syncStrategy;
  out->ceColl.intraBatchSync = in.ceColl.intraBatchSync;
  out->ceColl.batchSize = in.ceColl.batchSize;
  out->ceColl.numBatches = in.ceColl.numBatches;
  out->ceColl.ceSeqNum = in.ceColl.ceSeqNum;
  out->ceColl.stream = in.ceColl.stream;
}

}  // namespace

bool narrowDescriptor(const ncclProfilerEventDescr_v7_t& in, ncclProfilerEventDescr_v6_t* out) {
  std::memset(static_cast<void*>(out), 0, sizeof(*out));
  if (in.type == ncclProfileKernelPhase) return false;  // "v6 plugins don't understand kernel phase events"
  out->type = in.type;
  out->parentObj = in.parentObj;
  out->rank = in.rank;
  switch (in.type) {
    case ncclProfileGroupApi:
      out->groupApi = {in.groupApi.graphCaptured, in.groupApi.groupDepth};
      break;
    case ncclProfileCollApi:
      out->collApi = {in.collApi.func, in.collApi.count,  in.collApi.datatype,
                      in.collApi.root, in.collApi.stream, in.collApi.graphCaptured};
      break;
    case ncclProfileP2pApi:
      out->p2pApi = {in.p2pApi.func, in.p2pApi.count, in.p2pApi.datatype, in.p2pApi.stream, in.p2pApi.graphCaptured};
      break;
    case ncclProfileKernelLaunch:
      out->kernelLaunch.stream = in.kernelLaunch.stream;
      break;
    case ncclProfileColl:
      copyCollV6(in, out);
      break;
    case ncclProfileP2p:
      out->p2p = {in.p2p.func, in.p2p.buff,      in.p2p.datatype,   in.p2p.count,
                  in.p2p.peer, in.p2p.nChannels, in.p2p.parentGroup};
      break;
    case ncclProfileProxyOp:
      out->proxyOp = {in.proxyOp.pid,    in.proxyOp.channelId, in.proxyOp.peer,
                      in.proxyOp.nSteps, in.proxyOp.chunkSize, in.proxyOp.isSend};
      break;
    case ncclProfileProxyStep:
      out->proxyStep.step = in.proxyStep.step;
      break;
    case ncclProfileKernelCh:
      out->kernelCh = {in.kernelCh.channelId, in.kernelCh.pTimer};
      break;
    case ncclProfileNetPlugin:
      out->netPlugin = {in.netPlugin.id, in.netPlugin.data};
      break;
    case ncclProfileCeColl:
      copyCeCollV6(in, out);
      break;
    case ncclProfileCeSync:
      out->ceCollSync = {in.ceCollSync.isComplete, in.ceCollSync.nRanks};
      break;
    case ncclProfileCeBatch:
      out->ceCollBatch = {in.ceCollBatch.numOps, in.ceCollBatch.totalBytes, in.ceCollBatch.useIntraSync};
      break;
    default:  // Group, ProxyCtrl: the header says it all
      break;
  }
  return true;
}

bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v7_t* in,
                     ncclProfilerEventStateArgs_v6_t* out) {
  std::memset(out, 0, sizeof(*out));
  if (state == ncclProfilerKernelPhaseStop) return false;  // "Drop v7-only state transitions."
  if (in == nullptr) return true;
  switch (state) {
    case ncclProfilerProxyStepSendGPUWait:
    case ncclProfilerProxyStepSendPeerWait_v4:
    case ncclProfilerProxyStepSendWait:
    case ncclProfilerProxyStepRecvWait:
    case ncclProfilerProxyStepRecvFlushWait:
    case ncclProfilerProxyStepRecvGPUWait:
      out->proxyStep.transSize = in->proxyStep.transSize;
      break;
    case ncclProfilerProxyCtrlIdle:
    case ncclProfilerProxyCtrlActive:
    case ncclProfilerProxyCtrlSleep:
    case ncclProfilerProxyCtrlWakeup:
    case ncclProfilerProxyCtrlAppend:
    case ncclProfilerProxyCtrlAppendEnd:
      out->proxyCtrl.appendedProxyOps = in->proxyCtrl.appendedProxyOps;
      break;
    case ncclProfilerNetPluginUpdate:
      out->netPlugin.data = in->netPlugin.data;
      break;
    case ncclProfilerKernelChStop:
      out->kernelCh.pTimer = in->kernelCh.pTimer;
      break;
    default:
      break;
  }
  return true;
}

ncclProfilerEventDescr_v7_t widenDescriptor(const ncclProfilerEventDescr_v6_t& in) {
  ncclProfilerEventDescr_v7_t out{};
  static_assert(sizeof(in) <= sizeof(out), "v7 only grows v6's union members");
  // Every v6 member sits where v7 has it (tests/abi/layout_v7_test.cc); v7's own members stay zero.
  std::memcpy(static_cast<void*>(&out), &in, sizeof(in));
  if (in.type == ncclProfileColl) {
    out.coll.kernelVariant = nullptr;
    out.coll.isSymColl = false;
    out.coll.userTag = 0;
  }
  if (in.type == ncclProfileP2p) out.p2p.userTag = 0;
  if (in.type == ncclProfileCeColl) out.ceColl.userTag = 0;
  if (in.type == ncclProfileCollApi) out.collApi.userTag = 0;
  if (in.type == ncclProfileP2pApi) out.p2pApi.userTag = 0;
  return out;
}

}  // namespace railtune::emu
