// NCCL's profiler event order for one group of operations, played through a ProfilerDriver so that
// the real profiler library receives what NCCL 2.28/2.30/2.31 would send it: the API events (GroupApi,
// CollApi/P2pApi, KernelLaunch; v5+) from the application thread, the Group and Coll/P2p task events
// at launch, then from the proxy thread the ProxyOp events per channel and peer, their ProxySteps with
// their states, the net plugin's NetPlugin events under the steps (railtune's own descriptor,
// formats/net_event.h) and the KernelCh events per channel (v3+; GPU timers from v4).
//
// Descriptors are built as the newest version and the driver narrows them for the bound version,
// dropping what that version does not know, exactly as NCCL's adapters do; the activation mask
// filters events as NCCL does. Concurrent threads are serialised in one order NCCL can produce:
// everything the application thread does first (the task events stop meaning "enqueued"), then the
// proxy's work, with several steps outstanding across channels at once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "emulator/profiler_driver.h"

namespace railtune::emu {

// What the net plugin reports about the NIC that carries one flow.
struct NetNic {
  uint64_t connection = 0;
  int device = 0;
  std::string hca = "mlx5_0";
  std::string netdev;
  int rail = -1;
  int plane = -1;
  std::string peerHost = "peer";
};

// One network operation of the proxy: a channel, a peer and a direction.
struct ProxyFlow {
  int channel = 0;
  int peer = 0;
  bool send = true;
  NetNic nic;
};

// One NCCL call (ncclAllReduce, ncclSend, ...) and the network work it produces on this rank.
struct EmulatedOperation {
  bool p2p = false;                // ncclSend/ncclRecv: P2p events; else a collective: Coll events
  std::string func = "AllReduce";  // NCCL's names: "AllReduce", "Send", "Recv", ...
  size_t count = 0;
  std::string datatype = "ncclFloat32";
  int root = 0;               // collectives
  int peer = -1;              // P2p
  std::string algo = "RING";  // collectives
  std::string proto = "SIMPLE";
  int nChannels = 1;
  int nWarps = 16;
  int nSteps = 4;                // network steps per flow, as the profiler sees them
  int chunkSize = 1 << 19;       // bytes per step
  std::vector<ProxyFlow> flows;  // in the order NCCL appends them (by channel)
  int stallAtStep = -1;          // >= 0: every flow stops at this step (posted, never done): a hang
  // The variants of NCCL's event order (docs/profiler.md cites the source of each):
  // the channel count the Coll/P2p descriptor announces (-1: nChannels; CollNet announces 0 and still runs
  // its KernelCh per channel);
  int announcedChannels = -1;
  // false: no Coll/P2p event and no children at all, only the API events (symmetric-memory kernels,
  // copy-engine collectives, grouped broadcasts: symmetric_sched.cc, ce_coll.cc, allgatherv_sched.cc);
  bool taskEvent = true;
  // true: the Coll/P2p events stop after the proxy's children (NCCL stops them at launch, before the
  // proxy; a plan launched while the proxy already runs an earlier op can see the other order).
  bool stopTaskLast = false;
  // NCCL 2.31 (profiler v7 carries them; older versions' adapters drop them): the application's tag of the
  // call (ncclCollConfig_t userProfilerTag: CollApi/P2pApi, Coll/P2p);
  uint64_t userTag = 0;
  // a symmetric-memory kernel ran the collective: 2.31 gives it a Coll event with isSymColl, the kernel's
  // name as kernelVariant ("AGxLL_R"), algo the part after '_', proto "" (profiler.cc
  // ncclProfilerStartTaskEvents@v2.31.2); earlier releases give it no task event at all (taskEvent false);
  bool symmetric = false;
  std::string kernelVariant = "AGxLL_R";
  // the kernel's barrier phases per channel, GPU nanoseconds of initial sync, compute, final sync: 2.31
  // sends one KernelPhase event per channel and phase under the channel's KernelCh, before its stop, and
  // none for a phase of zero duration (profiler.cc profilerFireKernelPhaseEvents@v2.31.2). Empty: the
  // kernel times no phases. phaseIds overrides the ids sent (tests of ids NCCL does not define).
  std::vector<std::array<uint64_t, 3>> phaseNs;
  std::vector<int> phaseIds = {0, 1, 2};
};
// A Send or Recv whose peer is the rank itself gets no proxy op of any kind (enqueue.cc,
// scheduleP2pTasksToPlan: nProxyOps = selfSend ? 0 : 2): no ProxyOp, no KernelCh. The sequence applies
// that rule itself, whatever flows the operation lists.

// AllReduce on a ring: on each of nChannels channels, peersPerChannel sends (to rank+1, rank+2, ...)
// and as many receives (from rank-1, ...), each of nSteps steps; NICs numbered by channel.
EmulatedOperation ringAllReduce(int rank, int nRanks, int nChannels, int peersPerChannel, int nSteps, size_t bytes);
// ncclSend (send = true) or ncclRecv of `bytes` with `peer` over nChannels channels of nSteps steps.
EmulatedOperation p2pOperation(bool send, int rank, int peer, size_t bytes, int nChannels, int nSteps);

// NCCL's ncclProxyEventHandle: what NCCL hands a net plugin as `phandle` with each isend/irecv
// buffer, naming the ProxyStep event a NetPlugin event goes under.
struct ProxyEventHandle {
  void* stepEventHandle = nullptr;
  int rank = -1;
};

// NCCL's ncclProfilerCallback, the profFunction a net plugin (v10+) receives at init: Start puts a
// NetPlugin event under the step named by pHandle (a ProxyEventHandle*), Stop/Update/UpdateAndStop
// act on *eHandle. Like NCCL's, it reaches the one profiler of the process: the driver given to
// setNetProfilerDriver (none: every call succeeds and does nothing).
ncclResult_t netProfilerCallback(void** eHandle, int type, void* pHandle, int64_t pluginId, void* extData);
void setNetProfilerDriver(ProfilerDriver* driver);

// Where the network steps go when a real net plugin carries them instead of the sequence
// synthesising railtune's NetPlugin events: post() is the proxy's isend/irecv of one step (pass
// `phandle` on, and initialise the net plugin with netProfilerCallback), complete() tests it until done,
// or returns false when the job was aborted: NCCL's proxy then drives the operation no further and
// stops none of its events (net.cc stops a ProxyOp only when its last step is done), so they stay open.
class NetTransfers {
 public:
  virtual ~NetTransfers() = default;
  virtual void post(const ProxyFlow& flow, int step, size_t bytes, void* phandle) = 0;
  virtual bool complete(const ProxyFlow& flow, int step) = 0;
  // Before the kernel's channels stop: returns once the kernel (the collective) has ended, true when it
  // succeeded; false when the job was aborted under it (its KernelCh events then stay open).
  virtual bool kernelEnded() { return true; }
};

struct SequenceStats {
  int starts = 0;   // startEvent calls that reached the plugin's version
  int handles = 0;  // of which returned a non-NULL handle
  int stops = 0;
  int states = 0;    // recordEventState calls
  int failures = 0;  // calls that did not return ncclSuccess
};

class ProfilerSequence {
 public:
  // The driver must be initialised for the communicator (driver.init) before run().
  ProfilerSequence(ProfilerDriver& driver, int rank);

