#include "bench/profiler_bench_events.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "bench/profiler_bench_driver.h"

namespace railtune::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kBatch = 32;           // units per timed stretch: the clock is read twice per stretch
constexpr uint32_t kCollectiveBatch = 4;  // whole collectives per timed stretch
constexpr uint8_t kChannels = 2;          // the shape of a whole collective: channels ...
constexpr int kSteps = 4;                 // ... and network steps per ProxyOp (one send, one recv per channel)

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

// A collective enqueued on one channel (its Coll event stopped) with its kernel channel started: the
// parents of the ProxyOp, ProxyStep and NetPlugin benchmarks. close() completes it.
template <typename Table>
struct OpenCollective {
  explicit OpenCollective(Driver<Table>& d) : driver(d), coll(d.coll(nullptr, 1)) {
    driver.stop(coll);
    kernel = driver.kernelCh(coll, 0);
  }
  void close() { driver.stop(kernel); }
  Driver<Table>& driver;
  void* coll;
  void* kernel = nullptr;
};

// Every event of one collective in NCCL 2.30's order, timed as a whole; its last KernelCh stop completes
// it. Without `steps`, what NCCL sends for the default mask: no ProxyStep, no NetPlugin event.
template <typename Table>
void wholeCollective(Driver<Table>& d, bool steps) {
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

// One collective as NCCL 2.31 reports it for railtune's default mask (profiler.cc@v2.31.2): the API events
// of the call (ncclProfilerStartGroupApiEvent, ncclProfilerStartCollApiEvent), then the plan's Group and
// Coll (ncclProfilerStartGroupEvent, ncclProfilerStartTaskEvents); a handle railtune answers NULL gets no
// stop. The profiler thread starts each channel's KernelCh when the kernel starts and, when it completes,
// fires the channel's phases (v7) before the KernelCh stop state and stop (profilerProgressOps,
// profilerFireKernelPhaseEvents); the proxy's ProxyOps run in between.
template <typename Table>
void defaultCollective231(Driver<Table>& d) {
  for (const uint64_t api : {uint64_t{ncclProfileGroupApi}, uint64_t{ncclProfileCollApi}}) {
    if (void* handle = d.api(api)) d.stop(handle);
  }
  void* group = d.group();
  void* coll = d.coll(group, kChannels);
  d.stop(coll);
  if (group != nullptr) d.stop(group);
  std::array<void*, kChannels> kernels{};
  for (uint8_t ch = 0; ch < kChannels; ++ch) kernels[ch] = d.kernelCh(coll, ch);
  for (uint8_t ch = 0; ch < kChannels; ++ch) {
    for (const bool send : {true, false}) d.stop(d.proxyOp(coll, ch, send, kSteps));
  }
  for (uint8_t ch = 0; ch < kChannels; ++ch) {
    if constexpr (Driver<Table>::kV7) {
      for (uint8_t phase = 0; phase < 3; ++phase) d.phase(kernels[ch], ch, phase);
    }
    d.kernelChStop(kernels[ch]);
  }
}

// Coll or P2p pairs, as NCCL enqueues a run of operations; then each one's kernel channel completes it.
template <typename Table>
uint64_t operationBatch(Driver<Table>& d, EventKind kind, uint32_t n, Stopwatch& watch) {
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
template <typename Table>
uint64_t kernelBatch(Driver<Table>& d, uint32_t n, Stopwatch& watch) {
  void* coll = d.coll(nullptr, static_cast<uint8_t>(n + 1));
  d.stop(coll);
  watch.begin();
  for (uint32_t i = 0; i < n; ++i) d.stop(d.kernelCh(coll, static_cast<uint8_t>(i)));
  watch.end(n);
  d.stop(d.kernelCh(coll, static_cast<uint8_t>(n)));
  return 1;
}

// KernelPhase pairs (start, KernelPhaseStop state, stop), three per channel, under the open KernelCh
// events of one enqueued collective announcing a channel per three phases; the KernelCh stops, untimed,
// complete it.
template <typename Table>
uint64_t phaseBatch(Driver<Table>& d, uint32_t n, Stopwatch& watch) {
  if constexpr (!Driver<Table>::kV7) {
    throw ProfilerBenchError("KernelPhase events exist from profiler v7 on");
  } else {
    const uint32_t channels = (n + 2) / 3;
    void* coll = d.coll(nullptr, static_cast<uint8_t>(channels));
    d.stop(coll);
    std::array<void*, (kBatch + 2) / 3> kernels{};
    for (uint32_t ch = 0; ch < channels; ++ch) kernels[ch] = d.kernelCh(coll, static_cast<uint8_t>(ch));
    watch.begin();
    for (uint32_t i = 0; i < n; ++i) d.phase(kernels[i / 3], static_cast<uint8_t>(i / 3), static_cast<uint8_t>(i % 3));
    watch.end(n);
    for (uint32_t ch = 0; ch < channels; ++ch) d.kernelChStop(kernels[ch]);
    return 1;
  }
}

// ProxyOp, ProxyStep or NetPlugin pairs under an open collective with a send and a receive ProxyOp,
// which are then stopped, completing the collective.
template <typename Table>
uint64_t networkBatch(Driver<Table>& d, EventKind kind, uint32_t n, Stopwatch& watch) {
  OpenCollective<Table> open(d);
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
template <typename Table>
uint64_t batch(Driver<Table>& d, EventKind kind, uint32_t n, Stopwatch& watch) {
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
    case EventKind::KernelPhase:
      return phaseBatch(d, n, watch);
    case EventKind::Collective:
    case EventKind::CollectiveDefault:
      watch.begin();
      for (uint32_t i = 0; i < n; ++i) {
        if (kind == EventKind::CollectiveDefault && ProfilerAbi<Table>::kVersion >= 6) {
          defaultCollective231(d);
        } else {
          wholeCollective(d, kind == EventKind::Collective);
        }
      }
      watch.end(n * pairsPerUnit(kind, ProfilerAbi<Table>::kVersion));
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
    case EventKind::KernelPhase:
      return "KernelPhase";
  }
  return "?";
}

uint32_t pairsPerUnit(EventKind kind, int abiVersion) {
  // Group, Coll, a KernelCh per channel, a send and a recv ProxyOp per channel ...
  const uint32_t withoutSteps = 2 + kChannels + 2 * kChannels;
  if (kind == EventKind::CollectiveDefault && abiVersion >= 6) {
    // ... NCCL 2.31: no Group pair (started, answered NULL, never stopped), three phases per channel (v7).
    return withoutSteps - 1 + (abiVersion >= 7 ? 3 * kChannels : 0);
  }
  if (kind == EventKind::CollectiveDefault) return withoutSteps;
  // ... each with kSteps ProxySteps, each step with one NetPlugin event.
  if (kind == EventKind::Collective) return withoutSteps + 2 * 2 * kChannels * kSteps;
  return 1;
}

template <typename Table>
RoundResult runRound(const Table& table, void* context, EventKind kind, uint64_t units) {
  const bool whole = kind == EventKind::Collective || kind == EventKind::CollectiveDefault;
  const uint32_t perBatch = whole ? kCollectiveBatch : kBatch;
  Driver<Table> driver(table, context);
  Stopwatch watch(static_cast<size_t>(units / perBatch + 1));
  RoundResult result;
  for (uint64_t done = 0; done < units;) {
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(perBatch, units - done));
    result.operationsCompleted += batch(driver, kind, n, watch);
    done += n;
  }
  result.timedNs = watch.totalNs();
  result.medianStretchNsPerPair = watch.medianPerPairNs();
  result.pairs = units * pairsPerUnit(kind, ProfilerAbi<Table>::kVersion);
  return result;
}

template RoundResult runRound(const ncclProfiler_v5_t&, void*, EventKind, uint64_t);
template RoundResult runRound(const ncclProfiler_v6_t&, void*, EventKind, uint64_t);
template RoundResult runRound(const ncclProfiler_v7_t&, void*, EventKind, uint64_t);

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
