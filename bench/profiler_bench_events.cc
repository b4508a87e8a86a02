#include "bench/profiler_bench_events.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "formats/net_event.h"

namespace railtune::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kBatch = 32;           // units per timed stretch: the clock is read twice per stretch
constexpr uint32_t kCollectiveBatch = 4;  // whole collectives per timed stretch
constexpr uint8_t kChannels = 2;          // the shape of a whole collective: channels ...
constexpr int kSteps = 4;                 // ... and network steps per ProxyOp (one send, one recv per channel)
constexpr size_t kStepBytes = size_t{512} << 10;
constexpr size_t kCount = size_t{1} << 20;  // elements of the benchmark's collectives (4 MiB of floats)

double sinceNs(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// Times stretches, less the clock's own cost per stretch: their sum, and each one per pair.
class Stopwatch {
 public:
  explicit Stopwatch(size_t stretches) : overheadNs_(clockOverheadNs()) {  // calibrated before any stretch
    perPairNs_.reserve(stretches);
  }
  void begin() { start_ = Clock::now(); }
  void end(uint32_t pairs) {
    const double ns = sinceNs(start_) - overheadNs_;
    totalNs_ += ns;
    perPairNs_.push_back(ns / pairs);
  }
  double totalNs() const { return totalNs_; }
  double medianPerPairNs() {
    if (perPairNs_.empty()) return 0;
    const auto middle = perPairNs_.begin() + static_cast<std::ptrdiff_t>(perPairNs_.size() / 2);
    std::nth_element(perPairNs_.begin(), middle, perPairNs_.end());
    return *middle;
  }

 private:
  const double overheadNs_;
  Clock::time_point start_;
  double totalNs_ = 0;
  std::vector<double> perPairNs_;
};

// What railtune's net plugin hands NCCL for a transfer (formats/net_event.h).
railtuneNetEventDescr_v1_t netDescr(bool send) {
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

// Calls one context's table with descriptors filled as NCCL fills them, one per call, on the stack.
class Driver {
 public:
  Driver(const ncclProfiler_v5_t& table, void* context)
      : table_(table), context_(context), pid_(getpid()), sendNet_(netDescr(true)), recvNet_(netDescr(false)) {}

  void* group() {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileGroup;
    return start(d);
  }
  void* coll(void* group, uint8_t nChannels) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileColl;
    d.coll = {seq_++, "AllReduce", nullptr, nullptr, kCount, 0, "ncclFloat32", nChannels, 16, "RING", "SIMPLE", group};
    return start(d);
  }
  void* p2p(void* group) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileP2p;
    d.p2p = {"Send", nullptr, "ncclFloat32", kCount, 1, 1, group};
    return start(d);
  }
  void* proxyOp(void* operation, uint8_t channel, bool send, int nSteps) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileProxyOp;
    d.parentObj = operation;
    d.proxyOp = {pid_, channel, 1, nSteps, static_cast<int>(kStepBytes), send ? 1 : 0};
    return start(d);
  }
  void* proxyStep(void* proxyOp, int step) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileProxyStep;
    d.parentObj = proxyOp;
    d.proxyStep.step = step;
    return start(d);
  }
  void* kernelCh(void* operation, uint8_t channel) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileKernelCh;
    d.parentObj = operation;
    d.kernelCh = {channel, 1000000};
    return start(d);
  }
  void* net(void* step, bool send) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileNetPlugin;
    d.parentObj = step;
    d.netPlugin = {RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION, send ? &sendNet_ : &recvNet_};
    return start(d);
  }
  void state(void* handle, ncclProfilerEventState_v5_t state, size_t transSize) {
    ncclProfilerEventStateArgs_v5_t args{};
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
  void* start(ncclProfilerEventDescr_v5_t& d) {
    void* handle = nullptr;
    (void)table_.startEvent(context_, &handle, &d);
    return handle;
  }

  const ncclProfiler_v5_t& table_;
  void* context_;
  pid_t pid_;
  uint64_t seq_ = 0;
  railtuneNetEventDescr_v1_t sendNet_, recvNet_;
};

// A collective enqueued on one channel (its Coll event stopped) with its kernel channel started: the
// parents of the ProxyOp, ProxyStep and NetPlugin benchmarks. close() completes it.
struct OpenCollective {
  explicit OpenCollective(Driver& d) : driver(d), coll(d.coll(nullptr, 1)) {
    driver.stop(coll);
    kernel = driver.kernelCh(coll, 0);
  }
  void close() { driver.stop(kernel); }
  Driver& driver;
  void* coll;
  void* kernel = nullptr;
};

// Every event of one collective in NCCL's order, timed as a whole; its last KernelCh stop completes it.
// Without `steps`, what NCCL sends for the default mask: no ProxyStep, no NetPlugin event.
void wholeCollective(Driver& d, bool steps) {
  void* group = d.group();
  void* coll = d.coll(group, kChannels);
  d.stop(coll);
  d.stop(group);
  std::array<void*, kChannels> kernels{};
  for (uint8_t ch = 0; ch < kChannels; ++ch) kernels[ch] = d.kernelCh(coll, ch);
  for (uint8_t ch = 0; ch < kChannels; ++ch) {
    for (const bool send : {true, false}) {
      void* op = d.proxyOp(coll, ch, send, kSteps);
      for (int s = 0; s < kSteps && steps; ++s) d.step(op, s, send, true);
      d.stop(op);
    }
  }
  for (void* kernel : kernels) d.stop(kernel);
}