  // One group: with more than one operation, as the application writes it between ncclGroupStart
  // and ncclGroupEnd; one operation alone, as a plain call (NCCL's implicit group).
  SequenceStats run(std::span<const EmulatedOperation> group);
  SequenceStats run(const EmulatedOperation& operation) { return run(std::span(&operation, 1)); }

  // From now on the steps' transfers go through `transfers` (not owned; NULL: synthesised events).
  void setNetTransfers(NetTransfers* transfers) { transfers_ = transfers; }

 private:
  struct Task;  // one operation's handles through the group
  struct Flow;  // one ProxyOp's handles

  void* start(ncclProfilerEventDescr_v7_t& descr);
  void stop(void* handle);
  void state(void* handle, ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v7_t* args);
  bool v231() const { return driver_.behaviour() >= NcclBehaviour::V2_31; }
  void setCollDescriptor(const EmulatedOperation& op, ncclProfilerEventDescr_v7_t& d);
  uint64_t kernelPhases(Task& task, size_t channel);

  void apiCall(Task& task, int& groupDepth);
  void groupEnd(int& groupDepth, std::vector<Task>& tasks);
  void launch(std::vector<Task>& tasks);
  void startTask(Task& task, void* group);
  void proxy(std::vector<Task>& tasks);
  void startProxyOp(Task& task, Flow& flow);
  void startKernelChannels(Task& task);
  void postStep(Task& task, Flow& flow, int step);
  bool completeStep(Task& task, Flow& flow, int step);
  void postTransfer(Flow& flow, int step, size_t bytes);
  void* netEvent(Flow& flow, void* stepHandle, size_t bytes);
  void finishTask(Task& task);

  NetTransfers* transfers_ = nullptr;
  ProfilerDriver& driver_;
  int rank_;
  int pid_;
  std::map<std::string, uint64_t> seqNumbers_;  // NCCL's comm->seqNumber[func]
  // NCCL's thread-local ncclProfilerApiState: one GroupApi event for the outermost group.
  void* groupApi_ = nullptr;
  int profilerGroupDepth_ = 0;
  int groupApiState_ = 0;                // 0 reset, 1 started, 2 start-API stopped
  uint64_t gpuClockNs_ = 1'000'000'000;  // the kernel's globaltimer, advanced per channel event
  SequenceStats stats_;
};

}  // namespace railtune::emu
