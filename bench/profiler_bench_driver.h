// How bench_profiler_events calls a profiler's table: one method per NCCL event, each descriptor
// filled as NCCL fills it, one per call, on the stack. One Driver per ABI (profiler_bench_table.h);
// under v7 the Coll and P2p events carry the application's tag, and the 2.31-only calls (the state a
// KernelCh stop records, KernelPhase events) exist.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "bench/profiler_bench_table.h"
#include "formats/net_event.h"

namespace railtune::bench {

inline constexpr size_t kStepBytes = size_t{512} << 10;
inline constexpr size_t kCount = size_t{1} << 20;  // elements of the benchmark's collectives (4 MiB of floats)

// What railtune's net plugin hands NCCL for a transfer (formats/net_event.h).
inline railtuneNetEventDescr_v1_t benchNetDescr(bool send) {
  railtuneNetEventDescr_v1_t d{};
  d.type = send ? railtuneNetEventSend : railtuneNetEventRecv;
  d.connection = send ? 7 : 8;
  d.device = 3;
  d.hca = "mlx5_3";
  d.netdev = "ibp3s0";
  d.rail = 3;
  d.plane = 0;
  d.peerHost = "gb300-r01-t06";
  d.peerRank = 1;
  d.bytes = kStepBytes;
  return d;
}

template <typename Table>
class Driver {
 public:
  using Descr = typename ProfilerAbi<Table>::Descr;
  using Args = typename ProfilerAbi<Table>::StateArgs;
  static constexpr bool kV7 = ProfilerAbi<Table>::kVersion >= 7;

  Driver(const Table& table, void* context)
      : table_(table),
        context_(context),
        pid_(getpid()),
        sendNet_(benchNetDescr(true)),
        recvNet_(benchNetDescr(false)) {}

  void* group() {
    Descr d = typed(ncclProfileGroup);
    return start(d);
  }
  // An API event (GroupApi, CollApi: NCCL starts them for every collective call when Coll is in the mask,
  // and stops them only when the handle is non-NULL).
  void* api(uint64_t type) {
    Descr d = typed(type);
    if constexpr (kV7) {
      if (type == ncclProfileCollApi) d.collApi = {"AllReduce", kCount, "ncclFloat32", -1, nullptr, false, tag()};
    }
    return start(d);
  }
  void* coll(void* group, uint8_t nChannels) {
    Descr d = typed(ncclProfileColl);
    d.coll.seqNumber = seq_++;
    d.coll.func = "AllReduce";
    d.coll.count = kCount;
    d.coll.datatype = "ncclFloat32";
    d.coll.nChannels = nChannels;
    d.coll.nWarps = 16;
    d.coll.algo = "RING";
    d.coll.proto = "SIMPLE";
    d.coll.parentGroup = group;
    if constexpr (kV7) d.coll.userTag = tag();  // kernelVariant NULL, isSymColl false: a tuned kernel
    return start(d);
  }
  void* p2p(void* group) {
    Descr d = typed(ncclProfileP2p);
    d.p2p.func = "Send";
    d.p2p.datatype = "ncclFloat32";
    d.p2p.count = kCount;
    d.p2p.peer = 1;
    d.p2p.nChannels = 1;
    d.p2p.parentGroup = group;
    if constexpr (kV7) d.p2p.userTag = tag();
    return start(d);
  }
  void* proxyOp(void* operation, uint8_t channel, bool send, int nSteps) {
    Descr d = typed(ncclProfileProxyOp, operation);
    d.proxyOp = {pid_, channel, 1, nSteps, static_cast<int>(kStepBytes), send ? 1 : 0};
    return start(d);
  }
  void* proxyStep(void* proxyOp, int step) {
    Descr d = typed(ncclProfileProxyStep, proxyOp);
    d.proxyStep.step = step;
    return start(d);
  }
  void* kernelCh(void* operation, uint8_t channel) {
    Descr d = typed(ncclProfileKernelCh, operation);
    d.kernelCh = {channel, gpuNs_ += 100};
    return start(d);
  }
  // NCCL 2.31's KernelCh stop (profiler.cc, ncclProfilerStopKernelChEvent@v2.31.2): the GPU end time in a
  // KernelChStop state, then the stop.
  void kernelChStop(void* handle) {
    if (handle == nullptr) return;
    Args args{};
    args.kernelCh.pTimer = gpuNs_ += 100;
    (void)table_.recordEventState(handle, ncclProfilerKernelChStop, &args);
    stop(handle);
  }
  // One phase of a kernel channel as NCCL 2.31 fires it (profilerFireKernelPhaseEvents@v2.31.2): start with
  // the GPU start time, a KernelPhaseStop state with the GPU end time in kernelCh.pTimer, stop.
  void phase(void* kernelCh, uint8_t channel, uint8_t phaseId) requires kV7 {
    static constexpr const char* kNames[] = {"initial_sync", "compute", "final_sync"};
    Descr d = typed(ncclProfileKernelPhase, kernelCh);
    d.kernelPhase = {channel, phaseId, kNames[phaseId % 3], gpuNs_};
    void* handle = start(d);
    if (handle == nullptr) return;
    Args end{};
    end.kernelCh.pTimer = gpuNs_ += 1000;
    (void)table_.recordEventState(handle, ncclProfilerKernelPhaseStop, &end);
    stop(handle);
  }
  void* net(void* step, bool send) {
    Descr d = typed(ncclProfileNetPlugin, step);
    d.netPlugin = {RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION, send ? &sendNet_ : &recvNet_};
    return start(d);
  }
  void state(void* handle, ncclProfilerEventState_t state, size_t transSize) {
    Args args{};
    args.proxyStep.transSize = transSize;
    (void)table_.recordEventState(handle, state, &args);
  }
  void stop(void* handle) { (void)table_.stopEvent(handle); }

  // A network step as NCCL's proxy runs it: start, its states (the bytes when sent or received),
  // stop; with `withNet` the net plugin's event for its transfer inside it.
  void step(void* proxyOp, int index, bool send, bool withNet) {
    void* handle = proxyStep(proxyOp, index);
    void* transfer = nullptr;
    if (send) {
      state(handle, ncclProfilerProxyStepSendGPUWait, 0);
      state(handle, ncclProfilerProxyStepSendPeerWait_v4, 0);
      if (withNet) transfer = net(handle, true);
      state(handle, ncclProfilerProxyStepSendWait, kStepBytes);
    } else {
      if (withNet) transfer = net(handle, false);
      state(handle, ncclProfilerProxyStepRecvWait, 0);
      state(handle, ncclProfilerProxyStepRecvFlushWait, kStepBytes);
      state(handle, ncclProfilerProxyStepRecvGPUWait, 0);
    }
    if (withNet) stop(transfer);
    stop(handle);
  }

 private:
  static Descr typed(uint64_t type, void* parent = nullptr) {
    Descr d{};
    d.type = type;
    d.parentObj = parent;
    return d;
  }
  // A training step's phases (forward, backward, optimizer), as an application tags its calls.
  uint64_t tag() const { return 1 + seq_ % 3; }
  void* start(Descr& d) {
    void* handle = nullptr;
    (void)table_.startEvent(context_, &handle, &d);
    return handle;
  }

  const Table& table_;
  void* context_;
  pid_t pid_;
  uint64_t seq_ = 0;
  uint64_t gpuNs_ = 1;  // the GPU timer of KernelCh and KernelPhase events: always later
  railtuneNetEventDescr_v1_t sendNet_, recvNet_;
};

}  // namespace railtune::bench