// Coll or P2p pairs, as NCCL enqueues a run of operations; then each one's kernel channel completes it.
uint64_t operationBatch(Driver& d, EventKind kind, uint32_t n, Stopwatch& watch) {
  std::array<void*, kBatch> handles{};
  watch.begin();
  for (uint32_t i = 0; i < n; ++i) {
    handles[i] = kind == EventKind::Coll ? d.coll(nullptr, 1) : d.p2p(nullptr);
    d.stop(handles[i]);
  }
  watch.end(n);
  for (uint32_t i = 0; i < n; ++i) d.stop(d.kernelCh(handles[i], 0));
  return n;
}

// KernelCh pairs of one collective announcing n + 1 channels; the last one, untimed, completes it.
uint64_t kernelBatch(Driver& d, uint32_t n, Stopwatch& watch) {
  void* coll = d.coll(nullptr, static_cast<uint8_t>(n + 1));
  d.stop(coll);
  watch.begin();
  for (uint32_t i = 0; i < n; ++i) d.stop(d.kernelCh(coll, static_cast<uint8_t>(i)));
  watch.end(n);
  d.stop(d.kernelCh(coll, static_cast<uint8_t>(n)));
  return 1;
}

// ProxyOp, ProxyStep or NetPlugin pairs under an open collective with a send and a receive ProxyOp,
// which are then stopped, completing the collective.
uint64_t networkBatch(Driver& d, EventKind kind, uint32_t n, Stopwatch& watch) {
  OpenCollective open(d);
  void* send = d.proxyOp(open.coll, 0, true, static_cast<int>(n));
  void* recv = d.proxyOp(open.coll, 0, false, static_cast<int>(n));
  if (kind == EventKind::ProxyOp) {
    watch.begin();
    for (uint32_t i = 0; i < n; ++i) d.stop(d.proxyOp(open.coll, static_cast<uint8_t>(i & 1), (i & 2) != 0, kSteps));
    watch.end(n);
  } else if (kind == EventKind::ProxyStep) {
    watch.begin();
    for (uint32_t i = 0; i < n; ++i) d.step((i & 1) != 0 ? recv : send, static_cast<int>(i / 2), (i & 1) == 0, false);
    watch.end(n);
  } else {  // NetPlugin: one transfer after another inside an open step of each direction
    void* sendStep = d.proxyStep(send, 0);
    void* recvStep = d.proxyStep(recv, 0);
    watch.begin();
    for (uint32_t i = 0; i < n; ++i) d.stop(d.net((i & 1) != 0 ? recvStep : sendStep, (i & 1) == 0));
    watch.end(n);
    d.stop(sendStep);
    d.stop(recvStep);
  }
  d.stop(send);
  d.stop(recv);
  open.close();
  return 1;
}

// One timed stretch of n units and what it leaves to complete; returns the operations completed.
uint64_t batch(Driver& d, EventKind kind, uint32_t n, Stopwatch& watch) {
  switch (kind) {
    case EventKind::Group:
      watch.begin();
      for (uint32_t i = 0; i < n; ++i) d.stop(d.group());
      watch.end(n);
      return 0;
    case EventKind::Coll:
    case EventKind::P2p:
      return operationBatch(d, kind, n, watch);
    case EventKind::KernelCh:
      return kernelBatch(d, n, watch);
    case EventKind::Collective:
    case EventKind::CollectiveDefault:
      watch.begin();
      for (uint32_t i = 0; i < n; ++i) wholeCollective(d, kind == EventKind::Collective);
      watch.end(n * pairsPerUnit(kind));
      return n;
    case EventKind::ProxyOp:
    case EventKind::ProxyStep:
    case EventKind::NetPlugin:
      break;
  }
  return networkBatch(d, kind, n, watch);
}

}  // namespace

const char* eventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::Group:
      return "Group";
    case EventKind::Coll:
      return "Coll";
    case EventKind::P2p:
      return "P2p";
    case EventKind::ProxyOp:
      return "ProxyOp";
    case EventKind::ProxyStep:
      return "ProxyStep";
    case EventKind::KernelCh:
      return "KernelCh";
    case EventKind::NetPlugin:
      return "NetPlugin";
    case EventKind::Collective:
      return "Collective";
    case EventKind::CollectiveDefault:
      return "CollectiveDefault";
  }
  return "?";
}

uint32_t pairsPerUnit(EventKind kind) {
  // Group, Coll, a KernelCh per channel, a send and a recv ProxyOp per channel ...
  const uint32_t withoutSteps = 2 + kChannels + 2 * kChannels;
  if (kind == EventKind::CollectiveDefault) return withoutSteps;
  // ... each with kSteps ProxySteps, each step with one NetPlugin event.
  if (kind == EventKind::Collective) return withoutSteps + 2 * 2 * kChannels * kSteps;
  return 1;
}

RoundResult runRound(const ncclProfiler_v5_t& table, void* context, EventKind kind, uint64_t units) {
  const bool whole = kind == EventKind::Collective || kind == EventKind::CollectiveDefault;
  const uint32_t perBatch = whole ? kCollectiveBatch : kBatch;
  Driver driver(table, context);
  Stopwatch watch(static_cast<size_t>(units / perBatch + 1));
  RoundResult result;
  for (uint64_t done = 0; done < units;) {
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(perBatch, units - done));
    result.operationsCompleted += batch(driver, kind, n, watch);
    done += n;
  }
  result.timedNs = watch.totalNs();
  result.medianStretchNsPerPair = watch.medianPerPairNs();
  result.pairs = units * pairsPerUnit(kind);
  return result;
}

double clockOverheadNs() {
  static const double overhead = [] {
    std::vector<double> samples(20001);
    for (double& sample : samples) {
      const Clock::time_point start = Clock::now();
      sample = sinceNs(start);
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
  }();
  return overhead;
}

}  // namespace railtune::bench
