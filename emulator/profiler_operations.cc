// The operations a ProfilerSequence plays (ring AllReduce, Send/Recv), and NCCL's profiler callback
// for net plugins (profiler.cc ncclProfilerCallback), which reaches the process's one driver.
#include <atomic>

#include "emulator/profiler_sequence.h"

namespace railtune::emu {

EmulatedOperation ringAllReduce(int rank, int nRanks, int nChannels, int peersPerChannel, int nSteps, size_t bytes) {
  EmulatedOperation op;
  op.func = "AllReduce";
  op.count = bytes / 4;
  op.nChannels = nChannels;
  op.nSteps = nSteps;
  for (int c = 0; c < nChannels; ++c) {
    for (int k = 1; k <= peersPerChannel; ++k) {
      for (bool send : {true, false}) {
        ProxyFlow flow;
        flow.channel = c;
        flow.peer = ((send ? rank + k : rank - k) % nRanks + nRanks) % nRanks;
        flow.send = send;
        flow.nic.device = c;
        flow.nic.hca = "mlx5_" + std::to_string(c);
        flow.nic.rail = c;
        flow.nic.connection = static_cast<uint64_t>(op.flows.size() + 1);
        flow.nic.peerHost = "rank" + std::to_string(flow.peer);
        op.flows.push_back(flow);
      }
    }
  }
  return op;
}

EmulatedOperation p2pOperation(bool send, int rank, int peer, size_t bytes, int nChannels, int nSteps) {
  EmulatedOperation op;
  op.p2p = true;
  op.func = send ? "Send" : "Recv";
  op.count = bytes;
  op.datatype = "ncclInt8";
  op.peer = peer;
  op.algo.clear();
  op.nChannels = nChannels;
  op.nSteps = nSteps;
  for (int c = 0; c < nChannels; ++c) {
    ProxyFlow flow;
    flow.channel = c;
    flow.peer = peer;
    flow.send = send;
    flow.nic.device = c;
    flow.nic.hca = "mlx5_" + std::to_string(c);
    flow.nic.rail = c;
    flow.nic.connection = static_cast<uint64_t>(rank * 1000 + c + 1);
    flow.nic.peerHost = "rank" + std::to_string(peer);
    op.flows.push_back(flow);
  }
  return op;
}

namespace {
std::atomic<ProfilerDriver*> netProfilerDriver{nullptr};
}  // namespace

void setNetProfilerDriver(ProfilerDriver* driver) {
  netProfilerDriver.store(driver);
}

// profiler.cc's ncclProfilerCallback: Stop passes *eHandle on unchecked, as NCCL does.
ncclResult_t netProfilerCallback(void** eHandle, int type, void* pHandle, int64_t pluginId, void* extData) {
  ProfilerDriver* driver = netProfilerDriver.load();
  if (driver == nullptr || eHandle == nullptr) return ncclSuccess;
  if (type == ncclProfilerNetEventStart) {
    const auto* proxy = static_cast<const ProxyEventHandle*>(pHandle);
    ncclProfilerEventDescr_v7_t d{};
    d.type = ncclProfileNetPlugin;
    d.parentObj = proxy != nullptr ? proxy->stepEventHandle : nullptr;
    d.rank = proxy != nullptr ? proxy->rank : -1;
    d.netPlugin.id = pluginId;
    d.netPlugin.data = extData;
    return driver->startEvent(&d, eHandle);
  }
  if (type == ncclProfilerNetEventStop) return driver->stopEvent(*eHandle);
  if (type == ncclProfilerNetEventUpdate || type == ncclProfilerNetEventUpdateAndStop) {
    ncclProfilerEventStateArgs_v7_t args{};
    args.netPlugin.data = extData;
    const ncclResult_t r = driver->recordEventState(*eHandle, ncclProfilerNetPluginUpdate, &args);
    if (type == ncclProfilerNetEventUpdate || r != ncclSuccess) return r;
    return driver->stopEvent(*eHandle);
  }
  return ncclSuccess;
}

}  // namespace railtune::emu
